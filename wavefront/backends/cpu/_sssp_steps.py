"""numba SSSP kernels: serial Dijkstra, the delta-stepping phases, the parent pass.

* :func:`dijkstra_kernel` -- Dijkstra with an indexed binary heap
  (decrease-key), the serial oracle.
* :func:`relax_phase` -- one delta-stepping phase (Meyer & Sanders 2003):
  relax the light (``w <= delta``) or heavy (``w > delta``) out-edges of a
  frontier in parallel, lowering distances with a compare-and-swap loop
  (the atomic ``min`` of seed 001's RELAX; its Algorithm 2 races without
  it). Improved vertices whose bucket is the current one join the next
  *near* frontier, later ones the *far* pile, each at most once (flags).
* :func:`far_min_bucket` / :func:`split_far` -- when the current bucket is
  empty, jump to the lowest non-empty bucket and move its vertices from the
  far pile to the near frontier (the near/far split of Davidson et al.
  2014, with delta-stepping's buckets).
* :func:`tight_parents` / :func:`zero_weight_parents` -- derive a
  shortest-path tree from final distances: ``parents[v] = u`` only for an
  arc with ``dist[u] + w == dist[v]`` in the distance dtype, so the tree
  passes Graph500's exact check; first from strictly closer vertices, then
  breadth-first within a distance, so it has no cycle.

A vertex's bucket is ``int(d / delta)``, evaluated the same way everywhere:
it is monotone in ``d``, which is all correctness needs.
"""
from __future__ import annotations

import numpy as np
from numba import njit, prange, types
from numba.extending import overload

from ._atomics import (
    BARRIER_SLOTS,
    atomic_load,
    barrier,
    compare_and_swap,
    fetch_add,
    fetch_min,
    float32_bits,
    float32_from_bits,
    join_team,
    push_block,
)
from ._clock import cycles

BLOCK = 64  # frontier entries a worker takes at a time
LOCAL_BUFFER = 1024  # per-worker queue buffer, flushed with one fetch-add

# Slots of the int64 ``counters`` scratch array shared by the phase kernels.
NEAR_TAIL, FAR_TAIL, PROCESSED_TAIL, CURSOR = 0, 1, 2, 3


@njit(cache=True)
def dijkstra_kernel(indptr, indices, weights, sources, dist, parents, cutoff):
    """Dijkstra from every vertex of ``sources`` (int64, distinct); ``dist``/``parents``
    arrive filled with inf / -1.

    Arcs leading past ``cutoff`` are not taken. Returns the edges examined.
    """
    n = dist.shape[0]
    heap = np.empty(n, dtype=np.int64)
    position = np.full(n, -1, dtype=np.int64)  # -1 never queued, -2 settled
    size = 0
    for s in sources:  # all at distance 0, so any order is a heap
        dist[s] = 0
        parents[s] = s
        heap[size] = s
        position[s] = size
        size += 1
    examined = 0
    while size:
        u = heap[0]
        position[u] = -2
        size -= 1
        if size:
            _sift_down(heap, position, dist, heap[size], 0, size)
        du = dist[u]
        for j in range(indptr[u], indptr[u + 1]):
            v = indices[j]
            examined += 1
            candidate = du + weights[j]
            if candidate < dist[v] and candidate <= cutoff:
                dist[v] = candidate
                parents[v] = u
                i = position[v]
                if i == -1:
                    i = size
                    size += 1
                _sift_up(heap, position, dist, v, i)
    return examined


@njit(cache=True)
def _sift_up(heap, position, dist, v, i):
    key = dist[v]
    while i > 0:
        parent = (i - 1) >> 1
        p = heap[parent]
        if dist[p] <= key:
            break
        heap[i] = p
        position[p] = i
        i = parent
    heap[i] = v
    position[v] = i


