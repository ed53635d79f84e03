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

The distributed run's estimate is per rank and per run: BFS and SSSP
together, or BFS alone (unweighted tuples, no SSSP structures; construction
and the phase after it fitted apart); a GPU rank holds what a CPU rank
holds (its upload is not staged through pinned memory) plus the CUDA, CuPy
and NCCL runtimes' own host memory.
"""
from __future__ import annotations

import os
from dataclasses import dataclass

from ..errors import HostMemoryError

BASE_BYTES = 400 << 20
BYTES_PER_EDGE = 60
BYTES_PER_VERTEX = 64
MARGIN = 1.15
# What the CUDA, CuPy and NCCL runtimes add to a GPU rank's host memory:
# SCALE 20 on two ranks of nvidia-h100-x2 (622e1a5) peaked at 1356 MiB of
# VmHWM a rank, 613 MiB above the CPU rank's unmargined estimate.
GPU_RUNTIME_BYTES = 640 << 20
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
# tuples (kept for validation: uint32 ids, 8 bytes, plus float32 weights when
# SSSP runs), the arcs it receives (8 bytes each unweighted, 12 weighted, two
# per tuple) while its block's CSR is built, the block, then the searches' and
# validators' per-vertex arrays, which span its row and column blocks (n/R +
# n/C vertices), not its piece. Fitted to peak RSS (VmHWM) of CPU ranks, 4
# roots, SCALE 16-22 and, to part tuples from vertices, edgefactor 32 at the
# same tuple counts (docs/decisions/distributed.md, "Host memory").
DISTRIBUTED_KERNELS = ("bfs", "sssp")


@dataclass(frozen=True)
class RankBytes:
    """Bytes one rank holds at a phase's peak, above the fixed part: per input
    tuple of its slice (``per_tuple_one_rank`` in a world of one, which builds
    its block from the tuples, no arcs exchanged) and per vertex of its row
    and column blocks (``n/R + n/C``)."""

    per_tuple_one_rank: int
    per_tuple: int
    per_block_vertex: int

    def bytes(self, scale: int, edgefactor: int, ranks: int, shape: tuple[int, int] | None = None) -> int:
        """On the grid ``shape`` (rows, cols), default the most square."""
        from ..distributed.grid import grid_shape

        rows, cols = grid_shape(ranks) if shape is None else shape
        n = 1 << scale
        tuples = edgefactor * n // ranks
        per_tuple = self.per_tuple_one_rank if ranks == 1 else self.per_tuple
        return per_tuple * tuples + self.per_block_vertex * (-(-n // rows) + -(-n // cols))


# BFS and SSSP (weighted tuples; the peak is SSSP's search or validation):
# one rank 33 bytes a tuple, P = 2 and 4 ranks 47 bytes a tuple of their
# slice, 106-112 bytes a block vertex (SSSP's joined block and workspaces).
# P > 1 took 56, which keeps the growth from SCALE 17 to 19 (80 bytes a tuple
# with the vertices, their arrays not yet amortized) under the estimate's;
# it takes 8 more for the validator's tuples remapped to endpoint positions
# (two int32 a tuple, kept from the first validation on; a world of one
# reads at the ids and keeps none).
DISTRIBUTED_BFS_SSSP = RankBytes(per_tuple_one_rank=36, per_tuple=64, per_block_vertex=116)
# BFS alone (unweighted tuples), two phases. Construction: one rank 20.0
# bytes a tuple + 7.9 a block vertex (the tuples and the CSR build's output
# at pre-merge size), P = 2 35.5 + 23.7 (the tuples 8, the received arcs 16,
# the CSR build 12; offsets and degrees over both blocks); it is the CPU run's
# peak from SCALE 19 on (P = 1: within 1 % of the searches' at SCALE 20-22).
DISTRIBUTED_BFS_BUILD = RankBytes(per_tuple_one_rank=22, per_tuple=38, per_block_vertex=26)
# After construction (the block held, then the searches and validation): one
# rank 15.4 bytes a tuple + 43.6 a block vertex, P = 2 22.9 + 51.0. The tuple
# term is the tuples (8) and the block's indices, 4 bytes an arc, once (P = 1:
# the CSC is the CSR) or twice, and arcs per tuple grow with SCALE as fewer
# merge (1.74 at SCALE 16, 1.91 at 22, at most 2): 16 and 24 at 2 arcs a tuple.
# P > 1 adds the validator's remapped tuples, 8 bytes (26 -> 34): with them
# this phase outgrows construction's 38 + 26 on two ranks (at SCALE 28:
# 94.8 GB against 92.1 unmargined; the node measured 167 GB at construction
# and 117-123 after on the device, so 151-157 with 34 GB of positions).
DISTRIBUTED_BFS_SEARCH = RankBytes(per_tuple_one_rank=17, per_tuple=34, per_block_vertex=54)


def _kernel_set(kernels) -> tuple[str, ...]:
    kernels = kernels.split(",") if isinstance(kernels, str) else list(kernels)
    if not kernels or set(kernels) - set(DISTRIBUTED_KERNELS):
        raise ValueError(f"kernels must be among {', '.join(DISTRIBUTED_KERNELS)}; got {kernels}")
    return tuple(k for k in DISTRIBUTED_KERNELS if k in kernels)


def distributed_peak_bytes(scale: int, edgefactor: int, ranks: int, kernels=DISTRIBUTED_KERNELS,
                           backend: str = "cpu", shape: tuple[int, int] | None = None) -> int:
    """Estimated peak resident bytes of one rank of a distributed Graph500 run
    over ``ranks`` ranks on the grid ``shape`` (default the run's: the most
    square on CPU ranks, one column on GPUs) running ``kernels``
    ("bfs", "sssp" or both) on ``backend`` blocks ("cpu" or "cuda"). A GPU
    rank's host holds what a CPU rank holds after construction, less the CPU
    search's workspaces: its block goes up from pageable memory
    (``distributed.gpu.to_gpu``), where ``cupy.asarray`` would have left a
    pinned copy of each array in CuPy's pool (up to 37 GiB a rank at SCALE 28
    on two ranks). It adds the runtimes' fixed ``GPU_RUNTIME_BYTES``;
    ``tests/test_host_memory.py`` checks the estimate against a GPU run's
    VmHWM and ``MemAvailable`` fall on the device."""
    if backend not in ("cpu", "cuda"):
        raise ValueError(f"backend must be 'cpu' or 'cuda', got {backend!r}")
    kernels = _kernel_set(kernels)
    ranks = max(int(ranks), 1)
    if shape is None:
        from ..distributed.grid import gpu_grid_shape, grid_shape

        shape = gpu_grid_shape(ranks) if backend == "cuda" else grid_shape(ranks)
    if "sssp" in kernels:
        held = DISTRIBUTED_BFS_SSSP.bytes(scale, edgefactor, ranks, shape)
    else:
        held = max(DISTRIBUTED_BFS_BUILD.bytes(scale, edgefactor, ranks, shape),
                   DISTRIBUTED_BFS_SEARCH.bytes(scale, edgefactor, ranks, shape))
    runtime = GPU_RUNTIME_BYTES if backend == "cuda" else 0
    return int(MARGIN * (BASE_BYTES + runtime + held))


def check_distributed_host_memory(scale: int, edgefactor: int, ranks: int, ranks_here: int,
                                  available: int | None = None, kernels=DISTRIBUTED_KERNELS,
                                  backend: str = "cpu", shape: tuple[int, int] | None = None) -> None:
    """Raise :class:`HostMemoryError` if the ``ranks_here`` ranks this node runs
    (of ``ranks`` in all, on the grid ``shape``; default the backend's) will
    not fit in its memory together, running ``kernels`` on ``backend`` blocks
    (see :func:`distributed_peak_bytes`)."""
    if backend not in ("cpu", "cuda"):
        raise ValueError(f"backend must be 'cpu' or 'cuda', got {backend!r}")
    kernels = _kernel_set(kernels)
    available = available_bytes() if available is None else available
    if available is None:
        return

    def needs(scale: int, count: int) -> int:
        grid = shape if count == ranks else None  # another count of ranks: the backend's default grid
        return ranks_here * distributed_peak_bytes(scale, edgefactor, count, kernels, backend, grid)

    needed = needs(scale, ranks)
    if needed + RESERVE_BYTES <= available:
        return
    more = ranks
    while more < (1 << 20) and needs(scale, more) + RESERVE_BYTES > available:
        more *= 2
    fits = 0
    while fits < 60 and needs(fits + 1, ranks) + RESERVE_BYTES <= available:
        fits += 1
    on = f"{ranks} rank" + ("s" if ranks != 1 else "")
    advice = f"the largest SCALE that fits on {on} is {fits}" if fits else f"no SCALE fits on {on}"
    if ranks_here > 1 or more > ranks:
        advice += f"; spread it over more nodes: about {more} ranks, {ranks_here} per node like this one"
    run = f"kernels {','.join(kernels)}" + (", GPU blocks" if backend == "cuda" else "")
    raise HostMemoryError(
        f"distributed Graph500 SCALE {scale} (edgefactor {edgefactor}, {run}) with {ranks_here} of {on} "
        "on this node",
        needed, available, advice,
    )
