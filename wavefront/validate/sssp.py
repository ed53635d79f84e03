"""Graph500 SSSP validation (kernel 3, spec 2.0 / v3 reference, DESIGN.md §2).

Checks parents and distances against the *input edge tuples* with their
weights, fully vectorized over NumPy or CuPy arrays. Rules, by the name
carried in :class:`~wavefront.errors.ValidationError`:

* the tree rules shared with BFS: ``parent-array``, ``root-range``,
  ``parent-range``, ``root-parent``, ``parent-unreached``, ``tree-cycle``;
* ``root-distance``: the root's distance is 0;
* ``distance-reached``: a reached vertex (parent not -1) has a finite distance;
* ``distance-unreached``: an unreached vertex has exactly +inf, the
  documented sentinel (not NaN, -inf or a finite value);
* ``edge-reached-unreached``: no input edge joins a reached and an unreached
  vertex;
* ``tree-edge-missing``: each (v, pred[v]) is an input edge;
* ``edge-relaxed``: ``d[u] + w >= d[v]`` for every input edge, both ways;
* ``pred-distance``: every reached vertex but the root is confirmed by an
  input edge with ``pred[v] = u`` and ``d[v] = d[u] + w``;
* ``edge-count``: the TEPS edge count equals the validator's own count.

A multi-source result (``result.sources``, distances to the nearest source)
is checked as a forest: every source is a root, its own parent at distance
0 (``root-parent``, ``root-distance``), and no other vertex needs more.

Exact arithmetic, as the Graph500 reference compares. Every search here
stores ``d[v] = d[u] + w`` computed once in the distance dtype (float32 for
float32 weights; integer weights summed in int64 and returned as float64,
exact below 2**53), so the checks compute ``fl(d[u] + w)`` in that dtype and
compare exactly: a tree arc must give ``d[v] == fl(d[u] + w)`` and every arc
``d[v] <= fl(d[u] + w)``. ``rtol`` (default 0) allows a relative slack of
``rtol * (d[u] + w)`` for results computed another way (e.g. a float64 oracle
rounded to float32 once), never by default.
"""
from __future__ import annotations

import numpy as np

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

PRIORITY = (
    "edge-reached-unreached",
    "tree-edge-missing",
    "edge-relaxed",
    "pred-distance",
)

