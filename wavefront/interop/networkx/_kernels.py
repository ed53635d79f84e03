"""Compiled replays of NetworkX's visiting order (numba; imported on first use).

NetworkX's BFS edges, BFS parents, bidirectional BFS paths and Dijkstra
paths and predecessor lists depend on the order in which it visits
neighbours (the insertion order of ``G._adj``), not only on the graph. A
parallel search cannot fix that order, so these kernels walk the CSR that
:mod:`.convert` builds in NetworkX's neighbour order, one vertex at a time,
exactly as NetworkX's loops do:

* :func:`bfs_order`: ``generic_bfs_edges`` / ``bfs_layers`` /
  ``_single_shortest_path`` (a FIFO queue; the first discoverer is the parent);
* :func:`bidirectional_path`: ``_bidirectional_pred_succ``;
* :func:`bidirectional_dijkstra`: ``bidirectional_dijkstra``, whole (its
  meeting point depends on tentative distances, so there is nothing to
  replay from final ones);
* :func:`dijkstra_replay`: the pop order of ``_dijkstra_multisource``, given
  the final distances from ``wavefront.sssp``. NetworkX pops by
  (distance, push counter); the counter of a vertex's final push grows with
  (pop position of the vertex that pushed it, position of the arc in that
  vertex's list). So vertices pop in groups of equal distance, each group in
  counter order, and a vertex's parent is the first popped vertex ``v``
  with ``dist[v] + w == dist[u]``: no heap and no relaxations are needed.

All ids are int64; ``-1`` marks "none".
"""
from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def bfs_order(indptr, indices, sources, depth_limit):
    """Sequential BFS from ``sources`` (in order; repeats ignored), expanding
    vertices of level < ``depth_limit``.

    Returns ``(order, parents, levels)``: the vertices in the order NetworkX
    visits them, each vertex's parent (-1 for sources and unreached), each
    vertex's level (-1 unreached).
    """
    n = indptr.shape[0] - 1
    levels = np.full(n, -1, dtype=np.int64)
    parents = np.full(n, -1, dtype=np.int64)
    order = np.empty(n, dtype=np.int64)
    tail = 0
    for s in sources:
        if levels[s] < 0:
            levels[s] = 0
            order[tail] = s
            tail += 1
    head = 0
    while head < tail:
        v = order[head]
        if levels[v] >= depth_limit:
            break  # levels never decrease along the queue
        head += 1
        for a in range(indptr[v], indptr[v + 1]):
            u = indices[a]
            if levels[u] < 0:
                levels[u] = levels[v] + 1
                parents[u] = v
                order[tail] = u
                tail += 1
    return order[:tail], parents, levels


@njit(cache=True)
def bidirectional_path(succ_indptr, succ_indices, pred_indptr, pred_indices, source, target):
    """NetworkX's bidirectional BFS path from ``source`` to ``target`` (empty: none).

    Grows the smaller fringe one level at a time; stops at the first vertex
    seen from both sides, while scanning, exactly where NetworkX stops.
    """
    if source == target:
        return np.array([source], dtype=np.int64)
    n = succ_indptr.shape[0] - 1
    unseen = -2
    pred = np.full(n, unseen, dtype=np.int64)  # forward tree: parent towards source
    succ = np.full(n, unseen, dtype=np.int64)  # backward tree: child towards target
    pred[source] = -1
    succ[target] = -1
    forward = np.empty(n, dtype=np.int64)
    forward_next = np.empty(n, dtype=np.int64)
    backward = np.empty(n, dtype=np.int64)
    backward_next = np.empty(n, dtype=np.int64)
    forward[0] = source
    backward[0] = target
    n_forward = 1
    n_backward = 1
    while n_forward > 0 and n_backward > 0:
        if n_forward <= n_backward:
            n_forward, meet = _grow(succ_indptr, succ_indices, forward, n_forward, forward_next,
                                    pred, succ, unseen)
            forward, forward_next = forward_next, forward
        else:
            n_backward, meet = _grow(pred_indptr, pred_indices, backward, n_backward, backward_next,
                                     succ, pred, unseen)
            backward, backward_next = backward_next, backward
        if meet >= 0:
            return _joined_path(pred, succ, meet)
    return np.empty(0, dtype=np.int64)


