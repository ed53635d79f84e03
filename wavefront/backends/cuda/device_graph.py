"""Derived GPU structures for BFS, built once per graph and cached in ``graph.derived``.

* :class:`BFSWorkspace` (``graph.derived["cuda.bfs"]``, built and its masks
  filled by ``bfs_steps.workspace``): the large-in-degree mask of seed 000
  sec. 3.2 and the in-degree-0 mask (both built once), frontier queues,
  frontier and visited bitmaps, the frontier-scan buffers of the
  edge-balanced step, two sets of step counters (each with a pinned host
  mirror and an event: one small copy per level; a bottom-up level queued
  ahead counts into the other set) and the single-block kernel's per-level statistics.
  Every search on the graph reuses it; a search allocates only its results.
* ``bfs_steps.coo_sources`` (``graph.derived["cuda.bfs.coo"]``): the per-arc
  source array of the edge-centric method's COO, built on first use only.
* :func:`degree_ordered_in_indices` (``graph.derived["cuda.bfs.in_by_degree"]``):
  seed 002's "neighbours sorted by degree" without relabelling: a copy of the
  CSC indices with each row's in-neighbours by decreasing out-degree, so a
  bottom-up step meets the likely parents (hubs) first. Vertex ids, and so
  results, stay the caller's; the user's arrays are not touched.
* :func:`first_in_rows` (``graph.derived["cuda.bfs.first_in.*"]``): per
  vertex one 64-bit word holding its in-edge range start and its first
  in-neighbour in probe order, so that a bottom-up step's first probe is one
  load instead of two dependent ones (32-bit ids, fewer than 2**32 arcs).
* :func:`max_out_degree` (``graph.derived["cuda.max_out_degree"]``): the
  largest out-degree, which picks the single block's balance
  (``BFSTuning.single_block_kernel``); one reduction and one read per graph.
* :func:`padded_rows` (``graph.derived["cuda.bfs.padded.<log2 W>.<log2 L>"]``): the
  adjacency with every row padded to W slots (-1 where a vertex has fewer
  neighbours), W the power of two at or above the largest out-degree, stored
  for L lanes a vertex (:func:`padded_shape`): the
  single block's ``padded`` balance reads a frontier vertex's neighbours in
  one coalesced load, without its row start first (low-degree graphs only).
* :func:`discovery_log` (``graph.derived["cuda.bfs.discovery_log"]``): where
  the kernels on the padded rows log the vertices they find, with their
  parents and levels, for one pass over the GPU to write the results.

GPU memory, beyond the graph itself (n vertices, m stored arcs, I = 4 bytes
per vertex id while n < 2**31, else 8):

    workspace  n * (2 I + 8) + 5 n / 8 + n / 128 bytes  (queues, scan offsets, 5 bitmaps)
    results    12 n bytes per search            (int32 levels + int64 parents)
    COO        m * I bytes                      (edge-centric method only)
    by degree  m * I bytes                      (bottom-up, neighbour_order="degree")
    first in   8 (n + 1) bytes per probe order  (bottom-up, 32-bit ids)
    log        n * (I + 8) bytes                (discovery log: padded rows' kernels)
    padded     n * W * I bytes                  (single block, padded balance, max out-degree <= W)

Sizes are checked with :func:`~wavefront.backends.cuda.memory.check_fits`
before anything is allocated, so a graph that does not fit raises
:class:`~wavefront.errors.GPUMemoryError` with the bytes needed and free.
"""
from __future__ import annotations

import numpy as np

from .abi import (
    CNT_SLOTS,
    GRID_LEVELS_CTL_WORDS,
    PADDED_MAX_SLOTS,
    PADDED_MAX_WIDTH,
    SCAN_CHUNK,
    SINGLE_BLOCK_MAX_LEVELS,
    SINGLE_BLOCK_STATS_FIELDS,
    padded_degree_shift,
)
from .memory import check_fits


def bitmap_words(n: int) -> int:
    return (n + 31) // 32


def index64(graph) -> bool:
    """Whether the graph's vertex ids need the 64-bit kernel instantiation."""
    return graph.indices.dtype == np.int64


def scan_chunks(n: int) -> int:
    """Chunks of the frontier scan (SCAN_CHUNK vertices each) for a frontier of up to n."""
    return (n + SCAN_CHUNK - 1) // SCAN_CHUNK


def max_out_degree(graph) -> int:
    """The graph's largest out-degree (0 without arcs), computed once and cached."""
    degree = graph.derived.get("cuda.max_out_degree")
    if degree is None:
        import cupy

        degree = int(cupy.diff(graph.indptr).max()) if graph.n and graph.m else 0
        graph.derived["cuda.max_out_degree"] = degree
    return degree


