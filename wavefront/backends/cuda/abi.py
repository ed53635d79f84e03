"""The one ABI between the Python launchers and the CUDA kernels.

Every constant both sides must agree on (block sizes the launchers size grids
with, counter slots and control words the host reads back, trace layouts,
queue capacities) is defined here once. :func:`defines` renders the ones a
kernel file uses as ``-D`` options, and ``compile.module`` passes them to
every build, so a kernel always sees the Python value. Each ``.cu``/``.cuh``
also keeps an ``#ifndef``-guarded default equal to the value here, so the
file compiles standalone with ``nvcc -ptx`` (the CI check);
``tests/test_abi.py`` checks those defaults against this module on the CPU,
and, on a GPU, that a probe kernel compiled with each file reads back exactly
these values.

Tuning choices (what a benchmark may vary) are not here: they live in the
frozen ``BFSTuning`` / ``SSSPTuning`` objects, which render their own
defines.
"""
from __future__ import annotations

# -- BFS: kernels/common.cuh ----------------------------------------------------
# Slots of the per-search step counters (uint64), read back once per level.
CNT_NEXT_COUNT = 0  # vertices in the next frontier (queue tail)
CNT_NEXT_DEGREE = 1  # out-degree sum of the next frontier (m_f)
CNT_EDGES = 2  # edges examined by the step
CNT_FLAG = 3  # "a vertex was visited" (vertex- and edge-centric steps)
CNT_LEVELS_RUN = 4  # levels completed by the single-block kernel
CNT_FRONTIER = 5  # vertices of the frontier a vertex-centric step started from
CNT_SCAN_DONE = 6  # blocks of frontier_scan done
CNT_LARGE_LEFT = 7  # the fig. 6 kernel left large vertices to the fig. 4 kernel
CNT_LOGGED = 8  # entries the padded single block wrote to the discovery log
CNT_SLOTS = 9
UNVISITED = -1  # level of a vertex not reached
# The edge-balanced step's frontier offsets come in chunks of 2**shift vertices.
FRONTIER_SCAN_SHIFT = 10
SCAN_CHUNK = 1 << FRONTIER_SCAN_SHIFT

# -- BFS: block sizes -------------------------------------------------------------
BLOCK = 256  # one-thread-per-item kernels (and the conversions' block-wide scans)
BOTTOM_UP_BLOCK = 128  # fig. 6 kernel
BOTTOM_UP_LARGE_BLOCK = 256  # fig. 4 kernel
BALANCED_BLOCK = 256  # edge-balanced top-down step
BALANCED_ITEMS = 4  # edge slots per thread
BALANCED_CHUNK = BALANCED_BLOCK * BALANCED_ITEMS  # edge slots per block
SINGLE_BLOCK_THREADS = 1024
SINGLE_BLOCK_STATS_FIELDS = 3  # per level run: frontier, edges, end time (ns)
SINGLE_BLOCK_MAX_LEVELS = 4096  # levels one single-block launch may run (stats buffer rows)
GRID_LEVELS_THREADS = 256  # kernels/bfs_grid_levels.cu: threads per resident block
GRID_LEVELS_CTL_WORDS = 8  # its control words (uint64): barrier arrivals, new vertices and m_f of 3 levels
# The discovery log's record words (the grid-levels kernel, the padded single
# block): parent << 12 | level - the launch's first level.
LOG_LEVEL_BITS = 12
assert SINGLE_BLOCK_MAX_LEVELS <= 1 << LOG_LEVEL_BITS
# Padded rows (device_graph.padded_rows): slots one lane of the single block
# and the grid-levels kernel holds at most (K = W / L), and the widest row.
PADDED_MAX_SLOTS = 4
PADDED_MAX_WIDTH = 32  # 8 lanes of 4 slots
# An entry of the padded rows holds its vertex's out-degree (0..32) above
# this many bits of id (kernels/common.cuh: padded_id, padded_degree).
PADDED_DEGREE_SHIFT = {False: 25, True: 56}


