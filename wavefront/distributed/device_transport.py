"""Transports for device (CuPy) buffers: NCCL, or host staging over MPI.

The GPU search (:mod:`.gpu`) calls a :class:`DeviceTransport` for the
collectives that move device arrays (frontier bitmaps, the fold's pairs,
counts); everything else (small objects, barriers, the counts an
all-to-all-v needs on the host) goes through the group's host
:class:`~.transport.Transport`, which also bootstraps NCCL.

* :class:`NCCLTransport` moves device buffers with ``cupy.cuda.nccl`` on the
  current stream: all-gather, all-reduce, and all-gather-v, all-to-all-v and
  sendrecv as grouped send/recv pairs (NCCL has neither v collective), and
  :meth:`DeviceTransport.allgather_into` (every rank's part straight to its
  place in a larger buffer, on a stream of the caller's: the overlapped
  column all-gather of :mod:`.gpu`) likewise. Rank 0 of the group
  makes the NCCL unique id and broadcasts it over MPI
  (``Transport.bcast_object``); every rank then joins the communicator.
  A one-rank communicator works (the P = 1 run on one GPU).
* :class:`StagedTransport` copies device buffers to the host, runs the host
  transport's collective (MPI), and copies the result back: the path when
  NCCL cannot run. NCCL refuses two ranks on one GPU
  (``ncclInvalidUsage``: duplicate GPU), so ``P = 2`` ranks sharing the single
  GPU of a test machine need it, as do machines without NCCL. Its
  ``allgather_into`` is synchronous: the host waits for ``send`` on the
  given stream, so nothing overlaps there, but the results are the same.

:func:`make_device_transports` makes the world's, the grid row's and the grid
column's, of one kind: ``"nccl"``, ``"mpi"``, or ``"auto"`` (NCCL where it is
available and no two ranks of the world share a GPU, else MPI; every rank
reaches the same choice from the same allgathered facts).

Bytes are counted as the host transports count them (payload handed to and
received from other ranks), so the trace's model checks hold on either.
"""
from __future__ import annotations

import itertools
from abc import ABC, abstractmethod

import numpy as np

from .transport import Transport

TRANSPORTS = ("auto", "nccl", "mpi")
REDUCTIONS = ("sum", "max", "min")