PADDED_LANE_QUANTILE = 0.99  # lanes a vertex cover the out-degree of this share of the vertices


def padded_shape(graph) -> tuple[int, int]:
    """(log2 W, log2 L) of the graph's padded rows (:func:`padded_shape_of`
    its out-degree histogram), computed once per graph and cached."""
    shape = graph.derived.get("cuda.bfs.padded_shape")
    if shape is None:
        import cupy

        counts = cupy.bincount(cupy.diff(graph.indptr)).get() if graph.n else np.zeros(1, dtype=np.int64)
        shape = graph.derived["cuda.bfs.padded_shape"] = padded_shape_of(counts)
    return shape


def padded_shape_of(degree_counts) -> tuple[int, int]:
    """(log2 W, log2 L) for vertices whose out-degree d occurs
    ``degree_counts[d]`` times: W slots a row, the smallest power of two >= the
    largest degree; L lanes a vertex, the smallest power of two >= the degree
    of PADDED_LANE_QUANTILE of the vertices, at least W / PADDED_MAX_SLOTS."""
    counts = np.asarray(degree_counts, dtype=np.int64)
    present = np.flatnonzero(counts)
    largest = int(present[-1]) if present.size else 0
    common = int(np.searchsorted(np.cumsum(counts), PADDED_LANE_QUANTILE * counts.sum())) if present.size else 0
    width_log2 = max(largest - 1, 0).bit_length()
    lanes_log2 = max(max(common - 1, 0).bit_length(), width_log2 - (PADDED_MAX_SLOTS.bit_length() - 1))
    return width_log2, min(lanes_log2, width_log2)


def padded_rows_take(graph) -> bool:
    """Whether padded rows can hold ``graph``: each entry keeps its vertex's
    out-degree above the id (:func:`~.abi.padded_degree_shift` bits), so
    32-bit ids must stay below 2**25 (64-bit ones below 2**56), and no row
    may be wider than PADDED_MAX_WIDTH."""
    return graph.n <= 1 << padded_degree_shift(index64(graph)) and max_out_degree(graph) <= PADDED_MAX_WIDTH


def padded_rows(graph):
    """Every out-row in W slots (:func:`padded_shape`), -1 where the vertex
    has fewer neighbours, stored lane by lane: with K = W / L, slot l * K + j
    of vertex u (at u * W + l * K + j) holds its neighbour l + j * L, as its
    id with the neighbour's out-degree shifted above it (``id | degree <<
    padded_degree_shift``; the kernels' ``padded_id`` and ``padded_degree``).
    Built once per graph by one thread a row and cached. Raises
    GPUMemoryError when the n * W ids do not fit, ValueError when the ids
    leave no room for the degree (:func:`padded_rows_take`)."""
    if not padded_rows_take(graph):
        raise ValueError(f"padded rows hold vertex ids below 2**{padded_degree_shift(index64(graph))} "
                         f"({graph.indices.dtype} ids); this graph has {graph.n} vertices")
    width_log2, lanes_log2 = padded_shape(graph)
    key = f"cuda.bfs.padded.{width_log2}.{lanes_log2}"
    rows = graph.derived.get(key)
    if rows is None:
        import cupy

        width, dtype = 1 << width_log2, graph.indices.dtype
        check_fits(lambda: f"the padded rows of {graph!r} ({width} slots a vertex)", graph.n * width * dtype.itemsize)
        rows = cupy.full(graph.n * width, -1, dtype=dtype)
        if graph.n:
            _pad_rows_kernel()(graph.indptr, graph.indices, np.int64(width_log2), np.int64(lanes_log2),
                               np.int64(padded_degree_shift(index64(graph))), rows, size=graph.n)
        graph.derived[key] = rows
    return rows


def discovery_log(graph):
    """The discovery log of the kernels that read the padded rows (the grid
    levels, the padded single block; kernels/common.cuh): a vertex id and a
    uint64 record (parent, level) per vertex, made on first use and kept with
    the graph. Raises GPUMemoryError when it does not fit."""
    log = graph.derived.get("cuda.bfs.discovery_log")
    if log is None:
        import cupy

        n, dtype = max(graph.n, 1), graph.indices.dtype
        check_fits(lambda: f"the BFS discovery log for {graph!r}", n * (8 + dtype.itemsize))
        log = (cupy.empty(n, dtype=dtype), cupy.empty(n, dtype=np.uint64))
        graph.derived["cuda.bfs.discovery_log"] = log
    return log