def padded_degree_shift(index64: bool) -> int:
    """The bits of vertex id below the degree in a padded row's entry."""
    return PADDED_DEGREE_SHIFT[bool(index64)]


def single_block_capacity(index64: bool) -> int:
    """The largest frontier the single-block kernel keeps in shared memory."""
    return 2048 if index64 else 3072


# -- the distributed BFS's fold on a GPU block: kernels/bfs_fold_2d.cu ----------------
FOLD_MAX_OWNERS = 1024  # grid columns one fold may address (shared-memory counters per block)

# -- small top-down levels with a fixed-size exchange: kernels/bfs_small_levels_2d.cu -----
# A rank's segment: these header slots (int64), then its ids from SEG_IDS on.
SEG_COUNT, SEG_DEGREE, SEG_EXAMINED, SEG_IDS = 0, 1, 2, 3
SMALL_TILE = 256  # frontier vertices a block of small_top_down_2d takes (its block size)
# A small level's values (int64 slots of its params array): frontier size, level,
# the owner's levels and parents (device pointers), tiles, blocks a tile.
SMALL_COUNT, SMALL_LEVEL, SMALL_LEVELS, SMALL_PARENTS, SMALL_TILES, SMALL_SPREAD, SMALL_PARAMS = range(7)

# -- the distributed SSSP on GPU blocks (any grid): kernels/sssp_delta_2d.cu ------
ONE_COLUMN_BLOCK = 256
ONE_COLUMN_CHUNK = 2048  # out-lists this long are relaxed as chunk tasks of this many arcs, a warp each
# Its counters: OC_CTL_WORDS uint64; the first OC_TAIL_WORDS / 2 hold uint32 list tails.
OC_NEAR = 0  # next near list
OC_FAR = 1  # far pile
OC_SETTLED = 2  # vertices the bucket's light phases relaxed
OC_CHUNKS = 3  # chunk tasks of the phase
OC_KEPT = 4  # far vertices a split keeps
OC_TAIL_WORDS = 8
OC_EXAMINED = 0  # uint64 totals after the tails: arcs examined,
OC_LOWERED = 1  # distances lowered,
OC_FAR_BUCKET = 2  # the far pile's lowest later bucket (int64)
OC_CTL_WORDS = 8
OC_NO_BUCKET = 2**63 - 1  # no such bucket

# -- persistent kernels: kernels/persistent.cuh -------------------------------------
TRACE_WIDTH = 4  # trace row: kind, vertices, splits, global timer (ns)

