"""The 2-D direction-optimizing BFS with each rank's block on its GPU.

Seed 000's cluster BFS with the GPU doing the block's work: the level loop of
:mod:`.bfs2d` (global policy, block step, fold, row and column exchange),
with every array of the level on the device and the collectives on a
:class:`~.device_transport.DeviceTransport` (NCCL, or host staging over MPI).

The block step is the CUDA backend's own:

* the block ``A_ij`` is a directed :class:`~wavefront.graph.Graph` on the GPU
  over ``span = max(n_row, n_col)`` local ids (sources column-local, targets
  row-local, as :mod:`.graph` builds it), so the CUDA launchers run on it
  unchanged: :func:`~wavefront.backends.cuda.bfs_steps.workspace` (bitmaps,
  queues, counters, degree masks), ``bitmap_to_queue``,
  ``top_down_balanced`` (the edge-balanced top-down step, claims through the
  visited bitmap), :func:`~wavefront.backends.cuda.bfs_bottom_up.bottom_up`
  (seed 000 figs. 4 and 6), with the probe order and packed first probes of
  :mod:`~wavefront.backends.cuda.bfs_search` (``bottom_up_indices``,
  ``packed_rows``: in-neighbours by decreasing block out-degree) and its
  :class:`~wavefront.backends.cuda.bfs_tuning.BFSTuning`;
* the workspace's ``visited`` bitmap is the row block's visited set (its
  in-degree-0 vertices, then every vertex the row's owners accept, OR-ed in
  from the row all-gather each level), ``frontier`` is the column block's
  frontier bitmap (the column all-gather), and the step's ``parents`` array
  holds, for each target it claimed, its column-local parent;
* the direction comes from the same :mod:`wavefront.bfs.policy` object on
  every rank, fed the allreduced ``n_f``, ``m_f``, ``m_u`` (GAP's by
  default, with ``DistributedTuning.block_alpha``: :func:`block_policy`),
  inside the single-GPU hybrid's rules that still hold between exchanged
  levels (:func:`~wavefront.backends.cuda.bfs.block_rules`:
  ``bottom_up_min_edges`` and the stay-bottom-up margin; on one column with
  the small levels, a frontier they take always goes top-down and a switch
  back to top-down waits for one, ``stay_bottom_up_edges``).

What :class:`~wavefront.backends.cuda.bfs_search.BFSSearch` adds for one
GPU (the single-block small-frontier kernel, levels left due, a bottom-up
level queued ahead) is not used on P > 1: each assumes the frontier a step
writes is the next step's input, which the fold and the exchanges break.
Its deferred result fill is used where a step writes the owner's arrays: on
a one-column grid. At P = 1 without a CPU share nothing is exchanged, so
the search is the single-GPU hybrid's own level loop and search object on
the whole-graph block (:func:`_whole_graph_search`).

Owners keep their piece's parents and levels on the device; a result's
arrays are CuPy arrays, which the distributed validator reads on the host.
The fold is three kernels (``kernels/bfs_fold_2d.cu``: count per owner,
pack grouped by owner, accept by compare-and-swap) and one host read per
side; it replaced a sort, a bincount, a unique and boolean compactions in
CuPy, each synchronizing (H100, SCALE 22 on one rank: 12-17 ms per search
down to 4.3-4.7 ms; docs/decisions/distributed.md). It packs each pair into
one int64 where the ids fit, as on CPU ranks.

A one-column grid (R x 1, P = 1 included) folds nothing and accepts
nothing: the rank's row block is its piece and its column block every
vertex, so its step writes the owner's results and its output bitmap's
first piece is what the column allgathers (``_Search._owned_level``; its
one-rank row collectives hand back their input,
:class:`~.device_transport.DeviceTransport`). SCALE 26 on one H100: 9.8 to
3.6 ms, the single-GPU search 2.5 ms. Hence P = 2 runs 2x1 on GPUs (see
:func:`gpu_grid_shape`). Only a cooperative bottom-up step there still
accepts its claimed targets from its queue (``fold_accept_claimed``). The CPU ranks' fold
deduplication (an exclusive OR-scan) is not used here: NCCL has no bitwise
reduction.

Small top-down levels on one column (``DistributedTuning.fixed_ids_edges``,
R > 1, the GPU alone): a level whose frontier holds at most K arcs in all
runs as one kernel (``kernels/bfs_small_levels_2d.cu``), and every rank sends
its finds and totals as one segment of K ids and a header, in an all-gather
of equal parts: no rank can find more than K, so the ranks agree on the form
without a word, and the totals need no host all-gather
(:meth:`_Search._small_level`). Over NCCL, an untraced search replays such a
level as one captured CUDA graph (:mod:`.gpu_small_levels`).

CPU+GPU cooperation (seed 000 §3.3; ``DistributedTuning.cpu_share``): the
block's bottom-up step split with the host cores, in :mod:`.gpu_cooperation`;
share 0 runs none of it.

Communication overlapping computation (``DistributedTuning.overlap_chunks``;
one column, R > 1, the GPU alone): a bottom-up step runs as K launches of
the same launcher over row ranges (:func:`chunk_rows`, :func:`_range_step`),
and after each the range's new frontier words leave on a second CUDA stream
(:meth:`~.device_transport.DeviceTransport.allgather_into`), straight to
their place in a spare column bitmap that becomes the next frontier; the
search's stream waits for that stream before the next level. The step's
kernels read the frontier bitmap whole, so the pieces cannot land in it
while later ranges run: hence the spare and a swap, not a copy.
"""
from __future__ import annotations

import copy
import functools
import itertools
import time
from dataclasses import dataclass, field
from types import SimpleNamespace

import numpy as np

from .._limits import depth_limit_levels
from ..bfs.policy import BOTTOM_UP, TOP_DOWN, LevelState, make_policy
from . import gpu_steps
from ._trace import Clock, LevelRecord, level_records
from .bfs2d import DistributedBFSResult, pair_shift
from .cooperation import ROW_ALIGN
from .gpu_cooperation import (
    CooperativeLevelRecord,
    cooperation_for,
    probe_rows,
    share_state,
)
from .gpu_small_levels import SmallLevels
from .graph import DistributedGraph
from .tuning import DEFAULT_TUNING

_GPU_KEY = "distributed.gpu"
FOLD_KERNELS = "bfs_fold_2d.cu"  # seed 000 fig. 8's fold on a GPU block


def _zero_counter(ws, slot: int) -> None:
    """Zero one step counter of ``ws`` on the current stream."""
    import cupy

    item = ws.counters.itemsize
    cupy.cuda.runtime.memsetAsync(ws.counters.data.ptr + slot * item, 0, item,
                                  cupy.cuda.get_current_stream().ptr)


