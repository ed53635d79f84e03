"""``scipy.sparse.csgraph``'s shortest paths and breadth-first search, run by wavefront.

Change one import (``wavefront.csgraph`` re-exports this module)::

    from scipy.sparse.csgraph import dijkstra     # before
    from wavefront.csgraph import dijkstra        # after

:func:`breadth_first_order`, :func:`breadth_first_tree`, :func:`dijkstra`,
:func:`bellman_ford` and :func:`shortest_path` keep SciPy's signatures,
output dtypes (float64 distances, int32 predecessors), sentinels (``inf``,
``-9999``), shapes (1-D for a scalar index or ``min_only``, else
``indices.shape + (N,)``) and errors, and pass SciPy's own tests for them
(``tests/scipy_csgraph``; counts in ``docs/guide/scipy.md``).

**Input rules are SciPy's** because every graph goes through SciPy's own
``validate_graph``: in a dense array 0, ``inf`` and NaN mean "no edge"; in a
sparse matrix every stored entry is an edge, explicit zeros included (weight
0); a COO matrix's duplicates are summed on conversion while a CSR's are
parallel arcs (the lightest one counts); ``directed=False`` lets a search
use each arc both ways (so the lighter of ``[i, j]`` and ``[j, i]`` counts).

**Where it runs.** ``cupyx.scipy.sparse`` matrices and dense CuPy arrays run
on wavefront's CUDA backend and return CuPy arrays (``breadth_first_tree`` a
``cupyx`` CSR matrix); everything else runs on the CPU backend and returns
NumPy arrays. Each index is one ``wavefront.sssp`` (or ``wavefront.bfs`` when
``unweighted``); ``min_only`` is a single search from a virtual source joined
to every index by a 0-weight arc.

**SciPy runs it** (on the host; results go back to the GPU for CuPy input)
where wavefront's searches do not apply, so the answers and errors are
SciPy's exactly: graphs with negative weights (``dijkstra`` warns as SciPy
does, ``bellman_ford`` and ``'auto'`` handle them and raise
:class:`NegativeCycleError`), and ``shortest_path`` methods ``'FW'`` and
``'J'``. ``'auto'`` means ``'D'`` (wavefront's searches) for non-negative
weights, where SciPy would pick Floyd-Warshall for dense graphs.

**Predecessors.** Where one shortest path exists they are SciPy's. Where
several tie, SciPy's choice depends on its heap's internals ("output may vary
with SciPy version", its docs say); ours is the first-settled rule of its
Dijkstra made deterministic: ``pred[v]`` is the in-neighbour ``u`` on a
shortest path with the smallest distance, then the smallest id (a vertex
reached only over 0-weight arcs from vertices at its own distance keeps the
search's parent). Either way they form a shortest-path tree.

**Differences from SciPy**, all where SciPy's behaviour is undefined:
``breadth_first_order``/``_tree`` raise ``ValueError`` for a start node out
of range (SciPy reads past its arrays and returns an empty order, or raises
``OverflowError`` for a negative one); a vertex reached only over an ``inf``
arc gets predecessor -9999.
"""
from __future__ import annotations

import numbers
import operator

import numpy as np

from .._xp import array_module, is_cupy_array
from ..bfs import bfs
from ..graph._csr import index_dtype
from ..graph.container import Graph
from ..sssp import sssp

__all__ = [
    "NULL_IDX",
    "NegativeCycleError",
    "bellman_ford",
    "breadth_first_order",
    "breadth_first_tree",
    "dijkstra",
    "shortest_path",
]

NULL_IDX = -9999  # SciPy's "no predecessor / no source"
ITYPE = np.int32  # SciPy's predecessor and node-list dtype
DTYPE = np.float64  # SciPy's distance dtype

# wavefront method names per backend; "auto" lets wavefront choose.
METHODS = {
    "cpu": {"sssp": "auto", "bfs": "auto"},
    "cuda": {"sssp": "auto", "bfs": "auto"},
}

