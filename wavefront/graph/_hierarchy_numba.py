"""Contraction of a graph into a hierarchy, in numba: the engine of :mod:`.hierarchy`.

Geisberger, Sanders, Schultes and Delling, "Contraction Hierarchies" (WEA
2008), with the vertex importance of RoutingKit (Dibbelt, Strasser, Wagner):

    level + arcs added / arcs removed + hops added / hops removed,

where a shortcut's hops are the original arcs it stands for and a vertex's
level is one more than the highest level of the contracted vertices it was
adjacent to. The level term keeps the hierarchy shallow, which is what a
level-synchronous sweep pays for (one step a level).

Contraction goes in rounds, in parallel: every vertex less important than
all its neighbours (ties: the lower id) is contracted in the round, so the
round's vertices are independent. Their witness searches (Dijkstra from each
in-neighbour ``u``, at most ``settle_limit`` vertices settled, avoiding every
vertex of the round) run on the threads, each with its own scratch, and
write the shortcuts they need into a buffer. The round's vertices' arcs go
into the hierarchy, then every list the round changes takes its ops (the
shortcuts it gains, then the round's vertices it loses) on one thread, in
the order a serial pass would apply them, so the hierarchy does not depend
on the threads. The neighbours' importances are recomputed on the threads.
A search cut short adds shortcuts that a longer one might have spared,
never misses one, so the distances stay exact. A witness avoids the whole
round because two contracted neighbours of one pair could otherwise each
count on a path through the other.

The remaining graph is kept as one out-list and one in-list a vertex, each a
slice of a pool that moves to the pool's end with twice the room when it
fills.
"""
from __future__ import annotations

import numpy as np
from numba import get_thread_id, njit, prange

INF = np.iinfo(np.int64).max // 4
WITNESS_ROOM = 1 << 16  # a witness search's heap and touched list; a full one stops the search


@njit(cache=True)
def _grow(pool_to, pool_w, pool_h, need):
    size = pool_to.shape[0]
    while size < need:
        size *= 2
    to = np.empty(size, dtype=pool_to.dtype)
    w = np.empty(size, dtype=pool_w.dtype)
    h = np.empty(size, dtype=pool_h.dtype)
    to[: pool_to.shape[0]] = pool_to
    w[: pool_w.shape[0]] = pool_w
    h[: pool_h.shape[0]] = pool_h
    return to, w, h


@njit(cache=True)
def _find(to, start, length, x):
    for i in range(start, start + length):
        if to[i] == x:
            return i
    return -1


@njit(cache=True, inline="always")
def _heap_push(keys, vals, size, key, val):
    """Push into a heap of fixed capacity; the caller checks for room."""
    i = size
    keys[i] = key
    vals[i] = val
    while i > 0:
        p = (i - 1) >> 1
        if keys[p] <= keys[i]:
            break
        keys[p], keys[i] = keys[i], keys[p]
        vals[p], vals[i] = vals[i], vals[p]
        i = p
    return size + 1


@njit(cache=True, inline="always")
def _heap_pop(keys, vals, size):
    """Remove the least entry (read it at [0] first). Returns the new size."""
    size -= 1
    keys[0] = keys[size]
    vals[0] = vals[size]
    i = 0
    while True:
        c = 2 * i + 1
        if c >= size:
            break
        if c + 1 < size and keys[c + 1] < keys[c]:
            c += 1
        if keys[i] <= keys[c]:
            break
        keys[c], keys[i] = keys[i], keys[c]
        vals[c], vals[i] = vals[i], vals[c]
        i = c
    return size


