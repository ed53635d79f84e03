"""A contraction hierarchy of a graph, laid out for level-synchronous sweeps.

Used by the ``hierarchy`` SSSP methods (PHAST: Delling, Goldberg, Nowatzyk and
Werneck, "PHAST: Hardware-accelerated shortest path trees", IPDPS 2011 and
JPDC 2013). The graph is contracted once (:mod:`._hierarchy_numba`); then a
search from ``s`` is two sweeps over the levels:

1. **up**: the distances from ``s`` in the upward graph (arcs towards higher
   vertices), levels ascending, each vertex pulling from its lower
   in-neighbours;
2. **down**: levels descending, each vertex pulling from its higher
   in-neighbours ``d(y) = min(d(y), d(x) + w(x, y))``.

Every shortest path of a contraction hierarchy climbs, then descends, so the
two sweeps give exact distances. No arc joins two vertices of one level, so a
level's vertices are independent: a sweep is a parallel loop a level.

The vertices are renumbered by level (ascending; a level is a contiguous
range of new ids). Integer weights only: a shortcut's weight is a sum, and
float sums in another order than a search's would differ in the last bits.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

#: Witness searches settle at most this many vertices when contracting, and
#: this many when only estimating a vertex's importance (RoutingKit's order).
SETTLE_LIMIT = 500
SIMULATE_LIMIT = 100
#: The largest out-degree a graph may have for a hierarchy. Road networks and
#: grids have at most 4-8 (amsterdam and seattle 7); a hub of a skewed graph
#: makes the contraction's last vertices a dense core (Kronecker SCALE 14,
#: out-degrees up to 3 626, did not finish in 10 minutes on 2 cores).
MAX_DEGREE = 32


@dataclass(frozen=True)
class Hierarchy:
    """A contracted graph on the host, renumbered by level.

    ``order[i]``: the old id of new vertex ``i``; ``rank[v]``: the new id of
    old vertex ``v``; ``level_starts``: level ``l`` is new ids
    ``level_starts[l]:level_starts[l + 1]``. Pull lists by new id: ``up_*``
    holds, for each vertex, its in-arcs from lower vertices (the up sweep);
    ``down_*`` its in-arcs from higher ones (the down sweep). Weights int64.
    ``shortcuts``: arcs of the two lists that stand for paths of several
    original arcs; ``seconds``: the build's wall time."""

    n: int
    order: np.ndarray
    rank: np.ndarray
    level_starts: np.ndarray
    up_indptr: np.ndarray
    up_indices: np.ndarray
    up_weights: np.ndarray
    down_indptr: np.ndarray
    down_indices: np.ndarray
    down_weights: np.ndarray
    shortcuts: int
    seconds: float

    @property
    def levels(self) -> int:
        return len(self.level_starts) - 1

    @property
    def arcs(self) -> int:
        return len(self.up_indices) + len(self.down_indices)


def _pull_lists(n: int, target, source, weight, rank):
    """CSR by new target id of (new source id, weight)."""
    t, s = rank[target], rank[source]
    by = np.lexsort((s, t))
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(t, minlength=n), out=indptr[1:])
    return indptr, s[by].astype(np.int64), weight[by].astype(np.int64)


def check_integer_weights(graph) -> None:
    """Raise MethodLimitError unless the graph has integer weights or none:
    shortcuts are sums, exact only in integers."""
    if graph.weights is not None and graph.weights.dtype.kind not in "iu":
        from ..errors import MethodLimitError

        raise MethodLimitError(
            f"hierarchy: needs integer weights (shortcuts are sums, exact only in integers), got "
            f"{graph.weights.dtype}; use method='delta-stepping'")


def integer_weights(graph) -> np.ndarray:
    """The graph's weights as host int64 (1 an arc when unweighted). Raises
    ValueError for weights that are not whole numbers."""
    if graph.weights is None:
        return np.ones(graph.m, dtype=np.int64)
    w = np.asarray(graph.weights.get() if hasattr(graph.weights, "get") else graph.weights)
    if w.dtype.kind == "f" and (not np.all(np.isfinite(w)) or not np.array_equal(w, np.round(w))):
        raise ValueError("a contraction hierarchy needs integer weights (shortcut sums must be exact)")
    return w.astype(np.int64)


