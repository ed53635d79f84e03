"""Graph500 BFS and SSSP validation in distributed form: each rank checks its own tuples.

The rules and their names are :mod:`wavefront.validate.bfs`'s and
:mod:`wavefront.validate.sssp`'s; what changes
is where the data lives. Each rank owns a piece of the parent and level
arrays and holds a slice of the input tuples (the ones it generated), as in
the reference's MPI validator. Values owned elsewhere are fetched from their
owners (:func:`._exchange.fetch`), and each rule's first witness (the
smallest global tuple index, or vertex id) is agreed over all ranks, so every
rank raises the same :class:`~wavefront.errors.ValidationError`.

1. On the owned pieces: ``parent-array``, ``root-range``, ``parent-range``,
   ``root-parent``.
2. With each reached vertex's parent fetched: ``parent-unreached``, then
   ``level-root``, ``level-reached`` and ``tree-level`` (a vertex's level is
   its parent's plus one), in the single-process validator's order. The levels are
   then the tree's depths, so a cycle in the parents breaks ``tree-level``;
   no pointer jumping is needed (the single-process validator's
   ``tree-cycle``). Results must carry levels (distributed ones do).
3. Over the rank's tuples, with both endpoints' parents and levels fetched:
   ``edge-reached-unreached``, ``edge-level``, and the tuples that join a
   vertex to its parent, sent to the vertex's owner, which checks
   ``tree-edge-missing``; then ``edge-count``.

The tuples are read ``graph.chunk`` at a time (every rank runs as many
rounds; a rule's witness is the first tuple of the first chunk that breaks
it), so what a validation allocates does not grow with the graph; each
distinct endpoint's values are fetched once per search
(:class:`._exchange.EndpointLookup`, routed on the first validation; in a
world of one the owned arrays are read directly).

:func:`validate_sssp` follows the single-process SSSP validator's order:
the tree rules on the owned pieces (``parent-unreached`` with each parent
fetched), ``root-distance``, ``distance-reached``, ``distance-unreached``,
``tree-cycle`` (tree depths by pointer jumping, each round one fetch from the
owners, stopping once every chain has reached the root: about log2 of the
tree's height rounds); then over the rank's weighted tuples, exactly in the
distance dtype: ``edge-reached-unreached``, ``tree-edge-missing``,
``edge-relaxed`` and ``pred-distance`` (a tuple that confirms
``d[v] = fl(d[u] + w)`` for ``u = pred[v]`` marks ``v`` at its owner), then
``edge-count``.
"""
from __future__ import annotations

import numpy as np

from ..errors import ValidationError
from ..validate._common import ValidationSummary, check_edge_count
from ..validate.bfs import PRIORITY
from ..validate.sssp import PRIORITY as SSSP_PRIORITY
from . import _exchange

_ENDPOINTS_KEY = "distributed.validate_endpoints"


def _raise_first(world, found: dict, order) -> None:
    """Raise, on every rank, the first rule of ``order`` that any rank found,
    with the message of its smallest witness. ``found``: rule -> (witness, message)."""
    merged: dict = {}
    for theirs in world.allgather_object(found):
        for rule, (witness, message) in theirs.items():
            if rule not in merged or witness < merged[rule][0]:
                merged[rule] = (witness, message)
    for rule in order:
        if rule in merged:
            raise ValidationError(rule, merged[rule][1])


def _first(mask: np.ndarray) -> int | None:
    return int(np.argmax(mask)) if mask.size and bool(mask.any()) else None


def _owned_rules(world, first, n, root, parents, own) -> np.ndarray:
    """``parent-array``, ``root-range``, ``parent-range`` and ``root-parent``
    on this rank's owned parents alone (collective); returns them."""
    found = {}
    if parents.dtype != np.int64:
        found["parent-array"] = (
            first, f"parents must be int64 (Graph500 needs 48-bit labels), got {parents.dtype}"
        )
    if not 0 <= root < n:
        found["root-range"] = (0, f"root {root} is not a vertex of a graph with {n} vertices")
    p = parents[own]
    v = _first((p < -1) | (p >= n))
    if v is not None:
        found["parent-range"] = (
            first + v, f"parent[{first + v}] = {int(p[v])} is neither -1 nor a vertex in [0, {n})"
        )
    if first <= root < first + p.shape[0] and int(p[root - first]) != root:
        found["root-parent"] = (root, f"the root must be its own parent: parent[{root}] = {int(p[root - first])}")
    _raise_first(world, found, ("parent-array", "root-range", "parent-range", "root-parent"))
    return p


