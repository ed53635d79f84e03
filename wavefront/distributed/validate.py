"""Graph500 BFS and SSSP validation in distributed form: each rank checks its own tuples.

The rules and their names are :mod:`wavefront.validate.bfs`'s and
:mod:`wavefront.validate.sssp`'s; what changes
is where the data lives. Each rank owns a piece of the parent and level
arrays and holds a slice of the input tuples (the ones it generated), as in
the reference's MPI validator. Values owned elsewhere are fetched from their
owners (:func:`_fetch`), and each rule's first witness (the
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
world of one the owned arrays are read directly). A chunk's rules run on
all the rank's numba threads (:mod:`._validate_kernels`), each on a
contiguous range of it; the smallest of the ranges' first witnesses is the
chunk's, so the witness named is the one a serial pass names. The
per-vertex reads (a parent's values, pointer jumping) go to the owners
unsorted and undeduplicated (:func:`_fetch`), also on every thread.

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

from dataclasses import dataclass

import numpy as np

from ..errors import ValidationError
from ..validate._common import ValidationSummary, check_edge_count
from ..validate.bfs import PRIORITY
from ..validate.sssp import PRIORITY as SSSP_PRIORITY
from . import _exchange

# The tuple rules each kernel reports a first witness for, in its ``firsts`` columns.
_BFS_TUPLE_RULES = ("edge-reached-unreached", "edge-level")
_SSSP_TUPLE_RULES = ("edge-reached-unreached", "edge-relaxed")
_ENDPOINTS_KEY = "distributed.validate_endpoints"


@dataclass(frozen=True)
class ValidationTuning:
    """How the distributed validator runs (never what it checks).

    ``prefetch_ahead``: tuples between asking the cache for an endpoint's
    record and reading it (0: no prefetch); ``docs/decisions/distributed.md``
    has the sweep."""

    prefetch_ahead: int = 32

    def __post_init__(self):
        if isinstance(self.prefetch_ahead, bool) or not isinstance(self.prefetch_ahead, int) \
                or self.prefetch_ahead < 0:
            raise ValueError(f"prefetch_ahead must be a non-negative number of tuples, got {self.prefetch_ahead!r}")


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


def _first(firsts: np.ndarray, column: int = 0) -> int | None:
    """The smallest witness of a kernel's ``firsts`` column (-1: none), or None.
    Tasks own ascending ranges, so it is the first one a serial scan meets."""
    hit = firsts[:, column][firsts[:, column] >= 0]
    return int(hit.min()) if hit.size else None


def _firsts(columns: int) -> np.ndarray:
    return np.empty((_kernels().tasks(), columns), dtype=np.int64)


def _owned_rules(world, first, n, root, parents, count) -> None:
    """``parent-array``, ``root-range``, ``parent-range`` and ``root-parent``
    on this rank's ``count`` owned parents alone (collective)."""
    found = {}
    if parents.dtype != np.int64:
        found["parent-array"] = (
            first, f"parents must be int64 (Graph500 needs 48-bit labels), got {parents.dtype}"
        )
    if not 0 <= root < n:
        found["root-range"] = (0, f"root {root} is not a vertex of a graph with {n} vertices")
    if "parent-array" not in found:  # it outranks parent-range on every rank
        firsts = _firsts(1)
        _kernels().bad_parents(parents, count, n, firsts)
        v = _first(firsts)
        if v is not None:
            found["parent-range"] = (
                first + v, f"parent[{first + v}] = {int(parents[v])} is neither -1 nor a vertex in [0, {n})"
            )
    if first <= root < first + count and int(parents[root - first]) != root:
        found["root-parent"] = (
            root, f"the root must be its own parent: parent[{root}] = {int(parents[root - first])}"
        )
    _raise_first(world, found, ("parent-array", "root-range", "parent-range", "root-parent"))


