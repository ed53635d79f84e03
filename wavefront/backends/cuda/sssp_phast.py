"""PHAST on a contraction hierarchy (kernels/sssp_phast.cu), for road networks.

The graph is contracted once on the host (:mod:`wavefront.graph.hierarchy`,
kept in ``graph.derived``); its level-ordered pull lists go to the GPU once
(:class:`PhastWorkspace`). A search then sets the sources' distances, runs
one persistent launch of two level sweeps (the narrow levels' top in block
0's shared memory, ``SSSPTuning.phast_resident_bytes``), maps the distances
back to the graph's numbering and finds predecessors in the original graph
like every method (a shortcut is never a parent).
"""
from __future__ import annotations

from functools import cache

import numpy as np

from ...results import SSSPResult, Trace, TraceRow
from .abi import SSSP_INT_INFINITY
from .memory import check_fits
from .sssp_common import finish_search
from .sssp_tuning import SSSPTuning

PHAST_THREADS = 1024  # threads a block; a level at most this wide runs on block 0 alone
RESIDENT_BYTES_A_VERTEX = 24  # a resident vertex's distance and its two row starts (kernels/sssp_phast.cu)


def narrow_from(level_starts: np.ndarray, width: int) -> int:
    """The lowest level from which every level up holds at most ``width``
    vertices (the number of levels if the top one is wider)."""
    widths = np.diff(level_starts)
    wide = np.flatnonzero(widths > width)
    return int(wide[-1]) + 1 if wide.size else 0


class PhastWorkspace:
    """The hierarchy's pull lists and the search buffers on the GPU, for one
    graph (kept in ``graph.derived``)."""

    def __init__(self, graph, hierarchy, index_dtype):
        import cupy

        h = hierarchy
        vid = np.dtype(index_dtype).itemsize
        check_fits("PHAST hierarchy and buffers",
                   8 * (2 * (h.n + 1) + len(h.level_starts) + 2 * h.n) + (vid + 8) * h.arcs)
        self.hierarchy = h
        self.level_of = np.repeat(np.arange(h.levels, dtype=np.int64), np.diff(h.level_starts))
        self.rank_host = h.rank
        self.rank = cupy.asarray(h.rank)
        self.level_starts = cupy.asarray(h.level_starts)
        self.up = (cupy.asarray(h.up_indptr), cupy.asarray(h.up_indices.astype(index_dtype)),
                   cupy.asarray(h.up_weights))
        self.down = (cupy.asarray(h.down_indptr), cupy.asarray(h.down_indices.astype(index_dtype)),
                     cupy.asarray(h.down_weights))
        self.narrow_from = narrow_from(h.level_starts, PHAST_THREADS)
        self.dist = cupy.empty(h.n, dtype=np.int64)
        self.arrived = cupy.zeros(1, dtype=np.uint32)

    @classmethod
    def for_graph(cls, graph, index_dtype) -> PhastWorkspace:
        from ...graph.hierarchy import hierarchy_of

        key = ("cuda.sssp.phast", np.dtype(index_dtype).str)
        hierarchy = hierarchy_of(graph)
        ws = graph.derived.get(key)
        if ws is None or ws.hierarchy is not hierarchy:  # none yet, or made for one that load_hierarchy replaced
            ws = graph.derived[key] = cls(graph, hierarchy, index_dtype)
        return ws


def resident_from(level_starts: np.ndarray, narrow: int, shared_bytes: int) -> int:
    """The first id of the narrow levels' top kept in shared memory: as many
    of the highest ids as ``shared_bytes`` holds (two row starts' ends
    aside), none below the narrow levels."""
    n = int(level_starts[-1])
    fit = max(0, (shared_bytes - 16) // RESIDENT_BYTES_A_VERTEX)
    return max(int(level_starts[min(narrow, len(level_starts) - 1)]), n - fit)


def resident_bytes(n: int, first: int) -> int:
    """Dynamic shared memory of a launch whose ids ``first``.. are resident."""
    return RESIDENT_BYTES_A_VERTEX * (n - first) + 16


@cache
def _phast_kernel(wide: bool):
    """(kernel, the most dynamic shared memory a block may take: 0 where the
    GPU refuses the opt-in past the default)."""
    from .bfs_steps import get_kernel
    from .device import opt_in_dynamic_shared

    fn = get_kernel("sssp_phast.cu", "phast_sweeps", wide)
    return fn, opt_in_dynamic_shared(fn)


def phast_sssp(graph, source, ar, k, in_weights, cut, tuning: SSSPTuning) -> SSSPResult:
    """One search: ``source`` an id or an int64 array of distinct ids."""
    import cupy

    from .device import sm_count

    ws = PhastWorkspace.for_graph(graph, k.index_dtype)
    seeds = np.atleast_1d(np.asarray(source, dtype=np.int64))
    ranked = ws.rank_host[seeds]
    stream = cupy.cuda.get_current_stream()
    # the first seed goes as an argument; more (a multi-source search) as a device array
    # (one seed: any pointer, since the kernel reads none of it)
    rest = cupy.asarray(ranked[1:].astype(k.index_dtype)) if ranked.size > 1 else ws.dist
    cupy.cuda.runtime.memsetAsync(ws.arrived.data.ptr, 0, ws.arrived.nbytes, stream.ptr)
    fn, limit = _phast_kernel(k.index_dtype == np.int64)
    wanted = limit if tuning.phast_resident_bytes is None else min(int(tuning.phast_resident_bytes), limit)
    first_resident = resident_from(ws.hierarchy.level_starts, ws.narrow_from, wanted)
    start, end = cupy.cuda.Event(), cupy.cuda.Event()
    start.record()
    source_level = int(ws.level_of[ranked].min()) if ranked.size else 0
    h = ws.hierarchy
    fn((sm_count(),), (PHAST_THREADS,),
       (np.int64(h.n), np.int64(ranked[0]), rest, np.int32(ranked.size - 1), ws.level_starts, np.int32(h.levels),
        np.int32(source_level), np.int32(ws.narrow_from), np.int64(first_resident), *ws.up, *ws.down, ws.dist,
        ws.arrived), shared_mem=resident_bytes(h.n, first_resident))
    end.record()
    dist = ws.dist[ws.rank]  # back to the graph's numbering
    if cut != ar.infinity:
        dist[dist > cut] = SSSP_INT_INFINITY
    levels, narrow, arcs, shortcuts = h.levels, ws.narrow_from, h.arcs, h.shortcuts
    resident = h.n - first_resident

    def make_row():
        end.synchronize()
        return (TraceRow(0, "phast", int(seeds.size), -1, cupy.cuda.get_elapsed_time(start, end) * 1e-3,
                         f"hierarchy of {levels} levels (from level {narrow} on block 0 alone, its top "
                         f"{resident} vertices in shared memory), {arcs} arcs ({shortcuts} shortcuts); sweeps "
                         f"from level {source_level}"),)

    trace = Trace()
    trace.defer(make_row)
    return finish_search(graph, source, dist, ar, k, in_weights, trace, "hierarchy")