@njit(cache=True)
def _witness(o_start, o_len, o_to, o_w, source, banned, blocked, stamp, bound, settle_limit, dist, touched, hk, hv):
    """Dijkstra from ``source`` over the remaining graph without ``banned``
    and the vertices ``blocked`` with ``stamp`` (contracted in this round),
    up to distance ``bound``, ``settle_limit`` settled vertices, or until
    every out-neighbour of ``banned`` but ``source`` (the targets) is
    settled; ``dist`` holds the results (INF elsewhere), ``touched[:count]``
    the vertices set, to reset. A search whose heap or touched list fills
    stops there, like one that reaches its limit. Returns count.

    Stopping once the targets are settled changes no target's distance (a
    settled distance is final), so the shortcuts are those of a search run
    to its bound; it spares the vertices between the farthest witness and
    the bound (road-like 200 k on 2 cores: the build 15.1 -> 12.4 s, the
    same hierarchy to the byte)."""
    room = min(touched.shape[0], hk.shape[0])
    targets = o_len[banned]
    first = o_start[banned]
    for i in range(first, first + o_len[banned]):
        if o_to[i] == source:
            targets -= 1
    count = 1
    dist[source] = 0
    touched[0] = source
    size = _heap_push(hk, hv, 0, 0, source)
    settled = 0
    while size > 0:
        d = hk[0]
        x = hv[0]
        size = _heap_pop(hk, hv, size)
        if d > dist[x]:
            continue
        if d > bound:
            break
        settled += 1
        if settled > settle_limit:
            break
        if x != source:
            for i in range(first, first + o_len[banned]):
                if o_to[i] == x:
                    targets -= 1
                    break
            if targets == 0:
                break
        for i in range(o_start[x], o_start[x] + o_len[x]):
            y = o_to[i]
            if y == banned or blocked[y] == stamp:
                continue
            nd = d + o_w[i]
            if nd < dist[y] and nd <= bound:
                if size == room or count == room:
                    return count
                if dist[y] == INF:
                    touched[count] = y
                    count += 1
                dist[y] = nd
                size = _heap_push(hk, hv, size, nd, y)
    return count


@njit(cache=True)
def _importance(v, o_start, o_len, o_to, o_w, o_h, i_start, i_len, i_to, i_w, i_h, level, blocked, settle_limit,
                dist, touched, hk, hv):
    """RoutingKit's importance of contracting ``v`` now: its level, plus
    shortcuts / arcs removed, plus their hops / hops removed."""
    # the shortcuts counted, not written (the out arrays are never touched)
    added, hops = _shortcuts_of(v, o_start, o_len, o_to, o_w, o_h, i_start, i_len, i_to, i_w, i_h, blocked, -1,
                                settle_limit, dist, touched, hk, hv, touched, touched, touched, touched, 0, False)
    removed = o_len[v] + i_len[v]
    removed_hops = 0
    for i in range(o_start[v], o_start[v] + o_len[v]):
        removed_hops += o_h[i]
    for i in range(i_start[v], i_start[v] + i_len[v]):
        removed_hops += i_h[i]
    value = float(level[v])
    if removed > 0:
        value += added / removed
    if removed_hops > 0:
        value += hops / removed_hops
    return value


@njit(cache=True)
def _shortcuts_of(v, o_start, o_len, o_to, o_w, o_h, i_start, i_len, i_to, i_w, i_h, blocked, stamp, settle_limit,
                  dist, touched, hk, hv, out_u, out_x, out_w, out_h, at, record):
    """The shortcuts contracting ``v`` needs, the witnesses avoiding ``v``
    and every vertex ``blocked`` with ``stamp`` (this round's); with
    ``record``, written from ``at`` on. Reads the lists only. Returns (how
    many, their hops)."""
    found = 0
    hops = 0
    for a in range(i_start[v], i_start[v] + i_len[v]):
        u = i_to[a]
        bound = -1
        for b in range(o_start[v], o_start[v] + o_len[v]):
            if o_to[b] != u and i_w[a] + o_w[b] > bound:
                bound = i_w[a] + o_w[b]
        if bound < 0:  # no out-neighbour besides u
            continue
        count = _witness(o_start, o_len, o_to, o_w, u, v, blocked, stamp, bound, settle_limit, dist, touched, hk, hv)
        for b in range(o_start[v], o_start[v] + o_len[v]):
            x = o_to[b]
            if x != u and dist[x] > i_w[a] + o_w[b]:
                if record:
                    out_u[at + found], out_x[at + found] = u, x
                    out_w[at + found], out_h[at + found] = i_w[a] + o_w[b], i_h[a] + o_h[b]
                found += 1
                hops += i_h[a] + o_h[b]
        for t in range(count):
            dist[touched[t]] = INF
    return found, hops