def _reached(parents, count: int, root: int):
    """``(reached, parent_of, reached count)`` of the owned piece: see
    :func:`._validate_kernels.reached_parents`."""
    reached = np.empty(parents.shape[0], dtype=bool)
    parent_of = np.empty(parents.shape[0], dtype=np.int64)
    totals = np.empty(_kernels().tasks(), dtype=np.int64)
    _kernels().reached_parents(parents, count, root, reached, parent_of, totals)
    return reached, parent_of, int(totals.sum())


def _orphan(first, parents, v) -> dict:
    if v is None:
        return {}
    u = int(parents[v])
    return {"parent-unreached": (
        first + v, f"vertex {first + v} is reached but its parent {u} is not (parent[{u}] = -1)"
    )}


def _tree_edge_missing(first, parents, reached, adjacent) -> dict:
    firsts = _firsts(1)
    _kernels().unmarked(reached, adjacent, firsts, 0)
    v = _first(firsts)
    if v is None:
        return {}
    return {"tree-edge-missing": (
        first + v, f"vertex {first + v} has parent {int(parents[v])} but no input edge joins them"
    )}


def _check_result(result, field: str, name: str, wanted: str) -> None:
    """TypeError (the same on every rank) where ``result`` is not the kind
    of result ``name`` validates, as told by its ``field``."""
    if not (hasattr(result, field) and hasattr(result, "parents") and hasattr(result, "source")):
        raise TypeError(f"{name} takes {wanted}, got {type(result).__name__}")


def validate_bfs(graph, result, nedge: int | None = None, tuning: ValidationTuning | None = None) -> ValidationSummary:
    """Validate a :class:`~.bfs2d.DistributedBFSResult` (host or GPU arrays)
    against the input tuples the ranks hold, on the host (collective).
    Returns the same :class:`ValidationSummary` on every rank, or raises the
    same ValidationError on every rank."""
    _check_result(result, "levels", "validate_bfs", "a distributed BFS result (wavefront.distributed.bfs)")
    tuning = ValidationTuning() if tuning is None else tuning
    kernels = _kernels()
    world, part = graph.world, graph.part
    n, root = graph.n, int(result.source)
    first = graph.first_vertex
    parents = _exchange.on_host(result.parents)
    levels = None if result.levels is None else _exchange.on_host(result.levels)
    count = max(0, min(part.piece, n - first))  # owned vertices that exist
    root_local = root - first if first <= root < first + parents.shape[0] else -1

    found = {}
    if levels is None or levels.shape != parents.shape:  # the kernels read both at every owned vertex
        found["level-reached"] = (
            first,
            (f"expected {parents.shape[0]} levels on rank {world.rank}, got "
             f"{None if levels is None else levels.shape}"),
        )
    _raise_first(world, found, ("level-reached",))

    # 1. The owned pieces alone.
    _owned_rules(world, first, n, root, parents, count)

    # 2. Each reached vertex against its parent.
    reached, parent_of, reached_count = _reached(parents, count, root)
    parent_parent, parent_level = _fetch(world, part, parent_of, parents, levels)
    del parent_of
    firsts, highest = _firsts(3), np.empty(kernels.tasks(), dtype=np.int64)
    kernels.bfs_vertex_rules(parents, levels, reached, parent_parent, parent_level, count, root_local, firsts,
                             highest)
    del parent_parent
    found = _orphan(first, parents, _first(firsts, 1))
    if 0 <= root_local < count and int(levels[root_local]) != 0:
        found["level-root"] = (root, f"the root's level is {int(levels[root_local])}, not 0")
    v = _first(firsts, 0)
    if v is not None:
        found["level-reached"] = (
            first + v,
            (f"vertex {first + v} has level {int(levels[v])} but parent {int(parents[v])}: "
             "a vertex has level -1 exactly when its parent is -1"),
        )
    v = _first(firsts, 2)
    if v is not None:
        found["tree-level"] = (
            first + v,
            (f"tree edge ({first + v}, {int(parents[v])}) joins levels {int(levels[v])} and "
             f"{int(parent_level[v])}; a vertex's level must be its parent's plus 1"),
        )
    del parent_level
    _raise_first(world, found, ("parent-unreached", "level-root", "level-reached", "tree-level"))

    # 3. This rank's tuples, a chunk at a time.
    look = _endpoints(graph)
    at = _records(*look.values(parents, levels))
    src_at, dst_at = look.remapped
    adjacent = np.zeros(parents.shape[0], dtype=bool)
    ahead = tuning.prefetch_ahead

    def run(lo, hi, out, firsts, inside, sent):
        kernels.bfs_tuples(graph.src, graph.dst, src_at, dst_at, lo, hi, at, first, adjacent.shape[0], adjacent,
                           out, firsts, inside, sent, ahead)

    witnesses, inside_count = _tuple_pass(graph, _BFS_TUPLE_RULES, run, adjacent)
    offset = graph.tuple_offset
    found = {}
    if "edge-reached-unreached" in witnesses:
        k = witnesses["edge-reached-unreached"]
        s, d, (ps, pd) = _endpoint_values(graph, look, k, at["parent"])
        found["edge-reached-unreached"] = (
            offset + k,
            (f"input edge {offset + k} ({s}, {d}) joins a reached and an unreached "
             f"vertex: parent[{s}] = {int(ps)}, parent[{d}] = {int(pd)}"),
        )
    if "edge-level" in witnesses:
        k = witnesses["edge-level"]
        s, d, (ds, dd) = _endpoint_values(graph, look, k, at["value"])
        found["edge-level"] = (
            offset + k,
            f"input edge {offset + k} ({s}, {d}) joins levels {int(ds)} and {int(dd)}, which differ by more than 1",
        )
    if root_local >= 0:
        adjacent[root_local] = True
    found.update(_tree_edge_missing(first, parents, reached, adjacent))
    _raise_first(world, found, PRIORITY)

    totals = world.allreduce(np.array([inside_count, reached_count], dtype=np.int64))
    check_edge_count(int(totals[0]), nedge)
    return ValidationSummary(
        kernel="bfs", root=root, reached=int(totals[1]), nedge=int(totals[0]),
        depth=int(world.allreduce(np.array([int(highest.max()) if levels.size else 0], np.int64), "max")[0]),
    )


