"""Other libraries' graphs <-> wavefront's: the work behind ``Graph.from_networkx``,
``Graph.to_networkx`` and ``Graph.from_cupy``.

Each function returns arrays (or reads a graph's attributes), never builds a
:class:`~wavefront.graph.container.Graph` itself, so the container can call
it without the two modules importing each other.

* NetworkX -> edges reuses the NetworkX backend's conversion
  (:mod:`wavefront.graph._networkx`): the edge attribute's default for edges
  without it, a multigraph's smallest parallel weight, an undirected edge
  once, edges whose weight is None left out (NetworkX's Dijkstra hides
  them). Node keys other than ``0..n-1`` are renumbered in NetworkX's node
  order and kept as :class:`NodeKeys`.
* CuPy -> edges: a ``cupyx.scipy.sparse`` matrix (entry (i, j) an arc i -> j,
  duplicates summed as SciPy sums them) or CuPy edge arrays; nothing leaves
  the GPU.
"""
from __future__ import annotations

import numpy as np

from .._xp import is_cupy_array
from ..errors import VertexError, WeightError
from ._networkx import number_nodes, read_adjacency, search_edges

__all__ = ["NodeKeys", "cupy_edges", "is_cupy_sparse", "networkx_edges", "to_networkx"]


class NodeKeys:
    """The caller's node keys of a graph whose vertices were renumbered.

    ``nodes[i]`` is the key of vertex ``i`` (the graph's caller id);
    :meth:`id_of` maps a key back. A graph with keys takes keys wherever it
    takes a vertex (``wf.bfs(g, "a")``, ``sources=["a", "b"]``); its result
    arrays stay indexed by vertex id, and :meth:`Graph.keyed
    <wavefront.graph.container.Graph.keyed>` turns them into dicts by key.
    """

    def __init__(self, nodes: list, ids: dict):
        self.nodes = nodes
        self.ids = ids
        self._array = None

    def __len__(self) -> int:
        return len(self.nodes)

    def __repr__(self) -> str:
        shown = ", ".join(map(repr, self.nodes[:4])) + (", ..." if len(self.nodes) > 4 else "")
        return f"NodeKeys([{shown}])"

    def id_of(self, key, where: str = "vertex") -> int:
        """The vertex id of node ``key``; VertexError names ``where`` if it is absent."""
        try:
            found = self.ids.get(key)
        except TypeError:  # unhashable
            found = None
        if found is None:
            raise VertexError(f"{where} {key!r} is not a node of the graph")
        return found

    def keys_of(self, ids) -> list:
        """The keys of an array (or list) of vertex ids, as a list."""
        if self._array is None:
            self._array = np.fromiter(self.nodes, dtype=object, count=len(self.nodes))
        return self._array[np.asarray(ids, dtype=np.int64)].tolist()


def networkx_edges(G, weight, default):
    """``(src, dst, weights, n, directed, node_keys)`` of NetworkX graph ``G``.

    ``weight``: the edge attribute to read (None: unweighted), ``default``:
    its value on edges without it. Raises :class:`WeightError` for values
    that are not real numbers (or ints beyond int64).
    """
    nodes, ids, identity = number_nodes(G)
    attrs = {} if weight is None else {weight: default}
    succ = read_adjacency(G._adj, ids, identity, G.is_multigraph(), attrs)
    values = None
    if weight is not None:
        found = succ.values[weight]
        if found.array.dtype.kind not in "iuf":
            raise WeightError(
                f"edge attribute {weight!r} holds values that are not real numbers (or ints "
                f"beyond int64): {found.problem}; give weight=None for an unweighted graph"
            )
        values = found.array
    src, dst, weights = search_edges(succ, values, G.is_directed())
    if weights is not None and weights.dtype.kind == "f" and weight is not None and succ.values[weight].integral:
        weights = weights.astype(np.int64)  # ints with None among them came as float64
    keys = None if identity else NodeKeys(nodes, ids)
    return src, dst, weights, len(nodes), G.is_directed(), keys


def to_networkx(graph, weight="weight"):
    """A NetworkX ``Graph`` or ``DiGraph`` of ``graph`` (see ``Graph.to_networkx``)."""
    import networkx as nx

    g = graph.to("cpu")
    rows = np.repeat(np.arange(g.n, dtype=np.int64), np.diff(g.indptr))
    cols = g.indices.astype(np.int64)
    if g.labels is not None:  # back to the caller's ids
        rows, cols = g.labels[rows], g.labels[cols]
    weights = g.weights
    if not g.directed:  # stored both ways; self-loops never are
        keep = rows < cols
        rows, cols = rows[keep], cols[keep]
        weights = None if weights is None else weights[keep]
    out = nx.DiGraph() if g.directed else nx.Graph()
    keys = graph.node_keys
    out.add_nodes_from(range(g.n) if keys is None else keys.nodes)
    tails = rows.tolist() if keys is None else keys.keys_of(rows)
    heads = cols.tolist() if keys is None else keys.keys_of(cols)
    if weights is None or weight is None:
        out.add_edges_from(zip(tails, heads))
    else:
        out.add_weighted_edges_from(zip(tails, heads, weights.tolist()), weight=weight)
    return out


def is_cupy_sparse(matrix) -> bool:
    return type(matrix).__module__.split(".")[0] == "cupyx"


def cupy_edges(data, dst=None, weights=None, n=None):
    """``(src, dst, weights, n)`` CuPy arrays from a ``cupyx.scipy.sparse``
    matrix (``dst``/``weights`` not given) or from CuPy edge arrays."""
    if is_cupy_sparse(data):
        if dst is not None or weights is not None:
            raise TypeError("give a cupyx.scipy.sparse matrix alone, or src, dst (and weights) arrays")
        if data.ndim != 2 or data.shape[0] != data.shape[1]:
            raise ValueError(f"adjacency matrix must be square, got shape {data.shape}")
        if n is not None and int(n) != data.shape[0]:
            raise ValueError(f"n={n} does not match the {data.shape[0]} x {data.shape[1]} matrix")
        coo = data.tocoo()
        coo.sum_duplicates()  # SciPy's meaning of repeated entries (csgraph sums them)
        return coo.row, coo.col, coo.data, int(data.shape[0])
    if dst is None:
        raise TypeError(
            f"Graph.from_cupy takes a cupyx.scipy.sparse matrix or CuPy src, dst arrays, "
            f"got {type(data).__name__}"
        )
    arrays = {"src": data, "dst": dst, "weights": weights}
    for name, array in arrays.items():
        if array is not None and not is_cupy_array(array):
            raise TypeError(
                f"Graph.from_cupy keeps the graph on the GPU, but {name} is a "
                f"{type(array).__module__}.{type(array).__name__}; pass CuPy arrays, or use "
                "Graph.from_edges for host arrays"
            )
    return data, dst, weights, n
