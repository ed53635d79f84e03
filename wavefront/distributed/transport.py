"""Transports: the collectives the distributed algorithms use, on host (NumPy) buffers.

The algorithm code calls a :class:`Transport` and never mpi4py: the same
driver runs on :class:`MPITransport` (an mpi4py communicator, one per
``mpirun`` rank, row or column of the process grid) and on
:class:`SelfTransport` (a world of one process, where every collective is a
copy), so ``P = 1`` without ``mpirun`` runs the very code path ``P > 1`` runs.

Array collectives take and return 1-D contiguous NumPy arrays; the receiving
side allocates. ``*_object`` collectives pickle small Python objects (counts,
error witnesses, trace rows) and are not for bulk data.

Every array collective adds to :attr:`Transport.bytes_out` and
:attr:`Transport.bytes_in` the payload this rank hands to and gets from the
*other* ranks (what the algorithm asks to move, not what the MPI library's
collective algorithm puts on the wire; a reduction counts its buffer once
each way). The per-level trace reads them to check the communication model.

MPI counts and displacements are C ``int``: :class:`MPITransport` moves an
array whose counts or offsets would pass ``max_count`` (2**31 - 1) in
rounds, each within it, so per-vertex collectives of SCALE 31 and beyond
work; a test sets a small ``max_count`` to run every round path.
"""
from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np

REDUCTIONS = ("sum", "max", "min", "bor")


