"""The searches behind the NetworkX functions, on a :class:`~.convert.BackendGraph`.

Two kinds, by what the result depends on:

* **order-free** results (distances, hop counts, reachability) come from
  ``wavefront.sssp`` / ``wavefront.bfs`` on the configured device
  (:func:`distances`, :func:`levels`); on the CPU, method "auto" means the
  serial searches (see :func:`levels`);
* **order-sensitive** results (BFS edge order, paths, predecessor lists)
  replay NetworkX's visiting order with the compiled kernels of
  :mod:`._kernels` (:func:`bfs_order`, :func:`bidirectional_path`,
  :func:`bidirectional_dijkstra`); the Dijkstra replay
  (:func:`dijkstra_order`) takes its distances from ``wavefront.sssp``.

Vertex arguments and results are ids (``0..n-1``); the function modules map
node keys. Also here: the result builders they share.
"""
from __future__ import annotations

import gc
import math
from types import SimpleNamespace

import numpy as np

from ._info import DEFAULT_CONFIG


def config():
    """``nx.config.backends.wavefront`` (the defaults when NetworkX has not registered it)."""
    import networkx as nx

    found = getattr(nx.config.backends, "wavefront", None)
    return SimpleNamespace(**DEFAULT_CONFIG) if found is None else found


def device() -> str:
    chosen = config().device
    if chosen == "auto":
        from wavefront.backends import choose_backend

        chosen, _ = choose_backend("auto")
    return chosen


def hop_limit(limit):
    """NetworkX's ``depth_limit``/``cutoff`` for hops (it expands a level while
    ``level < limit``) as the deepest level reached; None for no limit."""
    if limit is None or limit == math.inf:
        return None
    if math.isnan(limit) or limit <= 0:  # NetworkX's comparison never holds
        return 0
    return math.ceil(limit)  # any size: the searches below clamp it to the graph


# -- order-free: wavefront's searches ------------------------------------
# For hop counts on the CPU, method "auto" means the serial queue BFS: a
# NetworkX call searches from one source and then spends ~100 ns a node
# building its Python dict, so a parallel search can only win back its own
# time (docs/guide/networkx.md). For distances "auto" is wavefront.sssp's
# own: its fused delta-stepping (one parallel region, GAP's thread-local
# bins) takes Seattle with float64 weights in 10.5 ms on 2 cores against
# 26 ms for the serial Dijkstra this backend used before (6.1 ms on 16
# cores). On CUDA "auto" is wavefront's own for both.
def levels(G, source: int, depth_limit=None, reverse=False) -> np.ndarray:
    """BFS levels from ``source`` (-1 unreached): the serial queue BFS on the
    CPU for method "auto", else ``wavefront.bfs``."""
    import wavefront as wf
    from wavefront._xp import to_numpy

    where, method = device(), config().bfs_method
    if method == "auto" and where == "cpu":
        return bfs_order(G, [source], depth_limit, reverse)[2]
    graph = G.search_graph(None, reverse, where)
    options = {} if depth_limit is None else {"depth_limit": min(depth_limit, G.n)}
    return to_numpy(wf.bfs(graph, source, method=method, **options).levels)


def distances(G, sources, weight: str, cutoff=None, reverse=False) -> np.ndarray:
    """float64 distances (inf unreached) from the nearest of ``sources`` by
    ``wavefront.sssp``, taking only arcs that keep the distance <= ``cutoff``
    (as NetworkX does)."""
    import wavefront as wf
    from wavefront._xp import to_numpy

    if cutoff is not None and math.isnan(cutoff):
        cutoff = None  # NetworkX's ``distance > cutoff`` never holds
    if cutoff is not None and cutoff < 0:
        out = np.full(G.n, np.inf)  # NetworkX takes no arc; the sources stay at 0
        out[list(sources)] = 0.0
        return out
    where = device()
    graph = G.search_graph(weight, reverse, where)
    method = config().sssp_method
    options = {} if cutoff is None else {"cutoff": cutoff}
    # Several sources: one search seeding them all at distance 0 (wavefront's own).
    start = {"source": sources[0]} if len(sources) == 1 else {"sources": sources}
    result = wf.sssp(graph, method=method, **start, **options)
    return to_numpy(result.distances).astype(np.float64, copy=False)


# -- order-sensitive: replays of NetworkX's order ------------------------
def bfs_order(G, sources, depth_limit=None, reverse=False):
    """``(order, parents, levels)`` of NetworkX's BFS (see ``_kernels.bfs_order``)."""
    from ._kernels import bfs_order as kernel

    adjacency = G.adjacency(reverse)
    # no vertex lies deeper than n - 1: a larger limit is none, and fits the kernel's int64
    limit = G.n + 1 if depth_limit is None else min(depth_limit, G.n + 1)
    return kernel(adjacency.indptr, adjacency.indices, np.asarray(sources, dtype=np.int64), limit)