# -- SSSP ---------------------------------------------------------------------------
SSSP_BLOCK = 256  # seed 001's kernels (sssp_harish.cu)
NEAR_FAR_BLOCK = 512
NEAR_FAR_ARCS = 4  # arcs per thread of a chunk task
NEAR_FAR_CHUNK = NEAR_FAR_BLOCK * NEAR_FAR_ARCS  # out-lists this long are split into chunk tasks
NEAR_FAR_MAX_BLOCKS_PER_SM = 2  # its __launch_bounds__ minimum: a persistent grid must be resident
NEAR_FAR_CTL_WORDS = 48  # control words (uint32); 64-bit counters from word 16
NEAR_FAR_CTL_NEAR = 0  # control word: the first near queue's length (the host queues the source)
ASYNC_BLOCK = 64
ASYNC_MAX_BLOCKS_PER_SM = 4
ASYNC_CTL_WORDS = 16
CTL_ITERATIONS = 11  # control word: trace rows written (both persistent kernels)
ASYNC_QUEUE_WORDS = 64  # ring counters (uint64), each on its own 128-byte line
ASYNC_QUEUE_RELAXED = 48  # ring counter: vertices whose arcs were relaxed (AS_STATS counters follow)
REGION_TAIL_STRIDE = 32  # words between two regions' inbox tails (sssp_regions.cu: one 128-byte line each)
REGION_CTL_WORDS = 8  # control words (int32) of the region SSSP
REGION_CTL_WORK = 0  # control word: busy blocks plus messages not yet taken
REGION_STAT_WORDS = 16  # statistics (uint64) of the region SSSP:
REGION_STAT_ITERATIONS = 0  # relaxing iterations, summed over blocks
REGION_STAT_RELAXED = 1  # vertices whose arcs were relaxed
REGION_STAT_SENT = 2  # messages to other regions
REGION_STAT_TAKEN = 3  # messages taken
REGION_STAT_WAKEUPS = 4  # idle blocks woken by a message
REGION_STAT_MOST_ITERATIONS = 5  # the most iterations one block ran
# with RG_STATS (SSSPTuning.region_stats), clock64 cycles:
REGION_STAT_RELAX_CYCLES = 6  # relaxing phases, summed over blocks
REGION_STAT_TOP_CYCLES = 7  # between iterations, waits excluded
REGION_STAT_WAIT_CYCLES = 8  # relaxing warps waiting with nothing queued
REGION_STAT_SEND_CYCLES = 9  # mail warps sending
REGION_STAT_TAKE_CYCLES = 10  # mail warps taking
REGION_STAT_BUSIEST_CYCLES = 11  # the most relaxing + between-iteration cycles of one block
REGION_STAT_KERNEL_CYCLES = 12  # the longest block
PARENT_BLOCK = 256
PARENT_CHUNK = 2048  # in-lists this long are confirmed a warp per chunk
# SSSP_WEIGHT, the arithmetic a build computes in (sssp_common.cuh): arc weight -> distance type.
SSSP_WEIGHT_FLOAT32 = 0  # float32 -> float32
SSSP_WEIGHT_FLOAT64 = 1  # float64 -> float64
SSSP_WEIGHT_INT32 = 2  # int32 -> int64
SSSP_WEIGHT_INT64 = 3  # int64 -> int64
SSSP_WEIGHT_NONE = 4  # unweighted, every arc weighs 1 -> int64
SSSP_INT_INFINITY = 2**63 - 1  # an unreached vertex's integer distance (float ones are inf)
# Kinds of the persistent SSSP kernels' trace rows (column 0; persistent.cuh's layout).
SSSP_TRACE_NEAR = 0  # a near iteration (vertices relaxed)
SSSP_TRACE_SPLIT = 1  # a split (far-pile length)
SSSP_TRACE_END = 2  # the row after the last: its time closes the last iteration
SSSP_TRACE_HEAVY = 3  # a heavy step in push form
SSSP_TRACE_PULL = 4  # a heavy step in pull form
SSSP_TRACE_ASYNC = 5  # an asynchronous bucket (vertices relaxed)
_SSSP_COMMON = {  # sssp_common.cuh
    "SSSP_WEIGHT_FLOAT32": SSSP_WEIGHT_FLOAT32, "SSSP_WEIGHT_FLOAT64": SSSP_WEIGHT_FLOAT64,
    "SSSP_WEIGHT_INT32": SSSP_WEIGHT_INT32, "SSSP_WEIGHT_INT64": SSSP_WEIGHT_INT64,
    "SSSP_WEIGHT_NONE": SSSP_WEIGHT_NONE, "SSSP_INT_INFINITY": SSSP_INT_INFINITY,
}
_SSSP_TRACE = {  # sssp_common.cuh, for the persistent kernels
    "SSSP_TRACE_NEAR": SSSP_TRACE_NEAR, "SSSP_TRACE_SPLIT": SSSP_TRACE_SPLIT, "SSSP_TRACE_END": SSSP_TRACE_END,
    "SSSP_TRACE_HEAVY": SSSP_TRACE_HEAVY, "SSSP_TRACE_PULL": SSSP_TRACE_PULL, "SSSP_TRACE_ASYNC": SSSP_TRACE_ASYNC,
}

