"""NetworkX's breadth-first search functions (``networkx.algorithms.traversal``).

Same signatures, results, laziness and exceptions as NetworkX's: the
generator functions are generators (errors surface on first ``next``), edges
and layers come in NetworkX's order (replayed over the graph's neighbour
order, see ``_kernels.bfs_order``). ``descendants_at_distance`` is
order-free and runs ``wavefront.bfs``.
"""
from __future__ import annotations

from itertools import pairwise

import networkx as nx
import numpy as np

from . import _search as search


def _not_in_graph(G, node) -> str:
    # The message of NetworkX's G.neighbors / G.successors / G.predecessors.
    return f"The node {node} is not in the {'digraph' if G.directed else 'graph'}."


def _tree_edges(G, source, reverse, depth_limit):
    """(parent, child) node pairs of NetworkX's BFS from ``source``, in its order."""
    s = search.node_id(G, source, nx.NetworkXError, _not_in_graph(G, source))
    order, parents, _ = search.bfs_order(G, [s], search.hop_limit(depth_limit), reverse)
    children = order[1:]
    return zip(G.keys(parents[children]), G.keys(children))


def generic_bfs_edges(G, source, neighbors=None, depth_limit=None):
    # can_run admits only neighbors=None or the graph's own neighbour methods.
    reverse = getattr(neighbors, "__name__", "") == "predecessors"
    yield from _tree_edges(G, source, reverse, depth_limit)


def bfs_edges(G, source, reverse=False, depth_limit=None, sort_neighbors=None):
    yield from _tree_edges(G, source, bool(reverse) and G.directed, depth_limit)


def bfs_tree(G, source, reverse=False, depth_limit=None, sort_neighbors=None):
    T = nx.DiGraph()
    T.add_node(source)
    T.add_edges_from(bfs_edges(G, source, reverse=reverse, depth_limit=depth_limit))
    return T


def bfs_predecessors(G, source, depth_limit=None, sort_neighbors=None):
    for parent, child in bfs_edges(G, source, depth_limit=depth_limit):
        yield (child, parent)


def bfs_successors(G, source, depth_limit=None, sort_neighbors=None):
    # NetworkX groups consecutive edges by parent, yielding (source, []) when
    # the source has no children; so does this.
    parent = source
    children = []
    for p, c in bfs_edges(G, source, depth_limit=depth_limit):
        if p == parent:
            children.append(c)
            continue
        yield (parent, children)
        children = [c]
        parent = p
    yield (parent, children)


def bfs_layers(G, sources):
    if G.id_of(sources) is not None:
        sources = [sources]
    # NetworkX's first layer is list(set(sources)); the later layers follow its order.
    first = list(set(sources))
    ids = [
        search.node_id(G, node, nx.NetworkXError, f"The node {node} is not in the graph.")
        for node in first
    ]
    if not first:
        return  # NetworkX yields no layer at all
    order, _, lv = search.bfs_order(G, ids)
    yield first
    keys = G.keys(order)
    bounds = [*np.flatnonzero(np.diff(lv[order])).tolist(), len(keys) - 1]
    for start, stop in pairwise(bounds):
        yield keys[start + 1 : stop + 1]


def descendants_at_distance(G, source, distance):
    s = search.node_id(G, source, nx.NetworkXError, f"The node {source} is not in the graph.")
    # NetworkX returns layer number ``distance``: only a non-negative whole
    # number (of any numeric type) names one.
    try:
        level = int(distance)
    except (TypeError, ValueError, OverflowError):
        return set()
    if level != distance or level < 0:
        return set()
    lv = search.levels(G, s, depth_limit=level)
    return set(G.keys(np.flatnonzero(lv == level)))