def tree_height(world, part, first, root, jump, reached) -> int:
    """The most hops from an owned reached vertex to ``root`` along the
    parents, by distributed pointer jumping (collective; ``jump``: each owned
    vertex's parent, ``root`` for unreached ones, overwritten); every rank
    raises ``tree-cycle`` if some chain never reaches the root.

    A round asks only for the vertices whose pointer has not reached the root
    yet (at the root it stays: the root is its own parent, 0 hops), so the
    rounds shrink with the tree's depth profile."""
    kernels = _kernels()
    hops = reached.astype(np.int64)
    if first <= root < first + jump.shape[0]:
        hops[root - first] = 0
    rounds = max(1, (max(part.n, 2) - 1).bit_length()) + 1
    at = _pending(jump, root)
    for _ in range(rounds):
        if not int(world.allreduce(np.array([at.shape[0]], np.int64))[0]):
            break
        up_jump, up_hops = _fetch(world, part, _gather(jump, at), jump, hops)
        kernels.jump(jump, hops, at, up_jump, up_hops)
        del up_jump, up_hops
        if at.shape[0]:  # an empty list would mean every vertex to _pending
            at = _pending(jump, root, at)
    found = {}
    if at.shape[0]:  # still short of the root: on or above a cycle
        v = int(at[0])
        found["tree-cycle"] = (
            first + v, f"vertex {first + v} never reaches root {root} through its parents: they hold a cycle",
        )
    _raise_first(world, found, ("tree-cycle",))
    highest = np.empty(kernels.tasks(), dtype=np.int64)
    kernels.highest_hops(hops, reached, highest)
    return int(highest.max())


