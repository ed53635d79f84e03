"""NetworkX graphs as arrays: the one conversion both ``Graph.from_networkx``
and the NetworkX backend (:mod:`wavefront.interop.networkx.convert`) use.

* :func:`number_nodes`: the nodes renumbered ``0..n-1`` in NetworkX's node
  order, with the map back (none needed when the nodes are those ints);
* :func:`read_adjacency`: a CSR **in NetworkX's neighbour order** from
  ``G._adj`` (or ``G._pred``), with the values of the edge attributes asked
  for, NetworkX's default for edges without one, and a multigraph's
  parallel edges as one arc of the smallest weight (NetworkX's weight
  function for multigraphs);
* :func:`classify_values`: whether wavefront can search with those values
  exactly (finite, non-negative ints or floats), and why not;
* :func:`search_edges`: the edge arrays a :class:`~wavefront.graph.Graph`
  is built from (an undirected edge once; edges whose weight is None left
  out, as NetworkX's weighted searches hide them).

It reads NetworkX graphs through their adjacency mappings and imports
NumPy only, so the graph layer can use it without importing the backend.
"""
from __future__ import annotations

import math
import operator
from dataclasses import dataclass
from itertools import chain

import numpy as np

__all__ = [
    "EXACT_FLOAT_INT", "Adjacency", "EdgeValues", "classify_values", "number_nodes", "read_adjacency",
    "read_edge_values", "search_edges",
]

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


def read_adjacency(adj, ids, identity, multigraph, edge_attrs) -> Adjacency:
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
        attr: read_edge_values(adj, attr, default, multigraph, n)
        for attr, default in edge_attrs.items()
    }
    return Adjacency(indptr, indices, values)


def read_edge_values(adj, attr, default, multigraph, n) -> EdgeValues:
    get = operator.methodcaller("get", attr, default)
    if multigraph:
        # NetworkX's weight function for multigraphs: the smallest parallel edge.
        raw = [_lightest(list(map(get, keyed.values()))) for nbrs in adj.values() for keyed in nbrs.values()]
    else:
        raw = list(map(get, chain.from_iterable(map(operator.methodcaller("values"), adj.values()))))
    return classify_values(raw, n)


class _MixedNone:
    """Parallel edges of which some have the weight None and some a number:
    NetworkX's ``min`` over them raises TypeError; wavefront says why."""


_MIXED_NONE = _MixedNone()


def _lightest(values: list):
    """The smallest of a multigraph's parallel edge values (None if all are None)."""
    present = [v for v in values if v is not None]
    if len(present) == len(values):
        return min(values)
    return _MIXED_NONE if present else None


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
    if kind == "O" and any(v is _MIXED_NONE for v in raw):
        return EdgeValues(array, False, 0, "parallel edges of which some have the weight None and some a number")
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


def number_nodes(G) -> tuple[list, dict, bool]:
    """(nodes, ids, identity): ``nodes[i]`` is the key of id ``i`` in NetworkX's
    node order, ``ids`` maps a key back, and ``identity`` says the nodes are
    exactly the ints ``0..n-1`` in order (ids are then the keys)."""
    nodes = list(G._adj)
    n = len(nodes)
    identity = all(type(k) is int for k in nodes) and nodes == list(range(n))
    return nodes, dict(zip(nodes, range(n))), identity


def search_edges(succ: Adjacency, values: np.ndarray | None, directed: bool, reverse: bool = False):
    """(tails, heads, weights or None) to build a searchable graph from: each
    undirected edge once (NetworkX stores it under both ends), no arc whose
    value is NaN (a None weight: NetworkX's weighted searches skip the edge),
    arcs reversed for ``reverse``."""
    tails, heads = succ.tails(), succ.indices
    weights = values
    keep = None
    if weights is not None and weights.dtype.kind == "f":
        keep = ~np.isnan(weights)
    if not directed:
        half = tails <= heads
        keep = half if keep is None else keep & half
    if keep is not None:
        tails, heads = tails[keep], heads[keep]
        weights = None if weights is None else weights[keep]
    if reverse:
        tails, heads = heads, tails
    return tails, heads, weights
