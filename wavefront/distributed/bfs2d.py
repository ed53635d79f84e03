"""2-D partitioned direction-optimizing BFS (seed 000 §2.4, fig. 8) on CPU ranks.

One driver loop per search, collective over the grid. Each level:

1. **Policy** (global): every rank holds the same frontier counts ``n_f``,
   ``m_f`` (allreduced at the end of the previous level) and asks the same
   :mod:`wavefront.bfs.policy` object, so all ranks run the same direction
   and the decisions are those of the single-process hybrid on this graph.
2. **Local step** on the block ``A_ij``, with the CPU backend's numba steps:
   top-down expands the column block's frontier (a queue made from the
   allgathered bitmap; fig. 8 steps 1-2) along the block CSR and claims
   unvisited targets of the row block; bottom-up scans the row block's
   unvisited targets along the block CSC for a parent in the column block's
   frontier bitmap. ``candidate`` (one entry per row-block target) is the
   steps' parent array: ``-1`` unvisited, otherwise visited (claimed here,
   or reported by the row; :func:`._kernels.mark_visited`).
3. **Fold** (fig. 8 steps 5-12): on big levels the ranks of a grid row first
   agree on one sender per discovered target (steps 6-8: an exclusive
   OR-scan of their found bitmaps; each rank drops the targets a rank before
   it found; :class:`~.tuning.DistributedTuning` says when). The remaining
   ``(target, parent)`` pairs, packed into one int64 each where the ids fit,
   go to the targets' owners, ranks of the same grid row, in one
   all-to-all-v; the owner keeps the first pair per unvisited vertex (step 12).
4. **Exchange** (fig. 8 step 7): the owners' new frontier pieces are
   allgathered in the grid row (every rank learns what its row block found,
   which keeps ``candidate`` and the bottom-up unvisited bitmap exact) and,
   after the transpose (a pairwise swap on a square grid), in the grid
   column (the next level's frontier over the column block). The counts of
   the new frontier are allreduced.

On a one-column grid (R x 1, the CPU default on one host, and P = 1) a
rank's row block is its own piece: its step's finds are already the
owner's, unvisited there and each found once, so steps 3 and 4's row part
are skipped. The finds' parents and levels are written straight from the
step's output (:func:`._kernels.own_top_down_finds`,
:func:`._kernels.own_bottom_up_finds`), and the column all-gather is the
only exchange. The trace files the fold, row all-gather and transpose as
empty entries (as the GPU blocks do), and a level's ``sent`` and
``received`` are its finds, handed to itself.

Per level and rank the trace (:class:`~._trace.LevelRecord`) splits the
seconds into compute (steps, packing, applying), communication (the
collectives, each also on its own) and wait (a barrier before the fold: time
spent waiting for slower ranks, so load imbalance is not billed as
communication), with the bytes moved.

Levels are BFS distances, so they equal the single-process search's for the
same graph and root; parents may differ (any valid BFS tree).
Not built on CPU ranks: overlapping communication with computation (the
GPU blocks do it, :mod:`.gpu`), a sparse frontier exchange for small
frontiers.
"""
from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field

import numpy as np

from .._limits import depth_limit_levels
from ..bfs.policy import BOTTOM_UP, TOP_DOWN, LevelState, make_policy
from ..results import BFSResult, Trace
from ._trace import Clock, LevelRecord
from .graph import DistributedGraph
from .tuning import DEFAULT_TUNING, DistributedTuning

METHOD = "2d-hybrid"
_WORKSPACE_KEY = "distributed.bfs_workspace"