def validate_sssp(graph, result, nedge: int | None = None,
                  tuning: ValidationTuning | None = None) -> ValidationSummary:
    """Validate a :class:`~.sssp2d.DistributedSSSPResult` against the weighted
    input tuples the ranks hold (collective). Returns the same
    :class:`ValidationSummary` on every rank, or raises the same
    ValidationError on every rank."""
    _check_result(result, "distances", "validate_sssp", "a distributed SSSP result (wavefront.distributed.sssp)")
    tuning = ValidationTuning() if tuning is None else tuning
    kernels = _kernels()
    world, part = graph.world, graph.part
    n, root = graph.n, int(result.source)
    first = graph.first_vertex
    parents, distances = result.parents, result.distances
    count = max(0, min(part.piece, n - first))
    root_local = root - first if first <= root < first + parents.shape[0] else -1
    found = {}
    if distances is None or distances.shape != parents.shape:
        found["distance-reached"] = (
            first,
            (f"expected {parents.shape[0]} distances on rank {world.rank}, got "
             f"{None if distances is None else distances.shape}"),
        )
    _raise_first(world, found, ("distance-reached",))
    _owned_rules(world, first, n, root, parents, count)
    reached, parent_of, reached_count = _reached(parents, count, root)
    (parent_parent,) = _fetch(world, part, parent_of, parents)
    firsts = _firsts(3)
    kernels.sssp_vertex_rules(distances, reached, parent_parent, count, firsts)
    del parent_parent
    _raise_first(world, _orphan(first, parents, _first(firsts, 0)), ("parent-unreached",))

    found = {}
    if root_local >= 0 and float(distances[root_local]) != 0.0:
        found["root-distance"] = (root, f"the root's distance is {float(distances[root_local])}, not 0")
    for rule, column, expected in (
        ("distance-reached", 1, "a reached vertex has a finite distance"),
        ("distance-unreached", 2, "an unreached vertex's distance is +inf"),
    ):
        v = _first(firsts, column)
        if v is not None:
            found[rule] = (
                first + v,
                f"vertex {first + v} has parent {int(parents[v])} and distance {float(distances[v])}: {expected}",
            )
    _raise_first(world, found, ("root-distance", "distance-reached", "distance-unreached"))
    height = tree_height(world, part, first, root, parent_of, reached)
    del parent_of

    # The tuples, exactly in the distance dtype (integer sums come back float64).
    dtype = distances.dtype if distances.dtype.kind == "f" else np.dtype(np.float64)
    gathered = np.empty(parents.shape[0], dtype=dtype)
    farthest = np.empty(kernels.tasks(), dtype=np.float64)
    kernels.reached_values(distances, reached, gathered, farthest)
    look = _endpoints(graph)
    at = _records(*look.values(parents, gathered))
    del gathered
    src_at, dst_at = look.remapped
    adjacent = np.zeros(parents.shape[0], dtype=bool)
    confirmed = np.zeros(parents.shape[0], dtype=bool)
    weighted = graph.input_weights is not None
    unit = np.ones(1, dtype=dtype)
    ahead = tuning.prefetch_ahead

    def run(lo, hi, out, firsts, inside, sent):
        w = graph.input_weights[lo:hi].astype(dtype, copy=False) if weighted else unit
        kernels.sssp_tuples(graph.src, graph.dst, src_at, dst_at, w, weighted, lo, hi, at, first,
                            adjacent.shape[0], adjacent, confirmed, out, firsts, inside, sent, ahead)

    witnesses, inside_count = _tuple_pass(graph, _SSSP_TUPLE_RULES, run, adjacent, confirmed)
    offset = graph.tuple_offset
    found = {}
    if "edge-reached-unreached" in witnesses:
        k = witnesses["edge-reached-unreached"]
        s, d, (ps, pd) = _endpoint_values(graph, look, k, at["parent"])
        found["edge-reached-unreached"] = (
            offset + k,
            (f"input edge {offset + k} ({s}, {d}) joins a reached and an unreached "
             f"vertex: parent[{s}] = {int(ps)}, parent[{d}] = {int(pd)}"),
        )
    if "edge-relaxed" in witnesses:
        k = witnesses["edge-relaxed"]
        s, d, (ds, dd) = _endpoint_values(graph, look, k, at["value"])
        we = float(graph.input_weights[k]) if weighted else 1.0
        found["edge-relaxed"] = (
            offset + k,
            (f"input edge {offset + k} ({s}, {d}) of weight {we!r} is not relaxed: "
             f"d[{s}] = {float(ds)!r}, d[{d}] = {float(dd)!r}, so one distance "
             "exceeds the other plus the weight"),
        )
    if root_local >= 0:
        adjacent[root_local] = confirmed[root_local] = True
    found.update(_tree_edge_missing(first, parents, reached, adjacent))
    firsts = _firsts(1)
    kernels.unmarked(reached, confirmed, firsts, 0)
    v = _first(firsts)
    if v is not None:
        found["pred-distance"] = (
            first + v,
            (f"vertex {first + v} has distance {float(distances[v])!r} and parent {int(parents[v])}, but no "
             "input edge joining them has weight d[v] - d[parent] (exact: d[v] == d[u] + w in the distance dtype)"),
        )
    _raise_first(world, found, SSSP_PRIORITY)

    totals = world.allreduce(np.array([inside_count, reached_count], dtype=np.int64))
    top = float(farthest.max()) if reached_count else 0.0
    highest = world.allreduce(np.array([top, float(height)]), "max")
    check_edge_count(int(totals[0]), nedge)
    return ValidationSummary(
        kernel="sssp", root=root, reached=int(totals[1]), nedge=int(totals[0]), depth=int(highest[1]),
        max_distance=float(highest[0]),
    )