# Where SciPy keeps the functions this module hands work to. Taken from its
# private modules rather than ``scipy.sparse.csgraph`` so that SciPy's own
# code runs even when wavefront's functions have been swapped into that
# namespace (as tests/scipy_csgraph does to run SciPy's tests against us).
_SCIPY_MODULES = {
    "dijkstra": "_shortest_path",
    "bellman_ford": "_shortest_path",
    "shortest_path": "_shortest_path",
    "NegativeCycleError": "_shortest_path",
    "reconstruct_path": "_tools",
}


def _scipy(name: str):
    import importlib

    return getattr(importlib.import_module(f"scipy.sparse.csgraph.{_SCIPY_MODULES[name]}"), name)


def __getattr__(name):
    # SciPy's exception class itself, so ``except NegativeCycleError`` works
    # whichever module the caller imported it from; loaded on first use to
    # keep ``import wavefront.csgraph`` from importing SciPy.
    if name == "NegativeCycleError":
        return _scipy(name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# -- public functions ------------------------------------------------------------


def breadth_first_order(csgraph, i_start, directed=True, return_predecessors=True):
    """SciPy's ``breadth_first_order``: nodes in the order SciPy's BFS reaches them.

    Returns ``node_array`` (int32, reachable nodes only) and, when
    ``return_predecessors``, ``predecessors`` (int32, length N, -9999 for the
    start and unreached nodes). The order is SciPy's exactly: a FIFO search
    that scans each node's stored row in order (for ``directed=False``, its
    row, then its column). wavefront's BFS finds the levels; the order within
    each level is then derived from the rows of the level before it.
    """
    graph = _Input(csgraph, directed)
    start = _start_node(i_start, graph.n)
    order, predecessors = graph.bfs_order(start)
    return (order, predecessors) if return_predecessors else order


def breadth_first_tree(csgraph, i_start, directed=True):
    """SciPy's ``breadth_first_tree``: the BFS tree as an N x N CSR matrix.

    The tree's arc ``p -> v`` carries the weight of ``csgraph[p, v]`` (for
    ``directed=False`` the lighter nonzero of both directions), as SciPy's
    ``reconstruct_path`` gives it; the matrix type follows the input's.
    """
    graph = _Input(csgraph, directed)
    start = _start_node(i_start, graph.n)
    _order, predecessors = graph.bfs_order(start)
    if graph.device == "cuda":
        return _reconstruct_path_cuda(graph.csr, predecessors, directed)
    return _scipy("reconstruct_path")(csgraph, predecessors, directed)


def dijkstra(csgraph, directed=True, indices=None, return_predecessors=False,
             unweighted=False, limit=np.inf, min_only=False):
    """SciPy's ``dijkstra``: shortest-path distances from ``indices`` (all nodes by default).

    Returns ``dist_matrix`` and, with ``return_predecessors``, the
    predecessors; with ``min_only`` the distance from the nearest index, its
    predecessors and ``sources`` (the index each node is nearest to). Nodes
    farther than ``limit`` are unreached (``inf``, -9999). Negative weights:
    SciPy runs the call and warns, as it does.
    """
    return _Input(csgraph, directed).dijkstra(
        indices, return_predecessors, unweighted, limit, min_only
    )


def bellman_ford(csgraph, directed=True, indices=None, return_predecessors=False, unweighted=False):
    """SciPy's ``bellman_ford``: distances from ``indices``; wavefront's searches for
    non-negative weights, SciPy's Bellman-Ford (negative-cycle detection) otherwise."""
    return _Input(csgraph, directed).bellman_ford(indices, return_predecessors, unweighted)


def shortest_path(csgraph, method="auto", directed=True, return_predecessors=False,
                  unweighted=False, overwrite=False, indices=None):
    """SciPy's ``shortest_path``.

    ``'D'`` and ``'BF'`` are :func:`dijkstra` and :func:`bellman_ford`;
    ``'auto'`` is ``'D'`` unless the graph has a negative weight, when SciPy
    chooses and runs, as it does ``'FW'`` and ``'J'`` (``overwrite`` matters
    to ``'FW'`` alone). Other methods raise SciPy's ``ValueError``.
    """
    graph = _Input(csgraph, directed)  # validates first, as SciPy does
    if method in ("FW", "J") or (method == "auto" and graph.negative):
        return graph.by_scipy(
            "shortest_path", method=method, directed=directed, return_predecessors=return_predecessors,
            unweighted=unweighted, overwrite=overwrite, indices=indices,
        )
    if method in ("auto", "D"):
        return graph.dijkstra(indices, return_predecessors, unweighted, np.inf, False)
    if method == "BF":
        return graph.bellman_ford(indices, return_predecessors, unweighted)
    raise ValueError(f"unrecognized method '{method}'")


# -- the graph of one call -------------------------------------------------------


class _Input:
    """One call's graph: SciPy's validated float64 CSR on its device, plus the
    wavefront graphs built from it on demand (at most one of each kind)."""

    def __init__(self, csgraph, directed):
        self.original = csgraph
        self.directed = bool(directed)
        self.device = "cuda" if _on_gpu(csgraph) else "cpu"
        if self.device == "cuda":
            self.csr = _validate_cuda(csgraph, self.directed)
        else:
            from scipy.sparse.csgraph._validation import validate_graph

            # SciPy's own validation: the same input rules, conversions and
            # error messages as every scipy.sparse.csgraph function.
            self.csr = validate_graph(csgraph, self.directed, DTYPE, dense_output=False)
        self.xp = array_module(self.csr.data)
        self.n = int(self.csr.shape[0])
        self._graphs: dict = {}

    @property
    def negative(self) -> bool:
        return bool((self.csr.data < 0).any())

    def by_scipy(self, name: str, *args, **kwargs):
        """SciPy's ``name`` on this call's original input; CuPy input goes to
        the host and the results come back to the GPU."""
        if self.device == "cpu":
            return _scipy(name)(self.original, *args, **kwargs)
        import cupy

        result = _scipy(name)(self.original.get(), *args, **kwargs)
        if isinstance(result, tuple):
            return tuple(cupy.asarray(a) for a in result)
        return cupy.asarray(result)

    # -- searches ----------------------------------------------------------
    def dijkstra(self, indices, return_predecessors, unweighted, limit, min_only):
        if self.negative:
            return self.by_scipy(
                "dijkstra", self.directed, indices=indices, return_predecessors=return_predecessors,
                unweighted=unweighted, limit=limit, min_only=min_only,
            )
        sources, shape = _sources(indices, self.n, bool(min_only))
        limit = _limit(limit)
        if min_only:
            return self._nearest(sources, bool(return_predecessors), not unweighted, limit)
        return self._from_each(sources, shape, bool(return_predecessors), not unweighted, limit)

    def bellman_ford(self, indices, return_predecessors, unweighted):
        if self.negative:
            return self.by_scipy(
                "bellman_ford", self.directed, indices=indices, return_predecessors=return_predecessors,
                unweighted=unweighted,
            )
        sources, shape = _sources(indices, self.n, False)
        return self._from_each(sources, shape, bool(return_predecessors), not unweighted, np.inf)

    def _from_each(self, sources, shape, return_predecessors, weighted, limit):
        """One search per index: rows of distances (and predecessors)."""
        xp = self.xp
        dist = xp.full((len(sources), self.n), np.inf, dtype=DTYPE)
        pred = xp.full((len(sources), self.n), NULL_IDX, dtype=ITYPE) if return_predecessors else None
        graph = self.graph(weighted) if len(sources) else None
        arcs = _arcs(graph, weighted) if graph is not None and pred is not None else None
        done: dict = {}  # a repeated index is searched once
        for row, source in enumerate(sources.tolist()):
            if source in done:
                dist[row] = dist[done[source]]
                if pred is not None:
                    pred[row] = pred[done[source]]
                continue
            done[source] = row
            d, parents = _search(graph, source, weighted, limit)
            dist[row] = d
            if pred is not None:
                p = _predecessors(arcs, d, parents)
                p[source] = -1
                pred[row] = _scipy_ids(p, xp)
        dist = dist.reshape(shape)
        return (dist, pred.reshape(shape)) if pred is not None else dist

    def _nearest(self, sources, return_predecessors, weighted, limit):
        """``min_only``: one multi-source search from every index at once, so a
        node's distance is to its nearest index; ``sources`` follows each
        node's predecessors to an index."""
        xp, n = self.xp, self.n
        if n == 0:
            empty = xp.zeros(0, dtype=DTYPE)
            return (empty, xp.zeros(0, ITYPE), xp.zeros(0, ITYPE)) if return_predecessors else empty
        starts = xp.asarray(np.unique(sources).astype(np.int64))
        graph = self.graph(weighted)
        if starts.shape[0] == 0:  # SciPy: nothing is reached from no index
            dist = xp.full(n, np.inf, dtype=DTYPE)
            none = xp.full(n, NULL_IDX, dtype=ITYPE)
            return (dist, none, none.copy()) if return_predecessors else dist
        dist, parents = _search(graph, starts, weighted, limit)
        if not return_predecessors:
            return dist
        p = _predecessors(_arcs(graph, weighted), dist, parents)
        p[starts] = -1
        origin = _roots(p, starts, xp)
        return dist, _scipy_ids(p, xp), _scipy_ids(origin, xp)

    # -- breadth-first order ---------------------------------------------
    def bfs_order(self, start: int):
        """SciPy's BFS order and predecessors from ``start`` (int32 arrays)."""
        xp = self.xp
        graph = self.graph(weighted=False)
        levels = bfs(graph, start, method=METHODS[self.device]["bfs"]).levels
        indptr, indices = self._scan_rows()
        order, parents = _bfs_order(indptr, indices, levels, start, xp)
        return order.astype(ITYPE), _scipy_ids(parents, xp)

    def _scan_rows(self):
        """The CSR in the order SciPy's BFS scans it: a node's stored row,
        then (``directed=False``) its row in the transpose."""
        csr, xp = self.csr, self.xp
        indptr = csr.indptr.astype(np.int64)
        if self.directed:
            return indptr, csr.indices
        t = csr.T.tocsr()
        t_indptr = t.indptr.astype(np.int64)
        own, other = xp.diff(indptr), xp.diff(t_indptr)
        merged = xp.zeros(self.n + 1, dtype=np.int64)
        xp.cumsum(own + other, out=merged[1:])
        out = xp.empty(int(merged[-1]), dtype=np.int64)
        rows = _rows(indptr, xp)
        out[merged[rows] + xp.arange(rows.shape[0]) - indptr[rows]] = csr.indices
        rows = _rows(t_indptr, xp)
        out[merged[rows] + own[rows] + xp.arange(rows.shape[0]) - t_indptr[rows]] = t.indices
        return merged, out

    # -- wavefront graphs --------------------------------------------------
    def graph(self, weighted: bool) -> Graph:
        """The wavefront graph of this input: float64 weights for shortest
        paths, structure only for BFS and ``unweighted`` searches."""
        if weighted not in self._graphs:
            self._graphs[weighted] = _to_graph(self.csr, self.directed, weighted, self.xp)
        return self._graphs[weighted]


# -- input ------------------------------------------------------------------------


def _on_gpu(csgraph) -> bool:
    """A CuPy array or a ``cupyx.scipy.sparse`` matrix (checked by module name,
    so that CuPy is never imported for other input)."""
    module = type(csgraph).__module__.split(".")[0]
    return module in ("cupy", "cupyx")


def _validate_cuda(csgraph, directed: bool):
    """SciPy's ``validate_graph`` for CuPy input: a float64 ``cupyx`` CSR matrix."""
    import cupy
    import cupyx.scipy.sparse as cusparse

    from ..backends import require_cuda

    require_cuda()
    if cusparse.issparse(csgraph):
        if not directed and csgraph.format == "csc":
            csgraph = csgraph.T  # as SciPy does: the transpose of a CSC is a CSR
        csr = csgraph.tocsr().astype(DTYPE)
    else:
        dense = cupy.asarray(csgraph, dtype=DTYPE)
        if dense.ndim != 2:
            raise ValueError("graph should have two dimensions")
        if dense.shape[0] != dense.shape[1]:
            raise ValueError("graph should be a square array")
        # In a dense graph 0, inf and NaN all mean "no edge".
        csr = cusparse.csr_matrix(cupy.where(cupy.isfinite(dense), dense, 0))
    if csr.shape[0] != csr.shape[1]:
        raise ValueError("compressed-sparse graph must be shape (N, N)")
    return csr


def _sources(indices, n: int, min_only: bool):
    """SciPy's handling of ``indices``: int32, negative ones counted from the
    end; returns the flat sources and the output shape."""
    if indices is None:
        return np.arange(n, dtype=ITYPE), (n,) if min_only else (n, n)
    if is_cupy_array(indices):
        indices = indices.get()
    sources = np.array(indices, order="C", dtype=ITYPE, copy=True)
    shape = (n,) if min_only else sources.shape + (n,)
    sources = np.atleast_1d(sources).reshape(-1)
    sources[sources < 0] += n
    if np.any(sources < 0) or np.any(sources >= n):
        raise ValueError("indices out of range 0...N")
    return sources, shape


def _limit(limit) -> float:
    if isinstance(limit, (str, bytes)):  # float("1") would take it; SciPy wants a real number
        raise TypeError(f"limit must be a real number, got {limit!r}")
    try:
        value = float(limit)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"limit must be a real number, got {limit!r}") from exc
    if value < 0:
        raise ValueError("limit must be >= 0")
    return value


