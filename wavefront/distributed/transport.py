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

Counts are MPI ``int`` (fewer than 2**31 elements per rank and call), which
bounds a block to about 2**31 arcs; beyond that the buffers need splitting.
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


class MPITransport(Transport):
    """An mpi4py communicator; arrays travel as MPI buffers (their MPI datatype
    follows from the NumPy dtype), never pickled."""

    def __init__(self, comm):
        super().__init__()
        from mpi4py import MPI

        self._MPI = MPI
        self.comm = comm
        self.rank = comm.Get_rank()
        self.size = comm.Get_size()
        self._ops = {"sum": MPI.SUM, "max": MPI.MAX, "min": MPI.MIN, "bor": MPI.BOR}

    def allgather(self, send):
        send = np.ascontiguousarray(send)
        recv = np.empty(send.shape[0] * self.size, dtype=send.dtype)
        self.comm.Allgather(send, recv)
        self._count(send.nbytes * (self.size - 1), recv.nbytes - send.nbytes)
        return recv

    def allgatherv(self, send):
        send = np.ascontiguousarray(send)
        counts = self.allgather(np.array([send.shape[0]], dtype=np.int64))
        displs = np.zeros(self.size, dtype=np.int64)
        np.cumsum(counts[:-1], out=displs[1:])
        recv = np.empty(int(counts.sum()), dtype=send.dtype)
        self.comm.Allgatherv(send, (recv, (counts.astype(np.int32), displs.astype(np.int32))))
        self._count(send.nbytes * (self.size - 1), recv.nbytes - send.nbytes)
        return recv, counts

    def alltoall(self, send):
        send = np.ascontiguousarray(send)
        if send.shape[0] % self.size:
            raise ValueError(f"alltoall needs a multiple of {self.size} elements, got {send.shape[0]}")
        recv = np.empty_like(send)
        self.comm.Alltoall(send, recv)
        part = send.nbytes // self.size
        self._count(part * (self.size - 1), part * (self.size - 1))
        return recv

    def alltoallv(self, send, counts):
        send = np.ascontiguousarray(send)
        counts = np.asarray(counts, dtype=np.int64)
        if counts.shape != (self.size,) or int(counts.sum()) != send.shape[0]:
            raise ValueError(
                f"counts {counts.tolist()} do not describe {send.shape[0]} elements for {self.size} ranks"
            )
        recv_counts = self.alltoall(counts)
        send_displs = np.zeros(self.size, dtype=np.int64)
        recv_displs = np.zeros(self.size, dtype=np.int64)
        np.cumsum(counts[:-1], out=send_displs[1:])
        np.cumsum(recv_counts[:-1], out=recv_displs[1:])
        recv = np.empty(int(recv_counts.sum()), dtype=send.dtype)
        self.comm.Alltoallv(
            (send, (counts.astype(np.int32), send_displs.astype(np.int32))),
            (recv, (recv_counts.astype(np.int32), recv_displs.astype(np.int32))),
        )
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
        self.comm.Allreduce(send, recv, op=self._ops[op])
        if self.size > 1:
            self._count(send.nbytes, recv.nbytes)
        return recv

    def exscan(self, send, op="bor"):
        _check_op(op, SCANS)
        send = np.ascontiguousarray(send)
        recv = np.zeros_like(send)
        if self.size > 1:
            self.comm.Exscan(send, recv, op=self._ops[op])
            if self.rank == 0:  # MPI leaves rank 0's buffer undefined
                recv[:] = 0
            self._count(send.nbytes if self.rank < self.size - 1 else 0, recv.nbytes if self.rank else 0)
        return recv

    def sendrecv(self, send, dest, source):
        send = np.ascontiguousarray(send)
        return self._sendrecv_into(send, dest, source, send.shape[0])

    def _sendrecv_into(self, send, dest, source, length):
        recv = np.empty(length, dtype=send.dtype)
        self.comm.Sendrecv(send, dest, 0, recv, source, 0)
        self._count(send.nbytes if dest != self.rank else 0, recv.nbytes if source != self.rank else 0)
        return recv

    def gatherv(self, send, root=0):
        send = np.ascontiguousarray(send)
        counts = self.allgather(np.array([send.shape[0]], dtype=np.int64))
        if self.rank != root:
            self.comm.Gatherv(send, None, root=root)
            self._count(send.nbytes, 0)
            return None
        displs = np.zeros(self.size, dtype=np.int64)
        np.cumsum(counts[:-1], out=displs[1:])
        recv = np.empty(int(counts.sum()), dtype=send.dtype)
        self.comm.Gatherv(
            send, (recv, (counts.astype(np.int32), displs.astype(np.int32))), root=root
        )
        self._count(0, recv.nbytes - send.nbytes)
        return recv

    def allgather_object(self, obj):
        return self.comm.allgather(obj)

    def bcast_object(self, obj, root=0):
        return self.comm.bcast(obj, root=root)

    def barrier(self):
        self.comm.Barrier()

    def split(self, color, key):
        return MPITransport(self.comm.Split(int(color), int(key)))

    def node_local(self):
        return MPITransport(self.comm.Split_type(self._MPI.COMM_TYPE_SHARED, key=self.rank))

    def abort(self, code=1):
        self.comm.Abort(int(code))