def contract_graph(indptr, indices, weights, n: int, *, settle_limit: int = SETTLE_LIMIT,
                   simulate_limit: int = SIMULATE_LIMIT) -> Hierarchy:
    """Contract the graph given as a host CSR (int64 ``weights`` >= 0) into a
    :class:`Hierarchy`. Parallel arcs keep their least weight; loops are dropped.
    Each numba thread keeps a distance array of ``n`` int64 for its witness
    searches (16 threads on 4 M vertices: 512 MB)."""
    from ._hierarchy_numba import contract

    start = time.perf_counter()
    indptr = np.asarray(indptr, dtype=np.int64)
    dst = np.asarray(indices, dtype=np.int64)
    w = np.asarray(weights, dtype=np.int64)
    if w.size and int(w.max()) * max(int(n) - 1, 1) >= 2**62:
        from ..errors import WeightError

        raise WeightError(f"integer weights up to {int(w.max())} could make a shortcut or a distance overflow int64 "
                          f"on {n} vertices; scale the weights down")
    src = np.repeat(np.arange(n, dtype=np.int64), np.diff(indptr))
    keep = src != dst
    src, dst, w = src[keep], dst[keep], w[keep]
    by = np.lexsort((w, dst, src))  # per (src, dst) the least weight first
    src, dst, w = src[by], dst[by], w[by]
    first = np.ones(src.size, dtype=bool)
    first[1:] = (src[1:] != src[:-1]) | (dst[1:] != dst[:-1])
    src, dst, w = src[first], dst[first], w[first]
    if n == 0:
        order, level = np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        up = down = np.zeros((3, 0), dtype=np.int64)
        shortcuts = 0
    else:
        from numba import get_num_threads

        order, level, up, down, shortcuts = contract(int(n), src, dst, w, int(settle_limit), int(simulate_limit),
                                                     get_num_threads())
    # new ids by level, then by contraction order within a level
    position = np.empty(n, dtype=np.int64)
    position[order] = np.arange(n, dtype=np.int64)
    new_order = np.lexsort((position, level))
    rank = np.empty(n, dtype=np.int64)
    rank[new_order] = np.arange(n, dtype=np.int64)
    levels = int(level.max()) + 1 if n else 0
    level_starts = np.zeros(levels + 1, dtype=np.int64)
    np.cumsum(np.bincount(level, minlength=levels), out=level_starts[1:])
    up_indptr, up_indices, up_weights = _pull_lists(n, up[1], up[0], up[2], rank)  # by the higher end
    down_indptr, down_indices, down_weights = _pull_lists(n, down[1], down[0], down[2], rank)  # by the lower end
    return Hierarchy(int(n), new_order, rank, level_starts, up_indptr, up_indices, up_weights, down_indptr,
                     down_indices, down_weights, int(shortcuts), time.perf_counter() - start)


def hierarchy_of(graph) -> Hierarchy:
    """The graph's hierarchy, built on first use and kept in ``graph.derived``.
    Raises MethodLimitError for a graph with an out-degree above :data:`MAX_DEGREE`."""
    found = graph.derived.get("hierarchy")
    if found is None:
        host = graph.to("cpu") if graph.device != "cpu" else graph
        degree = int(np.diff(np.asarray(host.indptr)).max()) if host.n else 0
        if degree > MAX_DEGREE:
            from ..errors import MethodLimitError

            raise MethodLimitError(
                f"hierarchy: for road-shaped graphs (out-degrees up to {MAX_DEGREE}); this graph has a vertex of "
                f"out-degree {degree}, whose contraction would not end in useful time; use method='delta-stepping'")
        found = contract_graph(host.indptr, host.indices, integer_weights(host), host.n)
        graph.derived["hierarchy"] = found
    return found
