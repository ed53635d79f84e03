"""Planting a fault plan into a distributed result and its gathered copy, and
asking both validators which rule rejects each (shared by check_bfs.py and
check_sssp.py, which run as scripts from this folder)."""
from __future__ import annotations

from wavefront.errors import ValidationError


def _rule(check) -> str | None:
    try:
        check()
    except ValidationError as exc:
        return exc.rule
    return None


def rules_per_fault(graph, result, gathered, plan, values: str, distributed_check, single_check,
                    on_rank0: bool) -> dict:
    """``{fault: (distributed rule, single-process rule)}`` for each
    ``(name, {vertex: (parent, value)}, nedge change)`` of ``plan``.

    ``values`` names the second array of the results ("levels" or
    "distances"). ``distributed_check(parents, values, nedge)`` validates this
    rank's changed piece; ``single_check(parents, values, nedge)`` (rank 0
    only) the changed whole.
    """
    nedge = graph.traversed_edges(result.reached)
    first = graph.first_vertex
    named = {}
    for name, changes, delta in plan:
        parents, other = result.parents.copy(), getattr(result, values).copy()
        for v, (p, x) in changes.items():
            if first <= v < first + parents.shape[0]:
                parents[v - first], other[v - first] = p, x
        distributed = _rule(lambda: distributed_check(parents, other, nedge + delta))
        single = None
        if on_rank0:
            full_parents, full_other = gathered.parents.copy(), getattr(gathered, values).copy()
            for v, (p, x) in changes.items():
                full_parents[v], full_other[v] = p, x
            single = _rule(lambda: single_check(full_parents, full_other, nedge + delta))
        named[name] = (distributed, single)
    return named