class DeviceTransport(ABC):
    """Collectives on 1-D contiguous CuPy arrays of a group of ``size`` ranks."""

    kind = ""

    def __init__(self, host: Transport):
        self.host = host
        self.rank, self.size = host.rank, host.size
        self.bytes_out = 0
        self.bytes_in = 0

    def _count(self, out: int, into: int) -> None:
        self.bytes_out += int(out)
        self.bytes_in += int(into)

    def add_bytes(self, out: int, into: int) -> None:
        """Count the payload of a collective replayed in a captured CUDA
        graph (its capture moved nothing and is not counted)."""
        self._count(out, into)

    # A one-rank group moves nothing: each collective hands back its input
    # (the same array, so callers treat results as read-only) without an
    # NCCL launch or a host round trip. The P = 1 search makes five such
    # calls a level; through NCCL on an H100 they took 0.15-0.2 ms of each
    # level (SCALE 24-26, docs/decisions/distributed.md).
    def allgather(self, send):
        """Concatenation of every rank's ``send`` (all equally long), in rank order."""
        return send if self.size == 1 else self._allgather(send)

    def allgatherv(self, send, counts, out=None):
        """Every rank's ``send`` (``counts[r]`` elements from rank ``r``;
        host counts every rank knows) concatenated in rank order, into
        ``out`` (a device array of at least ``sum(counts)`` elements; default
        a new one). Returns the filled part."""
        counts = np.asarray(counts, dtype=np.int64)
        if counts.shape != (self.size,) or int(counts[self.rank]) != send.shape[0]:
            raise ValueError(f"counts {counts.tolist()} do not describe rank {self.rank}'s {send.shape[0]} elements "
                             f"among {self.size} ranks")
        total = int(counts.sum())
        if out is None:
            import cupy

            out = cupy.empty(total, dtype=send.dtype)
        elif out.shape[0] < total or out.dtype != send.dtype:
            raise ValueError(f"out holds {out.shape[0]} {out.dtype} elements; {total} {send.dtype} arrive")
        if self.size == 1:
            _copy(out[:total], send)
        else:
            self._allgatherv(send, counts, out)
        return out[:total]

    def allgather_into(self, send, out, offsets, stream=None) -> None:
        """Every rank's ``send`` (the same length on every rank) into ``out``
        at element ``offsets[r]`` for rank ``r`` (this rank's own part
        included; the parts must not overlap), on ``stream`` (a CuPy stream;
        default the current one), which must already be ordered after the
        writes of ``send``. NCCL only enqueues the transfer (the caller
        orders its next reads of ``out`` after ``stream``); host staging
        returns once ``out`` is written. A world of one is a copy."""
        offsets = [int(o) for o in offsets]
        length = int(send.shape[0])
        if len(offsets) != self.size:
            raise ValueError(f"offsets {offsets} name {len(offsets)} ranks; the group has {self.size}")
        if out.dtype != send.dtype:
            raise ValueError(f"out holds {out.dtype} elements; {send.dtype} arrive")
        ordered = sorted(offsets)
        if ordered[0] < 0 or ordered[-1] + length > out.shape[0] or any(
                b - a < length for a, b in itertools.pairwise(ordered)):
            raise ValueError(f"offsets {offsets} do not place {self.size} disjoint parts of {length} elements "
                             f"in out's {out.shape[0]}")
        import cupy

        stream = cupy.cuda.get_current_stream() if stream is None else stream
        mine = offsets[self.rank]
        if self.size == 1:
            _copy(out[mine : mine + length], send, stream)
            return
        self._allgather_into(send, out, offsets, stream)

    def alltoallv(self, send, counts: np.ndarray):
        """``send`` holds consecutive parts of ``counts[r]`` elements (host
        counts) for rank ``r``; returns the parts addressed here, in source-rank
        order, and their host counts."""
        if self.size == 1:
            counts = np.asarray(counts, dtype=np.int64)
            if counts.shape != (1,) or int(counts[0]) != send.shape[0]:
                raise ValueError(f"counts {counts.tolist()} do not describe {send.shape[0]} elements for 1 rank")
            return send, counts
        return self._alltoallv(send, counts)

    def allreduce(self, send, op: str = "sum"):
        """Element-wise ``op`` (sum, max, min) of every rank's ``send``."""
        if op not in REDUCTIONS:
            raise ValueError(f"device all-reduce takes {', '.join(REDUCTIONS)}, not {op!r}")
        return send if self.size == 1 else self._allreduce(send, op)

    def sendrecv(self, send, dest: int, source: int):
        """Send ``send`` to ``dest``, receive as many elements of its dtype from ``source``."""
        return send if dest == self.rank and source == self.rank else self._sendrecv(send, dest, source)

    @abstractmethod
    def _allgather(self, send):
        """:meth:`allgather` over two or more ranks."""

    @abstractmethod
    def _allgatherv(self, send, counts: np.ndarray, out) -> None:
        """:meth:`allgatherv` over two or more ranks, into ``out``."""

    @abstractmethod
    def _allgather_into(self, send, out, offsets: list, stream) -> None:
        """:meth:`allgather_into` over two or more ranks."""

    @abstractmethod
    def _alltoallv(self, send, counts: np.ndarray):
        """:meth:`alltoallv` over two or more ranks."""

    @abstractmethod
    def _allreduce(self, send, op: str):
        """:meth:`allreduce` over two or more ranks."""

    @abstractmethod
    def _sendrecv(self, send, dest: int, source: int):
        """:meth:`sendrecv` where a peer is another rank."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}(rank={self.rank}, size={self.size})"


def _copy(into, send, stream=None) -> None:
    """``into[...] = send`` (contiguous device arrays of one dtype and length)
    as one asynchronous copy on ``stream`` (default the current one), none
    where ``send`` already lies there (a caller that wrote its part in
    place): CuPy's slice assignment cost 10-30 us of host time a call."""
    import cupy

    if into.shape != send.shape or into.dtype != send.dtype:
        raise ValueError(f"copy of {send.shape} {send.dtype} into {into.shape} {into.dtype}")
    if not send.nbytes or into.data.ptr == send.data.ptr:
        return
    stream = cupy.cuda.get_current_stream() if stream is None else stream
    if not (into.flags.c_contiguous and send.flags.c_contiguous):
        with stream:
            into[...] = send
        return
    cupy.cuda.runtime.memcpyAsync(into.data.ptr, send.data.ptr, send.nbytes, cupy.cuda.runtime.memcpyDeviceToDevice,
                                  stream.ptr)


