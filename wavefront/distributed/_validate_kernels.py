"""numba kernels of the distributed validator (:mod:`.validate`).

The tuple rules run over a chunk of a rank's input tuples split into ``T``
tasks (``prange``, one per numba thread), each a contiguous range. A task
keeps, per rule, the first tuple of its range that breaks it (``-1``: none);
the tasks' ranges are in tuple order, so the smallest of those over the
tasks is the chunk's first witness, as a serial pass would find it. A task
counts its tuples inside the component and handles each tuple that joins a
vertex to its parent (``tree-edge-missing``, and for SSSP ``pred-distance``):
a child owned by this rank is marked in place (every write stores True, so
tasks racing on one flag agree); any other is written to the task's own
stretch of ``out`` (two slots per tuple of its range, so stretches never
meet) for the caller to send to its owner. SSSP writes a child whose tuple
also confirms its distance as ``~v`` (``-v - 1``), so one id carries both
marks.

Tuple ``k``'s endpoint records are read at ``src_at[k]`` and ``dst_at[k]``:
their positions, remapped once per graph where the rank's lookup routed
them (:class:`._exchange.EndpointLookup.remapped`), the ids themselves in a
world of one. Reading the position through a map per vertex instead was a
second dependent miss an endpoint (``docs/decisions/distributed.md``,
"Validation per search").

:func:`count_owners`, :func:`pack_owners` and :func:`gather` move per-vertex
reads to the vertices' owners without sorting (the validator's parent and
pointer-jumping fetches): each id's owner is ``id // piece``, counted per
task, then each id written at its task's cursor for its owner, remembering
its slot so the answers come back in the asking order.

:func:`count_children`, :func:`pack_children` and :func:`mark_children` do
the same for a chunk's tree-edge children, read from the tasks' stretches of
``out`` where the tuple kernel left them, and mark them at their owners;
:func:`gather` also reads the owned values each rank's endpoints ask for
(:meth:`._exchange.EndpointLookup.values`). NumPy did both on one core
(``docs/decisions/distributed.md``, "Validation per search").

:func:`mark_seen`, :func:`count_seen` and :func:`place_seen` build a rank's
endpoint routes (:class:`._exchange.EndpointLookup`, once per graph, on the
first validation): which vertices its tuples touch, and each one's place
among them. In NumPy on one core this was the first validation's extra
minute at SCALE 28 (``docs/decisions/distributed.md``, "First validation of
a run").

Imported only when a validation runs.
"""
from __future__ import annotations

import numpy as np
from numba import get_num_threads, njit, prange

from ..backends.cpu._prefetch import prefetch


def tasks() -> int:
    # Read here, not inside a kernel: a kernel reading it could not be cached.
    return max(1, int(get_num_threads()))


def endpoint_dtype(values_dtype) -> np.dtype:
    """One endpoint's record: its parent and its level or distance, 16 bytes
    aligned, so a tuple's two endpoints cost two cache lines, not four."""
    return np.dtype([("parent", np.int64), ("value", values_dtype)], align=True)


@njit(parallel=True, cache=True)
def interleave(parents, values, at):
    """``at[k] = (parents[k], values[k])`` on every thread."""
    for k in prange(at.shape[0]):
        at[k].parent = parents[k]
        at[k].value = values[k]


@njit(inline="always")
def _ask_ahead(src_at, dst_at, k, b, at, ahead):
    """Prefetch the records of tuple ``k + ahead``'s endpoints: the tuples
    (and their positions) are read in order, so what the loop will need is
    known, and each record is a cache miss."""
    if ahead > 0 and k + ahead < b:
        prefetch(at, np.int64(src_at[k + ahead]))
        prefetch(at, np.int64(dst_at[k + ahead]))