@njit(cache=True)
def _sift_down(heap, position, dist, v, i, size):
    key = dist[v]
    while True:
        child = 2 * i + 1
        if child >= size:
            break
        if child + 1 < size and dist[heap[child + 1]] < dist[heap[child]]:
            child += 1
        c = heap[child]
        if dist[c] >= key:
            break
        heap[i] = c
        position[c] = i
        i = child
    heap[i] = v
    position[v] = i


@njit(parallel=True, cache=True)
def relax_phase(
    indptr, indices, weights, dist, frontier, frontier_size, delta, light, bucket, cutoff,
    near, near_flags, far, far_flags, processed, processed_flags, counters, workers,
):
    """Relax the light (``light``) or heavy edges of ``frontier[:frontier_size]``.

    Writes the next near frontier to ``near`` (tail ``counters[NEAR_TAIL]``,
    reset here), appends to ``far`` (``counters[FAR_TAIL]``) and, in light
    phases, records first-time frontier vertices in ``processed`` (whose
    heavy edges the bucket relaxes at its end). Returns edges examined.
    """
    for i in prange(frontier_size):
        near_flags[frontier[i]] = 0  # a vertex improved again must be able to re-enter
    counters[NEAR_TAIL] = 0
    counters[CURSOR] = 0
    examined = 0
    for _ in prange(workers):
        near_local = np.empty(LOCAL_BUFFER, dtype=near.dtype)
        far_local = np.empty(LOCAL_BUFFER, dtype=far.dtype)
        done_local = np.empty(LOCAL_BUFFER, dtype=processed.dtype)
        near_count = 0
        far_count = 0
        done_count = 0
        my_examined = 0
        while True:
            start = fetch_add(counters, CURSOR, BLOCK)
            if start >= frontier_size:
                break
            for i in range(start, min(start + BLOCK, frontier_size)):
                u = frontier[i]
                if light and processed_flags[u] == 0 and compare_and_swap(processed_flags, u, 0, 1):
                    done_local[done_count] = u
                    done_count += 1
                    if done_count == LOCAL_BUFFER:
                        push_block(done_local, done_count, processed, counters, PROCESSED_TAIL)
                        done_count = 0
                du = dist[u]
                for j in range(indptr[u], indptr[u + 1]):
                    w = weights[j]
                    if (w <= delta) != light:
                        continue
                    my_examined += 1
                    candidate = du + w
                    if candidate > cutoff:
                        continue
                    v = indices[j]
                    while True:
                        old = dist[v]
                        if candidate >= old:
                            break
                        if compare_and_swap(dist, v, old, candidate):
                            if np.int64(candidate / delta) <= bucket:
                                if near_flags[v] == 0 and compare_and_swap(near_flags, v, 0, 1):
                                    near_local[near_count] = v
                                    near_count += 1
                                    if near_count == LOCAL_BUFFER:
                                        push_block(near_local, near_count, near, counters, NEAR_TAIL)
                                        near_count = 0
                            elif far_flags[v] == 0 and compare_and_swap(far_flags, v, 0, 1):
                                far_local[far_count] = v
                                far_count += 1
                                if far_count == LOCAL_BUFFER:
                                    push_block(far_local, far_count, far, counters, FAR_TAIL)
                                    far_count = 0
                            break
        if near_count:
            push_block(near_local, near_count, near, counters, NEAR_TAIL)
        if far_count:
            push_block(far_local, far_count, far, counters, FAR_TAIL)
        if done_count:
            push_block(done_local, done_count, processed, counters, PROCESSED_TAIL)
        examined += my_examined
    return examined


@njit(parallel=True, cache=True)
def far_min_bucket(far, far_size, dist, delta, bucket):
    """The lowest bucket above ``bucket`` holding a far-pile vertex (-1 if none).

    Entries at or below ``bucket`` are stale: those vertices were improved
    into an earlier bucket and processed there.
    """
    none = np.iinfo(np.int64).max
    lowest = none
    for i in prange(far_size):
        b = np.int64(dist[far[i]] / delta)
        if b > bucket:
            lowest = min(lowest, b)
    return -1 if lowest == none else lowest