class StagedTransport(DeviceTransport):
    """Device buffers through host copies and the host transport (MPI)."""

    kind = "mpi"

    def _back(self, host_array):
        import cupy

        return cupy.asarray(host_array)

    def _allgather(self, send):
        out = self._back(self.host.allgather(send.get()))
        self._count(send.nbytes * (self.size - 1), out.nbytes - send.nbytes)
        return out

    def _allgatherv(self, send, counts, out):
        received, _ = self.host.allgatherv(send.get())
        out[: received.shape[0]].set(received)
        self._count(send.nbytes * (self.size - 1), received.nbytes - send.nbytes)

    def _allgather_into(self, send, out, offsets, stream):
        length = int(send.shape[0])
        with stream:  # get() waits for this stream, so for what it was ordered after
            gathered = self.host.allgather(send.get())
            for rank, at in enumerate(offsets):
                out[at : at + length].set(gathered[rank * length : (rank + 1) * length])
        self._count(send.nbytes * (self.size - 1), send.nbytes * (self.size - 1))

    def _alltoallv(self, send, counts):
        before_out, before_in = self.host.bytes_out, self.host.bytes_in
        received, recv_counts = self.host.alltoallv(send.get(), counts)
        self._count(self.host.bytes_out - before_out, self.host.bytes_in - before_in)
        return self._back(received), recv_counts

    def _allreduce(self, send, op):
        out = self._back(self.host.allreduce(send.get(), op))
        self._count(send.nbytes, out.nbytes)
        return out

    def _sendrecv(self, send, dest, source):
        out = self._back(self.host.sendrecv(send.get(), dest, source))
        self._count(send.nbytes if dest != self.rank else 0, out.nbytes if source != self.rank else 0)
        return out