@njit(parallel=True, cache=True)
def bfs_tuples(src, dst, src_at, dst_at, lo, hi, at, first, piece, adjacent, out, firsts, inside, sent, ahead):
    """The BFS tuple rules over tuples ``[lo, hi)``, ``at`` holding each
    endpoint's (parent, level) record, tuple ``k``'s at ``src_at[k]`` and
    ``dst_at[k]``: ``firsts[t, 0]`` the first
    ``edge-reached-unreached`` witness of task ``t``, ``firsts[t, 1]`` its first
    ``edge-level``; ``inside[t]`` its tuples inside the component; children marked
    in ``adjacent`` (owned) or written to ``out[2 (a - lo):]`` (``sent[t]`` of them),
    where ``a`` is the task's first tuple. Reached means a level >= 0.
    ``ahead``: the prefetch distance in tuples (0: none)."""
    tasks = firsts.shape[0]
    span = hi - lo
    for t in prange(tasks):
        a = lo + span * t // tasks
        b = lo + span * (t + 1) // tasks
        first_split = -1
        first_level = -1
        count = 0
        slot = 2 * (a - lo)
        start = slot
        for k in range(a, b):
            _ask_ahead(src_at, dst_at, k, b, at, ahead)
            s = np.int64(src[k])
            d = np.int64(dst[k])
            if s == d:
                continue
            es = at[src_at[k]]
            ed = at[dst_at[k]]
            ls = np.int64(es.value)
            ld = np.int64(ed.value)
            if (ls >= 0) != (ld >= 0):
                if first_split < 0:
                    first_split = k
                continue
            if ls < 0:
                continue
            count += 1
            if abs(ls - ld) > 1 and first_level < 0:
                first_level = k
            if es.parent == d:
                if first <= s < first + piece:
                    adjacent[s - first] = True
                else:
                    out[slot] = s
                    slot += 1
            if ed.parent == s:
                if first <= d < first + piece:
                    adjacent[d - first] = True
                else:
                    out[slot] = d
                    slot += 1
        firsts[t, 0] = first_split
        firsts[t, 1] = first_level
        inside[t] = count
        sent[t] = slot - start


@njit(parallel=True, cache=True)
def sssp_tuples(src, dst, src_at, dst_at, weights, weighted, lo, hi, at, first, piece, adjacent, confirmed,
                out, firsts, inside, sent, ahead):
    """The SSSP tuple rules over tuples ``[lo, hi)``, ``at`` holding each
    endpoint's (parent, distance) record, exactly in the distance dtype:
    ``firsts[t, 0]`` the first ``edge-reached-unreached`` witness of task
    ``t``, ``firsts[t, 1]`` its first ``edge-relaxed``; ``inside[t]``, ``sent[t]``
    and ``out`` as :func:`bfs_tuples`, a child whose tuple confirms
    ``d[v] == fl(d[u] + w)`` marked in ``confirmed`` too (or sent as ``~v``).
    ``weights[k - lo]`` is tuple ``k``'s weight in the distance dtype, or
    ``weights[0]`` every tuple's when not ``weighted``. Reached means a parent >= 0."""
    tasks = firsts.shape[0]
    span = hi - lo
    for t in prange(tasks):
        a = lo + span * t // tasks
        b = lo + span * (t + 1) // tasks
        first_split = -1
        first_relaxed = -1
        count = 0
        slot = 2 * (a - lo)
        start = slot
        for k in range(a, b):
            _ask_ahead(src_at, dst_at, k, b, at, ahead)
            s = np.int64(src[k])
            d = np.int64(dst[k])
            if s == d:
                continue
            es = at[src_at[k]]
            ed = at[dst_at[k]]
            ps = es.parent
            pd = ed.parent
            if (ps >= 0) != (pd >= 0):
                if first_split < 0:
                    first_split = k
                continue
            if ps < 0:
                continue
            count += 1
            w = weights[k - lo] if weighted else weights[0]
            ds = es.value
            dd = ed.value
            via_s = ds + w  # path lengths through the tuple, rounded as a search rounds them
            via_d = dd + w
            if (dd > via_s or ds > via_d) and first_relaxed < 0:
                first_relaxed = k
            if ps == d:
                if first <= s < first + piece:
                    adjacent[s - first] = True
                    if ds == via_d:
                        confirmed[s - first] = True
                else:
                    out[slot] = ~s if ds == via_d else s
                    slot += 1
            if pd == s:
                if first <= d < first + piece:
                    adjacent[d - first] = True
                    if dd == via_s:
                        confirmed[d - first] = True
                else:
                    out[slot] = ~d if dd == via_s else d
                    slot += 1
        firsts[t, 0] = first_split
        firsts[t, 1] = first_relaxed
        inside[t] = count
        sent[t] = slot - start