def _start_node(i_start, n: int) -> int:
    try:
        start = operator.index(i_start)
    except TypeError:
        if not isinstance(i_start, numbers.Real):
            raise TypeError(f"i_start must be an integer node index, got {i_start!r}") from None
        start = int(i_start)  # SciPy truncates a float start node
    if not 0 <= start < n:
        raise ValueError(f"i_start out of range 0...N-1: got {i_start!r} for a graph of N={n} nodes")
    return start


def _to_graph(csr, directed: bool, weighted: bool, xp) -> Graph:
    """A wavefront graph with SciPy's arcs: self-loops dropped (no shortest
    path or BFS tree uses one), parallel arcs merged to the lightest, and,
    for shortest paths, inf/NaN arcs dropped (SciPy reaches nothing over
    them). A canonical CSR (sorted, no duplicates) that needs none of this
    is used as it is, skipping the sort of ``Graph.from_edges``."""
    n = int(csr.shape[0])
    indptr = csr.indptr.astype(np.int64)
    indices = csr.indices
    rows = _rows(indptr, xp)
    keep = rows != indices
    weights = None
    if weighted:
        weights = csr.data
        keep &= xp.isfinite(weights)
    if bool(keep.all()) and csr.has_canonical_format:
        ids = index_dtype(n)
        if xp is np and weights is not None and not weights.flags.writeable:
            weights = weights.copy()  # numba compiles read-only arrays as another type
        if directed:
            csc = csr.tocsc()
            return Graph(
                indptr, indices.astype(ids), n=n, weights=weights, directed=True,
                in_indptr=csc.indptr.astype(np.int64), in_indices=csc.indices.astype(ids),
                in_weights=None if weights is None else csc.data.astype(DTYPE),
            )
        if _symmetric(csr, weighted, xp):
            return Graph(indptr, indices.astype(ids), n=n, weights=weights, directed=False)
    return Graph.from_edges(
        rows[keep], indices[keep], None if weights is None else weights[keep], n=n, directed=directed
    )