def validate_bfs(graph, result, nedge: int | None = None) -> ValidationSummary:
    """Validate a :class:`~.bfs2d.DistributedBFSResult` (host or GPU arrays)
    against the input tuples the ranks hold, on the host (collective).
    Returns the same :class:`ValidationSummary` on every rank, or raises the
    same ValidationError on every rank."""
    world, part = graph.world, graph.part
    n, root = graph.n, int(result.source)
    first = graph.first_vertex
    parents, levels = _exchange.on_host(result.parents), _exchange.on_host(result.levels)
    own = slice(0, max(0, min(part.piece, n - first)))  # owned vertices that exist
    ids = np.arange(first, first + parents.shape[0], dtype=np.int64)

    # 1. The owned pieces alone.
    p, lv = _owned_rules(world, first, n, root, parents, own), levels[own]

    # 2. Each reached vertex against its parent.
    reached = np.zeros(parents.shape[0], dtype=bool)
    reached[own] = p >= 0
    parent_of = np.where(reached, parents, root)
    parent_parent, parent_level = _exchange.fetch(world, part, parent_of, parents, levels)
    found = {}
    if first <= root < first + p.shape[0] and int(lv[root - first]) != 0:
        found["level-root"] = (root, f"the root's level is {int(lv[root - first])}, not 0")
    v = _first((lv >= 0) != (p >= 0))
    if v is not None:
        found["level-reached"] = (
            first + v,
            (f"vertex {first + v} has level {int(lv[v])} but parent {int(p[v])}: "
             "a vertex has level -1 exactly when its parent is -1"),
        )
    v = _first(reached & (parent_parent < 0))
    if v is not None:
        u = int(parents[v])
        found["parent-unreached"] = (
            first + v, f"vertex {first + v} is reached but its parent {u} is not (parent[{u}] = -1)"
        )
    skip = reached & (ids != root) & (levels != parent_level + 1)
    v = _first(skip)
    if v is not None:
        found["tree-level"] = (
            first + v,
            (f"tree edge ({first + v}, {int(parents[v])}) joins levels {int(levels[v])} and "
             f"{int(parent_level[v])}; a vertex's level must be its parent's plus 1"),
        )
    _raise_first(world, found, ("parent-unreached", "level-root", "level-reached", "tree-level"))

    # 3. This rank's tuples, a chunk at a time.
    look = _endpoints(graph)
    at_parent, at_level = look.values(parents, levels)
    offset = graph.tuple_offset
    adjacent = np.zeros(parents.shape[0], dtype=bool)
    inside_count = 0
    found = {}
    for lo, hi in _tuple_chunks(graph):
        src, dst = graph.src[lo:hi], graph.dst[lo:hi]
        at_src, at_dst = look.index(src), look.index(dst)
        ps, pd = at_parent[at_src], at_parent[at_dst]
        ds, dd = at_level[at_src], at_level[at_dst]
        del at_src, at_dst
        proper = src != dst
        inside = proper & (ds >= 0) & (dd >= 0)
        e = _first(proper & ((ds >= 0) != (dd >= 0)))
        if e is not None and "edge-reached-unreached" not in found:
            found["edge-reached-unreached"] = (
                offset + lo + e,
                (f"input edge {offset + lo + e} ({int(src[e])}, {int(dst[e])}) joins a reached and an unreached "
                 f"vertex: parent[{int(src[e])}] = {int(ps[e])}, parent[{int(dst[e])}] = {int(pd[e])}"),
            )
        e = _first(inside & (np.abs(ds - dd) > 1))
        if e is not None and "edge-level" not in found:
            found["edge-level"] = (
                offset + lo + e,
                (f"input edge {offset + lo + e} ({int(src[e])}, {int(dst[e])}) joins levels {int(ds[e])} and "
                 f"{int(dd[e])}, which differ by more than 1"),
            )
        _mark(world, part, first, np.concatenate((src[inside & (ps == dst)], dst[inside & (pd == src)])), adjacent)
        inside_count += int(np.count_nonzero(inside))
    if first <= root < first + parents.shape[0]:
        adjacent[root - first] = True
    v = _first(reached & ~adjacent)
    if v is not None:
        found["tree-edge-missing"] = (
            first + v, f"vertex {first + v} has parent {int(parents[v])} but no input edge joins them"
        )
    _raise_first(world, found, PRIORITY)

    totals = world.allreduce(np.array([inside_count, int(reached.sum())], dtype=np.int64))
    check_edge_count(int(totals[0]), nedge)
    return ValidationSummary(
        kernel="bfs", root=root, reached=int(totals[1]), nedge=int(totals[0]),
        depth=int(world.allreduce(np.array([int(levels.max()) if levels.size else 0], np.int64), "max")[0]),
    )


