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
import operator
from dataclasses import dataclass
from itertools import chain

import numpy as np

__all__ = ["BackendGraph", "cached_graphs", "convert_from_nx", "convert_to_nx", "weight_problem"]

BACKEND_NAME = "wavefront"

# Integer weights are summed exactly in int64 but come back as float64
# distances; above this bound a path sum could lose its last bits.
EXACT_FLOAT_INT = 2**53


@dataclass
class EdgeValues:
    """One edge attribute's value per CSR arc.

    ``array`` is int64 when every value is an int, else float64 with NaN on
    the arcs whose value is None (NetworkX hides those edges from weighted
    searches). ``integral``: every present value is an int, so distances go
    back to the caller as ints, as NetworkX's sums of ints are. ``problem``
    says why wavefront cannot search with these values (None when it can).
    """

    array: np.ndarray
    integral: bool
    hidden: int
    problem: str | None


@dataclass
class Adjacency:
    """A CSR in NetworkX's neighbour order, with per-arc attribute values."""

    indptr: np.ndarray
    indices: np.ndarray
    values: dict

    @property
    def arcs(self) -> int:
        return int(self.indices.shape[0])

    def tails(self) -> np.ndarray:
        """The source vertex of every arc (the CSR's rows, expanded)."""
        n = self.indptr.shape[0] - 1
        return np.repeat(np.arange(n, dtype=np.int64), np.diff(self.indptr))


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
            pred = _adjacency(self._pred_source, self.ids, self.identity, self.multigraph,
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

            tails, heads = self.succ.tails(), self.succ.indices
            weights = None if weight is None else self.edge_values(weight).array
            keep = None
            if weights is not None and weights.dtype.kind == "f":
                keep = ~np.isnan(weights)
            if not self.directed:
                # NetworkX stores an undirected edge under both ends; one copy suffices.
                half = tails <= heads
                keep = half if keep is None else keep & half
            if keep is not None:
                tails, heads = tails[keep], heads[keep]
                weights = None if weights is None else weights[keep]
            if reverse:
                tails, heads = heads, tails
            graph = Graph.from_edges(tails, heads, weights, n=self.n, directed=self.directed)
        self._search_graphs[key] = graph
        return graph


def _adjacency(adj, ids, identity, multigraph, edge_attrs) -> Adjacency:
    """CSR arrays of a NetworkX adjacency mapping (``G._adj``/``G._pred``), in its order."""
    n = len(adj)
    degrees = np.fromiter(map(len, adj.values()), dtype=np.int64, count=n)
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(degrees, out=indptr[1:])
    m = int(indptr[-1])
    heads = chain.from_iterable(adj.values())  # iterating a neighbour dict gives its keys
    if not identity:
        heads = map(ids.__getitem__, heads)
    indices = np.fromiter(heads, dtype=np.int64, count=m)
    values = {
        attr: _edge_values(adj, attr, default, multigraph, n)
        for attr, default in edge_attrs.items()
    }
    return Adjacency(indptr, indices, values)


def _edge_values(adj, attr, default, multigraph, n) -> EdgeValues:
    get = operator.methodcaller("get", attr, default)
    if multigraph:
        # NetworkX's weight function for multigraphs: the smallest parallel edge.
        raw = [min(map(get, keyed.values())) for nbrs in adj.values() for keyed in nbrs.values()]
    else:
        raw = list(map(get, chain.from_iterable(map(operator.methodcaller("values"), adj.values()))))
    return classify_values(raw, n)


def classify_values(raw: list, n: int) -> EdgeValues:
    """Arc values as wavefront can search them, and what (if anything) prevents it."""
    array = np.array(raw) if raw else np.zeros(0, dtype=np.int64)
    kind = array.dtype.kind
    if kind == "u" and array.size and array.max() > np.iinfo(np.int64).max:
        return EdgeValues(array, True, 0, _too_large(n))
    if kind in "biu":
        array = array.astype(np.int64)
        return EdgeValues(array, True, 0, _value_problem(array, True, n))
    if kind == "f":
        return EdgeValues(array, False, 0, _value_problem(array, False, n))
    if kind != "O" or not all(v is None or isinstance(v, _NUMBER_TYPES) for v in raw):
        return EdgeValues(array, False, 0, "edge weights that are not ints or floats")
    # None values (edges NetworkX's weighted searches skip), or Python ints
    # too large for int64.
    present = [v for v in raw if v is not None]
    integral = all(isinstance(v, _INT_TYPES) for v in present)
    if integral and present and max(map(abs, present)) >= EXACT_FLOAT_INT:
        return EdgeValues(array, True, 0, _too_large(n))
    problem = _value_problem(np.array(present, dtype=np.float64), integral, n)
    array = np.array([math.nan if v is None else v for v in raw], dtype=np.float64)
    return EdgeValues(array, integral, len(raw) - len(present), problem)


_INT_TYPES = (int, np.integer)  # bool is an int
_NUMBER_TYPES = (int, float, np.integer, np.floating)


def _too_large(n) -> str:
    return f"int weights whose path sums may exceed 2**53 (exact float64) on {n} nodes"


def _value_problem(present, integral, n):
    """What prevents searching with these (present) values; None if nothing."""
    if not present.size:
        return None
    if present.dtype.kind == "f" and not np.isfinite(present).all():
        return "non-finite edge weights (NaN or inf)"
    if present.min() < 0:
        return "negative edge weights"
    if integral and float(present.max()) * max(n - 1, 1) >= EXACT_FLOAT_INT:
        return _too_large(n)
    return None


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
    nodes = list(adj)
    n = len(nodes)
    identity = all(type(k) is int for k in nodes) and nodes == list(range(n))
    ids = dict(zip(nodes, range(n)))
    directed = G.is_directed()
    multigraph = G.is_multigraph()
    edge_attrs = dict(edge_attrs or {})
    succ = _adjacency(adj, ids, identity, multigraph, edge_attrs)
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
        values = _edge_values(G._adj, weight, 1, G.is_multigraph(), len(G))
    if values.hidden and not none_ok:
        return "edges whose weight is None (NetworkX's Bellman-Ford raises TypeError on them)"
    return values.problem


def cached_graphs(G) -> list:
    """The conversions of ``G`` NetworkX has cached (none when caching is off)."""
    cache = getattr(G, "__networkx_cache__", None) or {}
    stored = cache.get("backends", {}).get(BACKEND_NAME, {}).values()
    return [graph for graph in stored if isinstance(graph, BackendGraph)]