def _symmetric(csr, weighted: bool, xp) -> bool:
    """Whether a canonical CSR equals its transpose (weights too when ``weighted``)."""
    t = csr.T.tocsr()
    t.sort_indices()
    return (
        xp.array_equal(csr.indptr, t.indptr)
        and xp.array_equal(csr.indices, t.indices)
        and (not weighted or xp.array_equal(csr.data, t.data))
    )


def _rows(indptr, xp):
    """The row of every stored entry of a CSR (int64)."""
    if xp is np:
        return np.repeat(np.arange(indptr.shape[0] - 1, dtype=np.int64), np.diff(indptr))
    # CuPy's repeat takes no array of counts; a binary search per entry is cheap there.
    m = int(indptr[-1])
    return xp.searchsorted(indptr[1:], xp.arange(m, dtype=np.int64), side="right").astype(np.int64)


# -- searches -----------------------------------------------------------------------


def _search(graph: Graph, sources, weighted: bool, limit: float):
    """(float64 distances, int64 parents) of one wavefront search from
    ``sources`` (a node, or an array of nodes searched at once).

    ``limit`` is SciPy's: nodes farther away stay unreached. Unweighted
    searches are BFS.
    """
    xp = graph.xp
    seeds = {"source": sources} if isinstance(sources, int) else {"sources": sources}
    if limit != limit:  # NaN: SciPy's test ``distance <= limit`` never holds
        dist = xp.full(graph.n, np.inf, dtype=DTYPE)
        parents = xp.full(graph.n, -1, dtype=np.int64)
        dist[sources], parents[sources] = 0, sources
        return dist, parents
    methods = METHODS[graph.device]
    if weighted:
        cutoff = None if limit == np.inf else limit
        result = sssp(graph, method=methods["sssp"], cutoff=cutoff, **seeds)
        return result.distances.astype(DTYPE, copy=False), result.parents
    depth = None if limit == np.inf else int(min(limit, graph.n))
    result = bfs(graph, method=methods["bfs"], depth_limit=depth, **seeds)
    levels = result.levels
    dist = xp.where(levels >= 0, levels.astype(DTYPE), np.inf)
    return dist, result.parents