class Transport(ABC):
    """A group of ``size`` processes in which this one is ``rank``."""

    rank = 0
    size = 1

    def __init__(self):
        self.bytes_out = 0
        self.bytes_in = 0

    # -- arrays ----------------------------------------------------------
    @abstractmethod
    def allgather(self, send: np.ndarray) -> np.ndarray:
        """Concatenation of every rank's ``send`` (all equally long), in rank order."""

    @abstractmethod
    def allgatherv(self, send: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Concatenation of every rank's ``send`` (any lengths) and the lengths."""

    @abstractmethod
    def alltoall(self, send: np.ndarray) -> np.ndarray:
        """``send`` holds ``size`` equal parts, part ``r`` for rank ``r``; returns
        the parts addressed to this rank, in source-rank order."""

    @abstractmethod
    def alltoallv(self, send: np.ndarray, counts) -> tuple[np.ndarray, np.ndarray]:
        """``send`` holds consecutive parts of ``counts[r]`` elements for rank
        ``r``; returns the parts addressed to this rank (in source-rank order)
        and their lengths."""

    @abstractmethod
    def allreduce(self, send: np.ndarray, op: str = "sum") -> np.ndarray:
        """Element-wise ``op`` (sum, max, min, bor) of every rank's ``send``."""

    @abstractmethod
    def exscan(self, send: np.ndarray, op: str = "bor") -> np.ndarray:
        """Element-wise ``op`` (sum or bor) of the ``send`` of every lower rank
        (zeros on rank 0)."""

    @abstractmethod
    def sendrecv(self, send: np.ndarray, dest: int, source: int) -> np.ndarray:
        """Send ``send`` to ``dest`` and receive as many elements of its dtype from ``source``."""

    def sendrecvv(self, send: np.ndarray, dest: int, source: int) -> np.ndarray:
        """As :meth:`sendrecv`, for parts of different lengths: the lengths go first."""
        length = self.sendrecv(np.array([send.shape[0]], dtype=np.int64), dest, source)
        return self._sendrecv_into(np.ascontiguousarray(send), dest, source, int(length[0]))

    @abstractmethod
    def _sendrecv_into(self, send: np.ndarray, dest: int, source: int, length: int) -> np.ndarray:
        """Send ``send`` to ``dest``, receive ``length`` elements of its dtype from ``source``."""

    @abstractmethod
    def gatherv(self, send: np.ndarray, root: int = 0) -> np.ndarray | None:
        """Concatenation of every rank's ``send`` on ``root`` (None elsewhere)."""

    # -- objects and control -------------------------------------------------
    @abstractmethod
    def allgather_object(self, obj) -> list:
        """Every rank's ``obj``, in rank order."""

    @abstractmethod
    def bcast_object(self, obj, root: int = 0):
        """``root``'s ``obj`` on every rank."""

    @abstractmethod
    def barrier(self) -> None:
        """Return once every rank has called it."""

    @abstractmethod
    def split(self, color: int, key: int) -> Transport:
        """The sub-group of ranks that passed the same ``color``, ordered by ``key``."""

    @abstractmethod
    def node_local(self) -> Transport:
        """The ranks of this group that share this rank's node (shared memory)."""

    @abstractmethod
    def abort(self, code: int = 1) -> None:
        """End every rank of the job (a rank that fails alone would leave the
        others waiting in a collective forever)."""

    # -- shared helpers ----------------------------------------------------
    def _count(self, out: int, into: int) -> None:
        self.bytes_out += int(out)
        self.bytes_in += int(into)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(rank={self.rank}, size={self.size})"


def _check_op(op: str, allowed=REDUCTIONS) -> None:
    if op not in allowed:
        raise ValueError(f"unknown reduction {op!r}; choose one of {', '.join(allowed)}")


SCANS = ("sum", "bor")  # whose identity is zero, what rank 0 gets


class SelfTransport(Transport):
    """A world of one process: every collective returns a copy of what it was given."""

    def allgather(self, send):
        return np.array(send, copy=True)

    def allgatherv(self, send):
        return np.array(send, copy=True), np.array([send.shape[0]], dtype=np.int64)

    def alltoall(self, send):
        return np.array(send, copy=True)

    def alltoallv(self, send, counts):
        counts = np.asarray(counts, dtype=np.int64)
        if counts.shape != (1,) or counts[0] != send.shape[0]:
            raise ValueError(f"counts {counts.tolist()} do not describe {send.shape[0]} elements for 1 rank")
        return np.array(send, copy=True), counts.copy()

    def allreduce(self, send, op="sum"):
        _check_op(op)
        return np.array(send, copy=True)

    def exscan(self, send, op="bor"):
        _check_op(op, SCANS)
        return np.zeros_like(send)

    def sendrecv(self, send, dest, source):
        if dest != 0 or source != 0:
            raise ValueError(f"a world of one has only rank 0, got dest={dest}, source={source}")
        return np.array(send, copy=True)

    def _sendrecv_into(self, send, dest, source, length):
        return self.sendrecv(send, dest, source)

    def gatherv(self, send, root=0):
        return np.array(send, copy=True)

    def allgather_object(self, obj):
        return [obj]

    def bcast_object(self, obj, root=0):
        return obj

    def barrier(self):
        return None

    def split(self, color, key):
        return SelfTransport()

    def node_local(self):
        return SelfTransport()

    def abort(self, code=1):
        raise SystemExit(code)


MPI_INT_MAX = 2**31 - 1  # MPI's counts and displacements are C ints


class MPITransport(Transport):
    """An mpi4py communicator; arrays travel as MPI buffers (their MPI datatype
    follows from the NumPy dtype), never pickled. A collective whose counts or
    displacements would pass ``max_count`` elements runs in rounds (every rank
    takes part in every round; the rounds' count is agreed where it depends
    on other ranks' lengths)."""

    def __init__(self, comm, max_count: int = MPI_INT_MAX):
        super().__init__()
        from mpi4py import MPI

        if not 1 <= int(max_count) <= MPI_INT_MAX:
            raise ValueError(f"max_count must be in [1, {MPI_INT_MAX}], got {max_count}")
        self._MPI = MPI
        self.comm = comm
        self.rank = comm.Get_rank()
        self.size = comm.Get_size()
        self.max_count = int(max_count)
        self._ops = {"sum": MPI.SUM, "max": MPI.MAX, "min": MPI.MIN, "bor": MPI.BOR}

    def _piece(self) -> int:
        """Elements a rank may put in one round of a v-collective (so that a
        round's displacements stay within ``max_count``)."""
        return max(1, self.max_count // self.size)

    def allgather(self, send):
        send = np.ascontiguousarray(send)
        n = send.shape[0]
        recv = np.empty(n * self.size, dtype=send.dtype)
        if n <= self._piece():
            self.comm.Allgather(send, recv)
        else:  # columns of at most a piece each: rank r's slice [first, last) lands at r * n + first
            grid = recv.reshape(self.size, n)
            for first in range(0, n, self._piece()):
                part = send[first : first + self._piece()]
                got = np.empty(part.shape[0] * self.size, dtype=send.dtype)
                self.comm.Allgather(part, got)
                grid[:, first : first + part.shape[0]] = got.reshape(self.size, part.shape[0])
        self._count(send.nbytes * (self.size - 1), recv.nbytes - send.nbytes)
        return recv

    def allgatherv(self, send):
        send = np.ascontiguousarray(send)
        counts = self.allgather(np.array([send.shape[0]], dtype=np.int64))
        displs = _displacements(counts)
        recv = np.empty(int(counts.sum()), dtype=send.dtype)
        piece = self._piece()
        if int(counts.sum()) <= self.max_count:
            self.comm.Allgatherv(send, (recv, (counts.astype(np.int32), displs.astype(np.int32))))
        else:
            for first in range(0, int(counts.max()), piece):
                now = np.clip(counts - first, 0, piece)
                got = np.empty(int(now.sum()), dtype=send.dtype)
                now_displs = _displacements(now)
                self.comm.Allgatherv(send[first : first + int(now[self.rank])],
                                     (got, (now.astype(np.int32), now_displs.astype(np.int32))))
                _place(recv, displs + first, got, now_displs, now)
        self._count(send.nbytes * (self.size - 1), recv.nbytes - send.nbytes)
        return recv, counts

    def alltoall(self, send):
        send = np.ascontiguousarray(send)
        if send.shape[0] % self.size:
            raise ValueError(f"alltoall needs a multiple of {self.size} elements, got {send.shape[0]}")
        recv = np.empty_like(send)
        part = send.shape[0] // self.size
        if part <= self._piece():
            self.comm.Alltoall(send, recv)
        else:
            rows_out, rows_in = send.reshape(self.size, part), recv.reshape(self.size, part)
            for first in range(0, part, self._piece()):
                cut = np.ascontiguousarray(rows_out[:, first : first + self._piece()])
                got = np.empty_like(cut)
                self.comm.Alltoall(cut.reshape(-1), got.reshape(-1))
                rows_in[:, first : first + cut.shape[1]] = got
        part_bytes = send.nbytes // self.size
        self._count(part_bytes * (self.size - 1), part_bytes * (self.size - 1))
        return recv

    def alltoallv(self, send, counts):
        send = np.ascontiguousarray(send)
        counts = np.asarray(counts, dtype=np.int64)
        if counts.shape != (self.size,) or int(counts.sum()) != send.shape[0]:
            raise ValueError(
                f"counts {counts.tolist()} do not describe {send.shape[0]} elements for {self.size} ranks"
            )
        # The counts go out with this rank's longest part, so every rank learns
        # the longest part of any and all agree on the rounds (no extra
        # collective); the bytes counted are the counts' alone.
        pairs = np.empty((self.size, 2), dtype=np.int64)
        pairs[:, 0] = counts
        pairs[:, 1] = int(counts.max()) if counts.size else 0
        got_pairs = np.empty_like(pairs)
        self.comm.Alltoall(pairs.reshape(-1), got_pairs.reshape(-1))
        self._count(counts.itemsize * (self.size - 1), counts.itemsize * (self.size - 1))
        recv_counts = np.ascontiguousarray(got_pairs[:, 0])
        longest = int(got_pairs[:, 1].max())
        send_displs, recv_displs = _displacements(counts), _displacements(recv_counts)
        recv = np.empty(int(recv_counts.sum()), dtype=send.dtype)
        piece = self._piece()
        if longest <= piece:  # every rank's sums and displacements stay within max_count
            self.comm.Alltoallv(
                (send, (counts.astype(np.int32), send_displs.astype(np.int32))),
                (recv, (recv_counts.astype(np.int32), recv_displs.astype(np.int32))),
            )
        else:
            for first in range(0, longest, piece):
                out_now, in_now = np.clip(counts - first, 0, piece), np.clip(recv_counts - first, 0, piece)
                out_displs, in_displs = _displacements(out_now), _displacements(in_now)
                out = np.empty(int(out_now.sum()), dtype=send.dtype)
                _gather_parts(out, out_displs, send, send_displs + first, out_now)
                got = np.empty(int(in_now.sum()), dtype=send.dtype)
                self.comm.Alltoallv((out, (out_now.astype(np.int32), out_displs.astype(np.int32))),
                                    (got, (in_now.astype(np.int32), in_displs.astype(np.int32))))
                _place(recv, recv_displs + first, got, in_displs, in_now)
        item = send.dtype.itemsize
        self._count(
            (int(counts.sum()) - int(counts[self.rank])) * item,
            (int(recv_counts.sum()) - int(recv_counts[self.rank])) * item,
        )
        return recv, recv_counts

    def allreduce(self, send, op="sum"):
        _check_op(op)
        send = np.ascontiguousarray(send)
        recv = np.empty_like(send)
        for first in range(0, max(send.shape[0], 1), self.max_count):
            last = first + self.max_count
            self.comm.Allreduce(send[first:last], recv[first:last], op=self._ops[op])
        if self.size > 1:
            self._count(send.nbytes, recv.nbytes)
        return recv

    def exscan(self, send, op="bor"):
        _check_op(op, SCANS)
        send = np.ascontiguousarray(send)
        recv = np.zeros_like(send)
        if self.size > 1:
            for first in range(0, max(send.shape[0], 1), self.max_count):
                last = first + self.max_count
                self.comm.Exscan(send[first:last], recv[first:last], op=self._ops[op])
            if self.rank == 0:  # MPI leaves rank 0's buffer undefined
                recv[:] = 0
            self._count(send.nbytes if self.rank < self.size - 1 else 0, recv.nbytes if self.rank else 0)
        return recv

    def sendrecv(self, send, dest, source):
        send = np.ascontiguousarray(send)
        return self._sendrecv_into(send, dest, source, send.shape[0])

    def _sendrecv_into(self, send, dest, source, length):
        recv = np.empty(length, dtype=send.dtype)
        if max(send.shape[0], length) <= self.max_count:
            self.comm.Sendrecv(send, dest, 0, recv, source, 0)
        else:
            # Pieces of max_count elements, sent without waiting and received in
            # order (MPI does not reorder one pair's messages): each side cuts
            # its own length the same way, so the pieces match whatever way the
            # partner took (a partner within max_count sends one message, one piece).
            size = self.max_count
            sends = [self.comm.Isend(send[first : first + size], dest, 0)
                     for first in range(0, send.shape[0], size)]
            for first in range(0, length, size):
                self.comm.Recv(recv[first : first + size], source, 0)
            self._MPI.Request.Waitall(sends)
        self._count(send.nbytes if dest != self.rank else 0, recv.nbytes if source != self.rank else 0)
        return recv

    def gatherv(self, send, root=0):
        send = np.ascontiguousarray(send)
        counts = self.allgather(np.array([send.shape[0]], dtype=np.int64))
        displs = _displacements(counts)
        recv = np.empty(int(counts.sum()), dtype=send.dtype) if self.rank == root else None
        if int(counts.sum()) <= self.max_count:
            spec = (recv, (counts.astype(np.int32), displs.astype(np.int32))) if self.rank == root else None
            self.comm.Gatherv(send, spec, root=root)
        else:
            piece = self._piece()
            for first in range(0, int(counts.max()), piece):
                now = np.clip(counts - first, 0, piece)
                mine = send[first : first + int(now[self.rank])]
                if self.rank != root:
                    self.comm.Gatherv(mine, None, root=root)
                    continue
                now_displs = _displacements(now)
                got = np.empty(int(now.sum()), dtype=send.dtype)
                self.comm.Gatherv(mine, (got, (now.astype(np.int32), now_displs.astype(np.int32))), root=root)
                _place(recv, displs + first, got, now_displs, now)
        if self.rank != root:
            self._count(send.nbytes, 0)
            return None
        self._count(0, recv.nbytes - send.nbytes)
        return recv

    def allgather_object(self, obj):
        return self.comm.allgather(obj)

    def bcast_object(self, obj, root=0):
        return self.comm.bcast(obj, root=root)

    def barrier(self):
        self.comm.Barrier()

    def split(self, color, key):
        return MPITransport(self.comm.Split(int(color), int(key)), self.max_count)

    def node_local(self):
        return MPITransport(self.comm.Split_type(self._MPI.COMM_TYPE_SHARED, key=self.rank), self.max_count)

    def abort(self, code=1):
        self.comm.Abort(int(code))


def _displacements(counts: np.ndarray) -> np.ndarray:
    """Exclusive prefix sums of ``counts`` (int64)."""
    displs = np.zeros(counts.shape[0], dtype=np.int64)
    np.cumsum(counts[:-1], out=displs[1:])
    return displs


def _place(into: np.ndarray, at: np.ndarray, got: np.ndarray, got_displs: np.ndarray, lengths: np.ndarray) -> None:
    """Copy part r of ``got`` (``lengths[r]`` elements at ``got_displs[r]``) to ``into[at[r]:]``."""
    for r in np.flatnonzero(lengths):
        into[at[r] : at[r] + lengths[r]] = got[got_displs[r] : got_displs[r] + lengths[r]]


def _gather_parts(into: np.ndarray, into_displs: np.ndarray, source: np.ndarray, at: np.ndarray,
                  lengths: np.ndarray) -> None:
    """Copy ``source[at[r]:at[r] + lengths[r]]`` to part r of ``into``."""
    for r in np.flatnonzero(lengths):
        into[into_displs[r] : into_displs[r] + lengths[r]] = source[at[r] : at[r] + lengths[r]]