@njit(parallel=True, cache=True)
def _importances(vertices, importance, o_start, o_len, o_to, o_w, o_h, i_start, i_len, i_to, i_w, i_h, level,
                 blocked, settle_limit, dist, touched, hk, hv):
    """The importance of each of ``vertices`` (the contracted ones already
    out of the lists, so nothing is blocked), a thread's scratch each."""
    for k in prange(vertices.shape[0]):
        t = get_thread_id()
        importance[vertices[k]] = _importance(vertices[k], o_start, o_len, o_to, o_w, o_h, i_start, i_len, i_to,
                                              i_w, i_h, level, blocked, settle_limit, dist[t], touched[t], hk[t],
                                              hv[t])


@njit(parallel=True, cache=True)
def _select(remaining, importance, o_start, o_len, o_to, i_start, i_len, i_to, chosen):
    """chosen[k]: whether remaining[k] is less important than every
    neighbour (ties: the lower id), so the chosen ones are independent."""
    for k in prange(remaining.shape[0]):
        v = remaining[k]
        mine = importance[v]
        ok = True
        for i in range(o_start[v], o_start[v] + o_len[v]):
            x = o_to[i]
            if importance[x] < mine or (importance[x] == mine and x < v):
                ok = False
                break
        if ok:
            for i in range(i_start[v], i_start[v] + i_len[v]):
                x = i_to[i]
                if importance[x] < mine or (importance[x] == mine and x < v):
                    ok = False
                    break
        chosen[k] = ok


@njit(parallel=True, cache=True)
def _round_shortcuts(selected, offsets, o_start, o_len, o_to, o_w, o_h, i_start, i_len, i_to, i_w, i_h, blocked,
                     stamp, settle_limit, dist, touched, hk, hv, out_u, out_x, out_w, out_h, counts):
    for k in prange(selected.shape[0]):
        t = get_thread_id()
        counts[k], _ = _shortcuts_of(selected[k], o_start, o_len, o_to, o_w, o_h, i_start, i_len, i_to, i_w, i_h,
                                     blocked, stamp, settle_limit, dist[t], touched[t], hk[t], hv[t], out_u, out_x,
                                     out_w, out_h, offsets[k], True)


@njit(cache=True)
def _by_owner(owner, removes):
    """A round's ops grouped by the vertex whose list they change, stably
    (sorted, not counted over every vertex: a late round has few ops among
    millions of vertices). Returns (perm, starts, owners, adds): group g is
    ``perm[starts[g]:starts[g + 1]]``, of ``owners[g]``'s list, which gains
    at most ``adds[g]`` arcs."""
    perm = np.argsort(owner, kind="mergesort")
    groups = 0
    for i in range(perm.shape[0]):
        if i == 0 or owner[perm[i]] != owner[perm[i - 1]]:
            groups += 1
    starts = np.empty(groups + 1, dtype=np.int64)
    owners = np.empty(groups, dtype=np.int64)
    adds = np.zeros(groups, dtype=np.int64)
    g = -1
    for i in range(perm.shape[0]):
        if i == 0 or owner[perm[i]] != owner[perm[i - 1]]:
            g += 1
            starts[g] = i
            owners[g] = owner[perm[i]]
        if not removes[perm[i]]:
            adds[g] += 1
    starts[groups] = perm.shape[0]
    return perm, starts, owners, adds


