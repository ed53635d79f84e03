"""NetworkX graphs <-> the backend's graph (:class:`BackendGraph`).

A :class:`BackendGraph` keeps what the searches need and nothing else:

* the nodes, renumbered ``0..n-1`` in NetworkX's node order (``nodes[i]`` is
  the key of id ``i``; ``ids`` maps back), so results can be keyed by the
  caller's nodes again;
* the adjacency as a CSR **in NetworkX's neighbour order** (``G._adj``, and
  ``G._pred`` for a directed graph's reverse searches): NetworkX's BFS edge
  order, its BFS parents and its Dijkstra tie-breaking all follow that order,
  and the order-sensitive functions replay it (see ``_kernels``). Self-loops
  stay (a zero-weight one puts a node among its own Dijkstra predecessors);
  parallel edges of a multigraph are one arc with the smallest weight, as
  NetworkX's weight function takes;
* the values of the edge attributes the call named (``weight=``) with
  NetworkX's default for missing ones, and whether wavefront can use them
  exactly (finite, non-negative ints or floats);
* on first use, the :class:`wavefront.Graph` that ``wavefront.bfs`` and
  ``wavefront.sssp`` search (built by ``Graph.from_edges``, so sorted and
  deduplicated), per weight attribute, direction and device.

NetworkX caches the converted graph on ``G.__networkx_cache__`` (keyed by
the edge attributes), so a second call on an unchanged ``G`` converts
nothing and reuses the wavefront graphs built by the first.
"""
from __future__ import annotations

import math

import numpy as np

# The array conversion itself lives in the graph layer, which
# Graph.from_networkx shares; this module keeps the backend's graph object.
from wavefront.graph._networkx import (
    Adjacency,
    EdgeValues,
    number_nodes,
    read_adjacency,
    read_edge_values,
    search_edges,
)

__all__ = ["BackendGraph", "cached_graphs", "convert_from_nx", "convert_to_nx", "weight_problem"]

BACKEND_NAME = "wavefront"


class BackendGraph:
    """A NetworkX graph as the ``wavefront`` backend holds it (see the module docs)."""

    __networkx_backend__ = BACKEND_NAME

    def __init__(self, nodes, ids, succ, *, directed, multigraph, identity,
                 edge_attrs, pred_source=None, graph_attrs=None):
        self.nodes = nodes
        self.ids = ids
        self.n = len(nodes)
        self.succ = succ
        self.directed = directed
        self.multigraph = multigraph
        # The nodes are exactly the ints 0..n-1 in order: ids are keys.
        self.identity = identity
        self.edge_attrs = dict(edge_attrs or {})
        self.graph = dict(graph_attrs or {})
        # NetworkX caches conversions of this graph back to NetworkX here.
        self.__networkx_cache__ = {}
        self._pred_source = pred_source
        self._pred = None
        self._node_array = None
        self._search_graphs = {}

    def is_directed(self) -> bool:
        return self.directed

    def is_multigraph(self) -> bool:
        return self.multigraph

    def __len__(self) -> int:
        return self.n

    def __repr__(self) -> str:
        kind = "directed" if self.directed else "undirected"
        attrs = ", ".join(self.edge_attrs) or "no edge attributes"
        return f"BackendGraph(n={self.n}, arcs={self.succ.arcs}, {kind}, {attrs})"

    # -- node keys <-> ids ----------------------------------------------
    def id_of(self, key):
        """The id of node ``key``, or None when the graph has no such node."""
        try:
            return self.ids.get(key)
        except TypeError:  # unhashable: NetworkX's ``key in G`` says False too
            return None

    def keys(self, ids) -> list:
        """The node keys of an id array, as a list (Python objects, not NumPy scalars)."""
        if self.identity:
            return ids.tolist()
        if self._node_array is None:
            self._node_array = np.fromiter(self.nodes, dtype=object, count=self.n)
        return self._node_array[ids].tolist()

    # -- adjacency -------------------------------------------------------
    def adjacency(self, reverse: bool = False) -> Adjacency:
        """Out-arcs (or, for ``reverse`` on a directed graph, in-arcs) in NetworkX's order."""
        if not (reverse and self.directed):
            return self.succ
        if self._pred is None:
            # Built on first use: most calls never search backwards, and
            # reading ``G._pred`` costs as much as the forward conversion.
            pred = read_adjacency(self._pred_source, self.ids, self.identity, self.multigraph,
                              self.edge_attrs)
            if pred.arcs != self.succ.arcs:
                raise RuntimeError(
                    "the NetworkX graph changed after it was converted for the wavefront "
                    "backend; call the function on the NetworkX graph again"
                )
            self._pred = pred
        return self._pred

    def edge_values(self, weight: str) -> EdgeValues:
        try:
            return self.succ.values[weight]
        except KeyError:
            raise ValueError(
                f"this wavefront graph was converted without edge attribute {weight!r}"
            ) from None

    # -- wavefront graphs ------------------------------------------------
    def search_graph(self, weight=None, reverse=False, device="cpu"):
        """The :class:`wavefront.Graph` to search (cached): arcs reversed for
        ``reverse`` on a directed graph, weighted by ``weight`` (None: hops),
        without the arcs whose weight is None, on ``device``."""
        reverse = bool(reverse and self.directed)
        key = (weight, reverse, device)
        graph = self._search_graphs.get(key)
        if graph is not None:
            return graph
        if device != "cpu":
            graph = self.search_graph(weight, reverse, "cpu").to(device)
        else:
            from wavefront.graph import Graph

            values = None if weight is None else self.edge_values(weight).array
            tails, heads, weights = search_edges(self.succ, values, self.directed, reverse)
            graph = Graph.from_edges(tails, heads, weights, n=self.n, directed=self.directed)
        self._search_graphs[key] = graph
        return graph