def padded_rows_fit(graph) -> bool:
    """Whether the padded rows and the discovery log their kernels write are
    built, or can be (built now if so): a graph whose rows would not fit in
    free GPU memory runs the kernels that read the CSR instead (the single
    block's edge balance, the per-level loop). So does a graph whose ids
    leave no room for the degrees (:func:`padded_rows_take`)."""
    from ...errors import GPUMemoryError

    if not padded_rows_take(graph):
        return False
    try:
        padded_rows(graph)
        discovery_log(graph)
    except GPUMemoryError:
        return False
    return True


def _pad_rows_kernel():
    import cupy

    return cupy.ElementwiseKernel(
        "raw int64 indptr, raw T indices, int64 width_log2, int64 lanes_log2, int64 degree_shift", "raw T rows",
        "const long long start = indptr[i], end = indptr[i + 1];"
        "const long long lanes = 1LL << lanes_log2, slots_log2 = width_log2 - lanes_log2;"
        "for (long long j = 0; j < end - start; ++j) {"
        "    const long long v = indices[start + j];"
        "    rows[(i << width_log2) + ((j & (lanes - 1)) << slots_log2) + (j >> lanes_log2)] ="
        "        (T)(v | ((indptr[v + 1] - indptr[v]) << degree_shift));"
        "}",
        "wavefront_pad_rows")


def workspace_bytes(graph) -> int:
    ids = 8 if index64(graph) else 4
    n = max(graph.n, 1)
    return n * (2 * ids + 8) + 5 * 4 * bitmap_words(n) + 8 * scan_chunks(n) + 8


def result_bytes(graph) -> int:
    return 12 * graph.n


class BFSWorkspace:
    """Per-graph buffers reused by every CUDA BFS on that graph."""

    def __init__(self, graph):
        import cupy

        check_fits(f"the BFS workspace for {graph!r}", workspace_bytes(graph))
        n = max(graph.n, 1)
        vid = np.int64 if index64(graph) else np.int32
        self.n = graph.n
        self.index64 = index64(graph)
        self.vid_dtype = vid
        self.words = bitmap_words(n)
        self.queue_in = cupy.empty(n, dtype=vid)
        self.queue_out = cupy.empty(n, dtype=vid)
        self.offsets = cupy.zeros(n + 1, dtype=np.int64)  # offsets[0] stays 0
        self.block_offsets = cupy.zeros(scan_chunks(n), dtype=np.int64)
        self.visited = cupy.empty(self.words, dtype=np.uint32)
        self.frontier = cupy.zeros(self.words, dtype=np.uint32)
        self.next_frontier = cupy.zeros(self.words, dtype=np.uint32)
        self.large = cupy.empty(self.words, dtype=np.uint32)
        self.unreachable = cupy.empty(self.words, dtype=np.uint32)
        # Two sets of step counters (device, pinned host mirror, "copied"
        # event): a bottom-up level queued ahead of time counts into the spare.
        self.counters, self.host_counters, self.counters_copied = _counter_set()
        self._spare_counters = _counter_set()
        self.grid_ctl = cupy.zeros(GRID_LEVELS_CTL_WORDS, dtype=np.uint64)  # the grid-levels kernel's control words
        self.level_stats = cupy.zeros(1 + SINGLE_BLOCK_STATS_FIELDS * SINGLE_BLOCK_MAX_LEVELS, dtype=np.int64)
        stats_pinned = cupy.cuda.alloc_pinned_memory(self.level_stats.nbytes)
        self.host_level_stats = np.frombuffer(stats_pinned, dtype=np.int64, count=self.level_stats.size)
        self._stats_pinned = stats_pinned

    def swap_queues(self) -> None:
        self.queue_in, self.queue_out = self.queue_out, self.queue_in

    def swap_bitmaps(self) -> None:
        self.frontier, self.next_frontier = self.next_frontier, self.frontier

    def counter_events(self):
        return self.counters_copied, self._spare_counters[2]

    def swap_counters(self) -> None:
        """Make the spare counter set the current one (see bfs_steps.queue_counter_copy)."""
        current = (self.counters, self.host_counters, self.counters_copied)
        self.counters, self.host_counters, self.counters_copied = self._spare_counters
        self._spare_counters = current


def _counter_set():
    import cupy

    pinned = cupy.cuda.alloc_pinned_memory(CNT_SLOTS * 8)  # the array below keeps it alive
    host = np.frombuffer(pinned, dtype=np.uint64, count=CNT_SLOTS)
    return cupy.zeros(CNT_SLOTS, dtype=np.uint64), host, cupy.cuda.Event(disable_timing=True)