@njit(parallel=True, cache=True)
def split_far(far, far_size, dist, delta, stale_bucket, bucket, near, near_flags, far_next, far_flags, counters, workers):
    """Move far-pile vertices of ``bucket`` to ``near``, drop stale ones, keep the rest in ``far_next``.

    Returns (near size, far_next size).
    """
    counters[NEAR_TAIL] = 0
    counters[FAR_TAIL] = 0
    counters[CURSOR] = 0
    for _ in prange(workers):
        near_local = np.empty(LOCAL_BUFFER, dtype=near.dtype)
        keep_local = np.empty(LOCAL_BUFFER, dtype=far_next.dtype)
        near_count = 0
        keep_count = 0
        while True:
            start = fetch_add(counters, CURSOR, BLOCK)
            if start >= far_size:
                break
            for i in range(start, min(start + BLOCK, far_size)):
                v = far[i]
                b = np.int64(dist[v] / delta)
                if b > bucket:
                    keep_local[keep_count] = v
                    keep_count += 1
                    if keep_count == LOCAL_BUFFER:
                        push_block(keep_local, keep_count, far_next, counters, FAR_TAIL)
                        keep_count = 0
                    continue
                far_flags[v] = 0
                if b > stale_bucket:
                    near_flags[v] = 1
                    near_local[near_count] = v
                    near_count += 1
                    if near_count == LOCAL_BUFFER:
                        push_block(near_local, near_count, near, counters, NEAR_TAIL)
                        near_count = 0
        if near_count:
            push_block(near_local, near_count, near, counters, NEAR_TAIL)
        if keep_count:
            push_block(keep_local, keep_count, far_next, counters, FAR_TAIL)
    return counters[NEAR_TAIL], counters[FAR_TAIL]


@njit(parallel=True, cache=True)
def clear_flags(vertices, count, flags):
    for i in prange(count):
        flags[vertices[i]] = 0


# -- fused delta-stepping: one parallel region for the whole search -----------------------------
#
# Distances live in ``words``, read and written through a codec chosen by
# the type of the ``codec`` marker argument (numba compiles one kernel per
# codec):
#
# * ``np.uint32`` marker, uint64 words: an integer distance below 2**32 - 1
#   in the high half, the parent's id in the low half. One compare-and-swap
#   sets both, so the parent is always the vertex that gave the distance:
#   no parent pass. A candidate that does not fit raises the OVERFLOW flag
#   and the driver reruns with the plain int64 codec.
# * ``np.float32`` marker, uint64 words: the float32 distance's bits in the
#   high half (non-negative floats order like their bits), the parent low.
# * any other marker (the dtype of ``words``): the distance alone (float64,
#   or int64 after an overflow); parents come from the tight-arc pass.

NO_BIN = np.iinfo(np.int64).max
_LOW32 = np.uint64(0xFFFFFFFF)
_SHIFT = np.uint64(32)
_UNREACHED = np.uint64(0xFFFFFFFFFFFFFFFF)  # a packed integer word with no distance and no parent
PACKED_INT_LIMIT = 0xFFFFFFFF  # packed integer distances stay below this (it marks "unreached")

# Slots of the int64 ``shared`` array, a cache line (8 slots) apart: the
# team's and barrier's, then the double-buffered bin, frontier tail and work
# cursor of iterations ``it & 1``, then the overflow flag.
BIN_SLOT, TAIL_SLOT, CURSOR_SLOT, OVERFLOW_SLOT = BARRIER_SLOTS, BARRIER_SLOTS + 16, BARRIER_SLOTS + 32, \
    BARRIER_SLOTS + 48
SHARED_SLOTS = BARRIER_SLOTS + 56
# Columns of the per-iteration ``stats`` rows (flattened int64).
STAT_BIN, STAT_FRONTIER, STAT_EDGES, STAT_STAMP, STAT_FUSED, STAT_COLUMNS = 0, 1, 2, 3, 4, 5