def convert_from_nx(G, edge_attrs=None, node_attrs=None, preserve_edge_attrs=False,
                    preserve_node_attrs=False, preserve_graph_attrs=False, name=None,
                    graph_name=None):
    """A NetworkX graph -> :class:`BackendGraph` (NetworkX's ``convert_from_nx`` hook).

    ``edge_attrs`` maps each edge attribute to keep to its default for edges
    without it (``{"weight": 1}`` for ``weight="weight"``). Node attributes
    are not needed by any search and are not kept.
    """
    if preserve_edge_attrs:
        # Only a weight given as a function asks for every attribute, and
        # can_run declines those calls; keeping all attributes would copy
        # data no search reads.
        raise NotImplementedError(
            "the wavefront backend converts only the edge attributes a call names "
            "(weight='...'), not all of them"
        )
    adj = G._adj
    nodes, ids, identity = number_nodes(G)
    directed = G.is_directed()
    multigraph = G.is_multigraph()
    edge_attrs = dict(edge_attrs or {})
    succ = read_adjacency(adj, ids, identity, multigraph, edge_attrs)
    return BackendGraph(
        nodes, ids, succ, directed=directed, multigraph=multigraph, identity=identity,
        edge_attrs=edge_attrs, pred_source=G._pred if directed else None,
        graph_attrs=G.graph if preserve_graph_attrs else None,
    )


def convert_to_nx(obj, *, name=None):
    """Backend objects -> NetworkX objects (NetworkX's ``convert_to_nx`` hook).

    The functions already return NetworkX's types (dicts, lists, generators,
    ``nx.DiGraph``), so only a :class:`BackendGraph` needs converting: into
    a NetworkX graph of its kind with its nodes and arcs, each arc carrying
    the edge attributes the conversion kept. Parallel edges of a multigraph
    come back as one edge (the conversion merged them).
    """
    if not isinstance(obj, BackendGraph):
        return obj
    import networkx as nx

    cls = {
        (False, False): nx.Graph, (True, False): nx.DiGraph,
        (False, True): nx.MultiGraph, (True, True): nx.MultiDiGraph,
    }[(obj.directed, obj.multigraph)]
    G = cls()
    G.graph.update(obj.graph)
    G.add_nodes_from(obj.nodes)
    adjacency = obj.succ
    tail_ids, head_ids = adjacency.tails(), adjacency.indices
    # An undirected edge is stored under both ends; add it once.
    keep = slice(None) if obj.directed else np.flatnonzero(tail_ids <= head_ids)
    tails, heads = obj.keys(tail_ids[keep]), obj.keys(head_ids[keep])
    columns = {
        attr: np.array(_column(values), dtype=object)[keep].tolist()
        for attr, values in adjacency.values.items()
    }
    if not columns:
        G.add_edges_from(zip(tails, heads))
        return G
    G.add_edges_from(
        (u, v, {attr: column[i] for attr, column in columns.items()})
        for i, (u, v) in enumerate(zip(tails, heads))
    )
    return G


