"""NetworkX's generic shortest-path functions (``shortest_paths.generic``).

They route to the unweighted or Dijkstra/Bellman-Ford functions as
NetworkX's do. ``can_run`` declines the forms this backend does not
reproduce (all pairs; Bellman-Ford paths, which break ties in Bellman-Ford's
visiting order); called directly with such arguments they raise
NotImplementedError.
"""
from __future__ import annotations

import networkx as nx

from . import _search as search
from . import unweighted, weighted


def _method(method, weight) -> str:
    if method not in ("dijkstra", "bellman-ford"):
        raise ValueError(f"method not supported: {method}")
    return "unweighted" if weight is None else method


def declined(source, target, weight, method, paths: bool) -> str | None:
    """Why this backend does not run ``shortest_path``/``shortest_path_length``
    with these arguments (None: it does). Shared with ``can_run``."""
    if source is None and target is None:
        return "all-pairs shortest paths are not implemented by the wavefront backend"
    if paths and weight is not None and method == "bellman-ford":
        return "Bellman-Ford paths break ties in Bellman-Ford's own visiting order"
    return None


def _plan(source, target, weight, method, paths):
    """``(method, reverse, node)`` as NetworkX routes these arguments; with one
    end given it searches from it (the reversed graph from a target)."""
    method = _method(method, weight)
    reason = declined(source, target, weight, method, paths=paths)
    if reason:
        raise NotImplementedError(reason)
    return method, source is None, target if source is None else source


def has_path(G, source, target):
    s, t = unweighted.endpoint_ids(G, source, target)
    return bool(search.levels(G, s)[t] >= 0)


def shortest_path(G, source=None, target=None, weight=None, method="dijkstra"):
    method, reverse, node = _plan(source, target, weight, method, paths=True)
    if source is not None and target is not None:
        if method == "unweighted":
            return unweighted.bidirectional_shortest_path(G, source, target)
        return weighted.bidirectional_dijkstra(G, source, target, weight)[1]
    if method == "unweighted":
        found = unweighted.paths(G, node, None, reverse, f"Source {node} not in G")
    else:
        ids = weighted.source_ids(G, [node])
        found = weighted.ordered(G, ids, weight, reverse=reverse)[1]
    # From the target, NetworkX searched the reversed graph; paths end there.
    return unweighted.toward(found) if reverse else found


def shortest_path_length(G, source=None, target=None, weight=None, method="dijkstra"):
    method, reverse, node = _plan(source, target, weight, method, paths=False)
    if source is not None and target is not None:
        if method == "dijkstra":
            return weighted.dijkstra_path_length(G, source, target, weight)
        if method == "bellman-ford":
            return weighted.bellman_ford_path_length(G, source, target, weight)
        s, t = unweighted.endpoint_ids(G, source, target)
        hops = int(search.levels(G, s)[t])
        if hops < 0:
            raise nx.NetworkXNoPath(f"No path between {source} and {target}.")
        return hops
    if method == "unweighted":
        return unweighted.lengths(G, node, None, reverse, f"Source {node} is not in G")
    message = weighted.DIJKSTRA_MISSING if method == "dijkstra" else "Source {} not in G"
    return weighted.lengths(G, weighted.source_ids(G, [node], message), weight, reverse=reverse)