@njit(cache=True)
def _grow(indptr, indices, fringe, size, next_fringe, tree, other, unseen):
    """One level of one side of the bidirectional BFS: ``(next size, meeting
    vertex or -1)``; stops at the first vertex the other side has seen."""
    count = 0
    for i in range(size):
        v = fringe[i]
        for a in range(indptr[v], indptr[v + 1]):
            w = indices[a]
            if tree[w] == unseen:
                tree[w] = v
                next_fringe[count] = w
                count += 1
            if other[w] != unseen:
                return count, w
    return count, -1


@njit(cache=True)
def dijkstra_replay(indptr, indices, weights, dist, by_distance, sources, target, record_preds):
    """NetworkX's Dijkstra pop order, parents and predecessor lists, given the
    final distances.

    ``dist``: the distances in the weights' dtype (unreached vertices hold a
    value no sum reaches: inf, or int64's max); ``by_distance``: the reached
    vertices sorted by distance; ``sources`` in NetworkX's push order
    (distinct); ``target``: stop after popping it (-1: never).

    Returns ``(order, parents, pred_heads, pred_tails, complete)``: pop
    order, each vertex's path parent (-1: none), the predecessor pairs
    ``pred_tails[k] -> pred_heads[k]`` in the order NetworkX appends them
    (when ``record_preds``), and False when some reached vertex had no
    parent, i.e. ``dist`` is not a fixed point of the arc sums.
    """
    n = indptr.shape[0] - 1
    counter = np.full(n, -1, dtype=np.int64)
    parents = np.full(n, -1, dtype=np.int64)
    popped = np.zeros(n, dtype=np.bool_)
    for i in range(sources.shape[0]):
        counter[sources[i]] = i
    next_counter = sources.shape[0]
    total = by_distance.shape[0]
    order = np.empty(total, dtype=np.int64)
    n_pred = indices.shape[0] if record_preds else 0
    pred_heads = np.empty(n_pred, dtype=np.int64)
    pred_tails = np.empty(n_pred, dtype=np.int64)
    n_popped = 0
    n_recorded = 0
    group = np.empty(total, dtype=np.int64)
    start = 0
    while start < total:
        group_distance = dist[by_distance[start]]
        stop = start
        while stop < total and dist[by_distance[stop]] == group_distance:
            stop += 1
        # The group's vertices pushed so far (all by earlier groups), in counter order.
        size = 0
        for k in range(start, stop):
            v = by_distance[k]
            if counter[v] >= 0:
                group[size] = v
                size += 1
        ranks = np.argsort(counter[group[:size]])
        group[:size] = group[:size][ranks]
        head = 0
        while head < size:
            v = group[head]
            head += 1
            popped[v] = True
            order[n_popped] = v
            n_popped += 1
            if v == target:
                return order[:n_popped], parents, pred_heads[:n_recorded], pred_tails[:n_recorded], True
            for a in range(indptr[v], indptr[v + 1]):
                u = indices[a]
                if dist[v] + weights[a] != dist[u]:
                    continue  # also skips NaN (hidden) arcs and unreached heads
                if record_preds:
                    pred_heads[n_recorded] = u
                    pred_tails[n_recorded] = v
                    n_recorded += 1
                if not popped[u] and counter[u] < 0:
                    counter[u] = next_counter
                    next_counter += 1
                    parents[u] = v
                    if dist[u] == group_distance:  # a zero-weight arc: same group, last so far
                        group[size] = u
                        size += 1
        if size != stop - start:
            return order[:n_popped], parents, pred_heads[:n_recorded], pred_tails[:n_recorded], False
        start = stop
    return order[:n_popped], parents, pred_heads[:n_recorded], pred_tails[:n_recorded], True


@njit(cache=True, inline="always")
def _before(d1, c1, d2, c2):
    """Heap order: by distance, then by push counter (unique, so the order is total)."""
    return d1 < d2 or (d1 == d2 and c1 < c2)


@njit(cache=True)
def _heap_push(dist, count, vertex, size, d, c, v):
    """Push (d, c, v) on the binary min-heap of (dist, count) keys; returns the new size."""
    i = size
    while i > 0:
        parent = (i - 1) // 2
        if _before(dist[parent], count[parent], d, c):
            break
        dist[i], count[i], vertex[i] = dist[parent], count[parent], vertex[parent]
        i = parent
    dist[i], count[i], vertex[i] = d, c, v
    return size + 1