def _column(values: EdgeValues) -> list:
    """Stored arc values back as NetworkX had them: ints, floats, None for hidden edges."""
    column = values.array.tolist()
    if values.hidden:
        column = [None if math.isnan(x) else x for x in column]
    if values.integral and values.array.dtype.kind == "f":
        column = [x if x is None else int(x) for x in column]
    return column


def weight_problem(G, weight, none_ok=True) -> str | None:
    """Why wavefront cannot search NetworkX graph ``G`` with edge attribute
    ``weight`` (None when it can), for ``can_run``. ``none_ok``: edges whose
    weight is None are hidden (Dijkstra) rather than an error (Bellman-Ford).

    Reads the values from a conversion NetworkX already cached on ``G``,
    otherwise from ``G`` (a pass over its edges, as the conversion that
    follows makes).
    """
    if callable(weight):
        return "weight is a function; wavefront needs an edge attribute name"
    if isinstance(G, BackendGraph):
        if weight not in G.succ.values:
            return f"this wavefront graph was converted without edge attribute {weight!r}"
        values = G.edge_values(weight)
    else:
        converted = [c for c in cached_graphs(G) if c.edge_attrs.get(weight) == 1]
        values = converted[0].edge_values(weight) if converted else None
    if values is None:
        values = read_edge_values(G._adj, weight, 1, G.is_multigraph(), len(G))
    if values.hidden and not none_ok:
        return "edges whose weight is None (NetworkX's Bellman-Ford raises TypeError on them)"
    return values.problem or _float_problem(values, len(G))


# Half float64's largest value: a bound on path sums below it leaves room for
# the rounding of the bound itself.
_FLOAT_SUM_LIMIT = float(np.finfo(np.float64).max) / 2


def _float_problem(values: EdgeValues, n: int) -> str | None:
    """What else keeps wavefront from reproducing NetworkX's sums of these
    (finite, non-negative) float weights: NumPy scalars of another precision
    than float64 (NetworkX adds them in that precision), or sums that could
    overflow to inf (NetworkX keeps such a node, at distance inf; wavefront,
    like SciPy, reads inf as unreached)."""
    array = values.array
    if array.dtype.kind != "f" or values.integral or not array.size:
        return None
    if array.dtype != np.float64:
        return (f"edge weights that are NumPy {array.dtype} scalars (NetworkX sums them in "
                f"{array.dtype}, wavefront in float64)")
    heaviest = float(np.fmax.reduce(array, initial=0.0))  # fmax skips the NaNs of None weights
    if heaviest * max(n - 1, 1) < _FLOAT_SUM_LIMIT:
        return None
    with np.errstate(over="ignore"):
        total = float(np.nansum(array))
    if min(heaviest * max(n - 1, 1), total) + heaviest >= _FLOAT_SUM_LIMIT:
        return "float edge weights whose path sums may overflow to inf (NetworkX keeps such nodes, at inf)"
    return None


def cached_graphs(G) -> list:
    """The conversions of ``G`` NetworkX has cached (none when caching is off)."""
    cache = getattr(G, "__networkx_cache__", None) or {}
    stored = cache.get("backends", {}).get(BACKEND_NAME, {}).values()
    return [graph for graph in stored if isinstance(graph, BackendGraph)]
