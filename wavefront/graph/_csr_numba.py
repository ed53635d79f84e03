"""Edge arrays -> CSR arrays on the CPU, on all cores: the numba engine of :mod:`._csr`.

It returns exactly what the array-API engine returns for NumPy inputs (the
same arrays, values and dtypes; tests/test_csr_build.py compares them), and is
imported only when a NumPy build is large enough to use it, so ``import
wavefront`` never loads numba.

**Passes.** A random scatter of every arc to its row costs one cache miss per
array per arc (two for weighted arcs), and that, not arithmetic, is what a
CSR build spends its time on. So the arcs are first partitioned by *bucket*,
``2**shift`` consecutive rows holding about 32 K arcs (a few hundred KB, which
stays in a core's L2), with sequential writes; each bucket is then put in row
order, sorted and merged while it sits in cache. With ``T`` tasks (one per
numba thread):

1. :func:`id_range`: smallest and largest id (one parallel pass).
2. :func:`bucket_counts`: task ``t`` reads tuples ``[t*m/T, (t+1)*m/T)`` and
   counts its arcs per bucket (a ``T x buckets`` table; undirected tuples give
   an arc in both directions, self-loops none).
3. Prefix sums give each bucket its slot range in the output arrays and each
   task its offset inside every bucket (no atomics, and the same arrays for
   any ``T``).
4. :func:`partition`: each task writes its arcs at its offsets: the column and
   weight into the final arrays (allocated once, at the pre-merge size) and
   the row within the bucket into a ``uint16`` side array.
5. :func:`finish_buckets`: tasks own bucket ranges of about equal arc counts.
   Per bucket: count the arcs per row (these counts are ``input_degree``: each
   non-loop tuple adds one to both ends, or for a directed graph one to its
   source, duplicates included, as Graph500 counts); sort the bucket by (row,
   column) with stable counting-sort passes (11-bit digits of the column, then
   the row) through per-task scratch buffers, or, for a bucket bigger than
   them (a hub's row), in place: an American-flag permutation into rows, then
   a comparison sort per row (insertion sort for short rows, quicksort with a
   heapsort fallback beyond); then copy each row down to follow the task's
   previous one, merging each run of one column into one arc with the
   minimum weight (NaN wins, as in ``np.minimum``). Rows only move down, and
   a task writes only its buckets' slots.
6. :func:`move_blocks` closes the gaps between the tasks' blocks (only when
   arcs were merged; serial, a left shift), ``ndarray.resize`` shrinks the
   arrays in place (``realloc``: no copy) and a prefix sum of the merged row
   lengths gives ``indptr``.

A directed graph runs steps 2-6 for its CSR (rows = sources), then for its
CSC (rows = destinations). ``relabel="degree"`` first counts the input degree
per row (:func:`count_rows`), orders the vertices by ``(-input_degree, id)``
(the array engine's lexsort, as a stable argsort), maps the tuples once into
new-id copies and builds from those.

**Peak memory** beyond the caller's tuples, with ``A`` arcs before merging
(twice the non-loop tuples for an undirected graph, their number for each
orientation of a directed one), ``ib`` bytes per column index (4 while
``n < 2**31``, else 8), ``wb`` bytes per weight (0 unweighted), ``n``
vertices, ``T`` tasks, ``B = n / 2**shift`` buckets and ``S`` =
:data:`SCRATCH_ARCS`::

    undirected:  A (ib + wb) + 16 n    the graph: arcs at their pre-merge size,
                                       indptr, input_degree
               + 2 A                   the row of each arc inside its bucket
               + T S (ib + wb + 2) + 16 T B      per-task scratch and offsets
    directed:    2 A (ib + wb) + 24 n + 2 A + T S (ib + wb + 2) + 16 T B
                                       (the CSR and the CSC; the CSC's 2 A
                                       side array comes after the CSR's is freed)
    relabel:     + 2 m ib + n (16 + ib)   mapped tuples, degrees, order, new ids

So a build needs 2 bytes per arc beyond its result, plus a few MB per task:
for 20 M weighted float64 tuples over 2 M vertices (40 M arcs), 480 MB of
arcs and 32 MB per vertex (the graph) and 80 MB of bucket rows, beside the
caller's 480 MB of tuples.
"""
from __future__ import annotations

