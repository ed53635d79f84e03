"""NetworkX's Dijkstra and Bellman-Ford functions (``shortest_paths.weighted``),
for finite non-negative int or float weights (``can_run`` declines others).

Distances come from ``wavefront.sssp`` (several sources: one search with
``sources=``, every source seeded at distance 0). Paths, predecessor lists and the
distance dicts' order follow NetworkX's Dijkstra pop order, replayed on
those distances (``_kernels.dijkstra_replay``). ``bidirectional_dijkstra``
is NetworkX's algorithm compiled (its result depends on tentative
distances, which no final distances tell). Bellman-Ford's distances
equal Dijkstra's for such weights: both are the smallest sum, summed along
the path in the same order.
"""
from __future__ import annotations

import networkx as nx
import numpy as np

from . import _search as search

DIJKSTRA_MISSING = "Node {} not found in graph"


def source_ids(G, sources, message=DIJKSTRA_MISSING):
    if not sources:
        raise ValueError("sources must not be empty")
    return search.distinct_ids(G, sources, nx.NodeNotFound, message)


def lengths(G, ids, weight, cutoff=None, reverse=False) -> dict:
    """``{node: distance}`` from the nearest of ``ids`` (to it, for ``reverse``)."""
    dist = search.distances(G, ids, weight, cutoff, reverse)
    return search.reached_distances(G, dist, weight, ids)


def ordered(G, ids, weight, cutoff=None, reverse=False):
    """``(dist dict, paths dict)`` in NetworkX's pop order, as ``multi_source_dijkstra``."""
    dist, order, parents, _, _ = search.dijkstra_order(G, ids, weight, cutoff, reverse=reverse)
    return pop_ordered(G, dist, order, weight, ids), search.paths_in_order(G, order, parents)


def pop_ordered(G, dist, order, weight, ids) -> dict:
    out = search.value_dict(G, order, search.number_array(G, dist[order], weight))
    for s in ids:
        out[G.nodes[s]] = 0  # NetworkX seeds its sources with int 0
    return out


def one_distance(G, source_id, target, weight, missing):
    """The distance to ``target``, or ``NetworkXNoPath(missing)`` when it is
    absent or unreached (NetworkX reports both as "not reachable")."""
    t = G.id_of(target)
    dist = search.distances(G, [source_id], weight)
    if t is None or not np.isfinite(dist[t]):
        raise nx.NetworkXNoPath(missing)
    return search.number(G, dist[t], weight)


def multi_source_dijkstra_path_length(G, sources, cutoff=None, weight="weight"):
    return lengths(G, source_ids(G, sources), weight, cutoff)


def single_source_dijkstra_path_length(G, source, cutoff=None, weight="weight"):
    return multi_source_dijkstra_path_length(G, {source}, cutoff=cutoff, weight=weight)


def multi_source_dijkstra(G, sources, target=None, cutoff=None, weight="weight"):
    ids = source_ids(G, sources)
    if target in sources:
        return (0, [target])
    if target is None:
        return ordered(G, ids, weight, cutoff)
    t = G.id_of(target)
    if t is not None:
        dist, _, parents, _, _ = search.dijkstra_order(G, ids, weight, cutoff, target=t)
        if np.isfinite(dist[t]):
            return (search.number(G, dist[t], weight), search.path_to(G, parents, t))
    raise nx.NetworkXNoPath(f"No path to {target}.")


def single_source_dijkstra(G, source, target=None, cutoff=None, weight="weight"):
    return multi_source_dijkstra(G, {source}, target=target, cutoff=cutoff, weight=weight)


def single_source_dijkstra_path(G, source, cutoff=None, weight="weight"):
    return multi_source_dijkstra(G, {source}, cutoff=cutoff, weight=weight)[1]


def multi_source_dijkstra_path(G, sources, cutoff=None, weight="weight"):
    return multi_source_dijkstra(G, sources, cutoff=cutoff, weight=weight)[1]


def dijkstra_path(G, source, target, weight="weight"):
    return single_source_dijkstra(G, source, target=target, weight=weight)[1]


def bidirectional_dijkstra(G, source, target, weight="weight"):
    s = search.node_id(G, source, nx.NodeNotFound, f"Source {source} is not in G")
    t = search.node_id(G, target, nx.NodeNotFound, f"Target {target} is not in G")
    if source == target:
        return (0, [source])
    found = search.bidirectional_dijkstra(G, s, t, weight)
    if found is None:
        raise nx.NetworkXNoPath(f"No path between {source} and {target}.")
    length, path = found
    return search.number(G, length, weight), G.keys(path)


def dijkstra_predecessor_and_distance(G, source, cutoff=None, weight="weight"):
    s = search.node_id(G, source, nx.NodeNotFound, f"Node {source} is not found in the graph")
    dist, order, _, heads, tails = search.dijkstra_order(G, [s], weight, cutoff, preds=True)
    pred = {key: [] for key in G.keys(order)}
    for u, v in zip(G.keys(heads), G.keys(tails)):
        pred[u].append(v)  # in v's pop order, as NetworkX appends
    return pred, pop_ordered(G, dist, order, weight, [s])


def dijkstra_path_length(G, source, target, weight="weight"):
    s = search.node_id(G, source, nx.NodeNotFound, DIJKSTRA_MISSING.format(source))
    if source == target:
        return 0
    return one_distance(G, s, target, weight, f"Node {target} not reachable from {source}")


def bellman_ford_path_length(G, source, target, weight="weight"):
    if source == target:
        search.node_id(G, source, nx.NodeNotFound, DIJKSTRA_MISSING.format(source))
        return 0
    s = search.node_id(G, source, nx.NodeNotFound, f"Source {source} not in G")
    return one_distance(G, s, target, weight, f"node {target} not reachable from {source}")


def single_source_bellman_ford_path_length(G, source, weight="weight"):
    s = search.node_id(G, source, nx.NodeNotFound, f"Source {source} not in G")
    return lengths(G, [s], weight)
