"""Python launchers for the BFS step kernels in ``kernels/bfs_*.cu``.

One function per kernel (or per fused pair): each picks the grid, passes the
graph's arrays and the workspace buffers, and returns without synchronizing;
:func:`read_counters` (or :func:`queue_counter_copy` and :func:`wait_counters`)
is the one host round trip a level makes. Kernels come from the
compile-once cache, instantiated for 32- or 64-bit vertex ids to match
``graph.indices`` and for the :class:`~.bfs_tuning.BFSTuning` that picks
their compile-time constants. Launches with many arguments take them as a
named tuple whose fields follow the kernel's parameter list. The multi-level
kernels have their own launchers: :mod:`.bfs_single_block`,
:mod:`.bfs_grid_levels`.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Any, NamedTuple

import numpy as np

from .abi import (
    BALANCED_BLOCK,
    BALANCED_CHUNK,
    BLOCK,
    CNT_EDGES,
    CNT_LEVELS_RUN,
    SCAN_CHUNK,
    SINGLE_BLOCK_STATS_FIELDS,
)
from .bfs_tuning import DEFAULT_TUNING, BFSTuning
from .compile import kernel
from .device_graph import BFSWorkspace, index64
from .memory import check_fits


@lru_cache(maxsize=None)
def _function(filename: str, name: str, wide: bool, device_id: int, tuning: BFSTuning, extra: tuple = ()):
    """``extra``: more (define, value) pairs, such as a graph's padded row shape."""
    return kernel(filename, name, {"WF_INDEX64": int(wide), **tuning.defines(filename), **dict(extra)})


def get_kernel(filename: str, name: str, wide: bool, tuning: BFSTuning = DEFAULT_TUNING, extra: tuple = ()):
    """The kernel ``name`` of ``kernels/<filename>`` for this GPU, ``tuning``'s
    defines and ``extra`` (define, value) pairs, compiled once."""
    import cupy

    return _function(filename, name, wide, cupy.cuda.Device().id, tuning, extra)