def bidirectional_path(G, source: int, target: int):
    """NetworkX's bidirectional BFS path as ids, or None when there is none."""
    from ._kernels import bidirectional_path as kernel

    succ, pred = G.adjacency(), G.adjacency(reverse=True)
    path = kernel(succ.indptr, succ.indices, pred.indptr, pred.indices, source, target)
    return path if path.size else None


def bidirectional_dijkstra(G, source: int, target: int, weight: str):
    """NetworkX's bidirectional Dijkstra: ``(length, path ids)``, or None when
    there is no path."""
    from ._kernels import bidirectional_dijkstra as kernel

    succ, pred = G.adjacency(), G.adjacency(reverse=True)
    found, length, path = kernel(
        succ.indptr, succ.indices, succ.values[weight].array,
        pred.indptr, pred.indices, pred.values[weight].array, source, target,
    )
    return (length, path) if found else None


def dijkstra_order(G, sources, weight, cutoff=None, target=None, preds=False, reverse=False):
    """Distances from ``wavefront.sssp`` and NetworkX's Dijkstra order on them:
    ``(dist, order, parents, pred_heads, pred_tails)``, see
    ``_kernels.dijkstra_replay``. ``sources``: ids in NetworkX's push order."""
    from ._kernels import dijkstra_replay

    dist = distances(G, sources, weight, cutoff, reverse)
    adjacency = G.adjacency(reverse)
    values = adjacency.values[weight].array
    reached = np.flatnonzero(np.isfinite(dist))
    by_distance = reached[np.argsort(dist[reached], kind="stable")]
    if values.dtype.kind == "i":
        # Integer weights: compare sums exactly, in int64, as NetworkX's ints do.
        exact = np.full(G.n, np.iinfo(np.int64).max, dtype=np.int64)
        exact[reached] = dist[reached].astype(np.int64)
    else:
        exact = dist
    order, parents, heads, tails, complete = dijkstra_replay(
        adjacency.indptr, adjacency.indices, values, exact, by_distance,
        np.asarray(sources, dtype=np.int64), -1 if target is None else target, preds,
    )
    if not complete:
        raise RuntimeError(
            "wavefront.sssp returned distances that no shortest-path tree explains; "
            "this is a bug in wavefront, please report it"
        )
    if cutoff is not None and cutoff < 0:
        # NetworkX relaxes no arc past the cutoff, and every sum is at least 0: under a negative cutoff the
        # sources keep no predecessor, not even along a zero-weight loop or an arc between two sources.
        heads, tails = heads[:0], tails[:0]
    return dist, order, parents, heads, tails


# -- result builders -----------------------------------------------------
def node_id(G, key, error, message) -> int:
    """The id of node ``key``; raises ``error(message)`` (NetworkX's exception) if absent."""
    i = G.id_of(key)
    if i is None:
        raise error(message)
    return i


def distinct_ids(G, keys, error, message):
    """Ids of ``keys`` in iteration order, repeats dropped (as NetworkX's ``seen`` does)."""
    out = {}
    for key in keys:
        out.setdefault(node_id(G, key, error, message.format(key)), None)
    return list(out)


def value_dict(G, ids, values) -> dict:
    """``{node: value}`` for the vertices ``ids`` (a NumPy array) and their values."""
    return dict(zip(G.keys(ids), values.tolist()))


def reached_levels(G, lv) -> dict:
    reached = np.flatnonzero(lv >= 0)
    return value_dict(G, reached, lv[reached])


def reached_distances(G, dist, weight, sources=()) -> dict:
    """``{node: distance}`` for the reached vertices; ints when every weight is
    an int (NetworkX sums ints exactly), and the sources at int 0 as NetworkX
    seeds them."""
    reached = np.flatnonzero(np.isfinite(dist))
    out = value_dict(G, reached, number_array(G, dist[reached], weight))
    for s in sources:
        out[G.nodes[s]] = 0
    return out


def number_array(G, values, weight):
    """Distances as NetworkX's numbers: int64 when every weight is an int."""
    return values.astype(np.int64) if G.edge_values(weight).integral else values


def number(G, value, weight):
    return number_array(G, np.asarray([value]), weight).tolist()[0]


def paths_in_order(G, order, parents) -> dict:
    """``{node: path list}`` for the vertices in ``order`` (each after its parent),
    in that order, each path built from its parent's as NetworkX builds them."""
    keys = G.keys(order)
    by_id = {}
    out = {}
    # Millions of new lists, none in a cycle: the cyclic collector's passes
    # over them would cost more than building them (about 40% on a road network).
    collecting = gc.isenabled()
    gc.disable()
    try:
        for key, v, p in zip(keys, order.tolist(), parents[order].tolist()):
            path = [key] if p < 0 else by_id[p] + [key]
            by_id[v] = out[key] = path
    finally:
        if collecting:
            gc.enable()
    return out


def path_to(G, parents, target: int) -> list:
    """The path (node keys) from the tree's root to ``target`` along ``parents``."""
    ids = [target]
    while parents[ids[-1]] >= 0:
        ids.append(int(parents[ids[-1]]))
    return G.keys(np.asarray(ids[::-1], dtype=np.int64))
