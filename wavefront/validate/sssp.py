"""Graph500 SSSP validation (kernel 3, spec 2.0 / v3 reference, DESIGN.md §2).

Checks parents and distances against the *input edge tuples* with their
weights, fully vectorized over NumPy or CuPy arrays. Rules, by the name
carried in :class:`~wavefront.errors.ValidationError`:

* the tree rules shared with BFS: ``parent-array``, ``root-range``,
  ``parent-range``, ``root-parent``, ``parent-unreached``, ``tree-cycle``;
* ``root-distance``: the root's distance is 0;
* ``distance-reached``: distances are finite exactly where parents are not -1;
* ``edge-reached-unreached``: no input edge joins a reached and an unreached
  vertex;
* ``tree-edge-missing``: each (v, pred[v]) is an input edge;
* ``edge-relaxed``: ``d[u] + w >= d[v]`` for every input edge, both ways;
* ``pred-distance``: every reached vertex but the root is confirmed by an
  input edge with ``pred[v] = u`` and ``d[v] = d[u] + w``;
* ``edge-count``: the TEPS edge count equals the validator's own count.

Float tolerance. A correct float32 search stores ``d[v] = fl(d[u] + w)``, or
rounds a wider sum once; either way each relaxation is off by at most one
float32 rounding of ``d[u] + w``, i.e. a relative 2**-24, and a stored
``d[u]`` may itself carry one more rounding. The checks therefore run in
float64 with an allowance of ``rtol * (d[u] + w)``, where ``rtol`` defaults to
4 machine epsilons of the coarser of the distance and weight dtypes
(4 * 2**-23 ≈ 4.8e-7 for float32; 8.9e-16 for float64). It is relative to the
path length through the edge, never an absolute slack, so a zero-distance
vertex must match exactly.
"""
from __future__ import annotations

import numpy as np

from ..errors import ValidationError
from ._common import (
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
ULPS_ALLOWED = 4


def default_rtol(distance_dtype, weight_dtype=None) -> float:
    """The relative tolerance documented above for these dtypes."""
    eps = [np.finfo(distance_dtype).eps if np.dtype(distance_dtype).kind == "f" else 0.0]
    if weight_dtype is not None and np.dtype(weight_dtype).kind == "f":
        eps.append(np.finfo(weight_dtype).eps)
    return ULPS_ALLOWED * float(max(max(eps), np.finfo(np.float64).eps))


def validate_sssp(
    edges,
    result,
    *,
    n: int | None = None,
    nedge: int | None = None,
    rtol: float | None = None,
    chunk_edges: int | None = None,
) -> ValidationSummary:
    """Validate one SSSP ``result`` (``.source``, ``.parents``, ``.distances``).

    ``edges`` is the Graph500 input list ``(src, dst, weights)`` (without
    weights every edge weighs 1); ``n`` the vertex count (default: the parent
    array's length); ``nedge`` the TEPS edge count to check; ``rtol`` the
    relative float tolerance (default: see the module docstring). Runs on the
    edge list's device, ``chunk_edges`` tuples at a time (default: 2**21 per
    CPU thread, 2**24 on a GPU); raises :class:`~wavefront.errors.ValidationError`
    naming the first rule broken; returns a :class:`ValidationSummary`.
    """
    xp, src, dst, weights = edge_arrays(edges, weighted=True)
    parents = on_device(result.parents, src)
    distances = on_device(result.distances, src)
    root = int(result.source)
    n = check_parents(parents, root, n, xp)
    check_edge_ids(src, dst, n, xp)
    if distances is None or distances.shape != parents.shape:
        raise ValidationError(
            "distance-reached",
            f"expected {parents.shape[0]} distances, got "
            f"{None if distances is None else distances.shape}",
        )
    if rtol is None:
        rtol = default_rtol(distances.dtype, None if weights is None else weights.dtype)
    if float(distances[root]) != 0.0:
        raise ValidationError(
            "root-distance", f"the root's distance is {float(distances[root])}, not 0"
        )
    reached = parents >= 0
    finite = xp.isfinite(distances)
    mismatch = finite != reached
    if bool(mismatch.any()):
        v = first_index(mismatch, xp)
        raise ValidationError(
            "distance-reached",
            f"vertex {v} has distance {float(distances[v])} and parent {int(parents[v])}: "
            "a distance is finite exactly when the parent is not -1",
        )
    depth = tree_depths(parents, root, xp)

    # Unreached vertices only meet tuples outside the component, which the
    # rules below skip; zero keeps inf - inf out of the arithmetic. Gathers
    # read the stored dtype; sums run in float64.
    gathered = xp.where(reached, distances, distances.dtype.type(0))
    parent_ids = compact_ids(parents, n)

    def scan(lo: int, hi: int):
        s, d = src[lo:hi], dst[lo:hi]
        w = 1.0 if weights is None else weights[lo:hi].astype(np.float64)
        proper = s != d
        rs, rd = reached[s], reached[d]
        inside = proper & rs & rd
        ds, dd = gathered[s].astype(np.float64), gathered[d].astype(np.float64)
        via_s, via_d = ds + w, dd + w  # path lengths through the tuple
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
    adjacent[root] = confirmed[root] = True
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
                f"d[{i}] - d[{p}] = {float(gathered[i]) - float(gathered[p])!r} (rtol {rtol:.3g})"
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
            f"d[{v}] = {dv!r}, so one distance exceeds the other plus the weight "
            f"(rtol {rtol:.3g})"
        )

    violations.raise_first(describe)
    check_edge_count(counted, nedge)
    return ValidationSummary(
        kernel="sssp",
        root=root,
        reached=int(reached.sum()),
        nedge=counted,
        depth=int(depth.max()),
        max_distance=float(gathered.max()),
    )
