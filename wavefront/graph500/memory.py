"""Host memory a CPU Graph500 run needs, checked before anything is allocated.

A SCALE that does not fit would end in NumPy's ``MemoryError`` deep inside
the generator, or worse, start and be killed by the kernel's OOM killer. The
estimate is a linear model of the peak resident set of the CPU backend: a
fixed part (interpreter, NumPy, numba; 182 MB measured at SCALE 14 with
numba's cache warm, 347 MB with it cold, while the kernels compile) plus
bytes per input edge tuple (the generated tuples and weights, 20 bytes, the
CSR build's scratch and the graph; SSSP validation is the peak: 997 MB at
SCALE 20, about 50 bytes per tuple above the fixed part) plus bytes per
vertex (search, result and validation arrays), times a margin. It bounds
the measured peaks from above.
"""
from __future__ import annotations

import os

from ..errors import HostMemoryError

BASE_BYTES = 400 << 20
BYTES_PER_EDGE = 60
BYTES_PER_VERTEX = 64
MARGIN = 1.15
# Memory the run leaves to everything else on the machine.
RESERVE_BYTES = 256 << 20


def peak_bytes(scale: int, edgefactor: int) -> int:
    """Estimated peak resident bytes of ``wavefront graph500 --backend cpu``."""
    n = 1 << scale
    return int(MARGIN * (BASE_BYTES + BYTES_PER_EDGE * edgefactor * n + BYTES_PER_VERTEX * n))


def available_bytes() -> int | None:
    """Memory the kernel says a new allocation can get without swapping
    (``MemAvailable``), or None where the platform does not tell."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def largest_scale(edgefactor: int, available: int) -> int:
    """The largest SCALE whose estimate fits in ``available`` bytes (0 if none)."""
    scale = 0
    while scale < 60 and peak_bytes(scale + 1, edgefactor) + RESERVE_BYTES <= available:
        scale += 1
    return scale


def check_host_memory(scale: int, edgefactor: int, available: int | None = None) -> None:
    """Raise :class:`HostMemoryError` if a CPU run of this size will not fit."""
    available = available_bytes() if available is None else available
    if available is None:
        return
    needed = peak_bytes(scale, edgefactor)
    if needed + RESERVE_BYTES > available:
        fits = largest_scale(edgefactor, available)
        raise HostMemoryError(
            f"Graph500 SCALE {scale} (edgefactor {edgefactor}) on the CPU", needed, available,
            f"the largest SCALE that fits is {fits}" if fits else "no SCALE fits",
        )


# The distributed run (wavefront.distributed), per rank: its slice of the
# tuples (kept for validation, uint32 ids and float32 weights: 12 bytes), the
# arcs it receives (12 bytes each, two per tuple) while its block's CSR is
# built, the block, then the searches' and validators' per-vertex arrays,
# which span its row and column blocks (n/R + n/C vertices), not its piece.
# Fitted to peak RSS measured with BFS and SSSP (4 roots) on the CPU at
# SCALE 16-20 and, to part tuples from vertices, SCALE 19 with edgefactor 32
# (docs/decisions/distributed.md): one rank 33 bytes a tuple (it builds from
# the tuples themselves, no arcs), P = 2 and 4 ranks 47 bytes a tuple of
# their slice, and 106-112 bytes a vertex of the row and column blocks. The
# constants round those up; P > 1 takes 56, which keeps the growth from SCALE
# 17 to 19 (80 bytes a tuple with the vertices, their arrays not yet
# amortized) under the estimate's (tests/test_host_memory.py).
DISTRIBUTED_BYTES_PER_TUPLE_ONE_RANK = 36
DISTRIBUTED_BYTES_PER_TUPLE = 56
DISTRIBUTED_BYTES_PER_BLOCK_VERTEX = 116


def distributed_peak_bytes(scale: int, edgefactor: int, ranks: int) -> int:
    """Estimated peak resident bytes of one rank of a distributed Graph500 run
    over ``ranks`` ranks (on their most square grid)."""
    from ..distributed.grid import grid_shape

    ranks = max(int(ranks), 1)
    rows, cols = grid_shape(ranks)
    n = 1 << scale
    per_tuple = DISTRIBUTED_BYTES_PER_TUPLE_ONE_RANK if ranks == 1 else DISTRIBUTED_BYTES_PER_TUPLE
    tuples = edgefactor * n // ranks
    block_vertices = -(-n // rows) + -(-n // cols)
    return int(MARGIN * (BASE_BYTES + per_tuple * tuples + DISTRIBUTED_BYTES_PER_BLOCK_VERTEX * block_vertices))


def check_distributed_host_memory(scale: int, edgefactor: int, ranks: int, ranks_here: int,
                                  available: int | None = None) -> None:
    """Raise :class:`HostMemoryError` if the ``ranks_here`` ranks this node runs
    (of ``ranks`` in all) will not fit in its memory together."""
    available = available_bytes() if available is None else available
    if available is None:
        return
    needed = ranks_here * distributed_peak_bytes(scale, edgefactor, ranks)
    if needed + RESERVE_BYTES <= available:
        return
    more = ranks
    while more < (1 << 20) and ranks_here * distributed_peak_bytes(scale, edgefactor, more) + RESERVE_BYTES > available:
        more *= 2
    fits = 0
    while fits < 60 and ranks_here * distributed_peak_bytes(fits + 1, edgefactor, ranks) + RESERVE_BYTES <= available:
        fits += 1
    advice = f"the largest SCALE that fits on {ranks} ranks is {fits}" if fits else f"no SCALE fits on {ranks} ranks"
    if ranks_here > 1 or more > ranks:
        advice += f"; spread it over more nodes: about {more} ranks, {ranks_here} per node like this one"
    raise HostMemoryError(
        f"distributed Graph500 SCALE {scale} (edgefactor {edgefactor}) with {ranks_here} of {ranks} ranks on this node",
        needed, available, advice,
    )