def _tree_rules(world, part, first, n, root, parents, own) -> np.ndarray:
    """``parent-array`` .. ``parent-unreached`` on the owned pieces; returns the reached mask."""
    p = _owned_rules(world, first, n, root, parents, own)
    reached = np.zeros(parents.shape[0], dtype=bool)
    reached[own] = p >= 0
    (parent_parent,) = _exchange.fetch(world, part, np.where(reached, parents, root), parents)
    found = {}
    v = _first(reached & (parent_parent < 0))
    if v is not None:
        u = int(parents[v])
        found["parent-unreached"] = (
            first + v, f"vertex {first + v} is reached but its parent {u} is not (parent[{u}] = -1)"
        )
    _raise_first(world, found, ("parent-unreached",))
    return reached


def tree_depths(world, part, first, root, parents, reached) -> np.ndarray:
    """Hops from each owned reached vertex to ``root`` along the parents
    (-1 unreached), by distributed pointer jumping (collective); every rank
    raises ``tree-cycle`` if some chain never reaches the root."""
    ids = np.arange(first, first + parents.shape[0], dtype=np.int64)
    jump = np.where(reached, parents, root)
    hops = reached.astype(np.int64)
    if first <= root < first + parents.shape[0]:
        hops[root - first] = 0
    rounds = max(1, (max(part.n, 2) - 1).bit_length()) + 1
    for _ in range(rounds):
        pending = int(world.allreduce(np.array([int((jump != root).sum())], np.int64))[0])
        if not pending:
            break
        up_jump, up_hops = _exchange.fetch(world, part, jump, jump, hops)
        hops = hops + up_hops
        jump = up_jump
    stuck = jump != root
    found = {}
    v = _first(stuck)
    if v is not None:
        found["tree-cycle"] = (
            int(ids[v]),
            f"vertex {int(ids[v])} never reaches root {root} through its parents: they hold a cycle",
        )
    _raise_first(world, found, ("tree-cycle",))
    return np.where(reached, hops, -1)


