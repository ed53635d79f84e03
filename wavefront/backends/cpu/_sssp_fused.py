"""The fused delta-stepping of the CPU backend: one numba parallel region for
a whole search (GAP's thread-local bins and bucket fusion; the record is
docs/decisions/cpu-roads.md).

* :func:`fused_delta_stepping` -- the search; each thread runs
  :func:`_fused_worker`, the team synchronised by spin barriers
  (:mod:`._atomics`).
* how a distance is stored in a word: :mod:`._sssp_codecs`; the thread-local
  bins: :mod:`._sssp_bins`.
"""
from __future__ import annotations

import numpy as np
from numba import njit, prange

from ._atomics import (
    BARRIER_SLOTS,
    atomic_load,
    barrier,
    compare_and_swap,
    fetch_add,
    fetch_min,
    join_team,
)
from ._clock import cycles
from ._prefetch import prefetch
from ._sssp_bins import (
    NO_BIN,
    ROW_SLACK,
    bin_of,
    move_row,
    refill_from_far,
    repack,
)
from ._sssp_codecs import decode, encode, overflows, unpack
from ._sssp_steps import BLOCK

# Hot loops index through ``_at`` (an unsigned cast, free at run time):
# numba wraps a signed index that may be negative around the array's end,
# a shift, a mask and an add per access; an unsigned one it uses as is.
# Serial A/B on the relax loop: seattle -15 %, amsterdam -17 %.
_at = np.uint64

# Slots of the int64 ``shared`` array, a cache line (8 slots) apart: the
# team's and barrier's, then the double-buffered bin, frontier tail and work
# cursor of iterations ``it & 1``, then the overflow flag.
BIN_SLOT, TAIL_SLOT, CURSOR_SLOT, OVERFLOW_SLOT = BARRIER_SLOTS, BARRIER_SLOTS + 16, BARRIER_SLOTS + 32, \
    BARRIER_SLOTS + 48
SHARED_SLOTS = BARRIER_SLOTS + 56
# Columns of the per-iteration ``stats`` rows (flattened int64).
STAT_BIN, STAT_FRONTIER, STAT_EDGES, STAT_STAMP, STAT_FUSED, STAT_COLUMNS = 0, 1, 2, 3, 4, 5




