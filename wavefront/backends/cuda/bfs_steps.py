"""Python launchers for the BFS step kernels in ``kernels/bfs_*.cu``.

One function per kernel (or per fused pair): each picks the grid, passes the
graph's arrays and the workspace buffers, and returns without synchronizing;
:func:`read_counters` (or :func:`queue_counter_copy` and :func:`wait_counters`)
is the one host round trip a level makes. Kernels come
from the compile-once cache, instantiated for 32- or 64-bit vertex ids to
match ``graph.indices``.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from .compile import kernel
from .device_graph import CNT_LEVELS_RUN, STATS_FIELDS, BFSWorkspace, first_in_rows, index64

BLOCK = 256  # threads per block of the one-thread-per-item kernels; also
# CONVERT_BLOCK (bitmap_to_queue), SCAN_BLOCK (frontier_scan) and
# BU_LARGE_BLOCK (bottom_up_large), whose
# block-wide reductions are sized at compile time
BOTTOM_UP_BLOCK = 128  # BU_BLOCK in bfs_bottom_up.cu
BALANCED_BLOCK = 256  # LB_BLOCK in bfs_load_balanced.cu
BALANCED_CHUNK = BALANCED_BLOCK * 4  # edge slots per block: LB_BLOCK * LB_ITEMS
SINGLE_BLOCK_THREADS = 1024  # SB_THREADS in bfs_single_block.cu


def single_block_capacity(ws: BFSWorkspace) -> int:
    """SB_QUEUE_CAPACITY in bfs_single_block.cu: the largest frontier it keeps in shared memory."""
    return 2048 if ws.index64 else 3072


# Extra #defines for bfs_bottom_up.cu (its tuning constants); empty means the
# file's defaults. benchmarks/bfs_tune.py sets it to time other values.
BOTTOM_UP_DEFINES: dict[str, int] = {}
# True: bottom-up steps read each candidate's range and first in-neighbour
# from one packed word (device_graph.first_in_rows) where the graph allows;
# False: from in_indptr and in_indices (for comparison).
BOTTOM_UP_FIRST_IN = True


@lru_cache(maxsize=None)
def _function(filename: str, name: str, wide: bool, device_id: int, extra: tuple = ()):
    return kernel(filename, name, {"WF_INDEX64": int(wide), **dict(extra)})


def _get(filename: str, name: str, wide: bool, extra: tuple = ()):
    import cupy

    return _function(filename, name, wide, cupy.cuda.Device().id, extra)


def _blocks(items: int, per_block: int = BLOCK) -> int:
    return max(1, -(-int(items) // per_block))


def _i64(x) -> np.int64:
    return np.int64(x)


def compile_all(wide: bool) -> None:
    """Load every BFS kernel now, so no search pays for compilation."""
    for filename, names in KERNELS.items():
        for name in names:
            _get(filename, name, wide)


KERNELS = {
    "bfs_convert.cu": ("init_search", "queue_to_bitmap", "bitmap_to_queue", "frontier_scan", "frontier_degrees",
                       "complete_results"),
    "bfs_vertex.cu": ("vertex_push_step", "vertex_pull_step"),
    "bfs_edge.cu": ("edge_step", "expand_rows"),
    "bfs_frontier.cu": ("frontier_step", "frontier_privatized_step"),
    "bfs_load_balanced.cu": ("top_down_balanced_step", "record_levels"),
    "bfs_bottom_up.cu": ("build_degree_masks", "bottom_up_small", "bottom_up_large", "bottom_up_small_first",
                         "bottom_up_large_first"),
    "bfs_single_block.cu": ("single_block_levels",),
}


# -- setup and counters ---------------------------------------------------------
def build_degree_masks(graph, ws: BFSWorkspace) -> None:
    """The once-per-graph bitmaps: in-degree >= 32 (large) and in-degree 0 (unreachable)."""
    fn = _get("bfs_bottom_up.cu", "build_degree_masks", ws.index64)
    fn(
        (_blocks(ws.words),),
        (BLOCK,),
        (_i64(graph.n), _i64(ws.words), graph.in_indptr, ws.large, ws.unreachable),
    )


def expand_rows(graph):
    import cupy

    wide = index64(graph)
    sources = cupy.empty(graph.m, dtype=np.int64 if wide else np.int32)
    fn = _get("bfs_edge.cu", "expand_rows", wide)
    fn((_blocks(graph.n),), (BLOCK,), (_i64(graph.n), graph.indptr, sources))
    return sources


def init_search(graph, ws: BFSWorkspace, source: int, levels, parents, fill: bool = True) -> None:
    """levels = -1, parents = -1 (with ``fill``; else the root's entries only:
    see :func:`complete_results`), visited = {source} + unreachable vertices;
    queue_in = [source]."""
    fn = _get("bfs_convert.cu", "init_search", ws.index64)
    # Without the fill a grid over every vertex would still cost ~0.16 ms at SCALE 26.
    items = max(graph.n, ws.words) if fill else ws.words
    fn(
        (_blocks(items),),
        (BLOCK,),
        (
            _i64(graph.n), _i64(ws.words), ws.vid_dtype(source), levels, parents,
            ws.unreachable, ws.visited, ws.queue_in, np.int32(fill),
        ),
    )


def complete_results(graph, ws: BFSWorkspace, source: int, levels, parents) -> None:
    """After a search started with ``init_search(fill=False)`` that no bottom-up
    level completed: -1 for every vertex the visited bitmap does not hold,
    every word's entries written whole."""
    fn = _get("bfs_convert.cu", "complete_results", ws.index64)
    fn(
        (_blocks(ws.words),),
        (BLOCK,),
        (_i64(graph.n), _i64(ws.words), ws.vid_dtype(source), ws.visited, ws.unreachable, levels, parents),
    )