def _mark(world, part, out, starts, sent, adjacent, confirmed=None) -> None:
    """Set in ``adjacent`` (this rank's piece) the children any rank's tasks
    left in their stretches of ``out`` (task ``t``: ``sent[t]`` from
    ``out[starts[t]]``), and in ``confirmed`` those left as ``~v``
    (collective). Grouped by owner by counting and sent as local ids, all on
    the rank's threads: NumPy's stable sort, gathers and scatter here ran on
    one core (``docs/decisions/distributed.md``, "Validation per search")."""
    kernels = _kernels()
    table = np.zeros((starts.shape[0], world.size), dtype=np.int64)
    kernels.count_children(out, starts, sent, part.piece, table)
    cursors, per_owner = _cursors(table)
    local = np.empty(int(per_owner.sum()), dtype=np.int32 if part.piece < 2**31 else np.int64)
    kernels.pack_children(out, starts, sent, part.piece, cursors, local)
    marked, _ = world.alltoallv(local, per_owner)
    del local
    kernels.mark_children(marked, adjacent, adjacent if confirmed is None else confirmed)


def _cursors(table: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(cursors, per_owner)`` for ``table[t, r]`` ids of task ``t`` going to
    rank ``r``: task ``t``'s first slot for owner ``r`` follows every id for
    lower owners and tasks ``t' < t``'s ids for owner ``r``."""
    per_owner = table.sum(axis=0)
    return np.cumsum(table, axis=0) - table + (np.cumsum(per_owner) - per_owner), per_owner


def load_routed_kernels(part, ids) -> None:
    """Compile (or load from numba's cache), on empty arrays, the kernels
    only a validation over more than one rank runs, in the dtypes a small
    graph's ids (uint32) and a run on partition ``part`` with tuple ids of
    dtype ``ids`` give them: the endpoint routes and values
    (:class:`._exchange.EndpointLookup`), the owners' fetch (:func:`_fetch`)
    and the children's marks (:func:`_mark`). Not collective: the Graph500 warm-up calls it on rank
    0 alone before the ranks validate together, since ranks compiling one
    ``cache=True`` kernel at once race on its cache files (numba issue
    #4807). The tuple kernels are among them: routed, they read the
    records at int32 (or int64) positions, not at the ids.
    tests/test_distributed_first_validation.py checks that the
    ranks' warm-up and a validation on two ranks then add no specialization."""
    kernels = _kernels()
    seen = np.zeros(1, dtype=bool)
    for dtype in {np.dtype(np.uint32), np.dtype(ids)}:
        kernels.mark_seen(np.zeros(0, dtype=dtype), seen)
    counts = np.zeros(1, dtype=np.int64)
    kernels.count_seen(seen[:0], counts)
    # The map's dtype follows the count of distinct endpoints (at most
    # n_pad), the owners' local ids' the piece.
    for position in {np.int32, np.int32 if part.n_pad < 2**31 else np.int64}:
        kernels.place_seen(seen[:0], counts, np.zeros(0, dtype=position), np.zeros(0, dtype=np.int64))
        for dtype in {np.dtype(np.uint32), np.dtype(ids)}:  # the tuples remapped to positions
            kernels.gather(np.zeros(1, dtype=position), np.zeros(0, dtype=dtype), np.zeros(0, dtype=position))
            _load_routed_tuple_kernels(kernels, np.zeros(0, dtype=dtype), np.zeros(0, dtype=position))
    asked = np.zeros(0, dtype=np.int64)
    table = np.zeros((1, 1), dtype=np.int64)
    for local in {np.int32, np.int32 if part.piece < 2**31 else np.int64}:
        local = np.zeros(0, dtype=local)
        kernels.count_owners(asked, part.piece, table)
        kernels.pack_owners(asked, part.piece, table, local, asked)
        kernels.count_children(asked, counts, counts, part.piece, table)
        kernels.pack_children(asked, counts, counts, part.piece, table, local)
        kernels.mark_children(local, seen, seen)
        # Parents, pointers and hops; BFS levels; SSSP distances (the endpoints' values).
        for values in (np.int64, np.int32, np.float32, np.float64):
            kernels.gather(np.zeros(1, dtype=values), local, np.zeros(0, dtype=values))


def _load_routed_tuple_kernels(kernels, ids, positions) -> None:
    """The tuple kernels on no tuples, reading records at remapped positions
    (a world of one reads them at the ids, so its warm-up does not load
    these): BFS's int32 levels, SSSP's float32 and float64 distances."""
    firsts, counts = np.zeros((1, 2), dtype=np.int64), np.zeros(1, dtype=np.int64)
    out, flags = np.zeros(0, dtype=np.int64), np.zeros(1, dtype=bool)
    at = np.zeros(1, dtype=kernels.endpoint_dtype(np.int32))
    kernels.bfs_tuples(ids, ids, positions, positions, 0, 0, at, 0, 1, flags, out, firsts, counts, counts, 0)
    for dtype in (np.float32, np.float64):
        at = np.zeros(1, dtype=kernels.endpoint_dtype(dtype))
        kernels.sssp_tuples(ids, ids, positions, positions, np.ones(1, dtype=dtype), False, 0, 0, at, 0, 1, flags,
                            flags, out, firsts, counts, counts, 0)


def _kernels():
    from . import _validate_kernels

    return _validate_kernels


def _gather(values: np.ndarray, index: np.ndarray) -> np.ndarray:
    """``values[index]`` on all the rank's threads."""
    out = np.empty(index.shape[0], dtype=values.dtype)
    _kernels().gather(values, index, out)
    return out


def _pending(pointers: np.ndarray, root: int, among: np.ndarray | None = None) -> np.ndarray:
    """The entries of ``among`` (default: all) whose pointer is not ``root``,
    in order, found on all the rank's threads."""
    kernels = _kernels()
    among = np.zeros(0, dtype=np.int64) if among is None else among
    counts = np.empty(kernels.tasks(), dtype=np.int64)
    kernels.count_pending(pointers, among, root, counts)
    starts = np.cumsum(counts) - counts
    out = np.empty(int(counts.sum()), dtype=np.int64)
    kernels.where_pending(pointers, among, root, starts, out)
    return out


def _fetch(world, part, ids: np.ndarray, *owned) -> tuple[np.ndarray, ...]:
    """``array[ids]`` for each array of ``owned`` (this rank's piece of a
    per-vertex array), for global ``ids`` in ``[0, n_pad)`` (collective).

    Each id goes to its owner as it is, grouped by owner by counting (no sort,
    no deduplication: :class:`._exchange.Lookup` sorts the ids to ask each
    once, which on one core cost more than the whole tuple pass on all of
    them); the answers come back in the asking order. In a world of one it is
    a gather."""
    ids = np.ascontiguousarray(ids, dtype=np.int64)
    if world.size == 1:
        return tuple(_gather(array, ids) for array in owned)
    kernels = _kernels()
    table = np.zeros((kernels.tasks(), world.size), dtype=np.int64)
    kernels.count_owners(ids, part.piece, table)
    cursors, per_owner = _cursors(table)
    local = np.empty(ids.shape[0], dtype=np.int32 if part.piece < 2**31 else np.int64)
    slot = np.empty(ids.shape[0], dtype=np.int64)
    kernels.pack_owners(ids, part.piece, cursors, local, slot)
    asked, asked_counts = world.alltoallv(local, per_owner)
    del local
    return tuple(_gather(world.alltoallv(_gather(array, asked), asked_counts)[0], slot) for array in owned)


def _records(parents: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Each endpoint's parent and level or distance side by side
    (:func:`._validate_kernels.endpoint_dtype`)."""
    kernels = _kernels()
    at = np.empty(parents.shape[0], dtype=kernels.endpoint_dtype(values.dtype))
    kernels.interleave(parents, values, at)
    return at


def _endpoint_values(graph, look, k: int, values: np.ndarray):
    """Tuple ``k``'s endpoints (ints) and ``values`` (the lookup's) at each."""
    s, d = int(graph.src[k]), int(graph.dst[k])
    at_s, at_d = look.at(k)
    return s, d, (values[at_s], values[at_d])


def _tuple_pass(graph, rules, run, adjacent, confirmed=None) -> tuple[dict, int]:
    """The rank's tuples through ``run(lo, hi, out, firsts, inside, sent)`` (a
    tuple kernel of :mod:`._validate_kernels`) a chunk at a time, children
    sent to their owners after each chunk (collective). Returns each rule of
    ``rules`` that broke with its first witness (an index into the rank's
    tuples), and the tuples inside the component."""
    world, part = graph.world, graph.part
    tasks = _kernels().tasks()
    firsts = np.empty((tasks, len(rules)), dtype=np.int64)
    inside = np.empty(tasks, dtype=np.int64)
    sent = np.empty(tasks, dtype=np.int64)
    # Two slots per tuple: each task writes its children in its own stretch.
    out = np.empty(2 * min(graph.chunk, graph.src.shape[0]), dtype=np.int64)
    witnesses: dict = {}
    counted = 0
    for lo, hi in _tuple_chunks(graph):
        run(lo, hi, out, firsts, inside, sent)
        for r, rule in enumerate(rules):
            hit = firsts[:, r][firsts[:, r] >= 0]
            if hit.size and rule not in witnesses:  # chunks come in order: the first chunk's stands
                witnesses[rule] = int(hit.min())
        counted += int(inside.sum())
        starts = 2 * ((hi - lo) * np.arange(tasks, dtype=np.int64) // tasks)
        _mark(world, part, out, starts, sent, adjacent, confirmed)
    return witnesses, counted


def _endpoints(graph) -> _exchange.EndpointLookup:
    """The routes to this rank's tuple endpoints' owners, made on the first
    validation (the same tuples for every search; collective)."""
    look = graph.derived.get(_ENDPOINTS_KEY)
    if look is None:
        look = graph.derived[_ENDPOINTS_KEY] = _exchange.EndpointLookup(graph.world, graph.part, graph.src, graph.dst)
    return look


def _tuple_chunks(graph):
    """``(lo, hi)``: this rank's tuples ``graph.chunk`` at a time, as many
    rounds on every rank (each round is collective), empty once a rank's run out."""
    count, chunk = graph.src.shape[0], graph.chunk
    rounds = int(graph.world.allreduce(np.array([-(-count // chunk)], dtype=np.int64), "max")[0])
    for r in range(rounds):
        lo = min(r * chunk, count)
        yield lo, min(lo + chunk, count)