def decode(codec, word):
    """The distance stored in ``word`` (numba only)."""


def encode(codec, distance, parent):
    """The word storing ``distance`` reached from ``parent`` (numba only)."""


def overflows(codec, distance, old):
    """Whether ``distance`` would improve the word ``old`` but cannot be stored (numba only)."""


def _packed_int(codec):
    return isinstance(codec, types.Integer) and codec.bitwidth == 32 and not codec.signed


def _packed_float32(codec):
    return codec == types.float32


@overload(decode, jit_options={"cache": True})
def _decode(codec, word):
    if _packed_int(codec):
        return lambda codec, word: np.int64(word >> _SHIFT)
    if _packed_float32(codec):
        return lambda codec, word: float32_from_bits(np.uint32(word >> _SHIFT))
    return lambda codec, word: word


@overload(encode, jit_options={"cache": True})
def _encode(codec, distance, parent):
    if _packed_int(codec):
        return lambda codec, distance, parent: (np.uint64(distance) << _SHIFT) | np.uint64(parent)
    if _packed_float32(codec):
        return lambda codec, distance, parent: (
            (np.uint64(float32_bits(distance)) << _SHIFT) | np.uint64(parent)
        )
    return lambda codec, distance, parent: distance


@overload(overflows, jit_options={"cache": True})
def _overflows(codec, distance, old):
    if _packed_int(codec):
        return lambda codec, distance, old: distance >= PACKED_INT_LIMIT and old == _UNREACHED
    return lambda codec, distance, old: False


@njit(cache=True, inline="always")
def bin_of(distance, scale):
    """A distance's bin: ``int(distance * scale)`` with ``scale = 1 / delta`` (a
    multiplication, not a division, and monotone in the distance, which is
    all the algorithm needs of it)."""
    return np.int64(distance * scale)


ROW_SLACK = 16  # the first room of a bin row


@njit(cache=True)
def _grow_row(store, start, cap, count, r, top):
    """Give row ``r`` of a thread's bin arena twice its room; returns (store, top).

    Each row of the arena ``store`` is ``store[start[r] : start[r] + cap[r]]``
    holding ``count[r]`` vertices. A full row moves to the free end ``top``
    with double the room; when the end is reached, the rows are packed into
    a new arena twice their total room. A row keeps its room when emptied
    (as GAP's per-bin vectors keep their capacity): the rows take turns
    holding bins, and a row that had to grow once will have to again. The
    arena thus holds about the sum of each row's largest bin, not the ring
    times the largest bin, which one shared width would.
    """
    need = max(2 * cap[r], ROW_SLACK)
    if top + need <= store.shape[0]:
        for k in range(count[r]):
            store[top + k] = store[start[r] + k]
        start[r] = top
        cap[r] = need
        return store, top + need
    total = need
    for row in range(count.shape[0]):
        if row != r:
            total += cap[row]
    arena = np.empty(2 * total, dtype=store.dtype)
    position = 0
    for row in range(count.shape[0]):
        for k in range(count[row]):
            arena[position + k] = store[start[row] + k]
        start[row] = position
        if row == r:
            cap[row] = need
        position += cap[row]
    return arena, position


@njit(cache=True)
def _refill_from_far(store, start, cap, count, top, far, ring, words, codec, scale, lowest):
    """Move overflow-row heads whose bin is now within ``ring`` of ``lowest``
    into the ring; returns (store, top)."""
    size = count[ring]
    parked = np.empty(size, dtype=store.dtype)  # the row may move while we push
    for k in range(size):
        parked[k] = store[start[ring] + k]
    count[ring] = 0
    nearest = NO_BIN
    for k in range(size):
        v = parked[k]
        b = bin_of(decode(codec, words[v]), scale)
        if b < lowest:  # improved since into an earlier bin, and settled there
            continue
        to = b & (ring - 1) if b - lowest < ring else ring
        if to == ring:
            nearest = min(nearest, b)
        if count[to] == cap[to]:
            store, top = _grow_row(store, start, cap, count, to, top)
        store[start[to] + count[to]] = v
        count[to] += 1
    far[0] = nearest
    return store, top