def _arcs(graph: Graph, weighted: bool):
    """(tail, head, weight) of every arc of ``graph``, for :func:`_predecessors`."""
    xp = graph.xp
    weights = graph.weights if weighted else xp.ones(graph.m, dtype=DTYPE)
    return _rows(graph.indptr, xp), graph.indices, weights


def _predecessors(arcs, dist, parents):
    """SciPy's predecessor of every node for these distances (-1 for none).

    SciPy's Dijkstra keeps the first settled node ``u`` whose arc reaches
    ``v``'s final distance; nodes settle in order of distance, so that is the
    tight in-neighbour of smallest distance, ties broken here by the smallest
    id. A node whose only tight in-arcs come from nodes at its own distance
    (0-weight arcs) keeps the search's parent, which keeps the tree acyclic.
    """
    tail, head, weight = arcs
    xp = array_module(dist)
    n = dist.shape[0]
    du, dv = dist[tail], dist[head]
    tight = xp.flatnonzero((du < dv) & (du + weight == dv) & xp.isfinite(dv))
    tail, head, du = tail[tight], head[tight], du[tight]
    best = xp.full(n, np.inf, dtype=DTYPE)
    _scatter_min(xp, best, head, du)
    first = du == best[head]
    pick = xp.full(n, n, dtype=np.int64)
    _scatter_min(xp, pick, head[first], tail[first])
    fallback = xp.where(xp.isfinite(dist), parents, -1)
    return xp.where(pick < n, pick, fallback)