def reset_counters(ws: BFSWorkspace) -> None:
    import cupy

    stream = cupy.cuda.get_current_stream()
    cupy.cuda.runtime.memsetAsync(ws.counters.data.ptr, 0, ws.counters.nbytes, stream.ptr)


def read_counters(ws: BFSWorkspace) -> np.ndarray:
    """Copy the step counters to the (pinned) host mirror; synchronizes."""
    ws.counters.get(out=ws.host_counters)
    return ws.host_counters


def queue_counter_copy(ws: BFSWorkspace) -> None:
    """Queue the copy of the current step counters to their pinned mirror and
    mark it with their event; :func:`wait_counters` then waits for that copy
    only, not for work queued after it (a bottom-up level queued ahead)."""
    import cupy

    stream = cupy.cuda.get_current_stream()
    cupy.cuda.runtime.memcpyAsync(ws.host_counters.ctypes.data, ws.counters.data.ptr, ws.counters.nbytes,
                                  cupy.cuda.runtime.memcpyDeviceToHost, stream.ptr)
    ws.counters_copied.record(stream)


def wait_counters(ws: BFSWorkspace) -> np.ndarray:
    """The current counters as copied by :func:`queue_counter_copy`."""
    ws.counters_copied.synchronize()
    return ws.host_counters


def wait_for_workspace(ws: BFSWorkspace) -> None:
    """Order the current stream after the last counter copies queued on any stream."""
    import cupy

    stream = cupy.cuda.get_current_stream()
    for event in ws.counter_events():
        stream.wait_event(event)


def read_single_block(ws: BFSWorkspace) -> tuple[np.ndarray, int, np.ndarray]:
    """(counters, start_ns, rows) of the last single-block launch, in one round
    trip: both copies are queued to pinned memory, then one synchronize (the
    whole stats buffer, 3 x SINGLE_BLOCK_MAX_LEVELS words, costs less than a
    second round trip). rows: (frontier, edges, end_ns) per level run."""
    import cupy

    stream = cupy.cuda.get_current_stream()
    for host, device in ((ws.host_counters, ws.counters), (ws.host_level_stats, ws.level_stats)):
        cupy.cuda.runtime.memcpyAsync(host.ctypes.data, device.data.ptr, device.nbytes,
                                      cupy.cuda.runtime.memcpyDeviceToHost, stream.ptr)
    stream.synchronize()
    run = int(ws.host_counters[CNT_LEVELS_RUN])
    raw = ws.host_level_stats
    return ws.host_counters, int(raw[0]), raw[1 : 1 + STATS_FIELDS * run].reshape(run, STATS_FIELDS).copy()