def blocks(items: int, per_block: int = BLOCK) -> int:
    return max(1, -(-int(items) // per_block))


def i64(x) -> np.int64:
    return np.int64(x)


KERNELS = {
    "bfs_convert.cu": ("init_search", "seed_sources", "queue_to_bitmap", "bitmap_to_queue", "frontier_scan",
                       "frontier_total", "complete_results", "logged_visits"),
    "bfs_vertex.cu": ("vertex_push_step", "vertex_pull_step"),
    "bfs_edge.cu": ("edge_step", "expand_rows"),
    "bfs_frontier.cu": ("frontier_step", "frontier_privatized_step"),
    "bfs_load_balanced.cu": ("top_down_balanced_step", "record_levels"),
    "bfs_bottom_up.cu": ("build_degree_masks", "bottom_up_small", "bottom_up_large", "bottom_up_small_first",
                         "bottom_up_large_first"),
    "bfs_single_block.cu": ("single_block_levels", "single_block_levels_padded"),
    "bfs_grid_levels.cu": ("grid_levels",),
}


def compile_all(wide: bool, tuning: BFSTuning = DEFAULT_TUNING) -> None:
    """Load every BFS kernel now, so no search pays for compilation."""
    for filename, names in KERNELS.items():
        for name in names:
            get_kernel(filename, name, wide, tuning)


# -- per-graph structures built by kernels ------------------------------------------
def workspace(graph) -> BFSWorkspace:
    """The graph's BFS workspace, built (and its degree masks filled) on first use."""
    ws = graph.derived.get("cuda.bfs")
    if ws is None:
        ws = BFSWorkspace(graph)
        build_degree_masks(graph, ws)
        graph.derived["cuda.bfs"] = ws
    return ws


def coo_sources(graph):
    """Source vertex of every stored arc (the COO row array), cached per graph."""
    src = graph.derived.get("cuda.bfs.coo")
    if src is None:
        import cupy

        wide = index64(graph)
        check_fits(f"the COO of {graph!r} for edge-centric BFS", (8 if wide else 4) * graph.m)
        src = cupy.empty(graph.m, dtype=np.int64 if wide else np.int32)
        fn = get_kernel("bfs_edge.cu", "expand_rows", wide)
        fn((blocks(graph.n),), (BLOCK,), (i64(graph.n), graph.indptr, src))
        graph.derived["cuda.bfs.coo"] = src
    return src


def build_degree_masks(graph, ws: BFSWorkspace) -> None:
    """The once-per-graph bitmaps: in-degree >= 32 (large) and in-degree 0 (unreachable)."""
    fn = get_kernel("bfs_bottom_up.cu", "build_degree_masks", ws.index64)
    fn((blocks(ws.words),), (BLOCK,), (i64(graph.n), i64(ws.words), graph.in_indptr, ws.large, ws.unreachable))


# -- search start and end -----------------------------------------------------------
InitSearchArgs = NamedTuple("InitSearchArgs", [
    ("n", np.int64), ("words", np.int64), ("source", Any), ("levels", Any), ("parents", Any),
    ("unreachable", Any), ("visited", Any), ("queue", Any), ("fill", np.int32)])


def init_search(graph, ws: BFSWorkspace, source: int, levels, parents, fill: bool = True) -> None:
    """levels = -1, parents = -1 (with ``fill``; else the root's entries only:
    see :func:`complete_results`), visited = {source} + unreachable vertices;
    queue_in = [source]."""
    fn = get_kernel("bfs_convert.cu", "init_search", ws.index64)
    # Without the fill a grid over every vertex would still cost ~0.16 ms at SCALE 26.
    items = max(graph.n, ws.words) if fill else ws.words
    args = InitSearchArgs(n=i64(graph.n), words=i64(ws.words), source=ws.vid_dtype(source), levels=levels,
                          parents=parents, unreachable=ws.unreachable, visited=ws.visited, queue=ws.queue_in,
                          fill=np.int32(fill))
    fn((blocks(items),), (BLOCK,), tuple(args))


def seed_sources(ws: BFSWorkspace, seeds: np.ndarray, levels, parents, start: bool = True) -> None:
    """Every one of ``seeds`` (distinct internal ids, host int64) at level 0 as
    its own parent; with ``start`` also visited and queued (queue_in[:k]), as
    :func:`init_search` treats one source (run it first, for ``seeds[0]``).
    ``start=False`` rewrites the results only (after a whole-word write)."""
    import cupy

    device_seeds = cupy.asarray(seeds.astype(ws.vid_dtype, copy=False))
    fn = get_kernel("bfs_convert.cu", "seed_sources", ws.index64)
    null = np.uint64(0)  # a pointer the kernel does not follow
    fn((blocks(seeds.size),), (BLOCK,), (device_seeds, i64(seeds.size), levels, parents,
                                         ws.visited if start else null, ws.queue_in if start else null))


def complete_results(graph, ws: BFSWorkspace, source: int, levels, parents, n: int | None = None) -> None:
    """After a search started with ``init_search(fill=False)`` that no bottom-up
    level completed: -1 for every vertex the visited bitmap does not hold,
    every word's entries written whole, for the first ``n`` vertices (default
    ``graph.n``; ``source`` -1 where the arrays do not hold the source)."""
    fn = get_kernel("bfs_convert.cu", "complete_results", ws.index64)
    fn((blocks(ws.words),), (BLOCK,),
       (i64(graph.n if n is None else n), i64(ws.words), ws.vid_dtype(source), ws.visited, ws.unreachable,
        levels, parents))


# -- counters -------------------------------------------------------------------------
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


def read_kernel_levels(ws: BFSWorkspace) -> tuple[np.ndarray, int, np.ndarray]:
    """(counters, start_ns, rows) of the last multi-level launch (the single
    block, the grid levels: :mod:`.bfs_grid_levels`), in one round
    trip: both copies are queued to pinned memory, then one synchronize (the
    whole stats buffer costs less than a second round trip). rows: (frontier,
    edges, end_ns) per level run."""
    import cupy

    stream = cupy.cuda.get_current_stream()
    for host, device in ((ws.host_counters, ws.counters), (ws.host_level_stats, ws.level_stats)):
        cupy.cuda.runtime.memcpyAsync(host.ctypes.data, device.data.ptr, device.nbytes,
                                      cupy.cuda.runtime.memcpyDeviceToHost, stream.ptr)
    stream.synchronize()
    run = int(ws.host_counters[CNT_LEVELS_RUN])
    raw = ws.host_level_stats
    fields = SINGLE_BLOCK_STATS_FIELDS
    return ws.host_counters, int(raw[0]), raw[1 : 1 + fields * run].reshape(run, fields).copy()


# -- frontier conversions -------------------------------------------------------------
def queue_to_bitmap(ws: BFSWorkspace, count: int) -> None:
    """frontier bitmap = set of queue_in[:count]."""
    import cupy

    stream = cupy.cuda.get_current_stream()
    cupy.cuda.runtime.memsetAsync(ws.frontier.data.ptr, 0, ws.frontier.nbytes, stream.ptr)
    if count:
        fn = get_kernel("bfs_convert.cu", "queue_to_bitmap", ws.index64)
        fn((blocks(count),), (BLOCK,), (ws.queue_in, i64(count), ws.frontier))


def bitmap_to_queue(ws: BFSWorkspace) -> None:
    """queue_in = vertices of the frontier bitmap (counts into CNT_NEXT_COUNT)."""
    fn = get_kernel("bfs_convert.cu", "bitmap_to_queue", ws.index64)
    fn((blocks(ws.words),), (BLOCK,), (ws.frontier, i64(ws.words), ws.queue_in, ws.counters))


# -- vertex-, edge- and queue-centric steps ----------------------------------------------
def vertex_push(graph, ws: BFSWorkspace, level: int, levels, parents) -> None:
    fn = get_kernel("bfs_vertex.cu", "vertex_push_step", ws.index64)
    fn((blocks(graph.n),), (BLOCK,),
       (i64(graph.n), np.int32(level), graph.indptr, graph.indices, levels, parents, ws.counters))


def vertex_pull(graph, ws: BFSWorkspace, level: int, levels, parents) -> None:
    fn = get_kernel("bfs_vertex.cu", "vertex_pull_step", ws.index64)
    fn((blocks(graph.n),), (BLOCK,),
       (i64(graph.n), np.int32(level), graph.in_indptr, graph.in_indices, levels, parents, ws.counters))


def edge(graph, ws: BFSWorkspace, sources, level: int, levels, parents) -> None:
    if graph.m == 0:
        return
    fn = get_kernel("bfs_edge.cu", "edge_step", ws.index64)
    fn((blocks(graph.m),), (BLOCK,),
       (i64(graph.m), np.int32(level), sources, graph.indices, levels, parents, ws.counters))


def frontier(graph, ws: BFSWorkspace, count: int, level: int, levels, parents, privatized: bool) -> None:
    """queue_in[:count] -> queue_out (atomicCAS claims on levels)."""
    name = "frontier_privatized_step" if privatized else "frontier_step"
    fn = get_kernel("bfs_frontier.cu", name, ws.index64)
    fn((blocks(count),), (BLOCK,), (ws.queue_in, i64(count), np.int32(level), graph.indptr, graph.indices,
                                     levels, parents, ws.queue_out, ws.counters))


# -- the edge-balanced top-down step ---------------------------------------------------------
def frontier_offsets(graph, ws: BFSWorkspace, count: int) -> None:
    """Edge offsets of queue_in[:count] into ws.offsets / ws.block_offsets in one
    launch (see top_down_balanced_step); uses the CNT_SCAN_DONE counter, so the
    counters must have been reset since the last scan."""
    scan = get_kernel("bfs_convert.cu", "frontier_scan", ws.index64)
    scan((blocks(count, SCAN_CHUNK),), (BLOCK,),
         (ws.queue_in, i64(count), graph.indptr, ws.offsets, ws.block_offsets, ws.counters))


def frontier_edges(graph, ws: BFSWorkspace, count: int) -> int:
    """The out-degree sum of queue_in[:count], read in one host round trip:
    :func:`frontier_offsets`, whose last offset plus the last vertex's degree
    ``frontier_total`` leaves in the CNT_EDGES counter. The counters must
    have been reset; :func:`top_down_balanced` with ``scanned=True`` then
    reuses the offsets. (A CuPy ReductionKernel over the queue reduces in
    one block: 0.2 ms for 0.1 M vertices on an H200, against 0.02 here.)"""
    frontier_offsets(graph, ws, count)
    fn = get_kernel("bfs_convert.cu", "frontier_total", ws.index64)
    fn((1,), (1,), (ws.queue_in, i64(count), graph.indptr, ws.offsets, ws.block_offsets, ws.counters))
    return int(read_counters(ws)[CNT_EDGES])


# A run of parameters both the edge-balanced and the single-block kernel take.
_TOP_DOWN_OUTPUTS = [("indptr", Any), ("indices", Any), ("levels", Any), ("parents", Any), ("visited", Any),
                     ("next_queue", Any), ("counters", Any)]
TopDownBalancedArgs = NamedTuple("TopDownBalancedArgs", [
    ("queue", Any), ("count", np.int64), ("offsets", Any), ("block_offsets", Any), ("total_edges", np.int64),
    ("level", np.int32), *_TOP_DOWN_OUTPUTS, ("write_levels", np.int32), ("degree_indptr", Any)])


def top_down_balanced(graph, ws: BFSWorkspace, count: int, total_edges: int, level: int, levels, parents,
                      write_levels: bool = True, degree_indptr=None, scanned: bool = False) -> None:
    """queue_in[:count] -> queue_out, spreading the frontier's ``total_edges``
    evenly over blocks (visited-bitmap claims). ``write_levels=False``: the
    winners' levels are left to the next step (:func:`record_levels`, or a
    bottom-up step with ``frontier_levels``). The winners' degree sum counts
    the row lengths of ``degree_indptr`` (default the out-degrees,
    ``graph.indptr``; a one-column grid's block passes its in-rows).
    ``scanned``: :func:`frontier_edges` already left the queue's offsets."""
    if total_edges == 0:
        return
    if not scanned:
        frontier_offsets(graph, ws, count)
    fn = get_kernel("bfs_load_balanced.cu", "top_down_balanced_step", ws.index64)
    args = TopDownBalancedArgs(
        queue=ws.queue_in, count=i64(count), offsets=ws.offsets, block_offsets=ws.block_offsets,
        total_edges=i64(total_edges), level=np.int32(level), indptr=graph.indptr, indices=graph.indices,
        levels=levels, parents=parents, visited=ws.visited, next_queue=ws.queue_out, counters=ws.counters,
        write_levels=np.int32(write_levels), degree_indptr=graph.indptr if degree_indptr is None else degree_indptr)
    fn((blocks(total_edges, BALANCED_CHUNK),), (BALANCED_BLOCK,), tuple(args))


def record_levels(ws: BFSWorkspace, count: int, level: int, levels) -> None:
    """levels[queue_in[:count]] = level: what a top-down step with
    ``write_levels=False`` left out (its output queue, after the swap)."""
    if count:
        fn = get_kernel("bfs_load_balanced.cu", "record_levels", ws.index64)
        fn((blocks(count),), (BLOCK,), (ws.queue_in, i64(count), np.int32(level), levels))
