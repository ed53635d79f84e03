"""Graph500 BFS validation in distributed form: each rank checks its own tuples.

The rules and their names are :mod:`wavefront.validate.bfs`'s; what changes
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
"""
from __future__ import annotations

import numpy as np

from ..errors import ValidationError
from ..validate._common import ValidationSummary, check_edge_count
from ..validate.bfs import PRIORITY
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


def validate_bfs(graph, result, nedge: int | None = None) -> ValidationSummary:
    """Validate a :class:`~.bfs2d.DistributedBFSResult` against the input tuples
    the ranks hold (collective). Returns the same :class:`ValidationSummary`
    on every rank, or raises the same ValidationError on every rank."""
    world, part = graph.world, graph.part
    n, root = graph.n, int(result.source)
    first = graph.first_vertex
    parents, levels = result.parents, result.levels
    own = slice(0, max(0, min(part.piece, n - first)))  # owned vertices that exist
    ids = np.arange(first, first + parents.shape[0], dtype=np.int64)

    # 1. The owned pieces alone.
    found = {}
    if parents.dtype != np.int64:
        found["parent-array"] = (
            first, f"parents must be int64 (Graph500 needs 48-bit labels), got {parents.dtype}"
        )
    if not 0 <= root < n:
        found["root-range"] = (0, f"root {root} is not a vertex of a graph with {n} vertices")
    p, lv = parents[own], levels[own]
    v = _first((p < -1) | (p >= n))
    if v is not None:
        found["parent-range"] = (
            first + v, f"parent[{first + v}] = {int(p[v])} is neither -1 nor a vertex in [0, {n})"
        )
    if first <= root < first + p.shape[0]:
        r = root - first
        if int(p[r]) != root:
            found["root-parent"] = (root, f"the root must be its own parent: parent[{root}] = {int(p[r])}")
    _raise_first(world, found, ("parent-array", "root-range", "parent-range", "root-parent"))

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

    # 3. This rank's tuples.
    src, dst = graph.src, graph.dst
    endpoints = graph.derived.get(_ENDPOINTS_KEY)
    if endpoints is None:  # the same tuples for every search: route their endpoints once
        endpoints = graph.derived[_ENDPOINTS_KEY] = _exchange.Lookup(world, part, np.concatenate((src, dst)))
    endpoint_parent, endpoint_level = endpoints.values(parents, levels)
    k = src.shape[0]
    ps, pd = endpoint_parent[:k], endpoint_parent[k:]
    ds, dd = endpoint_level[:k], endpoint_level[k:]
    proper = src != dst
    inside = proper & (ds >= 0) & (dd >= 0)
    found = {}
    offset = graph.tuple_offset
    e = _first(proper & ((ds >= 0) != (dd >= 0)))
    if e is not None:
        found["edge-reached-unreached"] = (
            offset + e,
            (f"input edge {offset + e} ({int(src[e])}, {int(dst[e])}) joins a reached and an unreached vertex: "
             f"parent[{int(src[e])}] = {int(ps[e])}, parent[{int(dst[e])}] = {int(pd[e])}"),
        )
    e = _first(inside & (np.abs(ds - dd) > 1))
    if e is not None:
        found["edge-level"] = (
            offset + e,
            (f"input edge {offset + e} ({int(src[e])}, {int(dst[e])}) joins levels {int(ds[e])} and "
             f"{int(dd[e])}, which differ by more than 1"),
        )
    children = np.concatenate((src[inside & (ps == dst)], dst[inside & (pd == src)]))
    marks, counts = _exchange.pack(part.owner(children), world.size, children)
    marked, _ = world.alltoallv(marks, counts)
    adjacent = np.zeros(parents.shape[0], dtype=bool)
    adjacent[marked - first] = True
    if first <= root < first + parents.shape[0]:
        adjacent[root - first] = True
    v = _first(reached & ~adjacent)
    if v is not None:
        found["tree-edge-missing"] = (
            first + v, f"vertex {first + v} has parent {int(parents[v])} but no input edge joins them"
        )
    _raise_first(world, found, PRIORITY)

    totals = world.allreduce(
        np.array([int(np.count_nonzero(inside)), int(reached.sum())], dtype=np.int64)
    )
    check_edge_count(int(totals[0]), nedge)
    return ValidationSummary(
        kernel="bfs", root=root, reached=int(totals[1]), nedge=int(totals[0]), depth=result.depth
    )