@njit(cache=True)
def _fused_worker(
    t, indptr, indices, weights, words, codec, scale, cutoff, frontier, marks, epoch, shared, stats,
    ring, fusion_limit, shares, spins, workers,
):
    """One thread's part of :func:`fused_delta_stepping` (its bins are this function's locals);
    returns its iterations (0 for a thread that came too late to join).

    The thread's bins are the rows of an arena (see :func:`_grow_row`): row
    ``b & (ring - 1)`` holds bin ``b`` of the window ``[cur, cur + ring)``,
    row ``ring`` the heads beyond it. The relax loop is written once, over
    batches taken first from the shared frontier and then from this
    thread's copy of the current bin, and calls out with arrays only to grow
    a row (each call costs numba two atomic reference counts).
    """
    t, workers = join_team(shared, workers, spins)
    if t >= workers:
        return 0
    capacity = frontier.shape[0]
    rows = stats.shape[0] // STAT_COLUMNS
    store = np.empty((ring + 1) * ROW_SLACK, dtype=frontier.dtype)
    start = np.arange(ring + 1) * ROW_SLACK
    cap = np.full(ring + 1, ROW_SLACK, dtype=np.int64)
    count = np.zeros(ring + 1, dtype=np.int64)
    top = store.shape[0]
    held = 0  # vertices in the ring rows (not the overflow row): the vote scans only when some are
    work = np.empty(max(fusion_limit, 1), dtype=frontier.dtype)
    far = np.full(1, NO_BIN, dtype=np.int64)  # lowest bin in the overflow row
    it = 0
    while True:
        p = it & 1
        q = 1 - p
        cur = atomic_load(shared, BIN_SLOT + 8 * p)
        if cur == NO_BIN:
            break
        tail = min(atomic_load(shared, TAIL_SLOT + 8 * p), capacity)
        row = min(it, rows - 1)
        # A few large chunks per thread: a frontier lists neighbouring vertices
        # together, and small interleaved blocks would have the threads
        # writing the same cache lines of ``words``; a few, not one, so that
        # a hub's arcs (Kronecker graphs) do not unbalance the iteration.
        chunk = max(BLOCK, tail // (shares * workers) + 1)
        slot = cur & (ring - 1)
        examined = 0
        fused = 0
        from_shared = True
        while True:
            # The next batch: a block of the shared frontier, else this thread's bin ``cur``.
            if from_shared:
                lo = fetch_add(shared, CURSOR_SLOT + 8 * p, chunk)
                if lo >= tail:
                    from_shared = False
                    continue
                hi = min(lo + chunk, tail)
                batch = frontier
            else:
                size = count[slot]
                if size == 0 or size >= fusion_limit:
                    break
                base = start[slot]
                for k in range(size):
                    work[k] = store[base + k]
                count[slot] = 0
                held -= size
                fused += 1
                lo, hi = 0, size
                batch = work
            for i in range(lo, hi):
                u = batch[i]
                du = decode(codec, words[u])
                if bin_of(du, scale) < cur:
                    continue  # improved into an earlier bin after it was queued, and settled there
                first, last = indptr[u], indptr[u + 1]
                examined += last - first
                for j in range(first, last):
                    candidate = du + weights[j]
                    if candidate > cutoff:
                        continue
                    v = indices[j]
                    old = words[v]
                    if not candidate < decode(codec, old):
                        # An unreached vertex decodes to the packed limit, so a
                        # candidate past it lands here, not below.
                        if overflows(codec, candidate, old):
                            shared[OVERFLOW_SLOT] = 1
                        continue
                    new = encode(codec, candidate, u)
                    while candidate < decode(codec, old):
                        if compare_and_swap(words, v, old, new):
                            b = bin_of(candidate, scale)
                            if b - cur < ring:
                                to = b & (ring - 1)
                                held += 1
                            else:
                                to = ring
                                far[0] = min(far[0], b)
                            if count[to] == cap[to]:
                                store, top = _grow_row(store, start, cap, count, to, top)
                            store[start[to] + count[to]] = v
                            count[to] += 1
                            break
                        old = words[v]
        mine = far[0]
        if held:
            for b in range(cur, cur + ring):
                if count[b & (ring - 1)] > 0:
                    mine = min(mine, b)
                    break
        if mine != NO_BIN:
            fetch_min(shared, BIN_SLOT + 8 * q, mine)
        fetch_add(stats, row * STAT_COLUMNS + STAT_EDGES, examined)
        fetch_add(stats, row * STAT_COLUMNS + STAT_FUSED, fused)
        barrier(shared, workers, spins)

        if atomic_load(shared, OVERFLOW_SLOT) != 0:
            break
        following = atomic_load(shared, BIN_SLOT + 8 * q)
        if t == 0:  # one thread clears this iteration's slots for iteration it + 2
            shared[BIN_SLOT + 8 * p] = NO_BIN
            shared[TAIL_SLOT + 8 * p] = 0
            shared[CURSOR_SLOT + 8 * q] = 0
            stats[row * STAT_COLUMNS + STAT_BIN] = cur
            stats[row * STAT_COLUMNS + STAT_FRONTIER] += tail
            stats[row * STAT_COLUMNS + STAT_STAMP] = cycles()
        if following != NO_BIN:
            if far[0] - following < ring:
                before = count.sum() - count[ring]
                store, top = _refill_from_far(store, start, cap, count, top, far, ring, words, codec, scale,
                                              following)
                held += count.sum() - count[ring] - before
            slot = following & (ring - 1)
            mark = epoch + it
            kept = 0
            base = start[slot]
            for k in range(count[slot]):
                v = store[base + k]
                # Drop vertices improved into an earlier, settled bin, and repeats.
                if marks[v] != mark and bin_of(decode(codec, words[v]), scale) == following:
                    marks[v] = mark
                    store[base + kept] = v
                    kept += 1
            held -= count[slot]
            count[slot] = 0
            if kept:
                at = fetch_add(shared, TAIL_SLOT + 8 * q, kept)
                fits = min(kept, max(capacity - at, 0))
                for k in range(fits):
                    frontier[at + k] = store[base + k]
                # What does not fit stays here: the bin is still the lowest next time.
                for k in range(fits, kept):
                    store[base + k - fits] = store[base + k]
                count[slot] = kept - fits
                held += kept - fits
        it += 1
        barrier(shared, workers, spins)
    return it


@njit(parallel=True, cache=True)
def fused_delta_stepping(
    indptr, indices, weights, words, codec, scale, cutoff, frontier, seeds_count, marks, epoch,
    shared, stats, ring, fusion_limit, shares, spins, workers,
):
    """Delta-stepping with thread-local bins and bucket fusion, all of it in one parallel region.

    GAP's ``sssp`` (Beamer et al.; bucket fusion from Zhang et al., CGO
    2020), in numba: every iteration the threads relax the shared frontier
    of bin ``cur`` (``shares`` chunks per thread, of at least ``BLOCK``
    entries, taken from a shared cursor); each
    improved head goes to the *thread's own* bin for its distance (a ring
    of ``ring`` bins in an arena of rows sized each by its content, farther
    heads in an overflow row); a thread then keeps
    relaxing its own copy of bin ``cur`` while it holds fewer than
    ``fusion_limit`` vertices (no barrier for the long thin tail of a road
    search); the threads vote the lowest non-empty bin with an atomic
    minimum, and after a barrier each appends its share of that bin to the
    next shared frontier (skipping entries whose distance has since moved
    to an earlier bin, and vertices it already appended this iteration).
    No global sort and no per-phase launch: two barriers per iteration.

    Bins have width ``1 / scale`` (delta); ``ring`` is a power of two.
    ``words`` arrive initialised (unreached everywhere, seeds at distance 0)
    and ``frontier[:seeds_count]`` holds the seeds; ``marks`` (int64, n) must
    hold values below ``epoch``. ``workers`` is the team to ask for (see
    :func:`._atomics.join_team`; pass ``numba.get_num_threads()``). Returns the number
    of iterations; ``shared[OVERFLOW_SLOT]`` is 1 when a packed integer
    distance overflowed (the result is then incomplete).
    """
    shared[:] = 0
    shared[BIN_SLOT] = 0
    shared[BIN_SLOT + 8] = NO_BIN
    shared[TAIL_SLOT] = seeds_count
    iterations = np.zeros(workers, dtype=np.int64)
    for t in prange(workers):
        iterations[t] = _fused_worker(
            t, indptr, indices, weights, words, codec, scale, cutoff, frontier, marks, epoch, shared, stats,
            ring, fusion_limit, shares, spins, workers,
        )
    return iterations.max()


@njit(parallel=True, cache=True)
def fill_words(words, value):
    for v in prange(words.shape[0]):
        words[v] = value


@njit(parallel=True, cache=True)
def unpack_words(words, codec, distances, parents, infinity):
    """Split packed words into distances (``infinity`` where unreached) and parents (-1)."""
    for v in prange(words.shape[0]):
        word = words[v]
        if (word & _LOW32) == _LOW32:  # no parent: unreached (ids stay below 2**32 - 1)
            distances[v] = infinity
            parents[v] = -1
        else:
            distances[v] = decode(codec, word)
            parents[v] = np.int64(word & _LOW32)


@njit(parallel=True, cache=True)
def tight_parents(in_indptr, in_indices, in_weights, dist, infinity, sources, parents):
    """Give every reached vertex a parent along a tight arc from a strictly
    closer vertex (so the tree is acyclic: distances fall along it).

    A positive weight is not enough: in float arithmetic ``d + w == d`` for
    a weight below half an ulp of ``d``, and two vertices at one distance
    joined by such an arc would each take the other. Returns how many
    reached vertices found none (only tight arcs within their own distance
    lead to them); :func:`zero_weight_parents` finishes those.
    """
    unresolved = 0
    for v in prange(dist.shape[0]):
        parents[v] = -1
        dv = dist[v]
        if dv == infinity:
            continue
        for j in range(in_indptr[v], in_indptr[v + 1]):
            w = in_weights[j]
            u = in_indices[j]
            if dist[u] != infinity and dist[u] < dv and dist[u] + w == dv:
                parents[v] = u
                break
        if parents[v] < 0:
            unresolved += 1
    # Every source (``sources``: int64, distance 0) is its own parent. None
    # found a strictly closer vertex above, so each was counted unresolved.
    for s in sources:
        parents[s] = s
        unresolved -= 1
    return unresolved


@njit(cache=True)
def zero_weight_parents(indptr, indices, weights, dist, infinity, parents):
    """Extend the tree along tight arcs between vertices at one distance (zero
    weights, or weights the distance's rounding absorbs), breadth-first from
    resolved vertices. Acyclic because each vertex is attached once, to a
    vertex attached before it.
    """
    n = dist.shape[0]
    queue = np.empty(n, dtype=np.int64)
    size = 0
    for v in range(n):
        if parents[v] >= 0:
            queue[size] = v
            size += 1
    head = 0
    while head < size:
        u = queue[head]
        head += 1
        for j in range(indptr[u], indptr[u + 1]):
            v = indices[j]
            if parents[v] < 0 and dist[v] != infinity and dist[u] == dist[v] and dist[u] + weights[j] == dist[v]:
                parents[v] = u
                queue[size] = v
                size += 1