@njit(cache=True)
def _heap_pop(dist, count, vertex, size):
    """Pop the smallest (dist, count); returns (d, v, new size)."""
    d, v = dist[0], vertex[0]
    size -= 1
    last_d, last_c, last_v = dist[size], count[size], vertex[size]
    i = 0
    while True:
        child = 2 * i + 1
        if child >= size:
            break
        right = child + 1
        if right < size and _before(dist[right], count[right], dist[child], count[child]):
            child = right
        if _before(last_d, last_c, dist[child], count[child]):
            break
        dist[i], count[i], vertex[i] = dist[child], count[child], vertex[child]
        i = child
    if size > 0:
        dist[i], count[i], vertex[i] = last_d, last_c, last_v
    return d, v, size


@njit(cache=True)
def bidirectional_dijkstra(succ_indptr, succ_indices, succ_weights,
                           pred_indptr, pred_indices, pred_weights, source, target):
    """NetworkX's ``bidirectional_dijkstra`` on the CSRs in its neighbour order.

    Its heaps order by (distance, push counter) with the counter shared by
    both directions, so any heap pops in NetworkX's order. NaN weights are
    hidden arcs. Returns ``(found, length, path)``.
    """
    n = succ_indptr.shape[0] - 1
    zero = np.zeros(1, dtype=succ_weights.dtype)[0]
    done = np.zeros((2, n), dtype=np.bool_)
    seen = np.zeros((2, n), dtype=np.bool_)
    seen_dist = np.zeros((2, n), dtype=succ_weights.dtype)
    preds = np.full((2, n), -1, dtype=np.int64)
    capacity = succ_indices.shape[0] + 1
    heap_dist = np.empty((2, capacity), dtype=succ_weights.dtype)
    heap_count = np.empty((2, capacity), dtype=np.int64)
    heap_vertex = np.empty((2, capacity), dtype=np.int64)
    sizes = np.zeros(2, dtype=np.int64)
    sizes[0] = _heap_push(heap_dist[0], heap_count[0], heap_vertex[0], 0, zero, 0, source)
    sizes[1] = _heap_push(heap_dist[1], heap_count[1], heap_vertex[1], 0, zero, 1, target)
    counter = 2
    seen[0, source] = True
    seen[1, target] = True
    found_length = zero
    meet = -1
    direction = 1
    while sizes[0] > 0 and sizes[1] > 0:
        direction = 1 - direction
        other = 1 - direction
        d, v, size = _heap_pop(
            heap_dist[direction], heap_count[direction], heap_vertex[direction], sizes[direction]
        )
        sizes[direction] = size
        if done[direction, v]:
            continue
        done[direction, v] = True
        if done[other, v]:
            return True, found_length, _joined_path(preds[0], preds[1], meet)
        if direction == 0:
            indptr, indices, weights = succ_indptr, succ_indices, succ_weights
        else:
            indptr, indices, weights = pred_indptr, pred_indices, pred_weights
        for a in range(indptr[v], indptr[v + 1]):
            cost = weights[a]
            if np.isnan(cost):  # an edge whose weight is None
                continue
            w = indices[a]
            length = d + cost
            if done[direction, w]:
                continue  # (NetworkX raises here for negative weights; can_run excludes them)
            if not seen[direction, w] or length < seen_dist[direction, w]:
                seen[direction, w] = True
                seen_dist[direction, w] = length
                sizes[direction] = _heap_push(
                    heap_dist[direction], heap_count[direction], heap_vertex[direction],
                    sizes[direction], length, counter, w,
                )
                counter += 1
                preds[direction, w] = v
                if seen[other, w]:
                    total = length + seen_dist[other, w]
                    if meet < 0 or found_length > total:
                        found_length = total
                        meet = w
    return False, zero, np.empty(0, dtype=np.int64)


@njit(cache=True)
def _joined_path(forward, backward, meet):
    """The path source .. meet along ``forward`` (each vertex's parent towards
    the source), then on to the target along ``backward`` (-1 ends both)."""
    back = 0
    v = meet
    while v >= 0:
        back += 1
        v = forward[v]
    ahead = 0
    v = backward[meet]
    while v >= 0:
        ahead += 1
        v = backward[v]
    path = np.empty(back + ahead, dtype=np.int64)
    v = meet
    for j in range(back):
        path[back - 1 - j] = v
        v = forward[v]
    v = backward[meet]
    for j in range(ahead):
        path[back + j] = v
        v = backward[v]
    return path