class NCCLTransport(DeviceTransport):
    """Device buffers over an NCCL communicator of the host group's ranks."""

    kind = "nccl"

    def __init__(self, host: Transport):
        super().__init__(host)
        from cupy.cuda import nccl

        self._nccl = nccl
        uid = nccl.get_unique_id() if host.rank == 0 else None
        uid = host.bcast_object(uid, root=0)
        self.comm = nccl.NcclCommunicator(self.size, uid, self.rank)
        self._ops = {"sum": nccl.NCCL_SUM, "max": nccl.NCCL_MAX, "min": nccl.NCCL_MIN}
        self._types = {
            np.dtype(np.int32): nccl.NCCL_INT32, np.dtype(np.uint32): nccl.NCCL_UINT32,
            np.dtype(np.int64): nccl.NCCL_INT64, np.dtype(np.uint64): nccl.NCCL_UINT64,
            np.dtype(np.float32): nccl.NCCL_FLOAT32, np.dtype(np.float64): nccl.NCCL_FLOAT64,
        }

    @staticmethod
    def _stream() -> int:
        import cupy

        return cupy.cuda.get_current_stream().ptr

    def _allgather(self, send):
        import cupy

        recv = cupy.empty(send.shape[0] * self.size, dtype=send.dtype)
        if send.nbytes:
            # Bytes, so any dtype travels; rank r's part lands at r * send.nbytes.
            self.comm.allGather(send.data.ptr, recv.data.ptr, send.nbytes, self._nccl.NCCL_UINT8, self._stream())
        self._count(send.nbytes * (self.size - 1), recv.nbytes - send.nbytes)
        return recv

    def _allreduce(self, send, op):
        import cupy

        recv = cupy.empty_like(send)
        if send.size:
            self.comm.allReduce(send.data.ptr, recv.data.ptr, send.size, self._types[send.dtype],
                                self._ops[op], self._stream())
        self._count(send.nbytes, recv.nbytes)
        return recv

    def _allgatherv(self, send, counts, out):
        # Grouped send/recv pairs (NCCL's all-gather takes equal parts):
        # rank r's part lands at the sum of the counts before r.
        at = np.concatenate(([0], np.cumsum(counts)))
        item = send.dtype.itemsize
        nccl, stream = self._nccl, self._stream()
        _copy(out[int(at[self.rank]) : int(at[self.rank + 1])], send)
        nccl.groupStart()
        for peer in range(self.size):
            if peer == self.rank:
                continue
            if send.nbytes:
                self.comm.send(send.data.ptr, send.nbytes, nccl.NCCL_UINT8, peer, stream)
            if counts[peer]:
                self.comm.recv(out.data.ptr + int(at[peer]) * item, int(counts[peer]) * item, nccl.NCCL_UINT8,
                               peer, stream)
        nccl.groupEnd()
        self._count(send.nbytes * (self.size - 1), (int(at[-1]) - int(counts[self.rank])) * item)

    def _allgather_into(self, send, out, offsets, stream):
        # Parts in rank order one after another (the one-range overlapped
        # bottom-up step's bitmap): one NCCL all-gather into place. Its host
        # call cost 47-74 us as four grouped calls and the own part's copy
        # (2 x H100, SCALE 25 host profile), and NCCL's all-gather moves the
        # bytes about twice as fast as grouped send/recv (docs/scaling.md).
        nccl, item, mine = self._nccl, send.dtype.itemsize, offsets[self.rank]
        length = send.shape[0]
        if all(offsets[r] == offsets[0] + r * length for r in range(self.size)):
            if send.nbytes:
                self.comm.allGather(send.data.ptr, out.data.ptr + offsets[0] * item, send.nbytes, nccl.NCCL_UINT8,
                                    stream.ptr)
            self._count(send.nbytes * (self.size - 1), send.nbytes * (self.size - 1))
            return
        # Else grouped send/recv pairs on the caller's stream: each peer's
        # part lands at its offset, so no gathered copy is moved afterwards.
        _copy(out[mine : mine + length], send, stream)
        if send.nbytes:
            nccl.groupStart()
            for peer in range(self.size):
                if peer != self.rank:
                    self.comm.send(send.data.ptr, send.nbytes, nccl.NCCL_UINT8, peer, stream.ptr)
                    self.comm.recv(out.data.ptr + offsets[peer] * item, send.nbytes, nccl.NCCL_UINT8, peer,
                                   stream.ptr)
            nccl.groupEnd()
        self._count(send.nbytes * (self.size - 1), send.nbytes * (self.size - 1))

    def _sendrecv(self, send, dest, source):
        import cupy

        recv = cupy.empty_like(send)
        nccl, stream = self._nccl, self._stream()
        nccl.groupStart()
        if send.nbytes:
            self.comm.send(send.data.ptr, send.nbytes, nccl.NCCL_UINT8, dest, stream)
            self.comm.recv(recv.data.ptr, recv.nbytes, nccl.NCCL_UINT8, source, stream)
        nccl.groupEnd()
        self._count(send.nbytes if dest != self.rank else 0, recv.nbytes if source != self.rank else 0)
        return recv

    def _alltoallv(self, send, counts):
        import cupy

        counts = np.asarray(counts, dtype=np.int64)
        if counts.shape != (self.size,) or int(counts.sum()) != send.shape[0]:
            raise ValueError(
                f"counts {counts.tolist()} do not describe {send.shape[0]} elements for {self.size} ranks"
            )
        recv_counts = self.host.alltoall(counts)
        send_at = np.concatenate(([0], np.cumsum(counts)))
        recv_at = np.concatenate(([0], np.cumsum(recv_counts)))
        recv = cupy.empty(int(recv_at[-1]), dtype=send.dtype)
        item = send.dtype.itemsize
        nccl, stream = self._nccl, self._stream()
        mine = slice(int(recv_at[self.rank]), int(recv_at[self.rank + 1]))
        recv[mine] = send[int(send_at[self.rank]) : int(send_at[self.rank + 1])]
        nccl.groupStart()
        for peer in range(self.size):
            if peer == self.rank:
                continue
            if counts[peer]:
                self.comm.send(send.data.ptr + int(send_at[peer]) * item, int(counts[peer]) * item,
                               nccl.NCCL_UINT8, peer, stream)
            if recv_counts[peer]:
                self.comm.recv(recv.data.ptr + int(recv_at[peer]) * item, int(recv_counts[peer]) * item,
                               nccl.NCCL_UINT8, peer, stream)
        nccl.groupEnd()
        self._count((int(counts.sum()) - int(counts[self.rank])) * item,
                    (int(recv_counts.sum()) - int(recv_counts[self.rank])) * item)
        return recv, recv_counts