def chunk_rows(rows: int, chunks: int, align: int = ROW_ALIGN) -> list[tuple[int, int]]:
    """``[start, stop)`` row ranges splitting ``rows`` into at most ``chunks``
    consecutive ranges as equal as ``align``-row groups allow (fewer where
    there are fewer groups; none for no rows): every start and every stop
    but the last on an ``align`` boundary, the last stop ``rows``. Row
    ranges of a bottom-up step (:meth:`_Search._chunked_bottom_up`): 64 rows
    keep each range whole uint32 words of the bitmaps and int64 words of
    the host's. Graph500's scrambled labels spread the arcs evenly over the
    rows, so equal rows are about equal work."""
    if rows < 0 or chunks < 1 or align < 1:
        raise ValueError(f"chunk_rows needs rows >= 0, chunks >= 1 and align >= 1; got {rows}, {chunks}, {align}")
    groups = -(-rows // align)
    count = min(chunks, groups)
    bounds = [min(rows, (k * groups // count) * align) for k in range(count)] + [rows] if count else []
    return list(itertools.pairwise(bounds))


def _range_step(gpu, start: int, stop: int, levels, parents, n: int, whole_from):
    """The bottom-up launcher's arguments for rows ``[start, stop)`` of
    ``gpu``'s block alone (64-row aligned): a shallow copy of the workspace
    and a view of the block whose row-indexed arrays (visited, next
    frontier, degree masks, row offsets or packed first probes, the result
    arrays) start at ``start``, with the word count of the range. The
    frontier (indexed by source), ``in_indices`` (addressed through the row
    offsets) and the counters stay whole and shared, so the ranges' counts
    add up to the whole step's. This extends the cooperative step's
    shortened workspace (:mod:`.gpu_cooperation`) by a start; the kernels
    are unchanged. ``n``: the rows of the result arrays (the owner's piece);
    ``whole_from``: the whole step's (None, or the source's row, -1 for
    none), which becomes the range's (the source's row in the range, else -1).
    Returns the launcher's (graph, ws, levels, parents, packed_rows,
    whole_from, rows) for the range."""
    ws = gpu.ws
    first, last = start // 32, stop // 32
    view = copy.copy(ws)
    view.words = last - first
    if whole_from is not None:
        whole_from = whole_from - start if start <= whole_from < stop else -1
    if start == 0:  # every array starts where the range does: no views (the one range of the default, K = 1)
        return gpu.block, view, levels, parents, gpu.rows, whole_from, max(0, min(n, stop))
    for name in ("visited", "next_frontier", "large", "unreachable"):
        setattr(view, name, getattr(ws, name)[first:last])
    in_indptr = gpu.block.in_indptr[start:]
    block = SimpleNamespace(in_indptr=in_indptr, indptr=in_indptr, n=stop - start)
    rows = None if gpu.rows is None else gpu.rows[start:]
    return block, view, levels[start:stop], parents[start:stop], rows, whole_from, max(0, min(n, stop) - start)


def _upload(host):
    """A device copy of a host array, copied from pageable memory.
    ``cupy.asarray`` would first copy it into a pinned buffer of its size,
    and CuPy's pinned pool keeps that buffer and never returns it to the
    system. At SCALE 28 on two ranks that is up to 37 GiB of host memory a
    rank, kept after the upload (:mod:`wavefront.graph500.memory`)."""
    import cupy

    host = np.ascontiguousarray(host)
    device = cupy.empty(host.shape, dtype=host.dtype)
    device.set(host)
    return device


@dataclass
class GPUBlock:
    """A rank's block on its GPU and what the searches reuse (see :func:`to_gpu`)."""

    graph: DistributedGraph  # the host side: grid, partition, degrees, tuples
    block: object  # wavefront.graph.Graph on the GPU
    ws: object  # the CUDA BFS workspace of the block
    in_indices: object  # CSC indices in probe order
    rows: object  # packed first probes, or None
    tuning: object  # BFSTuning
    degree: object  # owned vertices' degrees (device, int64)
    transports: tuple  # device transports: world, row, column
    device: int
    transport: str  # "nccl" or "mpi"
    share_states: dict = field(default_factory=dict)  # DistributedTuning -> cooperation.ShareState
    cuts: dict = field(default_factory=dict)  # (CPU share, minimum rows) -> first row of the CPU's range
    cooperation: object = None  # the _Cooperation (host copies, buffers) of the range in use, or None
    step_levels: object = None  # the block step's result arrays over span (step_arrays)
    step_parents: object = None
    overlaps: dict = field(default_factory=dict)  # overlap_chunks -> _Overlap (streams and events)
    spare_frontier: object = None  # the column bitmap an overlapped exchange fills (spare_bitmap)
    segments: dict = field(default_factory=dict)  # fixed_ids_edges -> SmallLevels

    def small_levels(self, capacity: int):
        """The small levels' buffers for segments of ``capacity`` ids
        (:class:`.gpu_small_levels.SmallLevels`), made on first use."""
        made = self.segments.get(capacity)
        if made is None:
            made = self.segments[capacity] = SmallLevels(self, capacity, self.transports[2])
        return made

    def spare_bitmap(self):
        """A second column frontier bitmap, made on first use: an overlapped
        exchange (``overlap_chunks``) receives the next frontier into it while
        the step still reads ``ws.frontier``, and the two swap after. ``n / 8``
        bytes (32 MB at SCALE 28); checked, so a GPU without room raises
        GPUMemoryError."""
        if self.spare_frontier is None:
            import cupy

            from ..backends.cuda.memory import check_fits

            frontier = self.ws.frontier
            check_fits(lambda: "the overlapped exchange's column bitmap", frontier.nbytes)
            self.spare_frontier = cupy.zeros_like(frontier)
        return self.spare_frontier

    def step_arrays(self):
        """(levels, parents) of the block step over ``span``, made on first
        use: a step that folds or a cooperative one writes them; a
        one-column grid's own steps write the owner's arrays and never ask,
        which saves 12 bytes a vertex of the whole range on each GPU (3.2 GB
        at SCALE 28), and the memory model counts them only off one column.
        A cooperative step (``--cpu-share``) on one column asks: checked
        then, so a GPU without room raises GPUMemoryError, not CuPy's."""
        if self.step_levels is None:
            import cupy

            from ..backends.cuda.memory import check_fits

            check_fits(lambda: f"the block step's levels and parents over {self.block.n} vertices", 12 * self.block.n)
            self.step_levels = cupy.empty(self.block.n, dtype=cupy.int32)
            self.step_parents = cupy.empty(self.block.n, dtype=cupy.int64)
        return self.step_levels, self.step_parents


def to_gpu(graph: DistributedGraph, transport: str = "auto", tuning=None, device: int | None = None) -> GPUBlock:
    """Move this rank's block to its GPU (collective; cached on the graph).

    ``device``: the CUDA device (default: the node-local rank's,
    :func:`.launch.select_gpu`); ``transport``: "nccl", "mpi" or "auto" (see
    :func:`.device_transport.choose_transport`); ``tuning``: a
    :class:`~wavefront.backends.cuda.bfs_tuning.BFSTuning`. Raises
    :class:`~wavefront.errors.GPUMemoryError` on every rank, naming how many
    GPUs would suffice, if some rank's block does not fit its GPU.
    """
    cached = graph.derived.get(_GPU_KEY)
    if cached is not None and transport in ("auto", cached.transport):
        return cached
    from ..backends import require_cuda

    require_cuda()
    import cupy

    from ..backends.cuda import bfs_steps as steps
    from ..backends.cuda.bfs_search import bottom_up_indices, packed_rows
    from ..backends.cuda.bfs_tuning import tuning_from
    from ..graph import Graph
    from .device_transport import make_device_transports
    from .launch import select_gpu
    from .memory import check_graph_fits

    if device is None:
        device = select_gpu(graph.world)
    else:
        cupy.cuda.Device(int(device)).use()
    tuning = tuning_from(tuning)
    check_graph_fits(graph)
    span = max(graph.part.row_block_size, graph.part.col_block_size)
    indptr, indices = _upload(graph.indptr), _upload(graph.indices)
    if graph.in_indptr is graph.indptr and graph.in_indices is graph.indices:
        in_indptr, in_indices = indptr, indices  # a symmetric block (P = 1, a square grid's diagonal): one copy
    else:
        in_indptr, in_indices = _upload(graph.in_indptr), _upload(graph.in_indices)
    block = Graph(indptr, indices, n=span, directed=True, in_indptr=in_indptr, in_indices=in_indices)
    steps.compile_all(block.indices.dtype.itemsize == 8, tuning)
    ws = steps.workspace(block)
    in_indices = bottom_up_indices(block, tuning)
    rows = packed_rows(block, tuning, in_indices)
    world, row, col = make_device_transports(graph.grid, transport)
    gpu = GPUBlock(
        graph=graph, block=block, ws=ws, in_indices=in_indices, rows=rows, tuning=tuning,
        degree=_upload(graph.degree), transports=(world, row, col),
        device=int(cupy.cuda.Device().id), transport=world.kind,
    )
    cupy.cuda.get_current_stream().synchronize()
    graph.derived[_GPU_KEY] = gpu
    return gpu


def bfs(gpu: GPUBlock, source: int, policy=None, alpha=None, beta=None, depth_limit: int | None = None,
        measure_wait: bool = True, tuning=None) -> DistributedBFSResult:
    """Direction-optimizing BFS from ``source`` with the blocks on the GPUs
    (collective); the arguments are :func:`.bfs2d.bfs`'s. ``measure_wait``
    also synchronizes the stream after each collective, so the trace's
    communication seconds are the transfers', not their launches'."""
    chosen = make_policy(policy, alpha, beta)
    g = gpu.graph
    source = g.source_index(source)
    depth_limit = depth_limit_levels(depth_limit, g.n)
    import cupy

    tuning = DEFAULT_TUNING if tuning is None else tuning
    start = time.perf_counter()
    with cupy.cuda.Device(gpu.device):
        share = None
        if g.grid.world.size == 1 and tuning.cpu_share == 0 and tuning.whole_graph_search:
            parents, levels, trace = _whole_graph_search(gpu, chosen, source, depth_limit)
        else:
            search = _Search(gpu, block_policy(policy, alpha, beta, tuning, chosen), measure_wait, tuning)
            parents, levels, trace = search.run(source, depth_limit)
            share = search.share
        cupy.cuda.get_current_stream().synchronize()
        seconds = time.perf_counter() - start
        if share is not None:
            share.end_search()
            if share.share == 0:
                gpu.cooperation = None  # auto chose the GPU alone: free the host copies
    return DistributedBFSResult(
        source=source, parents=parents, levels=levels, first_vertex=g.first_vertex, n=g.n, world=g.world,
        policy=getattr(chosen, "name", type(chosen).__name__), trace=trace() if callable(trace) else trace,
        seconds=seconds, backend="cuda",
    )


def block_policy(policy, alpha, beta, tuning, chosen):
    """The policy of the 2-D level loop: ``chosen`` (what the caller's
    ``policy``, ``alpha``, ``beta`` make), except that GAP's policy by name
    or default with no ``alpha`` given takes ``tuning.block_alpha`` (GAP's
    alpha of 15 is a CPU's: on GPU blocks a top-down level costs more per
    arc than a bottom-up one, docs/decisions/distributed.md)."""
    if tuning.block_alpha is None or alpha is not None or policy not in (None, "gap"):
        return chosen
    return make_policy("gap", tuning.block_alpha, beta)


def _whole_graph_search(gpu: GPUBlock, policy, source: int, depth_limit):
    """P = 1 without a CPU share: the single-GPU hybrid's level loop and
    search object (:func:`~wavefront.backends.cuda.bfs.run_levels`) on the
    rank's block, which is the whole graph with its transpose identical.

    A world of one exchanges nothing, so every rule of the single-GPU
    search holds here: the root and the small levels in the single-block
    kernel, a bottom-up level queued ahead, its host reads. The 2-D loop
    (:class:`_Search`), run at P = 1, spent 3.16 ms at SCALE 26 on an H200
    where the single-GPU search spent 2.11 (docs/decisions/distributed.md).
    Returns (parents, levels, a function that builds the trace): the
    rank's records, built after the search is timed (a road search has
    hundreds of levels)."""
    from ..backends.cuda.bfs import run_levels, whole_graph_rules

    block = gpu.block
    rules = whole_graph_rules(policy, gpu.tuning, gpu.graph.n, block.indices.dtype.itemsize == 8)
    search = run_levels(block, source, depth_limit, rules, gpu.tuning)
    last_found = search.count
    result = search.result("hybrid")

    return result.parents, result.levels, functools.partial(level_records, result.trace, last_found)


class _Overlap:
    """What an overlapped column all-gather uses, kept per block and chunk
    count: the row ranges, a non-blocking communication stream (CuPy's
    default stream is the legacy one, which would wait for a blocking one),
    an event per range (its kernels are done) and one for the last send."""

    def __init__(self, gpu: GPUBlock, chunks: int):
        import cupy

        self.ranges = chunk_rows(gpu.graph.part.row_block_size, chunks)
        self.stream = cupy.cuda.Stream(non_blocking=True)
        self.ready = [cupy.cuda.Event(disable_timing=True) for _ in self.ranges]
        self.sent = cupy.cuda.Event(disable_timing=True)


def _overlap_for(gpu: GPUBlock, chunks: int) -> _Overlap:
    overlap = gpu.overlaps.get(chunks)
    if overlap is None:
        overlap = gpu.overlaps[chunks] = _Overlap(gpu, chunks)
    return overlap


class _Search:
    def __init__(self, gpu: GPUBlock, policy, measure_wait: bool, tuning):
        import cupy

        from ..backends.cuda.bfs import block_rules

        self.cupy = cupy
        self.gpu, self.measure_wait = gpu, measure_wait
        g = gpu.graph
        self.g, self.grid, self.part = g, g.grid, g.part
        self.shift = pair_shift(g.part, tuning)
        world, row, col = gpu.transports
        self.dworld, self.drow, self.dcol = world, row, col
        self.clock = Clock(g.grid.world, g.grid.row, g.grid.col, world, row, col)
        from ..backends.cuda.abi import FOLD_MAX_OWNERS

        if g.grid.cols > FOLD_MAX_OWNERS:
            raise ValueError(f"the GPU fold handles grids of up to {FOLD_MAX_OWNERS} columns, got {g.grid.cols}")
        self.row_words = g.part.row_block_size // 32
        self.col_words = g.part.col_block_size // 32
        # A one-column grid (C = 1, P = 1 included): the rank's row block is
        # its own piece and its column block every vertex (column offset 0),
        # so a step's row-local targets are the owner's indices and its
        # column-local parents global ids. The step writes the owner's
        # levels and parents itself and counts their degrees off its
        # in-rows (every in-arc of the rank's rows); nothing is queued,
        # folded or accepted (:meth:`_owned_level`).
        self.owns_rows = self.drow.size == 1
        # P = 1 besides: the step's output bitmap is the next frontier, and
        # a top-down step's queue and totals the next top-down level's input.
        self.whole_graph = self.owns_rows and self.dcol.size == 1
        self.queue_ready = False  # whether ws.queue_in holds the frontier (after a whole-graph top-down step)
        # A one-row grid (R = 1): the column block is the rank's own piece and
        # the block's out-degrees are its degrees, so a top-down step's
        # frontier size and edge count are what the rank accepted the level
        # before (no host reads to find them). Else None.
        self.column_is_piece = self.dcol.size == 1
        self.own_frontier = None
        # The CPU share (None: the GPU alone, exactly as without cooperation).
        self.share = None if tuning.cpu_share == 0 else share_state(gpu, tuning)
        self.record_type = LevelRecord if self.share is None else CooperativeLevelRecord
        # The single-GPU search's deferred-results contract
        # (:mod:`~wavefront.backends.cuda.bfs_search`) where the steps write
        # the owner's arrays: they start unfilled, the first bottom-up level
        # writes them whole, else complete_results ends the search (SCALE 26
        # on an H100: the fill of 805 MB cost 0.47 ms of a 3.7 ms search).
        from ..backends.cuda.bfs_bottom_up import results_written_whole

        self.complete = not (self.owns_rows and self.share is None and gpu.rows is not None
                             and results_written_whole(gpu.block, gpu.tuning))
        self.local_source = -1  # the source's index in the owner's arrays, -1 on the other ranks
        # Overlapped column all-gathers (one column, R > 1, the GPU alone):
        # None where off or not applicable. ``in_flight``: a bottom-up step's
        # sends are on the way and the level's exchange must wait for them.
        self.overlap = None
        if tuning.overlap_chunks and self.owns_rows and not self.whole_graph and self.share is None:
            self.overlap = _overlap_for(gpu, tuning.overlap_chunks)
        self.in_flight = False
        self.depth_limit = None
        # Small top-down levels with a fixed-size exchange (one column, R > 1,
        # the GPU alone): the largest m_f they take, 0 where off.
        alone_on_a_column = self.owns_rows and not self.whole_graph and self.share is None
        self.fixed_edges = tuning.fixed_ids_edges if alone_on_a_column else 0
        self.tile_arcs = tuning.small_tile_arcs
        # Small levels replay as captured CUDA graphs over NCCL where the
        # search is not traced (gpu_small_levels).
        self.capture = gpu.transport == "nccl" and not measure_wait
        # The single-GPU hybrid's rules that still hold between exchanged
        # levels (SCALE 26, one rank, H100: GAP's switch back to top-down on a
        # frontier of 1.8 M leaves cost a 3.5 ms top-down step where the
        # stay-bottom-up margin keeps a 0.3 ms bottom-up one); with the small
        # levels, a frontier they take goes top-down, and a switch back to
        # top-down waits for one (DistributedTuning.stay_bottom_up_edges).
        # A bottom-up level queued ahead (DistributedTuning.bottom_up_ahead):
        # it needs the overlapped send, whose exchange is a fixed-size
        # all-gather on its own stream; a traced search measures each level
        # alone. ``queued_ahead``: the level whose step is queued (its
        # counters in the spare set); ``exchanged_ahead``: the level just
        # run already handed its frontier to that step.
        ahead = tuning.bottom_up_ahead and self.overlap is not None and not measure_wait
        self.policy = block_rules(policy, gpu.tuning, gpu.graph.n, self.fixed_edges,
                                  tuning.stay_bottom_up_edges if self.fixed_edges else None, ahead)
        self.queued_ahead = None
        self.exchanged_ahead = False

    # Made on first use: a one-column grid's own steps never fold or accept,
    # and two allocations and fills cost ~30 us of every search there.
    @functools.cached_property
    def stats(self):
        """fold_accept's accepted count and degree sum."""
        return self.cupy.zeros(2, dtype=self.cupy.uint64)

    @functools.cached_property
    def owner_counts(self):
        return self.cupy.zeros(self.grid.cols, dtype=self.cupy.uint64)

    def _sync(self) -> None:
        if self.measure_wait:
            self.cupy.cuda.get_current_stream().synchronize()

    def _exchange(self, piece_bits):
        """The owners' new frontier pieces over the row block (into visited)
        and the column block (the next frontier bitmap). On a whole-graph
        block, where the step already set its finds in visited, the one-rank
        collectives would hand the bits back as they are, so a bottom-up
        step's next bitmap becomes the frontier by a swap and a top-down
        step's frontier bitmap stays, with no collective (their trace entries
        left out: 16 us a level on an H200)."""
        grid, clock, ws = self.grid, self.clock, self.gpu.ws
        if self.whole_graph and piece_bits is ws.next_frontier:
            ws.swap_bitmaps()  # P = 1: the one-rank collectives would hand the bitmap back as it is
            return
        if self.whole_graph and piece_bits is ws.frontier:
            return
        with clock.collective("row_allgather", self.drow):
            row_bits = self.drow.allgather(piece_bits)
            self._sync()
        with clock.collective("transpose", self.dworld):
            held = self.dworld.sendrecv(piece_bits, grid.transpose_dest, grid.transpose_source)
            self._sync()
        with clock.collective("column_allgather", self.dcol):
            col_bits = self.dcol.allgather(held)
            self._sync()
        ws.visited[: self.row_words] |= row_bits
        if self.col_words < ws.frontier.shape[0]:
            ws.frontier[self.col_words:].fill(0)
        ws.frontier[: self.col_words] = col_bits

    def _accept(self, received, level, own_parents, own_levels, piece_bits) -> tuple[int, int]:
        """Owner side of the fold (``fold_accept``): unvisited vertices take a
        parent (any one offered is a neighbour one level up) and their bit in
        ``piece_bits``; returns (accepted, their degree sum)."""
        pairs = int(received.shape[0]) // (1 if self.shift else 2)
        return self._accept_with("fold_accept", received, pairs, (np.int32(self.shift),),
                                 level, own_parents, own_levels, piece_bits)

    def _accept_claimed(self, found, level, own_parents, own_levels, piece_bits) -> tuple[int, int]:
        """:meth:`_accept` for a one-rank grid row (``fold_accept_claimed``):
        the step's claimed targets, each once, straight from its queue."""
        gpu = self.gpu
        return self._accept_with("fold_accept_claimed", gpu.ws.queue_in, found,
                                 (gpu.step_arrays()[1], np.int64(self.g.col_offset)),
                                 level, own_parents, own_levels, piece_bits)

    def _accept_with(self, kernel, items, count, more, level, own_parents, own_levels,
                     piece_bits) -> tuple[int, int]:
        """Run an accept kernel of ``kernels/bfs_fold_2d.cu`` over the first
        ``count`` of ``items`` (``more``: its arguments between the count and
        the level) and read its totals."""
        from ..backends.cuda import bfs_steps as steps

        piece_bits.fill(0)
        stats = self.stats
        stats.fill(0)
        if count:
            fn = steps.get_kernel(FOLD_KERNELS, kernel, self.gpu.ws.index64)
            fn((steps.blocks(count),), (steps.BLOCK,),
               (items, steps.i64(count), *more, np.int32(level), own_parents, own_levels, self.gpu.degree,
                piece_bits, stats))
        accepted, edges = (int(x) for x in stats.get())
        return accepted, edges

    def _start(self, record) -> None:
        """Fill a cooperative record's share columns (a no-op without a share)."""
        state = self.share
        if state is None:
            return
        record.cpu_share_mode = state.mode
        decision = state.decision
        if decision is not None:
            record.auto_share, record.auto_reason = decision.share, decision.reason
            record.auto_cpu_rate, record.auto_gpu_rate = decision.cpu_rate, decision.gpu_rate

    def _cooperative_bottom_up(self, level, record):
        """The bottom-up step split with the host cores (None: this level runs
        the GPU alone, the share being 0 or too small for one 64-row group)."""
        state = self.share
        if state is None or state.share == 0:
            return None
        cooperation = cooperation_for(self.gpu, state.share, probe_rows(state))
        if cooperation is None:
            return None
        run = cooperation.step(self.gpu, level)
        state.measured(run.cpu_examined, run.cpu_seconds, run.gpu_examined, run.gpu_seconds, run.overhead_seconds)
        record.cpu_share, record.cpu_rows = state.share, cooperation.rows - cooperation.cut
        record.cpu_examined, record.gpu_examined = run.cpu_examined, run.gpu_examined
        record.cpu_seconds, record.gpu_seconds = run.cpu_seconds, run.gpu_seconds
        record.overhead_seconds = run.overhead_seconds
        record.cpu_rate = run.cpu_examined / run.cpu_seconds if run.cpu_seconds > 0 else 0.0
        record.gpu_rate = run.gpu_examined / run.gpu_seconds if run.gpu_seconds > 0 else 0.0
        return run.cpu_examined + run.gpu_examined

    def _block_step(self, choice, level, frontier_edges, record) -> tuple[int, int]:
        """The CUDA step on the block; the claimed targets end in
        ``ws.queue_in[:found]``, their parents in ``step_parents``. Returns
        (found, edges examined)."""
        from ..backends.cuda import bfs_bottom_up
        from ..backends.cuda import bfs_steps as steps
        from ..backends.cuda.abi import CNT_EDGES, CNT_NEXT_COUNT

        gpu = self.gpu
        block, ws = gpu.block, gpu.ws
        if choice == BOTTOM_UP:
            examined = self._cooperative_bottom_up(level, record)
            if examined is None:
                steps.reset_counters(ws)
                bfs_bottom_up.bottom_up(block, ws, gpu.tuning, level, *gpu.step_arrays(),
                                        gpu.in_indices, gpu.rows)
                # The queue below recounts the claimed targets; the arcs
                # examined stay, read with it in one host round trip.
                _zero_counter(ws, CNT_NEXT_COUNT)
            else:
                steps.reset_counters(ws)
            ws.swap_bitmaps()  # the claimed targets' bitmap, as a queue below
            steps.bitmap_to_queue(ws)
            counters = steps.read_counters(ws)
            count = int(counters[CNT_NEXT_COUNT])
            return count, (int(counters[CNT_EDGES]) if examined is None else examined)
        own = self.own_frontier
        if own is not None and own[0] == 0:
            return 0, 0
        steps.reset_counters(ws)
        steps.bitmap_to_queue(ws)
        if own is None:
            count = int(steps.read_counters(ws)[CNT_NEXT_COUNT])
            if count == 0:
                return 0, 0
            steps.reset_counters(ws)
            total_edges = steps.frontier_edges(block, ws, count)
        else:
            count, total_edges = own
            steps.reset_counters(ws)
        steps.top_down_balanced(block, ws, count, total_edges, level, *gpu.step_arrays(),
                                scanned=own is None)
        found = int(steps.read_counters(ws)[CNT_NEXT_COUNT]) if total_edges else 0
        ws.swap_queues()
        return found, total_edges

    def _bottom_up_owned(self, level, own_parents, own_levels, queue_next=False) -> tuple[int, int, int]:
        """A bottom-up step on a one-column grid's block into the owner's
        results (the first writes them whole while they are incomplete), or
        the one already queued for ``level``; returns (found, their degree
        sum, edges examined), read in one host round trip. Its next bitmap's
        first piece is the owner's new piece. With ``queue_next`` the next
        level's step and its send are queued before the read: its frontier
        is this level's gathered bitmap (the stream waits for the send), its
        counters go to the spare set, and this level's exchange is done."""
        from ..backends.cuda import bfs_steps as steps
        from ..backends.cuda.abi import CNT_EDGES, CNT_NEXT_COUNT, CNT_NEXT_DEGREE

        ws = self.gpu.ws
        if self.queued_ahead == level:
            ws.swap_counters()  # its counters went to the spare set
            self.queued_ahead = None
        else:
            self._queue_bottom_up(level, own_parents, own_levels)
        if queue_next:
            self._finish_overlap("column_allgather")  # the stream waits; the gathered bitmap is the frontier
            self.exchanged_ahead = True
            ws.swap_counters()
            self._queue_bottom_up(level + 1, own_parents, own_levels)
            ws.swap_counters()
            self.queued_ahead = level + 1
        counters = steps.wait_counters(ws)
        return int(counters[CNT_NEXT_COUNT]), int(counters[CNT_NEXT_DEGREE]), int(counters[CNT_EDGES])

    def _queue_bottom_up(self, level, own_parents, own_levels) -> None:
        """One bottom-up step into the current counter set, its counters'
        copy queued behind it (overlapped: its send too)."""
        from ..backends.cuda import bfs_bottom_up
        from ..backends.cuda import bfs_steps as steps

        gpu = self.gpu
        steps.reset_counters(gpu.ws)
        whole_from = None if self.complete else self.local_source
        if self._overlapped(level):
            self.complete |= self._chunked_bottom_up(level, own_parents, own_levels, whole_from)
        else:
            self.complete |= bfs_bottom_up.bottom_up(gpu.block, gpu.ws, gpu.tuning, level, own_levels, own_parents,
                                                     gpu.in_indices, gpu.rows, whole_from, degrees_in_rows=True,
                                                     rows=self.part.piece)
        steps.queue_counter_copy(gpu.ws)

    def _overlapped(self, level) -> bool:
        """Whether ``level``'s bottom-up step sends its piece while it runs:
        overlap is on here and a level may follow (past ``depth_limit`` none
        does; an empty next frontier is known only after the step)."""
        return self.overlap is not None and (self.depth_limit is None or level < self.depth_limit)

    def _chunked_bottom_up(self, level, own_parents, own_levels, whole_from) -> bool:
        """The one-column bottom-up step as one launch of the launcher per row
        range (:func:`_range_step`), each range's new frontier words sent to
        the column on the communication stream once its kernels are done,
        into the spare bitmap at every rank's offset (:meth:`_finish_overlap`
        waits and swaps). The ranges' counts add into the step's counters.
        The first bottom-up level's whole-array writes (``whole_from``) stay
        whole: every range writes all its words, the source's range knows
        the source by its offset there. Returns whether they were written whole."""
        from ..backends.cuda import bfs_bottom_up
        from ..backends.cuda.abi import CNT_LARGE_LEFT

        gpu, overlap, clock = self.gpu, self.overlap, self.clock
        ws, main = gpu.ws, self.cupy.cuda.get_current_stream()
        spare = gpu.spare_bitmap()
        piece, ranks = self.part.piece, self.dcol.size
        whole = False
        for k, (start, stop) in enumerate(overlap.ranges):
            if k:  # the fig. 4 kernel skips a range whose fig. 6 kernel left no large vertex
                _zero_counter(ws, CNT_LARGE_LEFT)
            block, view, levels, parents, rows, source, n = _range_step(gpu, start, stop, own_levels, own_parents,
                                                                        piece, whole_from)
            whole |= bfs_bottom_up.bottom_up(block, view, gpu.tuning, level, levels, parents, gpu.in_indices, rows,
                                             source, degrees_in_rows=True, rows=n)
            overlap.ready[k].record(main)
            overlap.stream.wait_event(overlap.ready[k])
            first, last = start // 32, stop // 32
            with clock.collective("column_allgather", self.dcol):  # the launch; its wait is _finish_overlap's
                self.dcol.allgather_into(ws.next_frontier[first:last], spare,
                                         [rank * self.row_words + first for rank in range(ranks)],
                                         stream=overlap.stream)
        overlap.sent.record(overlap.stream)
        self.in_flight = True
        return whole

    def _finish_overlap(self, name: str) -> None:
        """The search's stream waits for an overlapped step's sends (with
        ``measure_wait`` the host too: what is left of the transfer after the
        step, billed as communication under ``name``). "column_allgather":
        the spare bitmap now holds the column's next frontier and becomes
        ``ws.frontier``; "column_allgather_unread": no level follows (the
        step found nothing anywhere), so the bits arrived for nothing."""
        gpu = self.gpu
        with self.clock.collective(name, self.dcol):
            self.cupy.cuda.get_current_stream().wait_event(self.overlap.sent)
            self._sync()
        self.in_flight = False
        if name == "column_allgather":
            gpu.ws.frontier, gpu.spare_frontier = gpu.spare_frontier, gpu.ws.frontier
        else:  # the step's send launches, filed before the level was known to be the last, go with their wait
            collectives = self.clock.record.collectives
            sends, unread = collectives.pop("column_allgather", None), collectives[name]
            if sends is not None:
                for key, value in sends.items():
                    unread[key] += value

    def _top_down_owned(self, level, count, total_edges, own_parents, own_levels) -> tuple[int, int, int]:
        """A top-down step on a one-column grid's block into the owner's
        results, from the frontier's ``count`` vertices (the column block is
        every vertex, so the allreduced count is the column's) and, on a
        whole-graph block, ``total_edges`` (the previous level's degree sum:
        there the block's out-degrees are the degrees); returns (found, their
        degree sum, edges examined). The found vertices are left in
        ``ws.queue_in`` (owner-local ids); on a whole-graph block they also
        become the frontier bitmap, and the queue stays the next top-down
        level's input."""
        from ..backends.cuda import bfs_steps as steps
        from ..backends.cuda.abi import CNT_NEXT_COUNT, CNT_NEXT_DEGREE

        gpu = self.gpu
        ws, block = gpu.ws, gpu.block
        if not self.queue_ready:
            steps.reset_counters(ws)
            steps.bitmap_to_queue(ws)
        steps.reset_counters(ws)
        if not self.whole_graph:  # the out-rows hold only the arcs into this rank's rows
            total_edges = steps.frontier_edges(block, ws, count)
        steps.top_down_balanced(block, ws, count, total_edges, level, own_levels, own_parents,
                                degree_indptr=block.in_indptr, scanned=not self.whole_graph)
        ws.swap_queues()
        counters = steps.read_counters(ws)
        found, degrees = int(counters[CNT_NEXT_COUNT]), int(counters[CNT_NEXT_DEGREE])
        if self.whole_graph:
            steps.queue_to_bitmap(ws, found)
        self.queue_ready = self.whole_graph
        return found, degrees, total_edges

    def _pairs(self, found):
        """The claimed targets as (owner-local vertex, global parent) pairs
        grouped by owner (``fold_count``, ``fold_pack``), and the host counts."""
        from ..backends.cuda import bfs_steps as steps

        cp = self.cupy
        gpu, g = self.gpu, self.g
        owners, width = self.grid.cols, 1 if self.shift else 2
        if found == 0:
            return cp.empty(0, dtype=cp.int64), np.zeros(owners, dtype=np.int64)
        targets, piece, wide = gpu.ws.queue_in[:found], steps.i64(g.part.piece), gpu.ws.index64
        if owners == 1:
            counts = np.array([found], dtype=np.int64)
        else:
            self.owner_counts.fill(0)
            fn = steps.get_kernel(FOLD_KERNELS, "fold_count", wide)
            fn((steps.blocks(found),), (steps.BLOCK,),
               (targets, steps.i64(found), piece, np.int32(owners), self.owner_counts))
            counts = self.owner_counts.get().astype(np.int64)
        starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
        cursor = cp.asarray(starts.astype(np.uint64))
        pairs = cp.empty(found * width, dtype=cp.int64)
        fn = steps.get_kernel(FOLD_KERNELS, "fold_pack", wide)
        fn((steps.blocks(found),), (steps.BLOCK,),
           (targets, steps.i64(found), piece, np.int32(owners), gpu.step_arrays()[1], steps.i64(g.col_offset),
            np.int32(self.shift), cursor, pairs))
        return pairs, counts * width

    def _owned_level(self, choice, level, count, total_edges, record, own_parents, own_levels, queue_next=False):
        """A level on a one-column grid (P = 1 included): the step writes the
        owner's results, nothing folds. Returns (accepted, their degree sum,
        what holds them: on a whole-graph block the bitmap for
        :meth:`_exchange`, else the direction of the step, whose output
        :meth:`_exchange_owned` reads). ``queue_next``: a bottom-up level
        also queues the next one's step (:meth:`_bottom_up_owned`)."""
        ws = self.gpu.ws
        if choice == BOTTOM_UP:
            found, degrees, examined = self._bottom_up_owned(level, own_parents, own_levels, queue_next)
            self.queue_ready, exchanged = False, ws.next_frontier
        else:
            found, degrees, examined = self._top_down_owned(level, count, total_edges, own_parents, own_levels)
            exchanged = ws.frontier
        record.examined, record.found, record.sent, record.received = examined, found, found, found
        self._no_fold()
        return found, degrees, (exchanged if self.whole_graph else choice)

    def _exchange_owned(self, held: str, counts, next_direction) -> None:
        """A one-column grid's exchange (R > 1): the ranks' new frontier
        pieces to every rank, as the next step reads them. Before a top-down
        step, while the ids are fewer bytes than the bitmap, they travel as
        ids (an all-gather-v into ``ws.queue_in``: the top-down step's input,
        no bitmap to scan); else as the bitmap (an all-gather into
        ``ws.frontier``). ``held``: the direction of the step that found them
        (bottom-up: bits in ``ws.next_frontier``; top-down or the root: owner-local
        ids in ``ws.queue_in``); ``counts``: every rank's number of them (host).
        After an overlapped bottom-up step (``overlap_chunks``) the bitmap
        is already on its way: this waits for it, whatever the next direction."""
        from ..backends.cuda import bfs_steps as steps

        ws, clock = self.gpu.ws, self.clock
        found, total = int(counts[self.grid.rank]), int(counts.sum())
        clock.none("row_allgather")  # the row is this rank: the step set its visited bits
        clock.none("transpose")  # on one column every rank keeps its piece
        if self.exchanged_ahead:  # the next level's step, queued ahead, already reads this level's bitmap
            self.exchanged_ahead = False
            return
        if self.in_flight:  # the step sent its bitmap while it ran: whatever the next direction, it is here
            self._finish_overlap("column_allgather")
            self.queue_ready = False
            return
        if next_direction == TOP_DOWN and total * ws.queue_in.itemsize <= 4 * self.col_words:
            if held == BOTTOM_UP and found:
                steps.reset_counters(ws)
                fn = steps.get_kernel("bfs_convert.cu", "bitmap_to_queue", ws.index64)
                fn((steps.blocks(self.row_words),), (steps.BLOCK,),
                   (ws.next_frontier, steps.i64(self.row_words), ws.queue_in, ws.counters))
            # Owner-local ids to global (column-local) ones, written at this
            # rank's place in the gathered queue, which the all-gather then
            # leaves where they are.
            at = int(counts[: self.dcol.rank].sum())
            mine = ws.queue_out[at : at + found]
            gpu_steps.offset_queue(ws, found, self.g.first_vertex, mine)
            with clock.collective("column_allgather", self.dcol):
                self.dcol.allgatherv(mine, counts, out=ws.queue_out)
                self._sync()
            ws.swap_queues()
            self.queue_ready = True
            return
        if held == BOTTOM_UP:
            bits = ws.next_frontier[: self.row_words]
        else:
            steps.queue_to_bitmap(ws, found)
            bits = ws.frontier[: self.row_words]
        with clock.collective("column_allgather", self.dcol):
            col_bits = self.dcol.allgather(bits)
            self._sync()
        ws.frontier[: self.col_words] = col_bits
        self.queue_ready = False

    def _small_level(self, level, count, edges, record, own_parents, own_levels) -> np.ndarray:
        """A top-down level whose frontier (``count`` vertices, ``edges``
        arcs in all) holds at most ``fixed_ids_edges`` arcs, on a one-column
        grid (:mod:`.gpu_small_levels`): one kernel into the owner's results,
        every rank's segment (its finds as global ids, with its count, their
        degree sum and the arcs it examined) in one all-gather of equal
        parts, the headers read back, the gathered ids as the next queue.
        Returns every rank's (found, degree sum), in rank order, as the
        totals' all-gather gives them."""
        from ..backends.cuda import bfs_steps as steps
        from ..backends.cuda.abi import SEG_COUNT, SEG_DEGREE, SEG_EXAMINED

        ws = self.gpu.ws
        if not self.queue_ready:
            steps.reset_counters(ws)
            steps.bitmap_to_queue(ws)
        small = self.gpu.small_levels(self.fixed_edges)
        self._no_fold()
        headers = small.run(ws.queue_in, count, edges, level, own_levels, own_parents, self.tile_arcs, self.clock,
                            self.capture)
        self.clock.none("row_allgather")  # the row is this rank: the step set its visited bits
        self.clock.none("transpose")  # on one column every rank keeps its piece
        self.queue_ready = False
        mine = headers[self.dcol.rank]
        found = int(mine[SEG_COUNT])
        record.examined, record.found, record.sent, record.received = int(mine[SEG_EXAMINED]), found, found, found
        return np.stack((headers[:, SEG_COUNT], headers[:, SEG_DEGREE]), axis=1).reshape(-1)

    def _from_segments(self, next_direction: str, total: int) -> None:
        """The last small level's gathered finds (``total`` in all), already
        the queue (global ids), as the next step reads them: the queue
        before a top-down step, the column's frontier bitmap before a
        bottom-up one."""
        from ..backends.cuda import bfs_steps as steps

        if next_direction == TOP_DOWN:
            self.queue_ready = True
        else:
            steps.queue_to_bitmap(self.gpu.ws, total)

    def _no_fold(self) -> None:
        """End a level's compute with an empty fold entry: nothing to fold
        where the rank owns its row block, and the trace's columns stay those
        of every P."""
        self.clock.lap("compute")
        self.clock.none("fold")

    def _row_level(self, choice, level, frontier_edges, record, own_parents, own_levels, piece_bits):
        """A cooperative bottom-up level where the rank owns its whole row
        block: the step shared with the host cores into the step's arrays,
        then the owner accepts its claimed targets straight from its queue
        (nothing to fold). Returns (accepted, their degree sum)."""
        self.queue_ready = False
        found, examined = self._block_step(choice, level, frontier_edges, record)
        record.examined, record.found, record.sent, record.received = int(examined), int(found), int(found), int(found)
        self._no_fold()
        return self._accept_claimed(found, level, own_parents, own_levels, piece_bits)

    def _folded_level(self, choice, level, frontier_edges, record, own_parents, own_levels, piece_bits):
        """A level of seed 000's fig. 8: the step, the claimed targets folded
        to their owners over the grid row, the owners accept. Returns
        (accepted, their degree sum)."""
        found, examined = self._block_step(choice, level, frontier_edges, record)
        record.examined, record.found, record.sent = int(examined), int(found), int(found)
        pairs, counts = self._pairs(found)
        self.clock.lap("compute")
        if self.measure_wait:
            self.grid.world.barrier()
            self.clock.lap("wait")
        with self.clock.collective("fold", self.drow):
            received, _ = self.drow.alltoallv(pairs, counts)
            self._sync()
        record.received = int(received.shape[0]) // (1 if self.shift else 2)
        return self._accept(received, level, own_parents, own_levels, piece_bits)

    def _decide(self, level, frontier_vertices, frontier_edges, unexplored, previous, direction, depth_limit):
        """The policy's decision for ``level``, or None where the search ends
        there (an empty frontier, or ``depth_limit`` reached). A level whose
        step is queued runs bottom-up; nothing is queued past ``depth_limit``."""
        if frontier_vertices == 0 or (depth_limit is not None and level > depth_limit):
            return None
        g = self.g
        return self.policy.choose(
            LevelState(level, g.n, g.m, frontier_vertices, frontier_edges, unexplored, previous, direction),
            queued=self.queued_ahead == level, last_level=depth_limit)

    def run(self, source: int, depth_limit):
        cp = self.cupy
        g, grid, clock, gpu = self.g, self.grid, self.clock, self.gpu
        world = grid.world
        piece = g.part.piece
        self.depth_limit = depth_limit
        make = functools.partial(cp.full, fill_value=-1) if self.complete else cp.empty
        own_parents, own_levels = make(piece, dtype=cp.int64), make(piece, dtype=cp.int32)
        # A one-column grid's own steps (R > 1) set their finds' visited bits
        # and exchange from the step's output: no piece bitmap unless a
        # cooperative level accepts into one.
        spread = self.owns_rows and not self.whole_graph
        piece_bits = None if spread and self.share is None else cp.zeros(piece // 32, dtype=cp.uint32)
        trace = []

        root_record = self.record_type(0, "root", "", 0, 0, 0, 0, 0, discovered=1)
        self._start(root_record)
        clock.start(root_record)
        root_edges = 0
        local_root = source - g.first_vertex
        self.local_source = local_root if 0 <= local_root < piece else -1
        if not spread:
            gpu.ws.visited[...] = gpu.ws.unreachable  # no vertex of the row block is visited yet
            if self.local_source >= 0:
                own_parents[local_root] = source
                own_levels[local_root] = 0
                piece_bits[local_root >> 5] = np.uint32(1 << (local_root & 31))
        if self.local_source >= 0:
            root_edges = int(g.degree[local_root])
        if self.column_is_piece:
            self.own_frontier = (int(0 <= local_root < piece), root_edges)
        with clock.collective("allreduce", world):
            root_counts = world.allgather(np.array([int(self.local_source >= 0), root_edges], dtype=np.int64))
        frontier_edges = int(root_counts[1::2].sum())
        frontier_vertices, previous = 1, 0
        unexplored = g.m - frontier_edges
        direction = TOP_DOWN
        level = 0
        decision = self._decide(level + 1, frontier_vertices, frontier_edges, unexplored, previous, direction,
                                depth_limit)
        if spread:
            # Visited, the owner's root and the queue in one launch. Every rank
            # knows the root: for a top-down level 1 it is the queue on every
            # rank (as the column all-gather of its id would leave it), sent by
            # none; for a bottom-up one the owner's id goes out as a bitmap.
            top_down = decision is not None and decision.direction == TOP_DOWN
            gpu_steps.start_distributed(gpu.ws, self.local_source, source, source if top_down else self.local_source,
                                    own_levels, own_parents)
            self.queue_ready = top_down
            if decision is not None and not top_down:
                self._exchange_owned(TOP_DOWN, root_counts[0::2], decision.direction)
        elif decision is not None:
            self._exchange(piece_bits)
        trace.append(clock.stop())

        while decision is not None:
            level += 1
            choice, reason = decision.direction, decision.reason
            record = self.record_type(level, choice, reason, frontier_vertices, frontier_edges, 0, 0, 0,
                                      unexplored_edges=unexplored)
            self._start(record)
            clock.start(record)
            small = self.fixed_edges > 0 and choice == TOP_DOWN and frontier_edges <= self.fixed_edges
            if small:  # the totals come with the finds: no host all-gather
                counts = self._small_level(level, frontier_vertices, frontier_edges, record, own_parents, own_levels)
                exchanged = None
            else:
                if self.owns_rows and (choice == TOP_DOWN or self.share is None):
                    accepted, accepted_edges, exchanged = self._owned_level(
                        choice, level, frontier_vertices, frontier_edges, record, own_parents, own_levels,
                        decision.queue_next and self._overlapped(level + 1))
                elif self.owns_rows:
                    accepted, accepted_edges = self._row_level(
                        choice, level, frontier_edges, record, own_parents, own_levels, piece_bits)
                    exchanged = piece_bits
                else:
                    accepted, accepted_edges = self._folded_level(
                        choice, level, frontier_edges, record, own_parents, own_levels, piece_bits)
                    exchanged = piece_bits
                if self.column_is_piece:
                    self.own_frontier = (accepted, accepted_edges)
                with clock.collective("allreduce", world):
                    counts = world.allgather(np.array([accepted, accepted_edges], dtype=np.int64))
            record.discovered = int(counts[0::2].sum())
            previous = frontier_vertices
            frontier_vertices, frontier_edges = record.discovered, int(counts[1::2].sum())
            unexplored -= frontier_edges
            direction = choice
            # The next level's direction, before the exchange: it sets the form
            # the frontier travels in, and no exchange follows the last level.
            decision = self._decide(level + 1, frontier_vertices, frontier_edges, unexplored, previous, direction,
                                    depth_limit)
            if decision is not None:
                if small:
                    self._from_segments(decision.direction, record.discovered)
                elif isinstance(exchanged, str):  # a one-column step's output, R > 1 (see _owned_level)
                    self._exchange_owned(exchanged, counts[0::2], decision.direction)
                else:
                    self._exchange(exchanged)
            elif self.in_flight:  # an overlapped step that turned out to be the last
                self._finish_overlap("column_allgather_unread")
            trace.append(clock.stop())
        if not self.complete:
            from ..backends.cuda import bfs_steps as steps

            steps.complete_results(gpu.block, gpu.ws, self.local_source, own_levels, own_parents, n=piece)
        return own_parents, own_levels, trace
