"""What the CPU SSSP methods share around their kernels: the weights they
add (unit ones cached for an unweighted graph), the distances' arithmetic
(int64 for integer weights, the weights' own float type otherwise), the
cutoff in that arithmetic, the caller's distances and the predecessor tree
from the final distances. The arithmetic contract is in :mod:`.sssp`.
"""
from __future__ import annotations

import numpy as np

from ..._limits import checked_cutoff, integer_cutoff
from . import _sssp_steps as steps

_UNIT_WEIGHTS_KEY = "cpu.unit_weights"


def weights_of(graph):
    """(out-arc weights, in-arc weights); an unweighted graph gets cached unit weights."""
    if graph.weights is not None:
        return graph.weights, graph.in_weights
    unit = graph.derived.get(_UNIT_WEIGHTS_KEY)
    if unit is None or unit.shape[0] != graph.m:
        unit = np.ones(graph.m, dtype=np.int32)
        graph.derived[_UNIT_WEIGHTS_KEY] = unit
    return unit, unit


def fresh_distances(n: int, weight_dtype):
    """Distances in the accumulation dtype, all at its infinity (int64 max for integer weights)."""
    if np.dtype(weight_dtype).kind == "f":
        return np.full(n, np.inf, dtype=weight_dtype), np.dtype(weight_dtype).type(np.inf)
    infinity = np.iinfo(np.int64).max
    return np.full(n, infinity, dtype=np.int64), np.int64(infinity)


def cutoff_value(cutoff, dtype, infinity):
    """``cutoff`` in the distance dtype, rounded down so no distance above it passes."""
    value = checked_cutoff(cutoff)
    if value is None:
        return infinity
    if dtype.kind == "i":
        return integer_cutoff(value, infinity)
    limit = dtype.type(value)
    if limit > value:
        limit = np.nextafter(limit, dtype.type(-np.inf))
    return limit


def public_distances(dist, infinity):
    """The caller's distances: float ones as they are, int64 ones as float64 with inf unreached."""
    if dist.dtype.kind == "f":
        return dist
    out = dist.astype(np.float64)
    out[dist == infinity] = np.inf
    return out


def shortest_path_tree(graph, dist, infinity, seeds, weights, in_weights):
    """Parents along tight in-arcs from strictly closer vertices, then
    across zero-weight plateaus (:mod:`._sssp_steps`). Raises
    InconsistentDistancesError where a reached vertex is left without one."""
    parents = np.empty(graph.n, dtype=np.int64)
    unresolved = steps.tight_parents(
        graph.in_indptr, graph.in_indices, in_weights, dist, infinity, seeds, parents
    )
    if unresolved:
        unresolved -= steps.zero_weight_parents(graph.indptr, graph.indices, weights, dist, infinity, parents)
    if unresolved:
        from ...errors import InconsistentDistancesError

        raise InconsistentDistancesError(unresolved)
    return parents