def validate_sssp(graph, result, nedge: int | None = None) -> ValidationSummary:
    """Validate a :class:`~.sssp2d.DistributedSSSPResult` against the weighted
    input tuples the ranks hold (collective). Returns the same
    :class:`ValidationSummary` on every rank, or raises the same
    ValidationError on every rank."""
    world, part = graph.world, graph.part
    n, root = graph.n, int(result.source)
    first = graph.first_vertex
    parents, distances = result.parents, result.distances
    own = slice(0, max(0, min(part.piece, n - first)))
    found = {}
    if distances is None or distances.shape != parents.shape:
        found["distance-reached"] = (
            first,
            (f"expected {parents.shape[0]} distances on rank {world.rank}, got "
             f"{None if distances is None else distances.shape}"),
        )
    _raise_first(world, found, ("distance-reached",))
    reached = _tree_rules(world, part, first, n, root, parents, own)

    found = {}
    if first <= root < first + parents.shape[0] and float(distances[root - first]) != 0.0:
        found["root-distance"] = (root, f"the root's distance is {float(distances[root - first])}, not 0")
    d = distances[own]
    for rule, wrong, expected in (
        ("distance-reached", reached[own] & ~np.isfinite(d), "a reached vertex has a finite distance"),
        ("distance-unreached", ~reached[own] & ~(d == np.inf), "an unreached vertex's distance is +inf"),
    ):
        v = _first(wrong)
        if v is not None:
            found[rule] = (
                first + v,
                f"vertex {first + v} has parent {int(parents[v])} and distance {float(d[v])}: {expected}",
            )
    _raise_first(world, found, ("root-distance", "distance-reached", "distance-unreached"))
    depth = tree_depths(world, part, first, root, parents, reached)

    # The tuples, exactly in the distance dtype (integer sums come back float64).
    dtype = distances.dtype if distances.dtype.kind == "f" else np.dtype(np.float64)
    gathered = np.where(reached, distances, distances.dtype.type(0)).astype(dtype, copy=False)
    look = _endpoints(graph)
    at_parent, at_distance = look.values(parents, gathered)
    offset = graph.tuple_offset
    adjacent = np.zeros(parents.shape[0], dtype=bool)
    confirmed = np.zeros(parents.shape[0], dtype=bool)
    inside_count = 0
    found = {}
    for lo, hi in _tuple_chunks(graph):
        src, dst = graph.src[lo:hi], graph.dst[lo:hi]
        at_src, at_dst = look.index(src), look.index(dst)
        ps, pd = at_parent[at_src], at_parent[at_dst]
        ds, dd = at_distance[at_src], at_distance[at_dst]
        del at_src, at_dst
        w = (dtype.type(1) if graph.input_weights is None
             else graph.input_weights[lo:hi].astype(dtype, copy=False))
        proper = src != dst
        rs, rd = ps >= 0, pd >= 0
        inside = proper & rs & rd
        via_s, via_d = ds + w, dd + w  # path lengths through the tuple, rounded as a search rounds them
        e = _first(proper & (rs != rd))
        if e is not None and "edge-reached-unreached" not in found:
            found["edge-reached-unreached"] = (
                offset + lo + e,
                (f"input edge {offset + lo + e} ({int(src[e])}, {int(dst[e])}) joins a reached and an unreached "
                 f"vertex: parent[{int(src[e])}] = {int(ps[e])}, parent[{int(dst[e])}] = {int(pd[e])}"),
            )
        e = _first(inside & ((dd > via_s) | (ds > via_d)))
        if e is not None and "edge-relaxed" not in found:
            we = 1.0 if graph.input_weights is None else float(graph.input_weights[lo + e])
            found["edge-relaxed"] = (
                offset + lo + e,
                (f"input edge {offset + lo + e} ({int(src[e])}, {int(dst[e])}) of weight {we!r} is not relaxed: "
                 f"d[{int(src[e])}] = {float(ds[e])!r}, d[{int(dst[e])}] = {float(dd[e])!r}, so one distance "
                 "exceeds the other plus the weight"),
            )
        s_child, d_child = inside & (ps == dst), inside & (pd == src)
        _mark(world, part, first, np.concatenate((src[s_child], dst[d_child])), adjacent)
        _mark(world, part, first, np.concatenate((src[s_child & (ds == via_d)], dst[d_child & (dd == via_s)])),
              confirmed)
        inside_count += int(np.count_nonzero(inside))
    if first <= root < first + parents.shape[0]:
        adjacent[root - first] = confirmed[root - first] = True
    v = _first(reached & ~adjacent)
    if v is not None:
        found["tree-edge-missing"] = (
            first + v, f"vertex {first + v} has parent {int(parents[v])} but no input edge joins them"
        )
    v = _first(reached & ~confirmed)
    if v is not None:
        found["pred-distance"] = (
            first + v,
            (f"vertex {first + v} has distance {float(distances[v])!r} and parent {int(parents[v])}, but no "
             "input edge joining them has weight d[v] - d[parent] (exact: d[v] == d[u] + w in the distance dtype)"),
        )
    _raise_first(world, found, SSSP_PRIORITY)

    finite = gathered[reached]
    totals = world.allreduce(np.array([inside_count, int(reached.sum())], dtype=np.int64))
    highest = world.allreduce(np.array([float(finite.max()) if finite.size else 0.0,
                                        float(depth.max()) if depth.size else 0.0]), "max")
    check_edge_count(int(totals[0]), nedge)
    return ValidationSummary(
        kernel="sssp", root=root, reached=int(totals[1]), nedge=int(totals[0]), depth=int(highest[1]),
        max_distance=float(highest[0]),
    )


def _mark(world, part, first, vertices, marks) -> None:
    """Set in ``marks`` (this rank's piece) the ``vertices`` any rank sent to
    their owners (collective)."""
    packed, counts = _exchange.pack(part.owner(vertices), world.size, vertices)
    marked, _ = world.alltoallv(packed, counts)
    marks[marked - first] = True


def _endpoints(graph) -> _exchange.EndpointLookup:
    """The routes to this rank's tuple endpoints' owners, made on the first
    validation (the same tuples for every search; collective)."""
    look = graph.derived.get(_ENDPOINTS_KEY)
    if look is None:
        look = graph.derived[_ENDPOINTS_KEY] = _exchange.EndpointLookup(
            graph.world, graph.part, graph.src, graph.dst, chunk=graph.chunk
        )
    return look


def _tuple_chunks(graph):
    """``(lo, hi)``: this rank's tuples ``graph.chunk`` at a time, as many
    rounds on every rank (each round is collective), empty once a rank's run out."""
    count, chunk = graph.src.shape[0], graph.chunk
    rounds = int(graph.world.allreduce(np.array([-(-count // chunk)], dtype=np.int64), "max")[0])
    for r in range(rounds):
        lo = min(r * chunk, count)
        yield lo, min(lo + chunk, count)