@njit(cache=True)
def _fused_worker(
    t, indptr, indices, weights, words, codec, scale, cutoff, frontier, marks, epoch, shared, stats,
    ring, fusion_limit, shares, spins, workers, fill, fill_first, seeds, seed_words, distances, parents,
    infinity, ahead,
):
    """One thread's part of :func:`fused_delta_stepping` (its bins are this function's locals);
    returns its iterations (0 for a thread that came too late to join).

    The thread's bins are the rows of an arena (see :func:`grow_row`): row
    ``b & (ring - 1)`` holds bin ``b`` of the window ``[cur, cur + ring)``,
    row ``ring`` the heads beyond it. The relax loop is written once, over
    batches taken first from the shared frontier and then from this
    thread's copy of the current bin, and calls out with arrays only to grow
    a row (each call costs numba two atomic reference counts).

    Before the search the thread fills its share of ``words`` (unless they
    hold ``fill`` already) and writes the seeds that fall in it; after, it
    unpacks that share: one parallel region per search, where three cost
    two more launches.
    """
    t, workers = join_team(shared, workers, spins)
    if t >= workers:
        return 0
    n = words.shape[0]
    first_vertex, end_vertex = n * t // workers, n * (t + 1) // workers
    share = slice(first_vertex, end_vertex)
    if fill_first:
        words[share] = fill
    for k in range(seeds.shape[0]):
        if first_vertex <= seeds[k] < end_vertex:
            words[seeds[k]] = seed_words[k]
    barrier(shared, workers, spins)
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
    if ahead <= 0:  # no prefetch: never ahead of any batch
        ahead = half_ahead = capacity + work.shape[0]
    else:
        half_ahead = max(ahead // 2, 1)
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
        # The relax loop below never reassigns ``store`` (see move_row):
        # when a row must grow and the arena is full, it leaves the loop at
        # the arc it was about to push (``full`` row, vertex ``i``, arc
        # ``j``), the arena is repacked here, and the loop resumes there.
        full = -1
        i = hi = j = last = 0
        du = cutoff  # (types only: set per vertex)
        u = frontier[0]
        batch = frontier
        while True:
            if full >= 0:
                store, top = repack(store, start, cap, count, full)
                full = -1
            elif from_shared:  # the next batch: a block of the shared frontier ...
                lo = fetch_add(shared, CURSOR_SLOT + 8 * p, chunk)
                if lo >= tail:
                    from_shared = False
                    continue
                i, hi, j, last = lo, min(lo + chunk, tail), 0, 0
                batch = frontier
            else:  # ... else this thread's own bin ``cur``, while it is small
                size = count[slot]
                if size == 0 or size >= fusion_limit:
                    break
                base = start[slot]
                for k in range(size):
                    work[k] = store[_at(base + k)]
                count[slot] = 0
                held -= size
                fused += 1
                i, hi, j, last = 0, size, 0, 0
                batch = work
            while True:
                if j == last:  # the next vertex
                    if i == hi:
                        break
                    # Each vertex is a chain of cache misses (its word and row
                    # offsets, then its arcs, then their heads' words); the
                    # batch is known ahead, so start the first two links early.
                    if i + ahead < hi:
                        coming = batch[_at(i + ahead)]
                        prefetch(indptr, coming)
                        prefetch(words, coming)
                    if i + half_ahead < hi:
                        arc = indptr[_at(batch[_at(i + half_ahead)])]
                        prefetch(indices, arc)
                        prefetch(weights, arc)
                    u = batch[_at(i)]
                    i += 1
                    du = decode(codec, words[_at(u)])
                    if bin_of(du, scale) < cur:
                        continue  # improved into an earlier bin after it was queued, and settled there
                    j, last = indptr[_at(u)], indptr[_at(u) + _at(1)]
                    examined += last - j
                while j < last:
                    candidate = du + weights[_at(j)]
                    if candidate > cutoff:
                        j += 1
                        continue
                    v = indices[_at(j)]
                    old = words[_at(v)]
                    if not candidate < decode(codec, old):
                        # An unreached vertex decodes to the packed limit, so a
                        # candidate past it lands here, not below.
                        if overflows(codec, candidate, old):
                            shared[OVERFLOW_SLOT] = 1
                        j += 1
                        continue
                    b = bin_of(candidate, scale)
                    to = b & (ring - 1) if b - cur < ring else ring
                    if count[_at(to)] == cap[_at(to)]:  # room first: leaving after the swap would lose v
                        moved = move_row(store, start, cap, count, to, top)
                        if moved < 0:
                            full = to
                            break
                        top = moved
                    new = encode(codec, candidate, u)
                    while candidate < decode(codec, old):
                        if compare_and_swap(words, v, old, new):
                            if to == ring:
                                far[0] = min(far[0], b)
                            else:
                                held += 1
                            store[_at(start[_at(to)] + count[_at(to)])] = v
                            count[_at(to)] += 1
                            break
                        old = words[_at(v)]
                    j += 1
                if full >= 0:
                    break
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
                store, top = refill_from_far(store, start, cap, count, top, far, ring, words, codec, scale,
                                              following)
                held += count.sum() - count[ring] - before
            slot = following & (ring - 1)
            mark = epoch + it
            kept = 0
            base = start[slot]
            for k in range(count[slot]):
                v = store[_at(base + k)]
                # Drop vertices improved into an earlier, settled bin, and repeats.
                if marks[_at(v)] != mark and bin_of(decode(codec, words[_at(v)]), scale) == following:
                    marks[_at(v)] = mark
                    store[_at(base + kept)] = v
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
    # No thread writes ``words`` after the last barrier: each unpacks its share.
    if distances.shape[0] == n and atomic_load(shared, OVERFLOW_SLOT) == 0:
        unpack(codec, words[share], distances[share], parents[share], infinity, fill)
    return it


@njit(parallel=True, cache=True)
def fused_delta_stepping(
    indptr, indices, weights, words, codec, scale, cutoff, frontier, marks, epoch,
    shared, stats, ring, fusion_limit, shares, spins, workers, fill, fill_first, seeds, seed_words, distances,
    parents, infinity, ahead,
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
    The kernel sets ``words`` to ``fill`` (unreached; skipped when
    ``fill_first`` is false: they hold it already) and ``seed_words`` at
    ``seeds`` (distance 0) and puts the seeds in ``frontier``; ``marks``
    (int64, n) must hold values below ``epoch``. With packed words, pass
    ``distances`` and ``parents`` of length n: the kernel unpacks into them
    (``infinity`` and -1 where unreached) and leaves ``words`` at ``fill``
    again, unless a packed distance overflowed; else pass empty arrays.
    The relax loop prefetches the CSR row offsets and word of the vertex
    ``ahead`` entries on in its batch, and the arcs of the one half as far
    (0: no prefetch). ``workers`` is the team to ask for (see
    :func:`._atomics.join_team`; pass ``numba.get_num_threads()``). Returns
    the number of iterations; ``shared[OVERFLOW_SLOT]`` is 1 when a packed
    integer distance overflowed (the result is then incomplete).
    """
    shared[:] = 0
    shared[BIN_SLOT] = 0
    shared[BIN_SLOT + 8] = NO_BIN
    shared[TAIL_SLOT] = seeds.shape[0]
    for k in range(seeds.shape[0]):
        frontier[k] = seeds[k]
    iterations = np.zeros(workers, dtype=np.int64)
    for t in prange(workers):
        iterations[t] = _fused_worker(
            t, indptr, indices, weights, words, codec, scale, cutoff, frontier, marks, epoch, shared, stats,
            ring, fusion_limit, shares, spins, workers, fill, fill_first, seeds, seed_words, distances, parents,
            infinity, ahead,
        )
    return iterations.max()
