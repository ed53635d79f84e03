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
3. **Fold** (fig. 8 steps 5, 11): the discovered ``(target, parent)`` pairs
   go to the targets' owners, ranks of the same grid row, in one
   all-to-all-v; the owner keeps the first pair per unvisited vertex (step 12).
4. **Exchange** (fig. 8 step 7): the owners' new frontier pieces are
   allgathered in the grid row (every rank learns what its row block found,
   which keeps ``candidate`` and the bottom-up unvisited bitmap exact) and,
   after the transpose (a pairwise swap on a square grid), in the grid
   column (the next level's frontier over the column block). The counts of
   the new frontier are allreduced.

Per level and rank the trace (:class:`LevelRecord`) splits the seconds into
compute (steps, packing, applying), communication (the collectives) and
wait (a barrier before the fold: time spent waiting for slower ranks, so
load imbalance is not billed as communication), with the bytes moved.

Levels are BFS distances, so they equal the single-process search's for the
same graph and root; parents may differ (any valid BFS tree).
Not built yet: overlapping communication with computation (seed 000 runs
GPU work under the transfers), sparse frontier exchange for small frontiers.
"""
from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field

import numpy as np

from ..bfs.policy import BOTTOM_UP, TOP_DOWN, LevelState, make_policy
from ..results import BFSResult, Trace
from .graph import DistributedGraph

METHOD = "2d-hybrid"
_WORKSPACE_KEY = "distributed.bfs_workspace"


@dataclass
class LevelRecord:
    """One level of one rank (level 0: setting up the root)."""

    level: int
    direction: str
    reason: str
    frontier_vertices: int  # n_f the level started from (global)
    frontier_edges: int  # m_f (global)
    examined: int  # arcs this rank's step examined
    sent: int  # (vertex, parent) pairs this rank sent in the fold
    received: int  # pairs it received as owner
    compute_seconds: float = 0.0
    comm_seconds: float = 0.0
    wait_seconds: float = 0.0
    bytes_out: int = 0  # payload sent to other ranks (all collectives of the level)
    bytes_in: int = 0

    @property
    def seconds(self) -> float:
        return self.compute_seconds + self.comm_seconds + self.wait_seconds


class _Clock:
    """Adds the time of each phase of a level to its :class:`LevelRecord`."""

    def __init__(self, grid):
        self.transports = (grid.world, grid.row, grid.col)

    def start(self, record: LevelRecord) -> None:
        self.record = record
        self.bytes = [(t.bytes_out, t.bytes_in) for t in self.transports]
        self.mark = time.perf_counter()

    def lap(self, phase: str) -> None:
        now = time.perf_counter()
        name = f"{phase}_seconds"
        setattr(self.record, name, getattr(self.record, name) + now - self.mark)
        self.mark = now

    def stop(self) -> LevelRecord:
        r = self.record
        for t, (out, into) in zip(self.transports, self.bytes):
            r.bytes_out += t.bytes_out - out
            r.bytes_in += t.bytes_in - into
        return r


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
        self.block_edges = np.empty(n_col // steps.QUEUE_BLOCK + 2, dtype=np.int64)
        self.counters = np.zeros(2, dtype=np.int64)


@dataclass
class DistributedBFSResult:
    """This rank's share of a distributed BFS: its owned vertices' parents
    (global ids, -1 unreached) and levels (-1 unreached), from vertex
    ``first_vertex`` on; ``trace`` holds this rank's :class:`LevelRecord` rows."""

    source: int
    parents: np.ndarray
    levels: np.ndarray
    first_vertex: int
    n: int
    world: object = field(repr=False)
    policy: str = ""
    trace: list = field(default_factory=list)
    seconds: float = float("nan")

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
        parents = self.world.gatherv(self.parents, root)
        levels = self.world.gatherv(self.levels, root)
        if parents is None:
            return None
        trace = Trace()
        for r in self.trace:
            trace.add(r.level, r.direction, r.frontier_vertices, r.examined, r.seconds, r.reason)
        return BFSResult(
            source=self.source, parents=parents[: self.n], levels=levels[: self.n], trace=trace,
            method=f"{METHOD}({self.policy})", backend="cpu", seconds=self.seconds,
        )

    def gather_trace(self, root: int = 0) -> list[dict] | None:
        """Every rank's level records as dicts with a ``rank`` key, on ``root`` (collective)."""
        rows = [{"rank": self.world.rank, **asdict(r)} for r in self.trace]
        everyone = self.world.allgather_object(rows) if self.world.size > 1 else [rows]
        return [row for rows in everyone for row in rows] if self.world.rank == root else None


def bfs(graph: DistributedGraph, source: int, policy=None, alpha=None, beta=None,
        depth_limit: int | None = None, measure_wait: bool = True) -> DistributedBFSResult:
    """Direction-optimizing BFS from ``source`` over the grid (collective: every
    rank calls it with the same arguments).

    ``policy``: a :class:`~wavefront.bfs.policy.DirectionPolicy` or its name
    ("gap", the default; "seed000"; "top-down"/"bottom-up" for one direction),
    ``alpha``/``beta`` override its constants; ``depth_limit`` stops after that
    many levels; ``measure_wait`` adds a barrier before each fold so the trace
    tells waiting from communicating (off: a little faster, wait folded into
    communication).
    """
    chosen = make_policy(policy, alpha, beta)
    source = int(source)
    if not 0 <= source < graph.n:
        raise ValueError(f"source {source} is out of range: the graph has vertices 0..{graph.n - 1}")
    if depth_limit is not None and (int(depth_limit) != depth_limit or depth_limit < 0):
        raise ValueError(f"depth_limit must be a non-negative integer, got {depth_limit!r}")
    from ..backends.cpu._threads import StepThreads

    start = time.perf_counter()
    work = graph.derived.pop(_WORKSPACE_KEY, None) or _Workspace(graph)
    threads = StepThreads()
    try:
        parents, levels, trace = _search(graph, source, chosen, depth_limit, measure_wait, work, threads)
    finally:
        threads.restore()
        graph.derived[_WORKSPACE_KEY] = work
    return DistributedBFSResult(
        source=source, parents=parents, levels=levels, first_vertex=graph.first_vertex, n=graph.n,
        world=graph.world, policy=getattr(chosen, "name", type(chosen).__name__), trace=trace,
        seconds=time.perf_counter() - start,
    )


def _exchange_frontier(grid, piece_bits):
    """The owners' new frontier pieces over the row block and the column block."""
    row_bits = grid.row.allgather(piece_bits)
    col_bits = grid.col.allgather(grid.transpose(piece_bits))
    return row_bits, col_bits


def _block_step(g, work, threads, choice, level, col_bits, frontier_edges, unvisited_current):
    """One direction's step on this rank's block; the targets it claimed are
    ``work.claimed[:found]`` with their parents in ``candidate``. Returns
    (found, edges examined)."""
    from ..backends.cpu import _bfs_steps as steps

    candidate = work.candidate
    if choice == BOTTOM_UP:
        workers = threads.use(g.part.row_block_size)
        if not unvisited_current:
            steps.unvisited_bitmap(candidate, g.in_indptr, work.unvisited)
        # The block CSC stands in for the step's out-degree array too: the
        # degree sum it returns is not used (owners count m_f).
        _, _, examined = steps.bottom_up_step(
            g.in_indptr, g.in_indices, g.in_indptr, candidate, work.scratch_levels, level,
            col_bits, work.unvisited, work.next_bits, work.counters, workers,
        )
        words = work.next_bits.shape[0]
        found = steps.bitmap_to_queue(work.next_bits, work.claimed, work.counters, threads.use(words))
        return found, examined
    size = steps.bitmap_to_queue(col_bits, work.queue, work.counters, threads.use(col_bits.shape[0]))
    found, _, examined = steps.top_down_step(
        g.indptr, g.indices, candidate, work.scratch_levels, level,
        work.queue, size, work.claimed, work.block_edges, work.counters, threads.use(frontier_edges),
    )
    return found, examined


def _pairs_for_owners(g, work, found):
    """The claimed targets as (vertex in its owner's piece, global parent) rows,
    grouped by owner (ranks (i, 0..C-1) own the row block's pieces in order),
    and the element count per owner."""
    piece = g.part.piece
    targets = np.sort(work.claimed[: int(found)]).astype(np.int64)
    owner = targets // piece
    bounds = np.searchsorted(owner, np.arange(g.grid.cols + 1))
    pairs = np.empty((targets.shape[0], 2), dtype=np.int64)
    pairs[:, 0] = targets - owner * piece
    pairs[:, 1] = work.candidate[targets] + g.col_offset
    return pairs.reshape(-1), np.diff(bounds) * 2


def _search(g: DistributedGraph, source, policy, depth_limit, measure_wait, work, threads):
    from . import _kernels

    grid = g.grid
    world = grid.world
    piece = g.part.piece
    parents = np.full(piece, -1, dtype=np.int64)
    levels = np.full(piece, -1, dtype=np.int32)
    candidate = work.candidate
    clock = _Clock(grid)
    trace = []

    # Level 0: the root's owner starts the frontier; everyone learns it.
    clock.start(LevelRecord(0, "root", "", 0, 0, 0, 0, 0))
    candidate.fill(-1)
    work.piece_bits.fill(0)
    root_edges = 0
    local_root = source - g.first_vertex
    if 0 <= local_root < piece:
        parents[local_root] = source
        levels[local_root] = 0
        work.piece_bits[local_root >> 6] |= np.int64(1) << (local_root & 63)
        root_edges = int(g.degree[local_root])
    clock.lap("compute")
    row_bits, col_bits = _exchange_frontier(grid, work.piece_bits)
    frontier_edges = int(world.allreduce(np.array([root_edges], dtype=np.int64))[0])
    clock.lap("comm")
    # Bitmap scans count a word as one item of work: a few thousand words
    # take microseconds on one thread, less than waking the others.
    threads.use(row_bits.shape[0])
    _kernels.mark_visited(row_bits, candidate)
    clock.lap("compute")
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
        record = LevelRecord(level, choice, reason, frontier_vertices, frontier_edges, 0, 0, 0)
        clock.start(record)
        found, examined = _block_step(g, work, threads, choice, level, col_bits, frontier_edges, unvisited_current)
        unvisited_current = choice == BOTTOM_UP
        pairs, counts = _pairs_for_owners(g, work, found)
        record.examined, record.sent = int(examined), int(found)
        clock.lap("compute")
        if measure_wait:
            world.barrier()
            clock.lap("wait")
        received, _ = grid.row.alltoallv(pairs, counts)
        clock.lap("comm")
        work.piece_bits.fill(0)
        accepted, accepted_edges = _kernels.accept_parents(
            received, parents, levels, level, g.degree, work.piece_bits
        )
        record.received = received.shape[0] // 2
        clock.lap("compute")
        row_bits, col_bits = _exchange_frontier(grid, work.piece_bits)
        totals = world.allreduce(np.array([accepted, accepted_edges], dtype=np.int64))
        clock.lap("comm")
        threads.use(row_bits.shape[0])
        _kernels.mark_visited(row_bits, candidate)
        if unvisited_current:  # the row's other finds leave the unvisited set too
            np.bitwise_and(work.unvisited, ~row_bits, out=work.unvisited)
        clock.lap("compute")
        trace.append(clock.stop())
        previous_frontier_vertices = frontier_vertices
        frontier_vertices, frontier_edges = int(totals[0]), int(totals[1])
        unexplored_edges -= frontier_edges
        direction = choice
    return parents, levels, trace