# -- frontier conversions -------------------------------------------------------
def queue_to_bitmap(ws: BFSWorkspace, count: int) -> None:
    """frontier bitmap = set of queue_in[:count]."""
    import cupy

    stream = cupy.cuda.get_current_stream()
    cupy.cuda.runtime.memsetAsync(ws.frontier.data.ptr, 0, ws.frontier.nbytes, stream.ptr)
    if count:
        fn = _get("bfs_convert.cu", "queue_to_bitmap", ws.index64)
        fn((_blocks(count),), (BLOCK,), (ws.queue_in, _i64(count), ws.frontier))


def bitmap_to_queue(ws: BFSWorkspace) -> None:
    """queue_in = vertices of the frontier bitmap (counts into CNT_NEXT_COUNT)."""
    fn = _get("bfs_convert.cu", "bitmap_to_queue", ws.index64)
    fn((_blocks(ws.words),), (BLOCK,), (ws.frontier, _i64(ws.words), ws.queue_in, ws.counters))


# -- steps ------------------------------------------------------------------------
def vertex_push(graph, ws: BFSWorkspace, level: int, levels, parents) -> None:
    fn = _get("bfs_vertex.cu", "vertex_push_step", ws.index64)
    fn(
        (_blocks(graph.n),),
        (BLOCK,),
        (_i64(graph.n), np.int32(level), graph.indptr, graph.indices, levels, parents, ws.counters),
    )


def vertex_pull(graph, ws: BFSWorkspace, level: int, levels, parents) -> None:
    fn = _get("bfs_vertex.cu", "vertex_pull_step", ws.index64)
    fn(
        (_blocks(graph.n),),
        (BLOCK,),
        (_i64(graph.n), np.int32(level), graph.in_indptr, graph.in_indices, levels, parents, ws.counters),
    )


def edge(graph, ws: BFSWorkspace, sources, level: int, levels, parents) -> None:
    if graph.m == 0:
        return
    fn = _get("bfs_edge.cu", "edge_step", ws.index64)
    fn(
        (_blocks(graph.m),),
        (BLOCK,),
        (_i64(graph.m), np.int32(level), sources, graph.indices, levels, parents, ws.counters),
    )


def frontier(graph, ws: BFSWorkspace, count: int, level: int, levels, parents, privatized: bool) -> None:
    """queue_in[:count] -> queue_out (atomicCAS claims on levels)."""
    name = "frontier_privatized_step" if privatized else "frontier_step"
    fn = _get("bfs_frontier.cu", name, ws.index64)
    fn(
        (_blocks(count),),
        (BLOCK,),
        (
            ws.queue_in, _i64(count), np.int32(level), graph.indptr, graph.indices,
            levels, parents, ws.queue_out, ws.counters,
        ),
    )


# How the edge-balanced step gets its frontier offsets: "fused" (one
# frontier_scan launch, two-level offsets) or "cupy" (frontier_degrees, then
# cupy.cumsum, as before round 4). benchmarks/bfs_tune.py times both.
BALANCED_SCAN = "fused"
SCAN_CHUNK = 1 << 10  # 2**FRONTIER_SCAN_SHIFT in kernels/common.cuh