def _scatter_min(xp, out, index, values) -> None:
    """``out[index] = min(out[index], values)``, repeated indices included."""
    if xp is np:
        np.minimum.at(out, index, values)
        return
    if out.dtype == np.int64:
        # CuPy's scatter-min takes uint64 but not int64; for the non-negative
        # node ids here both orders agree, so work on a uint64 view of ``out``.
        out, values = out.view(np.uint64), values.astype(np.uint64)
    if hasattr(xp.minimum, "at"):  # CuPy >= 14 deprecates cupyx.scatter_min for this
        xp.minimum.at(out, index, values)
    else:
        import cupyx

        cupyx.scatter_min(out, index, values)


def _scipy_ids(ids, xp):
    """int32 with SciPy's -9999 where ``ids`` is negative."""
    return xp.where(ids >= 0, ids, NULL_IDX).astype(ITYPE)


def _roots(pred, starts, xp):
    """For every node, the start its predecessor chain ends at (-1 if unreached),
    by pointer doubling: O(n log depth) without a per-node loop."""
    n = pred.shape[0]
    jump = pred.copy()
    jump[starts] = starts
    reached = jump >= 0
    jump = xp.where(reached, jump, xp.arange(n, dtype=jump.dtype))
    while True:
        further = jump[jump]
        if bool(xp.array_equal(further, jump)):
            break
        jump = further
    return xp.where(reached, jump, -1)