@njit(cache=True)
def _make_room(start, length, cap, to, w, h, top, owners, adds):
    """Move every list that its ``adds`` could overfill to the pool's end,
    with its room doubled until they fit (the pool doubles when full).
    Returns the pool arrays and top."""
    for g in range(owners.shape[0]):
        v = owners[g]
        need = length[v] + adds[g]
        if need <= cap[v]:
            continue
        new_cap = max(4, 2 * cap[v])
        while new_cap < need:
            new_cap *= 2
        if top + new_cap > to.shape[0]:
            to, w, h = _grow(to, w, h, top + new_cap)
        s = start[v]
        for i in range(length[v]):
            to[top + i] = to[s + i]
            w[top + i] = w[s + i]
            h[top + i] = h[s + i]
        start[v] = top
        cap[v] = new_cap
        top += new_cap
    return to, w, h, top


@njit(parallel=True, cache=True)
def _update_lists(starts, owners, perm, op_other, op_w, op_h, op_removes, start, length, to, w, h, level, dirty,
                  stamp):
    """Each list's ops in order, one thread a list: an add of (other, w, h)
    lowers an arc to ``other`` that is longer or appends one; a removal of
    the contracted ``other`` swaps the last arc into its place and raises the
    list owner's level above it. The lists' room was made beforehand."""
    for g in prange(owners.shape[0]):
        v = owners[g]
        for q in range(starts[g], starts[g + 1]):
            op = perm[q]
            x = op_other[op]
            i = _find(to, start[v], length[v], x)
            if op_removes[op]:
                last = start[v] + length[v] - 1
                to[i], w[i], h[i] = to[last], w[last], h[last]
                length[v] -= 1
                level[v] = max(level[v], level[x] + 1)
                dirty[v] = stamp
            elif i < 0:
                i = start[v] + length[v]
                to[i], w[i], h[i] = x, op_w[op], op_h[op]
                length[v] += 1
            elif op_w[op] < w[i]:
                w[i], h[i] = op_w[op], op_h[op]


@njit(parallel=True, cache=True)
def _record_arcs(selected, first, start, length, to, w, h, out, incoming):
    """The chosen vertices' arcs (out-arcs, or in-arcs when ``incoming``) as
    hierarchy arcs in ``out[:, first[k]:]`` (rows: tail, head, weight, hops)."""
    for k in prange(selected.shape[0]):
        v = selected[k]
        at = first[k]
        for i in range(start[v], start[v] + length[v]):
            tail, head = (to[i], v) if incoming else (v, to[i])
            out[0, at], out[1, at], out[2, at], out[3, at] = tail, head, w[i], h[i]
            at += 1


@njit(cache=True)
def _side_ops(shortcut_owner, shortcut_other, sw, sh, selected, start, length, to):
    """One side's ops of a round (out-lists: owner u of a shortcut u -> x;
    in-lists: owner x): the shortcuts' adds first, then for each chosen
    vertex in order the removal of it from its neighbours' lists (``start``,
    ``length``, ``to``: the chosen vertices' lists on the other side).
    Returns (owner, other, w, h, removes) a op."""
    shortcuts = shortcut_owner.shape[0]
    removals = 0
    for v in selected:
        removals += length[v]
    total = shortcuts + removals
    owner = np.empty(total, dtype=np.int64)
    other = np.empty(total, dtype=np.int64)
    ow = np.zeros(total, dtype=np.int64)
    oh = np.zeros(total, dtype=np.int64)
    removes = np.zeros(total, dtype=np.bool_)
    owner[:shortcuts] = shortcut_owner
    other[:shortcuts] = shortcut_other
    ow[:shortcuts] = sw
    oh[:shortcuts] = sh
    at = shortcuts
    for v in selected:
        for i in range(start[v], start[v] + length[v]):
            owner[at], other[at], removes[at] = to[i], v, True
            at += 1
    return owner, other, ow, oh, removes


@njit(cache=True)
def _apply_side(ops, start, length, cap, to, w, h, top, level, dirty, stamp):
    """A round's ops (:func:`_side_ops`) applied to one side's lists.
    Returns the pool arrays and top."""
    owner, other, ow, oh, removes = ops
    perm, starts, owners, adds = _by_owner(owner, removes)
    to, w, h, top = _make_room(start, length, cap, to, w, h, top, owners, adds)
    _update_lists(starts, owners, perm, other, ow, oh, removes, start, length, to, w, h, level, dirty, stamp)
    return to, w, h, top


