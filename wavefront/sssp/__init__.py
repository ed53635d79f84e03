"""Single-source shortest paths: the public entry point.

``wavefront.sssp(graph, source, method="auto")`` runs on the graph's device;
``wavefront.sssp(graph, sources=[...])`` gives distances to the nearest of
several sources.
Weights must be non-negative and finite; an unweighted graph counts hops.
"""
from __future__ import annotations

import time

from .._sources import start_search
from ..errors import WeightError
from ..results import SSSPResult, path, to_caller_ids

__all__ = ["SSSPResult", "check_weights", "distance_bound", "longest_distance_bound", "path", "sssp"]


# Integer weights add up in int64, whose largest value marks an unreached
# vertex: a distance, or a relaxation's candidate, must stay clearly below it.
INTEGER_DISTANCE_LIMIT = 2**62


def check_weights(graph) -> None:
    """Raise :class:`WeightError` unless every weight is finite and >= 0, and
    integer weights cannot add up past int64 on any path (cached)."""
    if graph.weights is None or graph._weights_checked:
        return
    w = graph.weights
    xp = graph.xp
    if w.dtype.kind == "f":
        bad = ~xp.isfinite(w)
        if bool(bad.any()):
            raise WeightError(
                f"edge weights must be finite: {_where(graph, int(xp.argmax(bad)))}; "
                "remove or fix NaN/infinite weights before calling sssp"
            )
    if w.size and bool((w < 0).any()):
        raise WeightError(
            f"edge weights must be non-negative: {_where(graph, int(xp.argmax(w < 0)))}; "
            "shortest paths with negative weights need Bellman-Ford with cycle "
            "detection (e.g. scipy.sparse.csgraph.bellman_ford)"
        )
    if w.dtype.kind in "iu" and w.size:
        _check_integer_sums(graph, w)
    graph._weights_checked = True


def longest_distance_bound(graph, weights) -> float:
    """An upper bound on any shortest distance of ``graph`` with these out-arc
    ``weights`` (None: unit): no shortest path has more than ``n - 1`` arcs,
    nor uses an arc twice. Kept with the graph (its weights never change)."""
    key = "sssp.longest_distance_bound"
    found = graph.derived.get(key)
    if found is None:
        if weights is None or graph.m == 0:
            found = float(max(graph.n - 1, 0))
        else:
            found = distance_bound(float(weights.max()), float(weights.sum(dtype="float64")), graph.n)
        graph.derived[key] = found
    return found


def distance_bound(heaviest: float, total: float, n: int) -> float:
    """The bound of :func:`longest_distance_bound` from the heaviest weight
    and the weights' sum (a distributed graph's, allreduced)."""
    return min(heaviest * max(n - 1, 0), total)


def _check_integer_sums(graph, w) -> None:
    """A relaxation adds one weight to a shortest distance: refuse integer
    weights where that can reach :data:`INTEGER_DISTANCE_LIMIT` (a factor of
    two below int64's largest value, which also absorbs the float sum's
    rounding)."""
    heaviest = int(w.max())
    bound = longest_distance_bound(graph, w) + heaviest
    if bound >= INTEGER_DISTANCE_LIMIT:
        raise WeightError(
            f"integer weights up to {heaviest} on {graph.n} vertices could make a distance of up to {bound:.3g} "
            f"and overflow int64 (distances must stay below {INTEGER_DISTANCE_LIMIT:.3g}); scale the weights "
            "down or convert them to float64"
        )


def _where(graph, arc: int) -> str:
    """The bad weight as the caller knows it: the file and line, or the input
    edge and its position (recorded by the builders), else the stored arc in
    the caller's vertex ids."""
    if graph.weight_problem is not None:
        return graph.weight_problem
    return graph.describe_arc(arc)


def sssp(graph, source=None, method: str = "auto", *, sources=None, **options) -> SSSPResult:
    """Shortest paths from ``source`` (a caller's vertex id), or from the
    nearest vertex of ``sources`` (one search seeding them all at distance 0).

    Give exactly one of ``source`` and ``sources``; the errors are those of
    :func:`wavefront.bfs`.

    Common options, where the method supports them: ``cutoff`` (leave
    vertices farther than this unreached; None or ``float("inf")``: no
    cutoff; NaN or negative: ValueError), ``delta`` (delta-stepping bucket
    width). Returns a :class:`~wavefront.results.SSSPResult` on the graph's
    device; ``wavefront.path(result, target)`` rebuilds a path.
    """
    run, internal, caller = start_search("sssp", graph, method, source, sources)
    check_weights(graph)
    start = time.perf_counter()
    result = run(graph, internal, **options)
    result.seconds = time.perf_counter() - start
    return to_caller_ids(graph, result, caller)
