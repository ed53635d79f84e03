"""Graph500 BFS validation (spec 2.0 / v3 reference, DESIGN.md §2).

Checks a parent array against the *input edge tuples* (not the CSR, so graph
construction is checked too), fully vectorized over NumPy or CuPy arrays.
Rules, by the name carried in :class:`~wavefront.errors.ValidationError`:

* ``parent-array``, ``root-range``, ``parent-range``, ``root-parent``,
  ``parent-unreached``, ``tree-cycle``: the parent array is a tree rooted at
  the root (depths by pointer jumping, see ``_common.tree_depths``).
* ``level-root``, ``level-reached``, ``tree-level``: when the result carries
  levels, they are 0 at the root, -1 exactly where the parent is -1, and each
  tree edge's levels differ by exactly 1.

A multi-source result (``result.sources``) is checked as a forest: every
source is a root (its own parent, level 0) and every rule above holds with
"the root" read as "some root". The edge rules need no change: levels to the
nearest source still differ by at most 1 across an edge.
* ``edge-reached-unreached``: no input edge joins a reached and an unreached
  vertex.
* ``tree-edge-missing``: each (v, parent[v]) is an input edge.
* ``edge-level``: each input edge's endpoints' tree depths differ by <= 1.
* ``edge-count``: the TEPS edge count equals the validator's own count.
"""
from __future__ import annotations

from ..errors import ValidationError
from ._common import (
    Roots,
    ValidationSummary,
    Violations,
    check_edge_count,
    check_edge_ids,
    check_parents,
    compact_ids,
    edge_arrays,
    first_index,
    first_true,
    map_chunks,
    on_device,
    tree_depths,
)

PRIORITY = ("edge-reached-unreached", "tree-edge-missing", "edge-level")


def validate_bfs(
    edges,
    result,
    *,
    n: int | None = None,
    nedge: int | None = None,
    chunk_edges: int | None = None,
) -> ValidationSummary:
    """Validate one BFS ``result`` (``.source`` or ``.sources``, ``.parents``, optional ``.levels``).

    ``edges`` is the Graph500 input list ``(src, dst[, weights])``, undirected,
    self-loops and duplicates allowed; ``n`` the vertex count (default: the
    parent array's length); ``nedge`` the TEPS edge count to check. Runs on the
    edge list's device, ``chunk_edges`` tuples at a time (default: 2**21 per
    CPU thread, 2**24 on a GPU). Raises :class:`~wavefront.errors.ValidationError`
    naming the first rule broken; returns a :class:`ValidationSummary`.
    """
    xp, src, dst, _ = edge_arrays(edges, weighted=False)
    parents = on_device(result.parents, src)
    roots = Roots.of(result)
    n = check_parents(parents, roots, n, xp)
    check_edge_ids(src, dst, n, xp)
    depth = tree_depths(parents, roots, xp)
    levels = getattr(result, "levels", None)
    if levels is not None:
        check_levels(on_device(levels, src), parents, roots, xp)

    reached = parents >= 0
    parent_ids = compact_ids(parents, n)

    def scan(lo: int, hi: int):
        s, d = src[lo:hi], dst[lo:hi]
        ds, dd = depth[s], depth[d]
        proper = s != d
        inside = proper & (ds >= 0) & (dd >= 0)
        found = {
            "edge-reached-unreached": first_true(proper & ((ds >= 0) != (dd >= 0)), xp, lo),
            "edge-level": first_true(inside & (xp.abs(ds - dd) > 1), xp, lo),
        }
        children = (s[inside & (parent_ids[s] == d)], d[inside & (parent_ids[d] == s)])
        return int(xp.count_nonzero(inside)), found, children

    violations = Violations(PRIORITY)
    adjacent = xp.zeros(n, dtype=bool)  # v has an input edge to parent[v]
    adjacent[roots.on(xp)] = True
    counted = 0
    for count, found, children in map_chunks(scan, src.shape[0], chunk_edges, xp):
        counted += count
        violations.merge(found)
        for c in children:
            adjacent[c] = True
    violations.note("tree-edge-missing", reached & ~adjacent, xp)

    def describe(rule: str, i: int) -> str:
        if rule == "tree-edge-missing":
            return (
                f"vertex {i} has parent {int(parents[i])} but no input edge joins them"
            )
        u, v = int(src[i]), int(dst[i])
        if rule == "edge-reached-unreached":
            return (
                f"input edge {i} ({u}, {v}) joins a reached and an unreached vertex: "
                f"parent[{u}] = {int(parents[u])}, parent[{v}] = {int(parents[v])}"
            )
        return (
            f"input edge {i} ({u}, {v}) joins levels {int(depth[u])} and {int(depth[v])}, "
            "which differ by more than 1"
        )

    violations.raise_first(describe)
    check_edge_count(counted, nedge)
    return ValidationSummary(
        kernel="bfs",
        **roots.summary,
        reached=int(reached.sum()),
        nedge=counted,
        depth=int(depth.max()),
    )


def check_levels(levels, parents, roots, xp) -> None:
    """Reported levels must be the parent tree's depths (rules ``level-*``, ``tree-level``).

    ``roots``: a :class:`~wavefront.validate._common.Roots` or one root id.
    """
    roots = Roots.given(roots)
    if levels.shape != parents.shape:
        raise ValidationError(
            "level-reached", f"levels has shape {levels.shape}, parents {parents.shape}"
        )
    ids = roots.on(xp)
    raised = levels[ids] != 0
    if bool(raised.any()):
        r = int(ids[first_index(raised, xp)])
        whose = "the root's" if roots.single is not None else f"source {r}'s"
        raise ValidationError("level-root", f"{whose} level is {int(levels[r])}, not 0")
    reached = parents >= 0
    mismatch = (levels >= 0) != reached
    if bool(mismatch.any()):
        v = first_index(mismatch, xp)
        raise ValidationError(
            "level-reached",
            f"vertex {v} has level {int(levels[v])} but parent {int(parents[v])}: "
            "a vertex has level -1 exactly when its parent is -1",
        )
    parent_level = levels[xp.maximum(parents, 0)]
    skip = reached & (levels != parent_level + 1)
    skip[ids] = False
    if bool(skip.any()):
        v = first_index(skip, xp)
        p = int(parents[v])
        raise ValidationError(
            "tree-level",
            f"tree edge ({v}, {p}) joins levels {int(levels[v])} and {int(levels[p])}; "
            "a vertex's level must be its parent's plus 1",
        )