_COMMON = {
    "CNT_NEXT_COUNT": CNT_NEXT_COUNT, "CNT_NEXT_DEGREE": CNT_NEXT_DEGREE, "CNT_EDGES": CNT_EDGES,
    "CNT_FLAG": CNT_FLAG, "CNT_LEVELS_RUN": CNT_LEVELS_RUN, "CNT_FRONTIER": CNT_FRONTIER,
    "CNT_SCAN_DONE": CNT_SCAN_DONE, "CNT_LARGE_LEFT": CNT_LARGE_LEFT, "CNT_LOGGED": CNT_LOGGED,
    "CNT_SLOTS": CNT_SLOTS, "LOG_LEVEL_BITS": LOG_LEVEL_BITS, "WF_UNVISITED": UNVISITED, "FRONTIER_SCAN_SHIFT": FRONTIER_SCAN_SHIFT,
}
_PERSISTENT = {"TRACE_WIDTH": TRACE_WIDTH}
# What each kernel file sees (its own constants and those of the headers it includes).
_FILES = {
    "bfs_convert.cu": {**_COMMON, "CONVERT_BLOCK": BLOCK, "SCAN_BLOCK": BLOCK},
    "bfs_vertex.cu": _COMMON,
    "bfs_edge.cu": _COMMON,
    "bfs_frontier.cu": _COMMON,
    "bfs_load_balanced.cu": {**_COMMON, "LB_BLOCK": BALANCED_BLOCK, "LB_ITEMS": BALANCED_ITEMS},
    "bfs_bottom_up.cu": {**_COMMON, "BU_BLOCK": BOTTOM_UP_BLOCK, "BU_LARGE_BLOCK": BOTTOM_UP_LARGE_BLOCK},
    "bfs_single_block.cu": {**_COMMON, **_PERSISTENT, "SB_THREADS": SINGLE_BLOCK_THREADS,
                            "SB_STATS_FIELDS": SINGLE_BLOCK_STATS_FIELDS, "SB_PAD_MAX_SLOTS": PADDED_MAX_SLOTS},
    "bfs_grid_levels.cu": {**_COMMON, **_PERSISTENT, "GL_THREADS": GRID_LEVELS_THREADS,
                           "SB_STATS_FIELDS": SINGLE_BLOCK_STATS_FIELDS,
                           "GL_MAX_SLOTS": PADDED_MAX_SLOTS},
    "bfs_fold_2d.cu": {**_COMMON, "FOLD_MAX_OWNERS": FOLD_MAX_OWNERS},
    "bfs_one_column_2d.cu": _COMMON,
    "bfs_small_levels_2d.cu": {**_COMMON, "SEG_COUNT": SEG_COUNT, "SEG_DEGREE": SEG_DEGREE,
                               "SEG_EXAMINED": SEG_EXAMINED, "SEG_IDS": SEG_IDS, "SMALL_TILE": SMALL_TILE,
                               "SMALL_COUNT": SMALL_COUNT, "SMALL_LEVEL": SMALL_LEVEL, "SMALL_LEVELS": SMALL_LEVELS,
                               "SMALL_PARENTS": SMALL_PARENTS, "SMALL_TILES": SMALL_TILES,
                               "SMALL_SPREAD": SMALL_SPREAD},
    "sssp_harish.cu": {**_SSSP_COMMON, "HARISH_BLOCK": SSSP_BLOCK},
    "sssp_near_far.cu": {**_PERSISTENT, **_SSSP_COMMON, **_SSSP_TRACE, "NF_BLOCK": NEAR_FAR_BLOCK,
                         "NF_ARCS": NEAR_FAR_ARCS, "NF_MIN_BLOCKS": NEAR_FAR_MAX_BLOCKS_PER_SM,
                         "CTL_WORDS": NEAR_FAR_CTL_WORDS, "CTL_ITERATIONS": CTL_ITERATIONS,
                         "CTL_NEAR": NEAR_FAR_CTL_NEAR},
    "sssp_async.cu": {**_PERSISTENT, **_SSSP_COMMON, **_SSSP_TRACE, "AS_BLOCK": ASYNC_BLOCK,
                      "AS_MIN_BLOCKS": ASYNC_MAX_BLOCKS_PER_SM, "CTL_WORDS": ASYNC_CTL_WORDS,
                      "CTL_ITERATIONS": CTL_ITERATIONS, "Q_WORDS": ASYNC_QUEUE_WORDS,
                      "Q_RELAXED": ASYNC_QUEUE_RELAXED},
    "sssp_regions.cu": {**_PERSISTENT, **_SSSP_COMMON, "RG_TAIL_STRIDE": REGION_TAIL_STRIDE,
                        "RG_CTL_WORK": REGION_CTL_WORK, "RG_STAT_ITERATIONS": REGION_STAT_ITERATIONS,
                        "RG_STAT_RELAXED": REGION_STAT_RELAXED, "RG_STAT_SENT": REGION_STAT_SENT,
                        "RG_STAT_TAKEN": REGION_STAT_TAKEN, "RG_STAT_WAKEUPS": REGION_STAT_WAKEUPS,
                        "RG_STAT_MOST_ITERATIONS": REGION_STAT_MOST_ITERATIONS, "RG_STAT_WORDS": REGION_STAT_WORDS,
                        "RG_STAT_RELAX_CYCLES": REGION_STAT_RELAX_CYCLES, "RG_STAT_TOP_CYCLES": REGION_STAT_TOP_CYCLES,
                        "RG_STAT_WAIT_CYCLES": REGION_STAT_WAIT_CYCLES, "RG_STAT_SEND_CYCLES": REGION_STAT_SEND_CYCLES,
                        "RG_STAT_TAKE_CYCLES": REGION_STAT_TAKE_CYCLES,
                        "RG_STAT_BUSIEST_CYCLES": REGION_STAT_BUSIEST_CYCLES,
                        "RG_STAT_KERNEL_CYCLES": REGION_STAT_KERNEL_CYCLES},
    "sssp_phast.cu": {"SSSP_INT_INFINITY": SSSP_INT_INFINITY},
    "sssp_parents.cu": {**_SSSP_COMMON, "PARENT_BLOCK": PARENT_BLOCK, "PARENT_CHUNK": PARENT_CHUNK},
    "sssp_delta_2d.cu": {**_SSSP_COMMON, "OC_BLOCK": ONE_COLUMN_BLOCK, "OC_CHUNK": ONE_COLUMN_CHUNK,
                           "OC_NEAR": OC_NEAR, "OC_FAR": OC_FAR, "OC_SETTLED": OC_SETTLED, "OC_CHUNKS": OC_CHUNKS,
                           "OC_KEPT": OC_KEPT, "OC_TAIL_WORDS": OC_TAIL_WORDS, "OC_EXAMINED": OC_EXAMINED,
                           "OC_LOWERED": OC_LOWERED, "OC_FAR_BUCKET": OC_FAR_BUCKET, "OC_CTL_WORDS": OC_CTL_WORDS,
                           "OC_NO_BUCKET": OC_NO_BUCKET},
}
KERNEL_FILES = tuple(_FILES)


def defines(filename: str, index64: bool = False) -> dict[str, int]:
    """The ABI constants ``kernels/<filename>`` is compiled with (CUDA name -> value)."""
    if filename not in _FILES:
        raise KeyError(f"no ABI entry for kernel file {filename!r}; add it to wavefront.backends.cuda.abi")
    values = dict(_FILES[filename])
    if filename == "bfs_single_block.cu":
        values["SB_QUEUE_CAPACITY"] = single_block_capacity(index64)
    if filename in ("bfs_single_block.cu", "bfs_grid_levels.cu"):
        values["PAD_DEGREE_SHIFT"] = padded_degree_shift(index64)
    return values


def probe_source(filename: str, index64: bool = False) -> tuple[str, list[str]]:
    """CUDA source of a kernel ``wf_abi_probe(long long* out)`` that writes every
    ABI constant of ``filename`` as the compiled file sees it, and their names
    in output order. Appended to the file's source by ``compile.module(probe=True)``."""
    names = sorted(defines(filename, index64))
    body = "".join(f"    out[{i}] = (long long)({name});\n" for i, name in enumerate(names))
    return 'extern "C" __global__ void wf_abi_probe(long long* out) {\n' + body + "}\n", names
