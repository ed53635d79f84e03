"""MPITransport's rounds: every array collective with a small ``max_count``
(so that counts and displacements pass it and the round paths run) must give
what the same collective gives in one call, and count the same bytes.

Run under ``mpirun -n P`` (P >= 2); rank 0 prints ``transport rounds: ok``
with the number of comparisons. Any difference raises (a non-zero exit).
"""
import numpy as np
from mpi4py import MPI

from wavefront.distributed.transport import MPITransport

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
whole = MPITransport(comm)
checked = 0


def same(name, a, b, bytes_a, bytes_b):
    global checked
    for x, y in zip(a if isinstance(a, tuple) else (a,), b if isinstance(b, tuple) else (b,), strict=True):
        if x is None or y is None:
            assert x is None and y is None, f"{name}: None on one side only"
            continue
        assert x.dtype == y.dtype and np.array_equal(x, y), f"rank {rank} {name}: {x} != {y}"
    assert bytes_a == bytes_b, f"rank {rank} {name}: bytes {bytes_a} != {bytes_b}"
    checked += 1


def both(name, small, call):
    before_whole = (whole.bytes_out, whole.bytes_in)
    expected = call(whole)
    moved_whole = (whole.bytes_out - before_whole[0], whole.bytes_in - before_whole[1])
    before_small = (small.bytes_out, small.bytes_in)
    got = call(small)
    moved_small = (small.bytes_out - before_small[0], small.bytes_in - before_small[1])
    same(f"{name} (max_count {small.max_count})", got, expected, moved_small, moved_whole)


rng = np.random.default_rng(100 + rank)
for max_count in (1, 2, 3, 5, 7, 64):
    small = MPITransport(comm, max_count=max_count)
    assert small.split(0, rank).max_count == max_count and small.node_local().max_count == max_count
    for dtype in (np.int64, np.uint32, np.float64):
        for length in (0, 1, 5, 13):
            data = (np.arange(length) * (rank + 1)).astype(dtype)
            parts = np.repeat(data, size)
            both("allgather", small, lambda t, d=data: t.allgather(d))
            both("alltoall", small, lambda t, d=parts: t.alltoall(d))
            for op in ("sum", "max", "min"):
                both(f"allreduce {op}", small, lambda t, d=data, o=op: t.allreduce(d, o))
            both("exscan sum", small, lambda t, d=data: t.exscan(d, "sum"))
        for lengths in ((0,) * size, tuple(range(size)), tuple(3 * r + 2 for r in range(size)),
                        tuple((11 - 4 * r) % 9 for r in range(size))):
            data = (rng.integers(0, 1000, lengths[rank])).astype(dtype)
            both("allgatherv", small, lambda t, d=data: t.allgatherv(d))
            for root in (0, size - 1):
                both(f"gatherv to {root}", small, lambda t, d=data, r=root: t.gatherv(d, root=r))
        for spread in (0, 1, 6, 20):
            counts = rng.integers(0, spread + 1, size)
            data = rng.integers(0, 1000, int(counts.sum())).astype(dtype)
            both("alltoallv", small, lambda t, d=data, c=counts: t.alltoallv(d, c))
    bits = rng.integers(0, 2**32, 9, dtype=np.uint64)
    both("allreduce bor", small, lambda t, b=bits: t.allreduce(b, "bor"))
    both("exscan bor", small, lambda t, b=bits: t.exscan(b, "bor"))
    # A ring (dest != source) and a swap, equal lengths; then lengths that differ.
    for shift in (1, size - 1):
        dest, source = (rank + shift) % size, (rank - shift) % size
        ring = np.arange(10, dtype=np.int64) + 100 * rank
        both(f"sendrecv shift {shift}", small, lambda t, d=dest, s=source, x=ring: t.sendrecv(x, d, s))
        uneven = np.arange(3 * rank + (max_count % 4), dtype=np.int32)
        both(f"sendrecvv shift {shift}", small, lambda t, d=dest, s=source, x=uneven: t.sendrecvv(x, d, s))

total = comm.allreduce(checked, op=MPI.SUM)
if rank == 0:
    print(f"transport rounds: ok ({total} comparisons on {size} ranks)", flush=True)
