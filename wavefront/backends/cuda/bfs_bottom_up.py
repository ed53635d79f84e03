"""Launchers for the bottom-up BFS step (seed 000 sec. 3.2: fig. 6's thread per
small vertex, fig. 4's warp per large one) in ``kernels/bfs_bottom_up.cu``.

Both kernels read the frontier bitmap and write the next one. Where the
graph allows (32-bit ids, fewer than 2**32 arcs) and
``BFSTuning.packed_first_probes`` is on, they read each candidate's row
start and first in-neighbour from one packed word
(``device_graph.first_in_rows``), and the first bottom-up level of a search
that deferred its result fill writes the result arrays whole.
"""
from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from .abi import BOTTOM_UP_BLOCK, BOTTOM_UP_LARGE_BLOCK
from .bfs_steps import blocks, get_kernel, i64
from .bfs_tuning import BFSTuning
from .device_graph import BFSWorkspace, index64

# The parameters of the bottom-up kernels, in their order. The packed-row
# entry points (bottom_up_*_first) read the packed first-in-neighbour words
# as ``rows`` and take six more.
_BOTTOM_UP_PARAMETERS = [
    ("words", np.int64), ("level", np.int32), ("rows", Any), ("in_indices", Any), ("out_indptr", Any),
    ("large", Any), ("frontier", Any), ("visited", Any), ("next_frontier", Any), ("levels", Any),
    ("parents", Any), ("counters", Any),
]
BottomUpArgs = NamedTuple("BottomUpArgs", _BOTTOM_UP_PARAMETERS)
PackedBottomUpArgs = NamedTuple("PackedBottomUpArgs", _BOTTOM_UP_PARAMETERS + [
    ("undirected", np.int32), ("whole", np.int32), ("n", np.int64), ("source", np.int64),
    ("unreachable", Any), ("frontier_levels", np.int32),
])


def results_written_whole(graph, tuning: BFSTuning) -> bool:
    """Whether a direction-optimizing search on ``graph`` defers its result
    fill: large result arrays, and bottom-up steps that can write them whole
    (packed rows: 32-bit ids, fewer than 2**32 arcs); otherwise the search
    would end rewriting every entry (complete_results) instead of a fill."""
    return (tuning.results_whole_min_bytes is not None and tuning.packed_first_probes
            and 12 * graph.n >= tuning.results_whole_min_bytes and not index64(graph) and graph.m < 2**32)


def bottom_up(graph, ws: BFSWorkspace, tuning: BFSTuning, level: int, levels, parents, in_indices,
              packed_rows=None, whole_from=None, frontier_levels: bool = False, degrees_in_rows: bool = False,
              rows: int | None = None) -> bool:
    """frontier bitmap -> next_frontier bitmap (fig. 6 kernel, then fig. 4 kernel).
    ``in_indices``: the CSC indices in the order the scans should probe them;
    ``packed_rows``: their ``device_graph.first_in_rows`` words, or None (then
    the kernels probe through in_indptr). With packed rows and ``whole_from``
    (the search's source, or -1 where the result arrays do not hold it) fig. 6
    also writes the first ``rows`` (default ``graph.n``) vertices' levels and
    parents whole (see ``write_words_whole``), the frontier's levels too with
    ``frontier_levels`` (left out by the top-down step before). The found
    vertices' degree sum counts out-degrees, or in-row lengths with
    ``degrees_in_rows`` (an undirected graph's are the same; a one-column
    grid's block holds every in-arc of its rows, so only these are degrees).
    Returns whether it wrote whole."""
    same_rows = degrees_in_rows or graph.in_indptr is graph.indptr
    common = dict(words=i64(ws.words), level=np.int32(level), in_indices=in_indices,
                  out_indptr=graph.in_indptr if same_rows else graph.indptr,
                  large=ws.large, frontier=ws.frontier, visited=ws.visited, next_frontier=ws.next_frontier,
                  levels=levels, parents=parents, counters=ws.counters)
    if packed_rows is not None:
        whole = whole_from is not None
        args = tuple(PackedBottomUpArgs(
            rows=packed_rows, undirected=np.int32(same_rows), whole=np.int32(whole),
            n=i64(graph.n if rows is None else rows), source=i64(whole_from if whole else -1),
            unreachable=ws.unreachable,
            frontier_levels=np.int32(whole and frontier_levels), **common))
        names = ("bottom_up_small_first", "bottom_up_large_first")
    else:
        whole = False
        args = tuple(BottomUpArgs(rows=graph.in_indptr, **common))
        names = ("bottom_up_small", "bottom_up_large")
    small = get_kernel("bfs_bottom_up.cu", names[0], ws.index64, tuning)
    small((blocks(ws.words, BOTTOM_UP_BLOCK),), (BOTTOM_UP_BLOCK,), args)
    large = get_kernel("bfs_bottom_up.cu", names[1], ws.index64, tuning)
    large((blocks(ws.words, BOTTOM_UP_LARGE_BLOCK),), (BOTTOM_UP_LARGE_BLOCK,), args)
    return whole