def frontier_offsets(graph, ws: BFSWorkspace, count: int) -> None:
    """Edge offsets of queue_in[:count] into ws.offsets / ws.block_offsets
    (see top_down_balanced_step); uses the CNT_SCAN_DONE counter, so the
    counters must have been reset since the last scan."""
    import cupy

    if BALANCED_SCAN == "fused":
        scan = _get("bfs_convert.cu", "frontier_scan", ws.index64)
        scan(
            (_blocks(count, SCAN_CHUNK),),
            (BLOCK,),
            (ws.queue_in, _i64(count), graph.indptr, ws.offsets, ws.block_offsets, ws.counters),
        )
        return
    degrees = _get("bfs_convert.cu", "frontier_degrees", ws.index64)
    degrees((_blocks(count),), (BLOCK,), (ws.queue_in, _i64(count), graph.indptr, ws.degrees))
    cupy.cumsum(ws.degrees[:count], out=ws.offsets[1 : count + 1])
    stream = cupy.cuda.get_current_stream()
    cupy.cuda.runtime.memsetAsync(ws.block_offsets.data.ptr, 0, ws.block_offsets.nbytes, stream.ptr)


def top_down_balanced(graph, ws: BFSWorkspace, count: int, total_edges: int, level: int, levels, parents,
                      write_levels: bool = True) -> None:
    """queue_in[:count] -> queue_out, spreading the frontier's ``total_edges``
    evenly over blocks (visited-bitmap claims). ``write_levels=False``: the
    winners' levels are left to the next step (:func:`record_levels`, or a
    bottom-up step with ``frontier_levels``)."""
    if total_edges == 0:
        return
    frontier_offsets(graph, ws, count)
    fn = _get("bfs_load_balanced.cu", "top_down_balanced_step", ws.index64)
    fn(
        (_blocks(total_edges, BALANCED_CHUNK),),
        (BALANCED_BLOCK,),
        (
            ws.queue_in, _i64(count), ws.offsets, ws.block_offsets, _i64(total_edges), np.int32(level),
            graph.indptr, graph.indices, levels, parents, ws.visited, ws.queue_out, ws.counters,
            np.int32(write_levels),
        ),
    )


def record_levels(ws: BFSWorkspace, count: int, level: int, levels) -> None:
    """levels[queue_in[:count]] = level: what a top-down step with
    ``write_levels=False`` left out (its output queue, after the swap)."""
    if count:
        fn = _get("bfs_load_balanced.cu", "record_levels", ws.index64)
        fn((_blocks(count),), (BLOCK,), (ws.queue_in, _i64(count), np.int32(level), levels))


# The single block keeps the visited bitmap in shared memory when it fits in
# this much (graphs up to 1.3 M vertices); beyond, its claims go to L2.
SHARED_VISITED_BYTES = 160 * 1024


@lru_cache(maxsize=None)
def _single_block_function(wide: bool, device_id: int):
    """(kernel, whether it may use SHARED_VISITED_BYTES of dynamic shared memory)."""
    import cupy

    fn = _function("bfs_single_block.cu", "single_block_levels", wide, device_id)
    try:
        fn.max_dynamic_shared_size_bytes = SHARED_VISITED_BYTES
    except cupy.cuda.driver.CUDADriverError:  # a GPU with less shared memory per block
        return fn, False
    return fn, True


def single_block(graph, ws: BFSWorkspace, count: int, level: int, max_level: int, edge_limit: int, levels, parents) -> None:
    """Levels from ``level`` (at most to ``max_level``) in one block, from
    queue_in[:count] (count <= capacity) to queue_out."""
    import cupy

    fn, shared_ok = _single_block_function(ws.index64, cupy.cuda.Device().id)
    shared_words = ws.words if shared_ok and ws.words * 4 <= SHARED_VISITED_BYTES else 0
    fn(
        (1,),
        (SINGLE_BLOCK_THREADS,),
        (
            ws.queue_in, _i64(count), np.int32(level), np.int32(max_level), _i64(edge_limit),
            _i64(shared_words), graph.indptr, graph.indices, levels, parents, ws.visited,
            ws.queue_out, ws.counters, ws.level_stats,
        ),
        shared_mem=4 * shared_words,
    )