def validate_sssp(
    edges,
    result,
    *,
    n: int | None = None,
    nedge: int | None = None,
    rtol: float | None = None,
    chunk_edges: int | None = None,
) -> ValidationSummary:
    """Validate one SSSP ``result`` (``.source`` or ``.sources``, ``.parents``, ``.distances``).

    ``edges`` is the Graph500 input list ``(src, dst, weights)`` (without
    weights every edge weighs 1); ``n`` the vertex count (default: the parent
    array's length); ``nedge`` the TEPS edge count to check; ``rtol`` a
    relative float tolerance (default 0: exact, see the module docstring). Runs on the
    edge list's device, ``chunk_edges`` tuples at a time (default: 2**21 per
    CPU thread, 2**24 on a GPU); raises :class:`~wavefront.errors.ValidationError`
    naming the first rule broken; returns a :class:`ValidationSummary`.
    """
    xp, src, dst, weights = edge_arrays(edges, weighted=True)
    parents = on_device(result.parents, src)
    distances = on_device(result.distances, src)
    roots = Roots.of(result)
    n = check_parents(parents, roots, n, xp)
    check_edge_ids(src, dst, n, xp)
    if distances is None or distances.shape != parents.shape:
        raise ValidationError(
            "distance-reached",
            f"expected {parents.shape[0]} distances, got "
            f"{None if distances is None else distances.shape}",
        )
    rtol = 0.0 if rtol is None else float(rtol)
    if not rtol >= 0:
        raise ValueError(f"rtol must be >= 0, got {rtol}")
    # Sums in the distance dtype, as the searches compute them (integer
    # distances come back as float64, exact below 2**53).
    dtype = distances.dtype if distances.dtype.kind == "f" else np.dtype(np.float64)
    ids = roots.on(xp)
    away = distances[ids] != 0
    if bool(away.any()):
        r = int(ids[first_index(away, xp)])
        whose = "the root's" if roots.single is not None else f"source {r}'s"
        raise ValidationError("root-distance", f"{whose} distance is {float(distances[r])}, not 0")
    reached = parents >= 0
    for rule, wrong, expected in (
        ("distance-reached", reached & ~xp.isfinite(distances), "a reached vertex has a finite distance"),
        ("distance-unreached", ~reached & ~(distances == xp.inf), "an unreached vertex's distance is +inf"),
    ):
        if bool(wrong.any()):
            v = first_index(wrong, xp)
            raise ValidationError(
                rule, f"vertex {v} has parent {int(parents[v])} and distance {float(distances[v])}: {expected}"
            )
    depth = tree_depths(parents, roots, xp)

    # Unreached vertices only meet tuples outside the component, which the
    # rules below skip; zero keeps inf - inf out of the arithmetic.
    gathered = xp.where(reached, distances, distances.dtype.type(0)).astype(dtype, copy=False)
    parent_ids = compact_ids(parents, n)

    def scan(lo: int, hi: int):
        s, d = src[lo:hi], dst[lo:hi]
        w = dtype.type(1) if weights is None else weights[lo:hi].astype(dtype)
        proper = s != d
        rs, rd = reached[s], reached[d]
        inside = proper & rs & rd
        ds, dd = gathered[s], gathered[d]
        via_s, via_d = ds + w, dd + w  # path lengths through the tuple, rounded as a search rounds them
        tol_s, tol_d = rtol * via_s, rtol * via_d
        s_child = inside & (parent_ids[s] == d)
        d_child = inside & (parent_ids[d] == s)
        found = {
            "edge-reached-unreached": first_true(proper & (rs != rd), xp, lo),
            "edge-relaxed": first_true(
                inside & ((dd > via_s + tol_s) | (ds > via_d + tol_d)), xp, lo
            ),
        }
        children = (s[s_child], d[d_child])
        confirmed = (
            s[s_child & (xp.abs(ds - via_d) <= tol_d)],
            d[d_child & (xp.abs(dd - via_s) <= tol_s)],
        )
        return int(xp.count_nonzero(inside)), found, children, confirmed

    violations = Violations(PRIORITY)
    adjacent = xp.zeros(n, dtype=bool)  # v has an input edge to pred[v]
    confirmed = xp.zeros(n, dtype=bool)  # ... one with d[v] = d[pred] + w
    adjacent[ids] = confirmed[ids] = True
    counted = 0
    for count, found, children, exact in map_chunks(scan, src.shape[0], chunk_edges, xp):
        counted += count
        violations.merge(found)
        for c in children:
            adjacent[c] = True
        for c in exact:
            confirmed[c] = True
    violations.note("tree-edge-missing", reached & ~adjacent, xp)
    violations.note("pred-distance", reached & ~confirmed, xp)

    def describe(rule: str, i: int) -> str:
        if rule == "tree-edge-missing":
            return f"vertex {i} has parent {int(parents[i])} but no input edge joins them"
        if rule == "pred-distance":
            p = int(parents[i])
            return (
                f"vertex {i} has distance {float(distances[i])!r} and parent {p} at distance "
                f"{float(distances[p])!r}, but no input edge ({i}, {p}) has weight "
                f"d[{i}] - d[{p}] = {float(gathered[i]) - float(gathered[p])!r}"
                + (f" (rtol {rtol:.3g})" if rtol else " (exact: d[v] == d[u] + w in the distance dtype)")
            )
        u, v = int(src[i]), int(dst[i])
        wi = 1.0 if weights is None else float(weights[i])
        if rule == "edge-reached-unreached":
            return (
                f"input edge {i} ({u}, {v}) joins a reached and an unreached vertex: "
                f"parent[{u}] = {int(parents[u])}, parent[{v}] = {int(parents[v])}"
            )
        du, dv = float(distances[u]), float(distances[v])
        return (
            f"input edge {i} ({u}, {v}) of weight {wi!r} is not relaxed: d[{u}] = {du!r}, "
            f"d[{v}] = {dv!r}, so one distance exceeds the other plus the weight"
            + (f" (rtol {rtol:.3g})" if rtol else "")
        )

    violations.raise_first(describe)
    check_edge_count(counted, nedge)
    return ValidationSummary(
        kernel="sssp",
        **roots.summary,
        reached=int(reached.sum()),
        nedge=counted,
        depth=int(depth.max()),
        max_distance=float(gathered.max()),
    )