def degree_ordered_in_indices(graph, chunk_arcs: int):
    """The CSC indices with every row ordered by decreasing out-degree of the
    in-neighbour (ties in any order), cached per graph; sorted in rounds of
    about ``chunk_arcs`` arcs (bounding the scratch, ~40 bytes per arc). A graph whose copy
    does not fit beside it keeps its own order: bottom-up steps are correct
    with any order, only slower. Graph500 counts the sort as construction
    (``prepare``)."""
    from ...errors import GPUMemoryError

    ordered = graph.derived.get("cuda.bfs.in_by_degree")
    if ordered is None:
        ids = 8 if index64(graph) else 4
        try:
            check_fits(f"the degree-ordered CSC of {graph!r}", ids * graph.m + 40 * min(graph.m, chunk_arcs))
        except GPUMemoryError:
            return graph.in_indices
        ordered = _sort_rows_by_degree(graph, chunk_arcs)
        graph.derived["cuda.bfs.in_by_degree"] = ordered
    return ordered


def _sort_rows_by_degree(graph, chunk_arcs: int):
    """Segmented sort in rounds of whole rows holding about ``chunk_arcs``
    arcs: one argsort of (row << 32 | ~degree) keys per round."""
    import cupy

    indptr, indices = graph.in_indptr, graph.in_indices
    ordered = cupy.empty_like(indices)
    if graph.m == 0:
        return ordered
    # Low key half: larger out-degree, smaller key.
    inverse_degree = (2**32 - 1 - cupy.minimum(cupy.diff(graph.indptr), 2**32 - 1)).astype(cupy.uint64)
    # The row holding arc t * chunk_arcs starts a round; a row longer
    # than a round is a round of its own.
    marks = cupy.arange(0, graph.m, chunk_arcs, dtype=cupy.int64)
    starts = (cupy.searchsorted(indptr, marks, side="right") - 1).get().tolist()
    bounds = sorted(set(starts)) + [graph.n]
    arc_bounds = indptr[cupy.asarray(bounds, dtype=cupy.int64)].get().tolist()
    for round_rows, (first, last) in zip(zip(bounds[:-1], bounds[1:]), zip(arc_bounds[:-1], arc_bounds[1:])):
        if last == first:
            continue
        if round_rows[1] - round_rows[0] >= 2**32:
            raise ValueError("a sort round spans 2**32 rows or more: lower BFSTuning.degree_sort_chunk_arcs")
        arcs = cupy.arange(first, last, dtype=cupy.int64)
        rows = cupy.searchsorted(indptr[round_rows[0] : round_rows[1] + 1], arcs, side="right") - 1
        del arcs
        keys = rows.astype(cupy.uint64) << cupy.uint64(32)
        del rows
        chunk = indices[first:last]
        keys |= inverse_degree[chunk]
        order = cupy.argsort(keys)
        del keys
        ordered[first:last] = chunk[order]
        del order
    return ordered


def first_in_rows(graph, in_indices):
    """``rows[v] = first << 32 | in_indptr[v]`` (uint64; ``rows[n] = m``), where
    ``first`` is row v's first entry of ``in_indices`` (0 for an empty row):
    a bottom-up step reads a candidate's range and its first in-neighbour in
    one load, and loads ``in_indices`` only when that neighbour is not in the
    frontier. None where it does not apply (64-bit ids, 2**32 arcs or more)
    or does not fit; cached per graph and probe order. Graph500 counts it as
    construction (``prepare``)."""
    from ...errors import GPUMemoryError

    if index64(graph) or graph.m >= 2**32:
        return None
    key = "cuda.bfs.first_in." + ("own" if in_indices is graph.in_indices else "by_degree")
    built_from, rows = graph.derived.get(key, (None, None))
    if built_from is not in_indices:  # also when the sorted copy was rebuilt
        import cupy

        try:
            check_fits(f"the packed first in-neighbours of {graph!r}", 40 * (graph.n + 1))
        except GPUMemoryError:
            return None
        indptr = graph.in_indptr
        rows = indptr.astype(cupy.uint64)
        if graph.m:
            starts = indptr[:-1]
            first = in_indices[cupy.minimum(starts, graph.m - 1)].astype(cupy.uint64)
            first = cupy.where(starts < indptr[1:], first, cupy.uint64(0))
            rows[:-1] |= first << cupy.uint64(32)
            del first
        graph.derived[key] = (in_indices, rows)
    return rows