import numpy as np
from numba import get_num_threads, njit, prange

# Arcs per bucket aimed at: with 4-byte columns, 8-byte weights and the
# 2-byte row, 32 K arcs are ~450 KB, inside one core's L2 on current x86.
# (csr_arrays takes it as a parameter, so tests can make many small buckets.)
BUCKET_ARCS = 1 << 15
# The row within a bucket is stored as uint16.
MAX_SHIFT = 16
# Rows up to this length are sorted by insertion (a short row is a few cache
# lines; quicksort's bookkeeping costs more there).
_SHORT_ROW = 24
# A row's quicksort may halve its parts this many times per bit of its length
# before the rest goes to heapsort, so no column order makes a sort quadratic.
_DEPTH_FACTOR = 2
# Bits of the column per counting-sort pass inside a bucket (a 2048-bin
# histogram stays in L1).
_DIGIT_BITS = 11
# Buckets up to this many arcs are radix sorted through per-task scratch
# buffers; larger ones (a hub's row) are sorted in place (also a parameter).
SCRATCH_ARCS = 4 * BUCKET_ARCS


@njit(parallel=True, cache=True)
def id_range(src, dst, tasks):
    """(smallest id, largest id) over ``src`` and ``dst``; (0, -1) when empty."""
    m = src.shape[0]
    if m == 0:
        return np.int64(0), np.int64(-1)
    lows = np.empty(tasks, dtype=np.int64)
    highs = np.empty(tasks, dtype=np.int64)
    for t in prange(tasks):
        # Every task takes at least the first tuple, so none is left empty.
        lo_e = min(m * t // tasks, m - 1)
        hi_e = max(m * (t + 1) // tasks, lo_e + 1)
        lo = np.int64(src[lo_e])
        hi = lo
        for e in range(lo_e, hi_e):
            s = np.int64(src[e])
            d = np.int64(dst[e])
            lo = min(lo, s, d)
            hi = max(hi, s, d)
        lows[t] = lo
        highs[t] = hi
    return lows.min(), highs.max()


@njit(parallel=True, cache=True)
def count_rows(src, dst, bounds, both, counts):
    """Arcs per row before merging (the input degree), for relabelling.

    Task ``t`` owns rows ``[bounds[t], bounds[t+1])`` and reads every tuple:
    no two tasks write one counter, with no per-task copy of ``counts``.
    ``both``: undirected, count both ends; otherwise the source only."""
    m = src.shape[0]
    for t in prange(bounds.shape[0] - 1):
        lo = bounds[t]
        span = np.uint64(bounds[t + 1] - lo)
        for e in range(m):
            s = np.int64(src[e])
            d = np.int64(dst[e])
            if s == d:
                continue
            # One unsigned compare tests lo <= v < hi.
            if np.uint64(s - lo) < span:
                counts[s] += 1
            if both and np.uint64(d - lo) < span:
                counts[d] += 1


@njit(parallel=True, cache=True)
def bucket_counts(rows, cols, both, shift, buckets, tasks):
    """``counts[t, b]``: arcs of bucket ``b`` among task ``t``'s tuples."""
    m = rows.shape[0]
    counts = np.zeros((tasks, buckets), dtype=np.int64)
    for t in prange(tasks):
        for e in range(m * t // tasks, m * (t + 1) // tasks):
            r = np.int64(rows[e])
            c = np.int64(cols[e])
            if r == c:
                continue
            counts[t, r >> shift] += 1
            if both:
                counts[t, c >> shift] += 1
    return counts


@njit(parallel=True, cache=True)
def partition(rows, cols, weights, both, shift, cursors, indices, out_weights, local_rows):
    """Write task ``t``'s arcs at ``cursors[t, bucket]`` (advanced as it goes):
    the column, the weight and the row's offset inside its bucket."""
    m = rows.shape[0]
    tasks = cursors.shape[0]
    mask = (np.int64(1) << shift) - 1
    for t in prange(tasks):
        cursor = cursors[t]
        for e in range(m * t // tasks, m * (t + 1) // tasks):
            r = np.int64(rows[e])
            c = np.int64(cols[e])
            if r == c:
                continue
            # The arc r -> c, and for an undirected graph c -> r as well.
            for k in range(2 if both else 1):
                row = r if k == 0 else c
                b = row >> shift
                p = cursor[b]
                indices[p] = c if k == 0 else r
                if weights is not None:
                    out_weights[p] = weights[e]
                local_rows[p] = row & mask
                cursor[b] = p + 1


@njit(parallel=True, cache=True)
def map_ids(ids, new_id, out):
    """``out[e] = new_id[ids[e]]`` (the tuples in relabelled ids)."""
    for e in prange(ids.shape[0]):
        out[e] = new_id[ids[e]]


@njit(cache=True)
def _swap(cols, weights, i, j):
    cols[i], cols[j] = cols[j], cols[i]
    if weights is not None:
        weights[i], weights[j] = weights[j], weights[i]


@njit(cache=True)
def _insertion_sort(cols, weights, lo, hi):
    """Sort ``[lo, hi)`` by column, carrying the weights."""
    for i in range(lo + 1, hi):
        c = cols[i]
        if weights is not None:
            w = weights[i]
        j = i - 1
        while j >= lo and cols[j] > c:
            cols[j + 1] = cols[j]
            if weights is not None:
                weights[j + 1] = weights[j]
            j -= 1
        cols[j + 1] = c
        if weights is not None:
            weights[j + 1] = w


@njit(cache=True)
def _sift_down(cols, weights, lo, root, size):
    while True:
        child = 2 * root + 1
        if child >= size:
            return
        if child + 1 < size and cols[lo + child + 1] > cols[lo + child]:
            child += 1
        if cols[lo + root] >= cols[lo + child]:
            return
        _swap(cols, weights, lo + root, lo + child)
        root = child


@njit(cache=True)
def _heap_sort(cols, weights, lo, hi):
    size = hi - lo
    for root in range(size // 2 - 1, -1, -1):
        _sift_down(cols, weights, lo, root, size)
    for end in range(size - 1, 0, -1):
        _swap(cols, weights, lo, lo + end)
        _sift_down(cols, weights, lo, 0, end)


@njit(cache=True)
def _sort_row(cols, weights, lo, hi, stack):
    """Sort ``[lo, hi)`` by column, carrying the weights: quicksort (median of
    three, Hoare partition, so runs of equal columns split evenly), the
    smaller part first; parts whose depth budget is spent go to heapsort.
    ``stack`` (int64, 3 * 64) holds the deferred parts."""
    top = 0
    budget = _DEPTH_FACTOR * (64 - _leading_zeros(hi - lo))
    while True:
        while hi - lo > _SHORT_ROW:
            if budget <= 0:
                _heap_sort(cols, weights, lo, hi)
                break
            budget -= 1
            last = hi - 1
            mid = lo + (last - lo) // 2
            if cols[mid] < cols[lo]:
                _swap(cols, weights, mid, lo)
            if cols[last] < cols[lo]:
                _swap(cols, weights, last, lo)
            if cols[last] < cols[mid]:
                _swap(cols, weights, last, mid)
            pivot = cols[mid]
            i = lo - 1
            j = hi
            while True:
                i += 1
                while cols[i] < pivot:
                    i += 1
                j -= 1
                while cols[j] > pivot:
                    j -= 1
                if i >= j:
                    break
                _swap(cols, weights, i, j)
            # [lo, j] <= pivot <= [j + 1, hi): defer the larger part.
            if j + 1 - lo < hi - (j + 1):
                stack[top], stack[top + 1], stack[top + 2] = j + 1, hi, budget
                hi = j + 1
            else:
                stack[top], stack[top + 1], stack[top + 2] = lo, j + 1, budget
                lo = j + 1
            top += 3
        else:
            _insertion_sort(cols, weights, lo, hi)
        if top == 0:
            return
        top -= 3
        lo, hi, budget = stack[top], stack[top + 1], stack[top + 2]


@njit(cache=True)
def _leading_zeros(x):
    count = 64
    while x > 0:
        x >>= 1
        count -= 1
    return count


@njit(cache=True)
def _lower(a, b):
    """``np.minimum(a, b)``: the smaller, or NaN when either is NaN."""
    return a if (a < b or a != a) else b


@njit(cache=True)
def _flag_sort(indices, weights, local_rows, lo, counts, rows, fill, ends, stack):
    """Sort a bucket too big for the scratch buffers in place: an American-flag
    permutation into row order, then a comparison sort of each row."""
    at = lo
    for o in range(rows):
        fill[o] = at
        at += counts[o]
        ends[o] = at
    # Carry each misplaced arc to the next free slot of its row, picking up
    # the arc found there, until an arc of the row being filled comes back.
    for o in range(rows):
        while fill[o] < ends[o]:
            i = fill[o]
            owner = np.int64(local_rows[i])
            if owner == o:
                fill[o] = i + 1
                continue
            c = indices[i]
            if weights is not None:
                w = weights[i]
            while owner != o:
                j = fill[owner]
                fill[owner] = j + 1
                next_owner = np.int64(local_rows[j])
                next_c = indices[j]
                indices[j] = c
                c = next_c
                if weights is not None:
                    next_w = weights[j]
                    weights[j] = w
                    w = next_w
                local_rows[j] = owner
                owner = next_owner
            indices[i] = c
            if weights is not None:
                weights[i] = w
            fill[o] = i + 1
    row_lo = lo
    for o in range(rows):
        row_hi = row_lo + counts[o]
        if row_hi - row_lo > _SHORT_ROW:
            _sort_row(indices, weights, row_lo, row_hi, stack)
        else:
            _insertion_sort(indices, weights, row_lo, row_hi)
        row_lo = row_hi


@njit(cache=True)
def _scatter_pass(src_c, src_w, src_r, s0, dst_c, dst_w, dst_r, d0, length, digit, mask, starts):
    """One stable counting-sort pass of ``length`` arcs from ``src_*[s0:]`` to
    ``dst_*[d0:]``: ``starts[key]`` is the next slot of a key, which is the
    column's digit ``(col >> digit) & mask``, or the row within the bucket
    when ``digit < 0``."""
    for i in range(length):
        c = src_c[s0 + i]
        r = src_r[s0 + i]
        key = np.int64(r) if digit < 0 else (np.int64(c) >> digit) & mask
        p = starts[key]
        starts[key] = p + 1
        dst_c[d0 + p] = c
        if src_w is not None:
            dst_w[d0 + p] = src_w[s0 + i]
        dst_r[d0 + p] = r


@njit(cache=True)
def _radix_sort(indices, weights, local_rows, lo, length, counts, rows, digits, digit_bits,
                hist, starts, scratch_c, scratch_w, scratch_r):
    """Sort a bucket by (row, column), stably, with least-significant-digit
    counting-sort passes between the bucket's slots and the task's scratch
    buffers: the column's digits, then the row. Returns True when the sorted
    bucket ended in the scratch buffers, False when in the bucket's slots."""
    mask = (np.int64(1) << digit_bits) - 1
    hist[:digits, :] = 0
    for i in range(lo, lo + length):
        c = np.int64(indices[i])
        for d in range(digits):
            hist[d, (c >> (d * digit_bits)) & mask] += 1
    in_scratch = False
    first = np.int64(indices[lo])
    for d in range(digits + 1):
        if d < digits:
            digit = d * digit_bits
            bins = hist[d]
            if bins[(first >> digit) & mask] == length:
                continue  # one value of this digit: the pass would move nothing
            size = mask + 1
        else:
            if rows == 1:
                break
            digit = -1
            bins = counts
            size = rows
        at = 0
        for k in range(size):
            starts[k] = at
            at += bins[k]
        if in_scratch:
            _scatter_pass(scratch_c, scratch_w, scratch_r, 0, indices, weights, local_rows, lo,
                          length, digit, mask, starts)
        else:
            _scatter_pass(indices, weights, local_rows, lo, scratch_c, scratch_w, scratch_r, 0,
                          length, digit, mask, starts)
        in_scratch = not in_scratch
    return in_scratch


@njit(parallel=True, cache=True)
def finish_buckets(n, shift, col_bits, bucket_start, bounds, indices, weights, local_rows,
                   scratch_c, scratch_w, scratch_r, kept, degree, block_end):
    """Step 5 for buckets ``[bounds[t], bounds[t+1])`` in task ``t``.

    Writes each row's merged length at ``kept[row + 1]``, its pre-merge length
    at ``degree[row]`` (unless None), and the end of the task's block of merged
    rows, which starts at ``bucket_start[bounds[t]]``, at ``block_end[t]``.
    ``scratch_*[t]`` are task ``t``'s buffers: buckets that fit are radix
    sorted through them, larger ones (a hub's row) are sorted in place.
    """
    for t in prange(bounds.shape[0] - 1):
        # A task's work is a plain function; the parallel loop only deals out tasks.
        block_end[t] = _finish_task(
            n, shift, col_bits, bucket_start, bounds[t], bounds[t + 1], indices, weights,
            local_rows, scratch_c[t], None if scratch_w is None else scratch_w[t], scratch_r[t],
            kept, degree,
        )


@njit(cache=True)
def _finish_task(n, shift, col_bits, bucket_start, first_bucket, last_bucket, indices, weights,
                 local_rows, sc, sw, sr, kept, degree):
    """:func:`finish_buckets` for one task; returns the end of its block."""
    size = np.int64(1) << shift
    digits = (col_bits + _DIGIT_BITS - 1) // _DIGIT_BITS
    digit_bits = (col_bits + digits - 1) // digits if digits else 0
    capacity = sr.shape[0]
    counts = np.empty(size, dtype=np.int64)
    fill = np.empty(size, dtype=np.int64)
    ends = np.empty(size, dtype=np.int64)
    hist = np.empty((max(digits, 1), np.int64(1) << digit_bits), dtype=np.int64)
    starts = np.empty(max(size, np.int64(1) << digit_bits), dtype=np.int64)
    stack = np.empty(3 * 64, dtype=np.int64)
    pos = bucket_start[first_bucket]
    for b in range(first_bucket, last_bucket):
        lo = bucket_start[b]
        length = bucket_start[b + 1] - lo
        first_row = np.int64(b) << shift
        rows = min(size, n - first_row)
        counts[:rows] = 0
        for i in range(lo, lo + length):
            counts[local_rows[i]] += 1
        if degree is not None:
            degree[first_row : first_row + rows] = counts[:rows]
        if length == 0:
            kept[first_row + 1 : first_row + rows + 1] = 0
            continue
        if length <= capacity:
            in_scratch = _radix_sort(indices, weights, local_rows, lo, length, counts, rows,
                                     digits, digit_bits, hist, starts, sc, sw, sr)
        else:
            _flag_sort(indices, weights, local_rows, lo, counts, rows, fill, ends, stack)
            in_scratch = False
        if in_scratch:
            pos = _merge_rows(sc, sw, 0, counts, rows, first_row, indices, weights, pos, kept)
        else:
            pos = _merge_rows(indices, weights, lo, counts, rows, first_row, indices, weights,
                              pos, kept)
    return pos


@njit(cache=True)
def _merge_rows(src_c, src_w, s0, counts, rows, first_row, indices, weights, pos, kept):
    """Copy the sorted rows at ``src_*[s0:]`` to ``indices``/``weights`` at
    ``pos``, one arc per column (the minimum weight); returns the new ``pos``.
    Safe in place: the destination never passes the source."""
    i = s0
    for o in range(rows):
        start = pos
        for _ in range(counts[o]):
            c = src_c[i]
            if pos > start and indices[pos - 1] == c:
                if weights is not None:
                    weights[pos - 1] = _lower(weights[pos - 1], src_w[i])
            else:
                indices[pos] = c
                if weights is not None:
                    weights[pos] = src_w[i]
                pos += 1
            i += 1
        kept[first_row + o + 1] = pos - start
    return pos


@njit(cache=True)
def move_blocks(block_start, block_end, indices, weights):
    """Shift the tasks' blocks left so each follows the one before (serial: a
    block's destination overlaps the blocks before it). Returns the arcs kept."""
    dest = 0
    for t in range(block_start.shape[0]):
        start = block_start[t]
        length = block_end[t] - start
        if dest != start:
            for i in range(length):
                indices[dest + i] = indices[start + i]
            if weights is not None:
                for i in range(length):
                    weights[dest + i] = weights[start + i]
        dest += length
    return dest


def _tasks() -> int:
    # Read here, not inside a kernel: a kernel reading it could not be cached.
    return max(1, int(get_num_threads()))


def vertex_range(src, dst) -> tuple[int, int]:
    """(smallest id, largest id) of the tuples; (0, -1) when there are none."""
    lo, hi = id_range(src, dst, _tasks())
    return int(lo), int(hi)


def bucket_shift(n: int, arcs: int, bucket_arcs: int = BUCKET_ARCS) -> int:
    """log2 of the rows per bucket: about ``bucket_arcs`` arcs each."""
    if arcs <= 0:
        return MAX_SHIFT
    rows = max(1, n * bucket_arcs // arcs)
    return min(MAX_SHIFT, rows.bit_length() - 1)


def _compress(rows, cols, weights, n, both, index_dtype, degree, tasks, bucket_arcs, scratch_arcs):
    """Steps 2-6 for one orientation: ``(indptr, indices, weights)``; fills
    ``degree`` (unless None) with the pre-merge row lengths."""
    shift = bucket_shift(n, rows.shape[0] * (2 if both else 1), bucket_arcs)
    buckets = (n + (1 << shift) - 1) >> shift
    counts = bucket_counts(rows, cols, both, shift, buckets, tasks)
    bucket_start = np.zeros(buckets + 1, dtype=np.int64)
    np.cumsum(counts.sum(axis=0), out=bucket_start[1:])
    arcs = int(bucket_start[-1])
    # Task t's first slot in bucket b follows tasks < t's arcs of b.
    cursors = np.cumsum(counts, axis=0)
    cursors -= counts
    cursors += bucket_start[:-1]
    del counts
    indices = np.empty(arcs, dtype=index_dtype)
    out_weights = None if weights is None else np.empty(arcs, dtype=weights.dtype)
    local_rows = np.empty(arcs, dtype=np.uint16)
    partition(rows, cols, weights, both, shift, cursors, indices, out_weights, local_rows)
    del cursors

    targets = (np.arange(tasks + 1, dtype=np.int64) * arcs) // tasks
    bounds = np.searchsorted(bucket_start, targets, side="left").astype(np.int64)
    bounds[0], bounds[-1] = 0, buckets
    indptr = np.zeros(n + 1, dtype=np.int64)
    block_end = np.empty(tasks, dtype=np.int64)
    capacity = min(scratch_arcs, arcs)
    scratch_c = np.empty((tasks, capacity), dtype=index_dtype)
    scratch_w = None if weights is None else np.empty((tasks, capacity), dtype=weights.dtype)
    scratch_r = np.empty((tasks, capacity), dtype=np.uint16)
    col_bits = max(n - 1, 0).bit_length()
    finish_buckets(n, shift, col_bits, bucket_start, bounds, indices, out_weights, local_rows,
                   scratch_c, scratch_w, scratch_r, indptr, degree, block_end)
    del local_rows, scratch_c, scratch_w, scratch_r
    total = int(move_blocks(bucket_start[bounds[:-1]], block_end, indices, out_weights))
    if total != arcs:
        # realloc in place: the tail pages go back without a copy.
        indices.resize(total, refcheck=False)
        if out_weights is not None:
            out_weights.resize(total, refcheck=False)
    np.cumsum(indptr, out=indptr)
    return indptr, indices, out_weights


def compress_arcs(rows, cols, weights, n: int, degree=None):
    """One orientation of arcs ``rows[k] -> cols[k]`` (no symmetrizing):
    ``(indptr, indices, weights)`` sorted by (row, column), parallel arcs
    merged to the smallest weight, arcs with ``rows[k] == cols[k]`` dropped,
    indices in ``rows``' dtype; ``degree`` (int64, ``n`` long, or None) gets
    the pre-merge row lengths. The distributed block build's entry."""
    return _compress(rows, cols, weights, n, False, rows.dtype, degree, _tasks(), BUCKET_ARCS, SCRATCH_ARCS)


def degree_order(input_degree: np.ndarray) -> np.ndarray:
    """Vertices by decreasing input degree, ties by id (the array engine's
    ``lexsort((arange(n), -input_degree))``)."""
    return np.argsort(-input_degree, kind="stable").astype(np.int64, copy=False)


def build(
    src,
    dst,
    weights,
    n: int,
    directed: bool,
    relabel,
    index_dtype,
    *,
    tasks: int | None = None,
    bucket_arcs: int = BUCKET_ARCS,
    scratch_arcs: int = SCRATCH_ARCS,
) -> tuple:
    """``(csr, csc, input_degree, num_input_edges, labels)``, each of ``csr``
    and ``csc`` an ``(indptr, indices, weights)`` triple (``csc`` None for an
    undirected graph), for :func:`wavefront.graph._csr.csr_arrays`, which
    checked the inputs (ids int32 or int64, in ``[0, n)``; weights
    normalized, or None). ``tasks`` defaults to numba's thread count;
    the arrays are the same for any ``tasks``, ``bucket_arcs`` and
    ``scratch_arcs`` (parameters so that tests can cover many tasks, buckets
    and the in-place sort on small graphs)."""
    tasks = _tasks() if tasks is None else max(1, int(tasks))
    labels = None
    if relabel == "degree":
        degree = np.zeros(n, dtype=np.int64)
        count_rows(src, dst, (np.arange(tasks + 1, dtype=np.int64) * n) // tasks, not directed, degree)
        order = degree_order(degree)
        del degree
        new_id = np.empty(n, dtype=index_dtype)
        new_id[order] = np.arange(n, dtype=index_dtype)
        mapped_src = np.empty(src.shape[0], dtype=index_dtype)
        mapped_dst = np.empty(dst.shape[0], dtype=index_dtype)
        map_ids(src, new_id, mapped_src)
        map_ids(dst, new_id, mapped_dst)
        del new_id
        src, dst = mapped_src, mapped_dst
        labels = order

    input_degree = np.empty(n, dtype=np.int64)
    sizes = (tasks, bucket_arcs, scratch_arcs)
    csr = _compress(src, dst, weights, n, not directed, index_dtype, input_degree, *sizes)
    csc = _compress(dst, src, weights, n, False, index_dtype, None, *sizes) if directed else None
    num_input_edges = int(input_degree.sum()) // (1 if directed else 2)
    return csr, csc, input_degree, num_input_edges, labels
