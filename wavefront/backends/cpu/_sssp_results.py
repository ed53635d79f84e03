"""What the CPU SSSP methods share around their kernels: the weights they
add (unit ones cached for an unweighted graph), the distances' arithmetic
(int64 for integer weights, the weights' own float type otherwise), the
cutoff in that arithmetic, the caller's distances and the predecessor tree
from the final distances. The arithmetic contract is in :mod:`.sssp`.
"""
from __future__ import annotations

import math

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


# A bucket index is a distance over delta, truncated to int64: it must fit
# with room to spare.
BUCKET_LIMIT = 2**62


def checked_delta(delta, longest: float) -> float:
    """A delta-stepping bucket width as a float: positive and finite, and wide
    enough that a distance of ``longest`` falls in a bucket whose index fits
    int64 (below :data:`BUCKET_LIMIT`; else MethodLimitError, naming the
    smallest delta that fits)."""
    value = float(delta)
    if not math.isfinite(value) or value <= 0:
        raise ValueError(f"delta must be a positive finite number, got {delta!r}")
    if longest / value >= BUCKET_LIMIT:
        from ...errors import MethodLimitError

        raise MethodLimitError(
            f"delta {delta!r} is too small for these weights: a distance of up to {longest:.3g} would fall in "
            f"bucket {longest / value:.3g}, past what int64 bucket numbers hold; use a delta of at least "
            f"{longest / BUCKET_LIMIT:.3g}")
    return value


def fitting_delta(delta: float, longest: float) -> float:
    """A default bucket width, widened where needed so that a distance of
    ``longest`` falls in a bucket below half of :data:`BUCKET_LIMIT` (a
    default is the library's choice: it must fit, not be refused)."""
    return max(float(delta), 2.0 * longest / BUCKET_LIMIT)


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