def _bfs_order(indptr, indices, levels, start: int, xp):
    """SciPy's BFS node order and parents (-1 for none), given the BFS levels.

    SciPy's FIFO search appends, for each node in queue order, its row's
    not-yet-seen nodes in stored order. So level ``k`` in SciPy's order is
    the first occurrence of each level-``k`` node in the concatenated rows of
    level ``k - 1`` (in its order), and that row's node is its parent: one
    vectorised pass per level, with no visited set since the levels say
    which nodes are new.
    """
    parents = xp.full(levels.shape[0], -1, dtype=np.int64)
    frontier = xp.asarray([start], dtype=np.int64)
    parts = [frontier]
    for level in range(1, int(levels.max()) + 1):
        lo = indptr[frontier]
        counts = indptr[frontier + 1] - lo
        ends = xp.cumsum(counts)
        total = int(ends[-1])
        position = xp.arange(total, dtype=np.int64)
        owner = xp.searchsorted(ends, position, side="right")
        heads = indices[lo[owner] + position - (ends[owner] - counts[owner])].astype(np.int64)
        new = levels[heads] == level
        heads, owner = heads[new], owner[new]
        first = _first_occurrences(heads, xp)
        frontier = heads[first]
        parents[frontier] = parts[-1][owner[first]]
        parts.append(frontier)
    return xp.concatenate(parts), parents


def _first_occurrences(values, xp):
    """Positions of the first occurrence of each distinct value, ascending
    (one sort of ``value * len + position``, stable on any backend)."""
    size = int(values.shape[0])
    if size == 0:
        return xp.zeros(0, dtype=np.int64)
    keys = xp.sort(values * size + xp.arange(size, dtype=np.int64))
    group = keys // size
    first = xp.ones(size, dtype=bool)
    first[1:] = group[1:] != group[:-1]
    return xp.sort(keys[first] % size)


def _reconstruct_path_cuda(csr, predecessors, directed: bool):
    """SciPy's ``reconstruct_path`` on the GPU: a ``cupyx`` CSR tree whose arc
    ``p -> v`` weighs ``csgraph[p, v]`` (duplicates summed, as SciPy's
    indexing does); undirected, the lighter nonzero of both directions."""
    import cupy
    import cupyx.scipy.sparse as cusparse

    n = int(csr.shape[0])
    graph = csr.copy()
    graph.sum_duplicates()  # also sorts: keys below are ascending
    keys = _rows(graph.indptr.astype(np.int64), cupy) * n + graph.indices

    def lookup(rows, cols):
        if keys.shape[0] == 0:
            return cupy.zeros(rows.shape[0], dtype=DTYPE)
        wanted = rows * n + cols
        at = cupy.minimum(cupy.searchsorted(keys, wanted), keys.shape[0] - 1)
        return cupy.where(keys[at] == wanted, graph.data[at], 0.0)

    child = cupy.flatnonzero(predecessors >= 0)
    order = cupy.sort(predecessors[child].astype(np.int64) * n + child)
    parent, child = order // n, order % n
    if directed:
        data = lookup(parent, child)
    else:
        forward, backward = lookup(parent, child), lookup(child, parent)
        data = cupy.minimum(
            cupy.where(forward == 0, np.inf, forward), cupy.where(backward == 0, np.inf, backward)
        )
    indptr = cupy.searchsorted(parent, cupy.arange(n + 1), side="left")
    return cusparse.csr_matrix(
        (data, child.astype(ITYPE), indptr.astype(ITYPE)), shape=(n, n)
    )