# True: on graphs whose result arrays (12 bytes per vertex) take at least
# WHOLE_RESULTS_MIN_BYTES, init_search leaves them unfilled and the search's
# first bottom-up level (packed rows) writes them whole, or complete_results
# does at the end; False: init_search fills them (for comparison). Smaller
# arrays stay in the L2 cache (50 MB on an H100/H200) after the fill, where
# the search's scattered records cost no DRAM reads.
WRITE_RESULTS_WHOLE = True
WHOLE_RESULTS_MIN_BYTES = 64 << 20
# True: while the results are deferred, a grid-wide top-down step writes its
# winners' parents but leaves their levels to the next step; False: it
# writes both.
DEFER_TOP_DOWN_LEVELS = True


def results_written_whole(graph) -> bool:
    """Whether a direction-optimizing search on ``graph`` defers its result
    fill: large result arrays, and bottom-up steps that can write them whole
    (packed rows: 32-bit ids, fewer than 2**32 arcs); otherwise the search
    would end rewriting every entry (complete_results) instead of a fill."""
    return (WRITE_RESULTS_WHOLE and BOTTOM_UP_FIRST_IN and 12 * graph.n >= WHOLE_RESULTS_MIN_BYTES
            and not index64(graph) and graph.m < 2**32)


def writes_whole(graph, in_indices) -> bool:
    """Whether :func:`bottom_up` can write the result arrays whole (packed rows)."""
    return BOTTOM_UP_FIRST_IN and first_in_rows(graph, in_indices) is not None


def bottom_up(graph, ws: BFSWorkspace, level: int, levels, parents, in_indices, whole_from=None,
              frontier_levels: bool = False) -> bool:
    """frontier bitmap -> next_frontier bitmap (fig. 6 kernel, then fig. 4 kernel).
    ``in_indices``: the CSC indices in the order the scans should probe them
    (``graph.in_indices`` or ``device_graph.degree_ordered_in_indices``).
    With BOTTOM_UP_FIRST_IN the kernels take the packed rows of
    ``device_graph.first_in_rows`` where the graph has them; then, given
    ``whole_from`` (the search's source), fig. 6 also writes every vertex's
    level and parent whole (see ``write_words_whole``), the frontier's levels
    too with ``frontier_levels`` (left out by the top-down step before).
    Returns whether it wrote whole."""
    rows = first_in_rows(graph, in_indices) if BOTTOM_UP_FIRST_IN else None
    variant = tuple(sorted(BOTTOM_UP_DEFINES.items()))
    if rows is not None:
        whole = whole_from is not None
        args = (
            _i64(ws.words), np.int32(level), rows, in_indices, graph.indptr, ws.large, ws.frontier,
            ws.visited, ws.next_frontier, levels, parents, ws.counters, np.int32(graph.in_indptr is graph.indptr),
            np.int32(whole), _i64(graph.n), _i64(whole_from if whole else -1), ws.unreachable,
            np.int32(whole and frontier_levels),
        )
        small = _get("bfs_bottom_up.cu", "bottom_up_small_first", ws.index64, variant)
        small((_blocks(ws.words, BOTTOM_UP_BLOCK),), (BOTTOM_UP_BLOCK,), args)
        large = _get("bfs_bottom_up.cu", "bottom_up_large_first", ws.index64, variant)
        large((_blocks(ws.words),), (BLOCK,), args)
        return whole
    args = (
        _i64(ws.words), np.int32(level), graph.in_indptr, in_indices, graph.indptr,
        ws.large, ws.frontier, ws.visited, ws.next_frontier, levels, parents, ws.counters,
    )
    small = _get("bfs_bottom_up.cu", "bottom_up_small", ws.index64, variant)
    small((_blocks(ws.words, BOTTOM_UP_BLOCK),), (BOTTOM_UP_BLOCK,), args)
    large = _get("bfs_bottom_up.cu", "bottom_up_large", ws.index64, variant)
    large((_blocks(ws.words),), (BLOCK,), args)
    return False