def gpu_identity() -> str:
    """This process's GPU, as a string equal across processes for the same
    physical device: the host name and the device's PCI bus id."""
    import socket

    import cupy

    return f"{socket.gethostname()}/{cupy.cuda.Device().pci_bus_id}"


def nccl_available() -> bool:
    try:
        from cupy.cuda import nccl
    except ImportError:
        return False
    return bool(getattr(nccl, "available", False))


def choose_transport(world: Transport, kind: str = "auto") -> str:
    """``"nccl"`` or ``"mpi"`` for this world (collective; every rank gets the
    same answer). ``"nccl"`` asked where NCCL cannot run raises."""
    from ..errors import BackendUnavailableError

    if kind not in TRANSPORTS:
        raise ValueError(f"transport must be one of {', '.join(TRANSPORTS)}, got {kind!r}")
    facts = world.allgather_object((gpu_identity(), nccl_available()))
    devices = [device for device, _ in facts]
    shared = len(set(devices)) < len(devices)
    usable = all(ok for _, ok in facts)
    if kind == "mpi":
        return "mpi"
    if kind == "nccl" and not usable:
        raise BackendUnavailableError(
            "transport 'nccl' was asked for but CuPy's NCCL binding is unavailable on some rank "
            "(pip install nvidia-nccl-cu12, or CuPy's NCCL package); use transport='mpi'"
        )
    if kind == "nccl" and shared:
        raise BackendUnavailableError(
            f"transport 'nccl' was asked for but ranks share a GPU ({len(devices)} ranks on "
            f"{len(set(devices))} GPUs), which NCCL refuses; use transport='mpi' or one rank per GPU"
        )
    return "nccl" if usable and not shared else "mpi"


def make_device_transports(grid, kind: str = "auto") -> tuple[DeviceTransport, DeviceTransport, DeviceTransport]:
    """(world, row, column) device transports of ``grid``, all ``kind`` (see
    :func:`choose_transport`); made once per grid and kind (collective)."""
    chosen = choose_transport(grid.world, kind)
    cached = grid.derived.get(f"device_transports.{chosen}")
    if cached is not None:  # NCCL's set-up takes a while: one set per grid
        return cached
    make = NCCLTransport if chosen == "nccl" else StagedTransport
    # Each on a private copy of its host group (same ranks, own byte
    # counters), so a trace that sums host and device transports counts a
    # staged transfer once. The same order on every rank: NCCL's set-up is collective.
    made = tuple(make(group.split(0, group.rank)) for group in (grid.world, grid.row, grid.col))
    grid.derived[f"device_transports.{chosen}"] = made
    return made