@njit(cache=True)
def contract(n, src, dst, weight, settle_limit, simulate_limit, threads):
    """Contract every vertex of the graph of arcs ``src -> dst`` (unique
    pairs, no loops, int64 weights >= 0). Returns (order, level, up, down,
    shortcuts): ``order`` the vertices in the order contracted, ``level``
    each vertex's level; ``up`` = (lower, higher, weight) the arcs that leave
    a vertex towards a higher one, ``down`` = (higher, lower, weight) the arcs
    that enter a vertex from a higher one; ``shortcuts`` how many of all
    those arcs stand for paths."""
    m = src.shape[0]
    o_len = np.zeros(n, dtype=np.int64)
    i_len = np.zeros(n, dtype=np.int64)
    for e in range(m):
        o_len[src[e]] += 1
        i_len[dst[e]] += 1
    o_cap = o_len + 2
    i_cap = i_len + 2
    o_start = np.zeros(n, dtype=np.int64)
    i_start = np.zeros(n, dtype=np.int64)
    for v in range(1, n):
        o_start[v] = o_start[v - 1] + o_cap[v - 1]
        i_start[v] = i_start[v - 1] + i_cap[v - 1]
    o_top = o_start[n - 1] + o_cap[n - 1] if n else 0
    i_top = i_start[n - 1] + i_cap[n - 1] if n else 0
    o_to = np.empty(2 * o_top + 16, dtype=np.int64)
    o_w = np.empty(2 * o_top + 16, dtype=np.int64)
    o_h = np.empty(2 * o_top + 16, dtype=np.int32)
    i_to = np.empty(2 * i_top + 16, dtype=np.int64)
    i_w = np.empty(2 * i_top + 16, dtype=np.int64)
    i_h = np.empty(2 * i_top + 16, dtype=np.int32)
    o_len[:] = 0
    i_len[:] = 0
    for e in range(m):
        u, x = src[e], dst[e]
        j = o_start[u] + o_len[u]
        o_to[j], o_w[j], o_h[j] = x, weight[e], 1
        o_len[u] += 1
        k = i_start[x] + i_len[x]
        i_to[k], i_w[k], i_h[k] = u, weight[e], 1
        i_len[x] += 1
    dist = np.full((threads, n), INF, dtype=np.int64)
    touched = np.empty((threads, WITNESS_ROOM), dtype=np.int64)
    hk = np.empty((threads, WITNESS_ROOM), dtype=np.int64)
    hv = np.empty((threads, WITNESS_ROOM), dtype=np.int64)

    level = np.zeros(n, dtype=np.int64)
    importance = np.zeros(n, dtype=np.float64)
    blocked = np.zeros(n, dtype=np.int64)  # the round a vertex was contracted in (0: not yet)
    dirty = np.zeros(n, dtype=np.int64)  # the round a vertex's importance went stale in
    remaining = np.arange(n)
    _importances(remaining, importance, o_start, o_len, o_to, o_w, o_h, i_start, i_len, i_to, i_w, i_h, level,
                 blocked, simulate_limit, dist, touched, hk, hv)
    order = np.empty(n, dtype=np.int64)
    cap = max(16, 2 * m)
    up = np.empty((4, cap), dtype=np.int64)  # rows: lower, higher, weight, hops
    dn = np.empty((4, cap), dtype=np.int64)  # rows: higher, lower, weight, hops
    n_up = 0
    n_dn = 0
    placed = 0
    stamp = 0
    while remaining.shape[0] > 0:
        stamp += 1
        chosen = np.empty(remaining.shape[0], dtype=np.bool_)
        _select(remaining, importance, o_start, o_len, o_to, i_start, i_len, i_to, chosen)
        selected = remaining[chosen]
        for v in selected:
            blocked[v] = stamp
        offsets = np.zeros(selected.shape[0] + 1, dtype=np.int64)
        for k in range(selected.shape[0]):
            offsets[k + 1] = offsets[k] + i_len[selected[k]] * o_len[selected[k]]
        out_u = np.empty(offsets[-1], dtype=np.int64)
        out_x = np.empty(offsets[-1], dtype=np.int64)
        out_w = np.empty(offsets[-1], dtype=np.int64)
        out_h = np.empty(offsets[-1], dtype=np.int64)
        counts = np.zeros(selected.shape[0], dtype=np.int64)
        _round_shortcuts(selected, offsets, o_start, o_len, o_to, o_w, o_h, i_start, i_len, i_to, i_w, i_h, blocked,
                         stamp, settle_limit, dist, touched, hk, hv, out_u, out_x, out_w, out_h, counts)
        # The round's changes to the lists: the shortcuts (between vertices left, since the chosen are
        # independent), then the chosen vertices' arcs out of their neighbours' lists, each list's ops in that
        # order on one thread. The chosen vertices' own lists are only read: first into the hierarchy's arcs.
        made = 0
        for k in range(selected.shape[0]):
            made += counts[k]
        su = np.empty(made, dtype=np.int64)
        sx = np.empty(made, dtype=np.int64)
        sw = np.empty(made, dtype=np.int64)
        sh = np.empty(made, dtype=np.int64)
        at = 0
        for k in range(selected.shape[0]):
            for j in range(offsets[k], offsets[k] + counts[k]):
                su[at], sx[at], sw[at], sh[at] = out_u[j], out_x[j], out_w[j], out_h[j]
                at += 1
        first_up = np.empty(selected.shape[0], dtype=np.int64)
        first_dn = np.empty(selected.shape[0], dtype=np.int64)
        kept_up, kept_dn = n_up, n_dn
        for k in range(selected.shape[0]):
            v = selected[k]
            first_up[k], first_dn[k] = n_up, n_dn
            n_up += o_len[v]
            n_dn += i_len[v]
        if max(n_up, n_dn) > up.shape[1]:
            need = max(n_up, n_dn)
            up2 = np.empty((4, 2 * need), dtype=np.int64)
            dn2 = np.empty((4, 2 * need), dtype=np.int64)
            up2[:, :kept_up] = up[:, :kept_up]
            dn2[:, :kept_dn] = dn[:, :kept_dn]
            up, dn = up2, dn2
        if selected.shape[0]:
            _record_arcs(selected, first_up, o_start, o_len, o_to, o_w, o_h, up, False)
            _record_arcs(selected, first_dn, i_start, i_len, i_to, i_w, i_h, dn, True)
        # out-lists: a shortcut u -> x adds to u's; a chosen v leaves the lists of its in-neighbours
        ops = _side_ops(su, sx, sw, sh, selected, i_start, i_len, i_to)
        o_to, o_w, o_h, o_top = _apply_side(ops, o_start, o_len, o_cap, o_to, o_w, o_h, o_top, level, dirty, stamp)
        # in-lists: the same shortcut adds to x's; v leaves the lists of its out-neighbours
        ops = _side_ops(sx, su, sw, sh, selected, o_start, o_len, o_to)
        i_to, i_w, i_h, i_top = _apply_side(ops, i_start, i_len, i_cap, i_to, i_w, i_h, i_top, level, dirty, stamp)
        for k in range(selected.shape[0]):
            v = selected[k]
            o_len[v] = 0
            i_len[v] = 0
            order[placed] = v
            placed += 1
        left = 0
        for v in remaining:
            if blocked[v] == 0:
                remaining[left] = v
                left += 1
        remaining = remaining[:left].copy()
        stale = remaining[dirty[remaining] == stamp]
        _importances(stale, importance, o_start, o_len, o_to, o_w, o_h, i_start, i_len, i_to, i_w, i_h, level,
                     blocked, simulate_limit, dist, touched, hk, hv)
    shortcuts = 0
    for j in range(n_up):
        shortcuts += up[3, j] > 1
    for j in range(n_dn):
        shortcuts += dn[3, j] > 1
    return order, level, up[:3, :n_up].copy(), dn[:3, :n_dn].copy(), shortcuts