@njit(parallel=True, cache=True)
def mark_seen(ids, seen):
    """``seen[v] = True`` for every ``v`` of ``ids``, on every thread (tasks
    racing on one flag all store True): the scatter that NumPy's
    ``seen[ids] = True`` runs on one core, one cache miss an id."""
    for k in prange(ids.shape[0]):
        seen[ids[k]] = True


@njit(parallel=True, cache=True)
def count_seen(seen, counts):
    """``counts[t]``: the flags set in task ``t``'s contiguous range of ``seen``."""
    tasks = counts.shape[0]
    size = seen.shape[0]
    for t in prange(tasks):
        c = 0
        for v in range(size * t // tasks, size * (t + 1) // tasks):
            if seen[v]:
                c += 1
        counts[t] = c


@njit(parallel=True, cache=True)
def place_seen(seen, starts, position, unique):
    """``unique``: the flagged vertices in order (task ``t``'s from
    ``unique[starts[t]]``, the prefix sums of :func:`count_seen`);
    ``position[v]``: how many flagged vertices precede or are ``v``, minus one
    (``np.cumsum(seen) - 1``: a flagged ``v``'s index in ``unique``)."""
    tasks = starts.shape[0]
    size = seen.shape[0]
    for t in prange(tasks):
        c = starts[t]
        for v in range(size * t // tasks, size * (t + 1) // tasks):
            if seen[v]:
                unique[c] = v
                c += 1
            position[v] = c - 1


@njit(parallel=True, cache=True)
def count_owners(ids, piece, table):
    """``table[t, r]``: how many of task ``t``'s share of ``ids`` rank ``r`` owns."""
    tasks = table.shape[0]
    count = ids.shape[0]
    for t in prange(tasks):
        for k in range(count * t // tasks, count * (t + 1) // tasks):
            table[t, ids[k] // piece] += 1


@njit(parallel=True, cache=True)
def pack_owners(ids, piece, cursors, local, slot):
    """Each id, local to its owner, at its task's next slot for that owner
    (``cursors[t, r]``, advanced); ``slot[k]``: where id ``k`` went."""
    tasks = cursors.shape[0]
    count = ids.shape[0]
    for t in prange(tasks):
        for k in range(count * t // tasks, count * (t + 1) // tasks):
            owner = ids[k] // piece
            c = cursors[t, owner]
            cursors[t, owner] = c + 1
            local[c] = ids[k] - owner * piece
            slot[k] = c


@njit(parallel=True, cache=True)
def count_children(out, starts, sent, piece, table):
    """``table[t, r]``: how many of task ``t``'s children (``out[starts[t]:]``,
    ``sent[t]`` of them, as a tuple kernel wrote them: ``~v`` for a confirmed
    ``v``) rank ``r`` owns."""
    for t in prange(table.shape[0]):
        for k in range(starts[t], starts[t] + sent[t]):
            v = out[k]
            if v < 0:
                v = ~v
            table[t, v // piece] += 1


@njit(parallel=True, cache=True)
def pack_children(out, starts, sent, piece, cursors, local):
    """Each child of :func:`count_children`, local to its owner (``~`` kept:
    ``~u`` for a confirmed child ``u``), at its task's next slot for that
    owner (``cursors[t, r]``, advanced): a task's children keep their order,
    and the tasks theirs, as one concatenation grouped by owner would."""
    for t in prange(cursors.shape[0]):
        for k in range(starts[t], starts[t] + sent[t]):
            v = out[k]
            confirmed = v < 0
            if confirmed:
                v = ~v
            owner = v // piece
            c = cursors[t, owner]
            cursors[t, owner] = c + 1
            u = v - owner * piece
            local[c] = ~u if confirmed else u


@njit(parallel=True, cache=True)
def mark_children(marked, adjacent, confirmed):
    """``adjacent[u] = True`` for each local child ``u`` of ``marked``, and
    ``confirmed[u]`` too where it came as ``~u`` (BFS sends none; tasks racing
    on one flag all store True)."""
    for k in prange(marked.shape[0]):
        u = np.int64(marked[k])
        if u >= 0:
            adjacent[u] = True
        else:
            adjacent[~u] = True
            confirmed[~u] = True


@njit(parallel=True, cache=True)
def gather(values, index, out):
    """``out[k] = values[index[k]]`` on every thread."""
    for k in prange(index.shape[0]):
        out[k] = values[index[k]]


@njit(parallel=True, cache=True)
def count_pending(pointers, at, root, counts):
    """``counts[t]``: entries ``v`` of task ``t``'s share of ``at`` (all of
    ``pointers`` when ``at`` is empty) whose pointer is not ``root``."""
    tasks = counts.shape[0]
    every = at.shape[0] == 0
    count = pointers.shape[0] if every else at.shape[0]
    for t in prange(tasks):
        c = 0
        for k in range(count * t // tasks, count * (t + 1) // tasks):
            v = k if every else at[k]
            if pointers[v] != root:
                c += 1
        counts[t] = c


@njit(parallel=True, cache=True)
def where_pending(pointers, at, root, starts, out):
    """Those entries, in order: task ``t``'s from ``out[starts[t]]`` (the
    prefix sums of :func:`count_pending`)."""
    tasks = starts.shape[0]
    every = at.shape[0] == 0
    count = pointers.shape[0] if every else at.shape[0]
    for t in prange(tasks):
        c = starts[t]
        for k in range(count * t // tasks, count * (t + 1) // tasks):
            v = k if every else at[k]
            if pointers[v] != root:
                out[c] = v
                c += 1


@njit(parallel=True, cache=True)
def jump(pointers, hops, at, up_pointers, up_hops):
    """One round of pointer jumping at the entries ``at``: ``hops`` grows by
    what the pointed-to entry had, the pointer moves to where that one pointed."""
    for k in prange(at.shape[0]):
        v = at[k]
        hops[v] += up_hops[k]
        pointers[v] = up_pointers[k]


# -- per-vertex rules on a rank's owned piece: each task a contiguous range,
# its first witness per rule in ``firsts[t, rule]`` (-1: none), as above.
@njit(parallel=True, cache=True)
def bad_parents(parents, count, n, firsts):
    """``firsts[t, 0]``: task ``t``'s first of ``parents[:count]`` neither -1 nor in ``[0, n)``."""
    tasks = firsts.shape[0]
    for t in prange(tasks):
        found = -1
        for v in range(count * t // tasks, count * (t + 1) // tasks):
            if parents[v] < -1 or parents[v] >= n:
                found = v
                break
        firsts[t, 0] = found


@njit(parallel=True, cache=True)
def reached_parents(parents, count, root, reached, parent_of, totals):
    """``reached[v]``: owned vertex ``v < count`` has a parent; ``parent_of[v]``
    that parent, or ``root`` for the others (a harmless id to ask about);
    ``totals[t]``: task ``t``'s reached vertices."""
    tasks = totals.shape[0]
    size = parents.shape[0]
    for t in prange(tasks):
        c = 0
        for v in range(size * t // tasks, size * (t + 1) // tasks):
            here = v < count and parents[v] >= 0
            reached[v] = here
            parent_of[v] = parents[v] if here else root
            if here:
                c += 1
        totals[t] = c


@njit(parallel=True, cache=True)
def bfs_vertex_rules(parents, levels, reached, parent_parent, parent_level, count, root_local, firsts, highest):
    """Task ``t``'s first ``level-reached`` (``firsts[t, 0]``: level -1 exactly
    where the parent is -1), ``parent-unreached`` (``[t, 1]``) and ``tree-level``
    (``[t, 2]``: a reached non-root vertex one level below its parent) witness,
    and its highest level (``highest[t]``)."""
    tasks = firsts.shape[0]
    size = parents.shape[0]
    for t in prange(tasks):
        split = -1
        orphan = -1
        skip = -1
        top = np.int64(0)
        for v in range(size * t // tasks, size * (t + 1) // tasks):
            level = np.int64(levels[v])
            top = max(top, level)
            if v < count and split < 0 and (level >= 0) != (parents[v] >= 0):
                split = v
            if reached[v]:
                if orphan < 0 and parent_parent[v] < 0:
                    orphan = v
                if skip < 0 and v != root_local and level != np.int64(parent_level[v]) + 1:
                    skip = v
        firsts[t, 0] = split
        firsts[t, 1] = orphan
        firsts[t, 2] = skip
        highest[t] = top


@njit(parallel=True, cache=True)
def sssp_vertex_rules(distances, reached, parent_parent, count, firsts):
    """Task ``t``'s first ``parent-unreached`` (``firsts[t, 0]``),
    ``distance-reached`` (``[t, 1]``: reached, distance not finite) and
    ``distance-unreached`` (``[t, 2]``: not reached, distance not +inf) witness
    among the owned vertices ``v < count``."""
    tasks = firsts.shape[0]
    for t in prange(tasks):
        orphan = -1
        infinite = -1
        finite = -1
        for v in range(count * t // tasks, count * (t + 1) // tasks):
            d = distances[v]
            if reached[v]:
                if orphan < 0 and parent_parent[v] < 0:
                    orphan = v
                if infinite < 0 and not np.isfinite(d):
                    infinite = v
            elif finite < 0 and d != np.inf:  # NaN and -inf too
                finite = v
        firsts[t, 0] = orphan
        firsts[t, 1] = infinite
        firsts[t, 2] = finite


@njit(parallel=True, cache=True)
def reached_values(distances, reached, out, highest):
    """``out[v]``: a reached vertex's distance in ``out``'s dtype, 0 for the
    others (keeps inf - inf out of the tuple sums); ``highest[t]``: the
    largest reached distance of task ``t`` (-inf: none)."""
    tasks = highest.shape[0]
    size = out.shape[0]
    for t in prange(tasks):
        top = -np.inf
        for v in range(size * t // tasks, size * (t + 1) // tasks):
            if reached[v]:
                out[v] = distances[v]
                top = max(top, np.float64(out[v]))
            else:
                out[v] = 0
        highest[t] = top


@njit(parallel=True, cache=True)
def unmarked(reached, marks, firsts, column):
    """``firsts[t, column]``: task ``t``'s first reached vertex not in ``marks``."""
    tasks = firsts.shape[0]
    size = reached.shape[0]
    for t in prange(tasks):
        found = -1
        for v in range(size * t // tasks, size * (t + 1) // tasks):
            if reached[v] and not marks[v]:
                found = v
                break
        firsts[t, column] = found


@njit(parallel=True, cache=True)
def highest_hops(hops, reached, highest):
    """``highest[t]``: the most hops among task ``t``'s reached vertices (0: none)."""
    tasks = highest.shape[0]
    size = hops.shape[0]
    for t in prange(tasks):
        top = np.int64(0)
        for v in range(size * t // tasks, size * (t + 1) // tasks):
            if reached[v]:
                top = max(top, hops[v])
        highest[t] = top
