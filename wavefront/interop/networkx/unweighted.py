"""NetworkX's unweighted shortest-path functions (``shortest_paths.unweighted``).

Lengths are order-free and run ``wavefront.bfs``; paths follow NetworkX's
BFS parents (the first discoverer in its visiting order) and its
bidirectional search's meeting point, replayed by ``_kernels``.
"""
from __future__ import annotations

import networkx as nx

from . import _search as search


def lengths(G, node, cutoff, reverse, message):
    """``{node: hops}`` from ``node`` (to it, for ``reverse``), NetworkX's
    ``NodeNotFound(message)`` when it is absent."""
    s = search.node_id(G, node, nx.NodeNotFound, message)
    return search.reached_levels(G, search.levels(G, s, search.hop_limit(cutoff), reverse))


def paths(G, node, cutoff, reverse, message):
    """``{node: path}`` along NetworkX's BFS tree from ``node`` (paths run
    away from ``node``, also for ``reverse``)."""
    s = search.node_id(G, node, nx.NodeNotFound, message)
    order, parents, _ = search.bfs_order(G, [s], search.hop_limit(cutoff), reverse)
    return search.paths_in_order(G, order, parents)


def toward(found: dict) -> dict:
    """Paths from a search on the reversed graph, turned to end at its source."""
    return {key: path[::-1] for key, path in found.items()}


def endpoint_ids(G, source, target):
    """Ids of both ends, with the errors of NetworkX's bidirectional search."""
    s = search.node_id(G, source, nx.NodeNotFound, f"Source {source} is not in G")
    t = search.node_id(G, target, nx.NodeNotFound, f"Target {target} is not in G")
    return s, t


def single_source_shortest_path_length(G, source, cutoff=None):
    return lengths(G, source, cutoff, False, f"Source {source} is not in G")


def single_target_shortest_path_length(G, target, cutoff=None):
    return lengths(G, target, cutoff, True, f"Target {target} is not in G")


def single_source_shortest_path(G, source, cutoff=None):
    return paths(G, source, cutoff, False, f"Source {source} not in G")


def single_target_shortest_path(G, target, cutoff=None):
    return toward(paths(G, target, cutoff, True, f"Target {target} not in G"))


def bidirectional_shortest_path(G, source, target):
    s, t = endpoint_ids(G, source, target)
    path = search.bidirectional_path(G, s, t)
    if path is None:
        raise nx.NetworkXNoPath(f"No path between {source} and {target}.")
    return G.keys(path)