class _Workspace:
    """Search buffers of one graph, reused by its searches (first touch is costly)."""

    def __init__(self, g: DistributedGraph):
        from ..backends.cpu import _bfs_steps as steps

        n_row, n_col = g.part.row_block_size, g.part.col_block_size
        index = g.indices.dtype
        self.candidate = np.empty(n_row, dtype=np.int64)
        self.scratch_levels = np.empty(n_row, dtype=np.int32)  # the steps write levels; owners keep the real ones
        self.claimed = np.empty(n_row, dtype=index)
        self.queue = np.empty(n_col, dtype=index)
        self.unvisited = np.empty(n_row // 64, dtype=np.int64)
        self.next_bits = np.empty(n_row // 64, dtype=np.int64)
        self.piece_bits = np.empty(g.part.piece // 64, dtype=np.int64)
        self.found_bits = np.empty(n_row // 64, dtype=np.int64)
        self.block_edges = np.empty(n_col // steps.QUEUE_BLOCK + 2, dtype=np.int64)
        self.counters = np.zeros(2, dtype=np.int64)


def pair_shift(part, tuning: DistributedTuning) -> int:
    """Bits of a piece-local target in a packed pair; 0: pairs are not packed
    (two int64 each) because a target and a parent id do not fit in 63 bits."""
    target_bits = max(1, (part.piece - 1).bit_length())
    parent_bits = max(1, (part.n_pad - 1).bit_length())
    return target_bits if tuning.pack_pairs and target_bits + parent_bits <= 63 else 0


@dataclass
class DistributedBFSResult:
    """This rank's share of a distributed BFS: its owned vertices' parents
    (global ids, -1 unreached) and levels (-1 unreached), from vertex
    ``first_vertex`` on (NumPy arrays; CuPy arrays on the GPU's device after a
    GPU search, :mod:`.gpu`); ``trace`` holds this rank's :class:`LevelRecord` rows."""

    source: int
    parents: np.ndarray
    levels: np.ndarray
    first_vertex: int
    n: int
    world: object = field(repr=False)
    policy: str = ""
    trace: list = field(default_factory=list)
    seconds: float = float("nan")
    backend: str = "cpu"

    @property
    def reached(self) -> np.ndarray:
        return self.parents >= 0

    @property
    def depth(self) -> int:
        """The largest level reached anywhere (collective)."""
        local = np.array([int(self.levels.max()) if self.levels.size else 0], dtype=np.int64)
        return int(self.world.allreduce(local, op="max")[0])

    def gather(self, root: int = 0) -> BFSResult | None:
        """The whole result as a single-process :class:`~wavefront.results.BFSResult`
        on rank ``root`` (None elsewhere; collective). Its trace is ``root``'s levels."""
        from ._exchange import on_host

        parents = self.world.gatherv(on_host(self.parents), root)
        levels = self.world.gatherv(on_host(self.levels), root)
        if parents is None:
            return None
        trace = Trace()
        for r in self.trace:
            trace.add(r.level, r.direction, r.frontier_vertices, r.examined, r.seconds, r.reason)
        return BFSResult(
            source=self.source, parents=parents[: self.n], levels=levels[: self.n], trace=trace,
            method=f"{METHOD}({self.policy})", backend=self.backend, seconds=self.seconds,
        )

    def gather_trace(self, root: int = 0) -> list[dict] | None:
        """Every rank's level records as dicts with a ``rank`` key, on ``root`` (collective)."""
        rows = [{"rank": self.world.rank, **asdict(r)} for r in self.trace]
        everyone = self.world.allgather_object(rows) if self.world.size > 1 else [rows]
        return [row for rows in everyone for row in rows] if self.world.rank == root else None


def bfs(graph: DistributedGraph, source: int, policy=None, alpha=None, beta=None,
        depth_limit: int | None = None, measure_wait: bool = True,
        tuning: DistributedTuning | None = None) -> DistributedBFSResult:
    """Direction-optimizing BFS from ``source`` over the grid (collective: every
    rank calls it with the same arguments).

    ``policy``: a :class:`~wavefront.bfs.policy.DirectionPolicy` or its name
    ("gap", the default; "seed000"; "top-down"/"bottom-up" for one direction),
    ``alpha``/``beta`` override its constants; ``depth_limit`` stops after that
    many levels; ``measure_wait`` adds a barrier before each fold so the trace
    tells waiting from communicating (off: a little faster, wait folded into
    communication); ``tuning`` (:class:`~.tuning.DistributedTuning`) decides
    the fold's deduplication and packing.
    """
    chosen = make_policy(policy, alpha, beta)
    source = graph.source_index(source)
    depth_limit = depth_limit_levels(depth_limit, graph.n)
    from ..backends.cpu._threads import StepThreads

    start = time.perf_counter()
    work = graph.derived.pop(_WORKSPACE_KEY, None) or _Workspace(graph)
    threads = StepThreads()
    try:
        parents, levels, trace = _search(graph, source, chosen, depth_limit, measure_wait, work, threads,
                                         DEFAULT_TUNING if tuning is None else tuning)
    finally:
        threads.restore()
        graph.derived[_WORKSPACE_KEY] = work
    return DistributedBFSResult(
        source=source, parents=parents, levels=levels, first_vertex=graph.first_vertex, n=graph.n,
        world=graph.world, policy=getattr(chosen, "name", type(chosen).__name__), trace=trace,
        seconds=time.perf_counter() - start,
    )


def _exchange_frontier(grid, piece_bits, clock):
    """The owners' new frontier pieces over the row block and the column block."""
    with clock.collective("row_allgather", grid.row):
        row_bits = grid.row.allgather(piece_bits)
    with clock.collective("transpose", grid.world):
        held = grid.transpose(piece_bits)
    with clock.collective("column_allgather", grid.col):
        col_bits = grid.col.allgather(held)
    return row_bits, col_bits


def _block_step(g, work, threads, choice, level, col_bits, frontier_edges, unvisited_current, queue_finds=True):
    """One direction's step on this rank's block; the targets it claimed are
    ``work.claimed[:found]`` with their parents in ``candidate`` (a bottom-up
    step's are in ``work.next_bits`` too, and only there unless
    ``queue_finds``). Returns (found, edges examined)."""
    from ..backends.cpu import _bfs_steps as steps

    candidate = work.candidate
    if choice == BOTTOM_UP:
        workers = threads.use(g.part.row_block_size)
        if not unvisited_current:
            steps.unvisited_bitmap(candidate, g.in_indptr, work.unvisited)
        # The block CSC stands in for the step's out-degree array too: the
        # degree sum it returns is not used (owners count m_f).
        found, _, examined = steps.bottom_up_step(
            g.in_indptr, g.in_indices, g.in_indptr, candidate, work.scratch_levels, level,
            col_bits, work.unvisited, work.next_bits, work.counters, workers,
        )
        if not queue_finds:
            return found, examined
        words = work.next_bits.shape[0]
        found = steps.bitmap_to_queue(work.next_bits, work.claimed, work.counters, threads.use(words))
        return found, examined
    size = steps.bitmap_to_queue(col_bits, work.queue, work.counters, threads.use(col_bits.shape[0]))
    found, _, examined = steps.top_down_step(
        g.indptr, g.indices, candidate, work.scratch_levels, level,
        work.queue, size, work.claimed, work.block_edges, work.counters, threads.use(frontier_edges),
    )
    return found, examined


def _exchange_one_column(grid, piece_bits, clock):
    """The owners' new frontier pieces over the column: on one column the
    row is this rank alone and every rank keeps its piece."""
    clock.none("row_allgather")
    clock.none("transpose")
    with clock.collective("column_allgather", grid.col):
        return grid.col.allgather(piece_bits)


def _own_finds(g, work, threads, choice, found, parents, levels, level):
    """One column: the step's finds become the owner's (no fold). Returns
    (finds, their degree sum), this rank's share of the next ``n_f``, ``m_f``."""
    from . import _kernels

    if choice == BOTTOM_UP:
        words = work.next_bits.shape[0]
        threads.use(words)
        return _kernels.own_bottom_up_finds(work.next_bits, work.candidate, g.col_offset, parents, levels, level,
                                            g.degree, work.piece_bits)
    work.piece_bits.fill(0)
    threads.use(int(found))
    edges = _kernels.own_top_down_finds(work.claimed, int(found), work.candidate, g.col_offset, parents, levels,
                                        level, g.degree, work.piece_bits)
    return int(found), edges


def _dedupe(g, work, choice, found, clock):
    """The claimed targets no rank before this one in the grid row claimed
    (fig. 8 steps 6-8): an exclusive OR-scan of the row's found bitmaps."""
    from ..backends.cpu import _bfs_steps as steps

    claimed = work.claimed[: int(found)]
    if choice == BOTTOM_UP:
        bits = work.next_bits  # the step's own output: exactly the claimed targets
    else:
        bits = work.found_bits
        steps.queue_to_bitmap(claimed, int(found), bits)
    with clock.collective("fold_scan", g.grid.row):
        earlier = g.grid.row.exscan(bits, "bor")
    targets = claimed.astype(np.int64)
    mine = ((earlier[targets >> 6] >> (targets & 63)) & 1) == 0
    return targets[mine]


def _pairs_for_owners(g, work, targets, shift):
    """The targets as (vertex in its owner's piece, global parent) pairs,
    grouped by owner (ranks (i, 0..C-1) own the row block's pieces in order),
    packed into one int64 each when ``shift`` > 0; and the element count per owner."""
    piece = g.part.piece
    targets = np.sort(targets).astype(np.int64, copy=False)
    owner = targets // piece
    bounds = np.searchsorted(owner, np.arange(g.grid.cols + 1))
    local = targets - owner * piece
    parent = work.candidate[targets] + g.col_offset
    if shift:
        return (parent << shift) | local, np.diff(bounds)
    pairs = np.empty((targets.shape[0], 2), dtype=np.int64)
    pairs[:, 0], pairs[:, 1] = local, parent
    return pairs.reshape(-1), np.diff(bounds) * 2


def _dedupe_level(g, tuning, frontier_edges, shift) -> bool:
    """Whether this level's fold picks one sender per target (the same on every rank)."""
    if g.grid.cols == 1 or tuning.fold_dedupe == "never":
        return False
    if tuning.fold_dedupe == "always":
        return True
    pair_bytes = 8 if shift else 16
    bitmap_bytes = g.part.row_block_size / 8
    return frontier_edges * pair_bytes >= tuning.dedupe_ratio * g.grid.size * bitmap_bytes


def _wait_for_all(world, clock, measure_wait) -> None:
    """Bill what came before as compute and, with ``measure_wait``, the wait
    for the slowest rank as wait (a barrier), so that waiting is not billed
    as communication."""
    clock.lap("compute")
    if measure_wait:
        world.barrier()
        clock.lap("wait")


def _fold(g, work, threads, tuning, record, found, shift, mask, parents, levels, measure_wait, clock):
    """Fig. 8 steps 5-12 and the exchange, on a grid of more than one column:
    the claimed targets (one sender each on deduplicated levels) go to their
    owners, who keep the first pair per unvisited vertex; then the owners'
    pieces over the row and the column, and every rank marks what its row
    found. Returns (accepted, their degree sum, the next column bitmap)."""
    from . import _kernels

    grid, level, choice = g.grid, record.level, record.direction
    record.deduplicated = _dedupe_level(g, tuning, record.frontier_edges, shift)
    if record.deduplicated:
        targets = _dedupe(g, work, choice, found, clock)
    else:
        targets = work.claimed[: int(found)]
    pairs, counts = _pairs_for_owners(g, work, targets, shift)
    record.sent = int(targets.shape[0])
    _wait_for_all(grid.world, clock, measure_wait)
    with clock.collective("fold", grid.row):
        received, _ = grid.row.alltoallv(pairs, counts)
    work.piece_bits.fill(0)
    accepted, accepted_edges = _kernels.accept_parents(
        received, shift, mask, parents, levels, level, g.degree, work.piece_bits
    )
    record.received = received.shape[0] // (1 if shift else 2)
    row_bits, col_bits = _exchange_frontier(grid, work.piece_bits, clock)
    threads.use(row_bits.shape[0])
    _kernels.mark_visited(row_bits, work.candidate)
    if choice == BOTTOM_UP:  # the row's other finds leave the unvisited set too
        np.bitwise_and(work.unvisited, ~row_bits, out=work.unvisited)
    return accepted, accepted_edges, col_bits


def _search(g: DistributedGraph, source, policy, depth_limit, measure_wait, work, threads, tuning):
    from . import _kernels

    grid = g.grid
    world = grid.world
    piece = g.part.piece
    one_column = grid.cols == 1
    shift = pair_shift(g.part, tuning)
    mask = (1 << shift) - 1 if shift else 0
    parents = np.full(piece, -1, dtype=np.int64)
    levels = np.full(piece, -1, dtype=np.int32)
    candidate = work.candidate
    clock = Clock(world, grid.row, grid.col)
    trace = []

    # Level 0: the root's owner starts the frontier; everyone learns it.
    clock.start(LevelRecord(0, "root", "", 0, 0, 0, 0, 0, discovered=1))
    candidate.fill(-1)
    work.piece_bits.fill(0)
    root_edges = 0
    local_root = source - g.first_vertex
    if 0 <= local_root < piece:
        parents[local_root] = source
        levels[local_root] = 0
        work.piece_bits[local_root >> 6] |= np.int64(1) << (local_root & 63)
        root_edges = int(g.degree[local_root])
        if one_column:  # the row block is the piece: the root is visited here alone
            candidate[local_root] = _kernels.VISITED
    if one_column:
        col_bits = _exchange_one_column(grid, work.piece_bits, clock)
    else:
        row_bits, col_bits = _exchange_frontier(grid, work.piece_bits, clock)
    with clock.collective("allreduce", world):
        frontier_edges = int(world.allreduce(np.array([root_edges], dtype=np.int64))[0])
    if not one_column:
        # Bitmap scans count a word as one item of work: a few thousand words
        # take microseconds on one thread, less than waking the others.
        threads.use(row_bits.shape[0])
        _kernels.mark_visited(row_bits, candidate)
    trace.append(clock.stop())

    frontier_vertices = 1
    unexplored_edges = g.m - frontier_edges
    previous_frontier_vertices = 0
    direction = TOP_DOWN
    unvisited_current = False  # work.unvisited is exact (bottom-up levels in a row)
    level = 0
    while frontier_vertices > 0 and (depth_limit is None or level < depth_limit):
        level += 1
        state = LevelState(
            level, g.n, g.m, frontier_vertices, frontier_edges, unexplored_edges,
            previous_frontier_vertices, direction,
        )
        choice, reason = policy.choose(state)
        record = LevelRecord(level, choice, reason, frontier_vertices, frontier_edges, 0, 0, 0,
                             unexplored_edges=unexplored_edges)
        clock.start(record)
        found, examined = _block_step(g, work, threads, choice, level, col_bits, frontier_edges, unvisited_current,
                                      queue_finds=not one_column)
        unvisited_current = choice == BOTTOM_UP
        record.examined, record.found = int(examined), int(found)
        if one_column:
            accepted, accepted_edges = _own_finds(g, work, threads, choice, found, parents, levels, level)
            record.sent = record.received = int(accepted)  # handed to itself
            _wait_for_all(world, clock, measure_wait)
            clock.none("fold")
            col_bits = _exchange_one_column(grid, work.piece_bits, clock)
        else:
            accepted, accepted_edges, col_bits = _fold(g, work, threads, tuning, record, found, shift, mask, parents,
                                                       levels, measure_wait, clock)
        with clock.collective("allreduce", world):
            totals = world.allreduce(np.array([accepted, accepted_edges], dtype=np.int64))
        record.discovered = int(totals[0])
        trace.append(clock.stop())
        previous_frontier_vertices = frontier_vertices
        frontier_vertices, frontier_edges = int(totals[0]), int(totals[1])
        unexplored_edges -= frontier_edges
        direction = choice
    return parents, levels, trace
