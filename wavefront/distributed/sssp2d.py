"""Delta-stepping SSSP over the 2-D partition (Graph500 kernel 3, distributed).

The single-process method (:mod:`wavefront.backends.cpu.sssp`, Meyer &
Sanders' buckets of width ``delta`` with light and heavy arcs, Davidson et
al.'s near/far split) run bulk-synchronously over the process grid of
:mod:`.bfs2d`. Owners hold their piece's distances, a *near* set (improved
vertices of the current bucket) and a *far* pile (improved vertices of later
buckets). One **phase**, collective over the grid:

1. **Frontier exchange**: each owner's near set, as (vertex, distance) pairs,
   goes to the ranks of its grid column (the transpose, then an
   all-gather-v in the column: the sparse form of the BFS's bitmap
   exchange, since a bucket holds few vertices).
2. **Relaxation** of the block ``A_ij``'s light (``w <= delta``) or heavy arcs
   with the CPU backend's own step, :func:`~wavefront.backends.cpu._sssp_steps.relax_phase`,
   over a *joined* index space: ``[0, n_col)`` are the column block's
   vertices (the frontier's distances), ``[n_col, n_col + n_row)`` the row
   block's (the best distance this rank has offered each target), so one
   compare-and-swap array serves both. A light phase also records its
   frontier in the step's ``processed`` set, whose heavy arcs the bucket
   relaxes at its end; those vertices' distances are current there, since
   any later improvement reaches the column in a later light frontier.
3. **Fold**: every target the step improved goes to its owner (a rank of
   the same grid row) with the distance offered, in one all-to-all-v; the
   owner keeps the smaller and files the vertex near or far
   (:func:`._kernels.accept_distances`). Here and in the frontier exchange a
   (vertex, distance) pair is one int64 for 4-byte distances (local id and
   the distance's bits), else two.

Light phases repeat while any owner has a near set; then one heavy phase;
then, if nothing new is near, the lowest non-empty bucket of every far pile
(the CPU step's ``far_min_bucket``, minimum over the world) becomes current
(``split_far``). Every rank takes the same branches, from allreduced counts.

**Exactness.** Distances are computed in the distance dtype (float32 for
float32 weights, as on every backend; integer weights in int64; float64
weights in float64), ``d[v] = fl(d[u] + w)``. Because float addition of a
non-negative weight is monotone, the fixed point of ``d[v] = min_u fl(d[u] +
w)`` that any label-correcting search reaches is unique: the least value of
the left-to-right float sum over all paths. So the distances equal the
single-process run's bit for bit, for any grid and any order of relaxation
(a test).

**Parents** come from the final distances, as in the single-process method:
the owners' distances are allgathered over the row block and the column
block once, each rank finds for its row block's targets a tight arc from a
strictly closer vertex (the CPU step :func:`~wavefront.backends.cpu._sssp_steps.tight_parents`
on the joined index space), and the owners keep one per vertex. Vertices
only reachable along tight arcs within one distance (zero weights, or
weights the distance's rounding absorbs) are attached breadth-first in extra
rounds, so the tree has no cycle.
"""
from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field

import numpy as np

from ..results import SSSPResult, Trace
from . import _exchange
from ._trace import Clock, PhaseRecord
from .bfs2d import pair_shift
from .graph import DistributedGraph
from .tuning import DEFAULT_TUNING

METHOD = "2d-delta-stepping"
_WORKSPACE_KEY = "distributed.sssp_workspace"
_JOINED_KEY = "distributed.sssp_joined"
NO_BUCKET = np.iinfo(np.int64).max


@dataclass
class DistributedSSSPResult:
    """This rank's share of a distributed SSSP: its owned vertices' parents
    (global ids, -1 unreached) and distances (``inf`` unreached; float32 for
    float32 weights, else float64), from vertex ``first_vertex`` on; ``trace``
    holds this rank's :class:`~._trace.PhaseRecord` rows."""

    source: int
    parents: np.ndarray
    distances: np.ndarray
    first_vertex: int
    n: int
    world: object = field(repr=False)
    delta: float = float("nan")
    trace: list = field(default_factory=list)
    seconds: float = float("nan")
    parent_rounds: int = 0  # tight-arc rounds the parents took (1 unless zero-weight ties)

    @property
    def reached(self) -> np.ndarray:
        return self.parents >= 0

    def gather(self, root: int = 0) -> SSSPResult | None:
        """The whole result as a single-process :class:`~wavefront.results.SSSPResult`
        on rank ``root`` (None elsewhere; collective). Its trace is ``root``'s phases."""
        parents = self.world.gatherv(self.parents, root)
        distances = self.world.gatherv(self.distances, root)
        if parents is None:
            return None
        trace = Trace()
        for r in self.trace:
            trace.add(r.bucket, r.kind, r.frontier_vertices, r.examined, r.seconds, f"delta={self.delta:g}")
        return SSSPResult(
            source=self.source, parents=parents[: self.n], trace=trace, method=METHOD, backend="cpu",
            seconds=self.seconds, distances=distances[: self.n],
        )

    def gather_trace(self, root: int = 0) -> list[dict] | None:
        """Every rank's phase records as dicts with a ``rank`` key, on ``root`` (collective)."""
        rows = [{"rank": self.world.rank, **asdict(r)} for r in self.trace]
        everyone = self.world.allgather_object(rows) if self.world.size > 1 else [rows]
        return [row for rows in everyone for row in rows] if self.world.rank == root else None


class _Joined:
    """The block in the joined index space (see the module docstring), built
    once per graph: targets shifted by ``n_col``, the unit weights of an
    unweighted graph, and a CSC whose first ``n_col`` rows are empty."""

    def __init__(self, g: DistributedGraph):
        part = g.part
        self.n_col, self.n_row = part.col_block_size, part.row_block_size
        size = self.n_col + self.n_row
        index = np.int32 if size < 2**31 else np.int64
        self.indptr = g.indptr
        self.indices = (g.indices.astype(index) + index(self.n_col)).astype(index, copy=False)
        if g.weighted:
            self.weights, self.in_weights = g.weights, g.in_weights
        else:
            self.weights = np.ones(g.indices.shape[0], dtype=np.int32)
            self.in_weights = self.weights
        self.in_indptr = np.concatenate(
            (np.zeros(self.n_col, dtype=np.int64), g.in_indptr[: self.n_row + 1])
        )
        self.in_indices = g.in_indices.astype(index, copy=False)
        self.size = size
        self.index_dtype = index


def joined(g: DistributedGraph) -> _Joined:
    block = g.derived.get(_JOINED_KEY)
    if block is None:
        block = g.derived[_JOINED_KEY] = _Joined(g)
    return block


def distance_dtype(g: DistributedGraph) -> np.dtype:
    """The accumulation dtype: the weights' for floats, int64 for integers (and hops)."""
    if g.weighted and g.weights.dtype.kind == "f":
        return g.weights.dtype
    return np.dtype(np.int64)


def block_size(g: DistributedGraph) -> int:
    """Vertices of a column block."""
    return g.part.col_block_size


def _infinity(dtype):
    return dtype.type(np.inf) if dtype.kind == "f" else np.int64(np.iinfo(np.int64).max)


class _Workspace:
    """Buffers of the relaxing side (joined space) and the owning side (piece)."""

    def __init__(self, g: DistributedGraph, block: _Joined):
        dtype = distance_dtype(g)
        size, index, piece = block.size, block.index_dtype, g.part.piece
        self.dist = np.empty(size, dtype=dtype)  # joined: frontier distances | offered distances
        self.near_out, self.far_out = np.empty(size, index), np.empty(size, index)
        self.processed = np.empty(size, index)
        self.near_flags, self.far_flags = np.zeros(size, np.uint8), np.zeros(size, np.uint8)
        self.processed_flags = np.zeros(size, np.uint8)
        self.counters = np.zeros(4, np.int64)
        self.frontier = np.empty(block.n_col, index)
        # The owner's side.
        self.own_dist = np.empty(piece, dtype=dtype)
        self.near, self.far, self.far_next = (np.empty(piece, np.int64) for _ in range(3))
        self.own_near_flags, self.own_far_flags = np.zeros(piece, np.uint8), np.zeros(piece, np.uint8)
        self.own_counters = np.zeros(4, np.int64)
        self.parents = np.empty(size, dtype=np.int64)

    def reset(self, infinity) -> None:
        self.dist.fill(infinity)
        self.own_dist.fill(infinity)
        for flags in (self.near_flags, self.far_flags, self.processed_flags, self.own_near_flags,
                      self.own_far_flags):
            flags.fill(0)
        self.counters.fill(0)
        self.own_counters.fill(0)


def default_delta(g: DistributedGraph) -> float:
    """The single-process default (``DELTA_FACTOR * mean weight / mean
    degree``) over the whole graph (collective): the weight sum is allreduced."""
    from ..backends.cpu.sssp import DELTA_FACTOR

    local = float(g.weights.sum(dtype=np.float64)) if g.weighted else float(g.local_arcs)
    total = float(g.world.allreduce(np.array([local], dtype=np.float64))[0])
    mean_weight = total / g.m if g.m else 1.0
    mean_degree = max(g.m / max(g.n, 1), 1.0)
    delta = DELTA_FACTOR * mean_weight / mean_degree
    return delta if delta > 0 else 1.0


def longest_distance(g: DistributedGraph) -> float:
    """:func:`wavefront.sssp.distance_bound` of the whole graph: the heaviest
    weight and the weights' sum allreduced (collective; kept with the graph)."""
    from ..sssp import distance_bound

    key = "sssp2d.longest_distance"
    bound = g.derived.get(key)
    if bound is None:
        w = g.weights if g.weighted else None
        heaviest = float(w.max()) if w is not None and w.size else 1.0 if g.local_arcs else 0.0
        total = float(w.sum(dtype=np.float64)) if w is not None else float(g.local_arcs)
        heaviest = float(g.world.allreduce(np.array([heaviest], dtype=np.float64), op="max")[0])
        total = float(g.world.allreduce(np.array([total], dtype=np.float64))[0])
        bound = g.derived[key] = distance_bound(heaviest, total, g.n)
    return bound


def checked_delta(g: DistributedGraph, delta: float | None, default=None) -> float:
    """``delta`` as the single-process delta-stepping checks it: positive,
    finite, and wide enough that every bucket number fits int64 for
    distances up to :func:`longest_distance` (collective). Raises ValueError
    or MethodLimitError. None: ``default`` (else :func:`default_delta`),
    widened where it would not fit: a bucket number past int64 would wrap on
    the host, and on a GPU saturate into NO_BUCKET and end the search early."""
    from ..backends.cpu._sssp_results import checked_delta as check
    from ..backends.cpu._sssp_results import fitting_delta

    if delta is not None:
        return check(delta, longest_distance(g))
    return fitting_delta(default_delta(g) if default is None else default, longest_distance(g))


def sssp(graph: DistributedGraph, source: int, delta: float | None = None,
         measure_wait: bool = True) -> DistributedSSSPResult:
    """Delta-stepping shortest paths from ``source`` over the grid (collective:
    every rank calls it with the same arguments).

    ``delta``: the bucket width (default :func:`default_delta`);
    ``measure_wait``: a barrier before each fold, so the trace tells waiting
    from communicating. An unweighted graph counts hops.
    """
    source = graph.source_index(source)
    delta = checked_delta(graph, delta)
    from ..backends.cpu._threads import StepThreads

    start = time.perf_counter()
    block = joined(graph)
    work = graph.derived.pop(_WORKSPACE_KEY, None) or _Workspace(graph, block)
    threads = StepThreads()
    try:
        search = _Search(graph, block, work, threads, source, delta, measure_wait)
        search.run()
        parents, rounds = search.parents()
    finally:
        threads.restore()
        graph.derived[_WORKSPACE_KEY] = work
    infinity = _infinity(work.own_dist.dtype)
    distances = work.own_dist.copy()
    if distances.dtype.kind != "f":  # integer sums come back as float64 (exact below 2**53)
        unreached = distances == infinity
        distances = distances.astype(np.float64)
        distances[unreached] = np.inf
    return DistributedSSSPResult(
        source=source, parents=parents, distances=distances, first_vertex=graph.first_vertex, n=graph.n,
        world=graph.world, delta=delta, trace=search.trace, seconds=time.perf_counter() - start,
        parent_rounds=rounds,
    )


class _Search:
    """One search's loop: phases, buckets, then the parents."""

    def __init__(self, g, block, work, threads, source, delta, measure_wait):
        self.g, self.block, self.work, self.threads = g, block, work, threads
        self.grid = g.grid
        self.source, self.delta, self.measure_wait = source, delta, measure_wait
        self.dtype = work.own_dist.dtype
        self.infinity = _infinity(self.dtype)
        # (vertex << 32 | distance bits) in one int64 where both fit: 4-byte
        # distances, and piece- and column-local ids below 2**31.
        self.packed = self.dtype.itemsize == 4 and g.part.col_block_size < 2**31
        self.clock = Clock(self.grid.world, self.grid.row, self.grid.col)
        self.trace = []
        self.bucket = 0
        self.mean_degree = block.indices.shape[0] / max(block.n_col, 1)

    # -- the loop ----------------------------------------------------------------
    def run(self) -> None:
        from ..backends.cpu import _sssp_steps as steps

        g, work, clock = self.g, self.work, self.clock
        world = self.grid.world
        work.reset(self.infinity)
        clock.start(PhaseRecord(0, "root", 0, 1))
        local = self.source - g.first_vertex
        if 0 <= local < g.part.piece:
            work.own_dist[local] = 0
            work.near[0] = local
            work.own_near_flags[local] = 1
            work.own_counters[steps.NEAR_TAIL] = 1
        self.trace.append(clock.stop())
        near_total = 1
        phase = 0
        while True:
            relaxed = False
            while near_total:
                phase += 1
                near_total = self._phase(phase, light=True, frontier_total=near_total)
                relaxed = True
            if relaxed:  # the bucket's heavy arcs, from every vertex it settled
                phase += 1
                settled = int(work.counters[steps.PROCESSED_TAIL])
                near_total = self._phase(phase, light=False, frontier_total=None, settled=settled)
                if near_total:  # float rounding can land a heavy arc in the current bucket
                    continue
            far_size = int(work.own_counters[steps.FAR_TAIL])
            self.threads.use(far_size)
            mine = steps.far_min_bucket(work.far, far_size, work.own_dist, self.delta, self.bucket)
            with clock.collective("allreduce", world):
                lowest = int(world.allreduce(np.array([NO_BUCKET if mine < 0 else mine], np.int64), "min")[0])
            if lowest == NO_BUCKET:
                break
            near_size, kept = steps.split_far(
                work.far, far_size, work.own_dist, self.delta, self.bucket, lowest, work.near,
                work.own_near_flags, work.far_next, work.own_far_flags, work.own_counters,
                self.threads.use(far_size),
            )
            work.own_counters[steps.NEAR_TAIL], work.own_counters[steps.FAR_TAIL] = near_size, kept
            work.far, work.far_next = work.far_next, work.far
            self.bucket = lowest
            with clock.collective("allreduce", world):
                near_total = int(world.allreduce(np.array([near_size], np.int64))[0])

    def _phase(self, phase: int, light: bool, frontier_total, settled: int = 0) -> int:
        """One light phase (the owners' near sets) or the heavy phase (each
        rank's processed set); returns the next global near-set size."""
        from ..backends.cpu import _sssp_steps as steps

        work, block, clock = self.work, self.block, self.clock
        grid = self.grid
        record = PhaseRecord(phase, "light" if light else "heavy", self.bucket,
                             -1 if frontier_total is None else frontier_total)
        clock.start(record)
        if light:
            frontier, size = self._exchange_frontier()
        else:
            frontier, size = work.processed, settled
        workers = self.threads.use(int(size * self.mean_degree))
        examined = steps.relax_phase(
            block.indptr, block.indices, block.weights, work.dist, frontier, size, self.delta, light,
            self.bucket, self.infinity, work.near_out, work.near_flags, work.far_out, work.far_flags,
            work.processed, work.processed_flags, work.counters, workers,
        )
        near_size, far_size = int(work.counters[steps.NEAR_TAIL]), int(work.counters[steps.FAR_TAIL])
        improved = np.concatenate((work.near_out[:near_size], work.far_out[:far_size]))
        work.near_flags[improved] = 0
        work.far_flags[improved] = 0
        work.counters[steps.NEAR_TAIL] = work.counters[steps.FAR_TAIL] = 0
        if not light:
            steps.clear_flags(work.processed, settled, work.processed_flags)
            work.counters[steps.PROCESSED_TAIL] = 0
        pairs, counts = self._pairs_for_owners(improved)
        record.examined, record.sent = int(examined), int(improved.shape[0])
        clock.lap("compute")
        if self.measure_wait:
            grid.world.barrier()
            clock.lap("wait")
        with clock.collective("fold", grid.row):
            received, _ = grid.row.alltoallv(pairs, counts)
        accepted = self._accept(received)
        record.received = received.shape[0] // (1 if self.packed else 2)
        with clock.collective("allreduce", grid.world):
            totals = grid.world.allreduce(
                np.array([int(work.own_counters[steps.NEAR_TAIL]), accepted,
                          0 if frontier_total is not None else size], np.int64)
            )
        record.improved = int(totals[1])
        if frontier_total is None:
            # The R ranks of a grid column share one processed set: the world's sum counts it R times.
            record.frontier_vertices = int(totals[2]) // grid.rows
        self.trace.append(clock.stop())
        return int(totals[0])

    # -- the exchanges ---------------------------------------------------------------
    def _exchange_frontier(self):
        """The owners' near sets over the column block, as column-local ids in
        ``work.frontier`` with their distances written into the joined array."""
        from ..backends.cpu import _sssp_steps as steps

        g, work, grid, clock = self.g, self.work, self.grid, self.clock
        count = int(work.own_counters[steps.NEAR_TAIL])
        near = work.near[:count]
        work.own_near_flags[near] = 0  # a vertex improved again must be able to re-enter
        work.own_counters[steps.NEAR_TAIL] = 0
        # Ids travel column-local: the piece lies in one column block, the
        # one whose allgather it joins after the transpose.
        column_local = near + (g.first_vertex % block_size(g))
        bits = _exchange.to_bits(work.own_dist[near])
        if self.packed:
            mine = (column_local << 32) | bits
        else:
            mine = np.empty((count, 2), dtype=np.int64)
            mine[:, 0], mine[:, 1] = column_local, bits
        with clock.collective("transpose", grid.world):
            held = grid.world.sendrecvv(mine.reshape(-1), grid.transpose_dest, grid.transpose_source)
        with clock.collective("column_allgather", grid.col):
            column, _ = grid.col.allgatherv(held)
        if self.packed:
            ids, bits = column >> 32, column & 0xFFFFFFFF
        else:
            ids, bits = _exchange.unpack(column, 2)
        size = ids.shape[0]
        frontier = work.frontier
        frontier[:size] = ids
        work.dist[frontier[:size]] = _exchange.from_bits(bits, self.dtype)
        return frontier, size

    def _pairs_for_owners(self, improved):
        """(owner-local vertex, offered distance) for each improved target,
        grouped by owner in the grid row; packed or as two int64 columns."""
        g, work = self.g, self.work
        piece = g.part.piece
        targets = np.unique(improved).astype(np.int64)  # a target can be both near and far
        offered = work.dist[targets]
        row = targets - self.block.n_col  # row-block local
        owner = row // piece
        bounds = np.searchsorted(owner, np.arange(self.grid.cols + 1))
        local = row - owner * piece
        bits = _exchange.to_bits(offered)
        if self.packed:
            return (local << 32) | bits, np.diff(bounds)
        pairs = np.empty((targets.shape[0], 2), dtype=np.int64)
        pairs[:, 0], pairs[:, 1] = local, bits
        return pairs.reshape(-1), np.diff(bounds) * 2

    def _accept(self, received) -> int:
        from . import _kernels

        work = self.work
        if self.packed:
            vertices = received >> 32
            offered = _exchange.from_bits(received & 0xFFFFFFFF, self.dtype)
        else:
            vertices, bits = _exchange.unpack(received, 2)
            vertices = np.ascontiguousarray(vertices)
            offered = _exchange.from_bits(bits, self.dtype)
        return _kernels.accept_distances(
            vertices, offered, work.own_dist, self.delta, self.bucket, work.near, work.own_near_flags,
            work.far, work.own_far_flags, work.own_counters,
        )

    # -- the tree ------------------------------------------------------------------------
    def parents(self) -> tuple[np.ndarray, int]:
        """Parents from the final distances (see the module docstring); the
        owned piece's, and how many tight-arc rounds it took."""
        from ..backends.cpu import _sssp_steps as steps

        g, work, block, grid, clock = self.g, self.work, self.block, self.grid, self.clock
        world = grid.world
        piece = g.part.piece
        own = work.own_dist
        clock.start(PhaseRecord(len(self.trace), "parents", self.bucket, -1))
        row_dist, col_dist = self._exchange_dense(own)
        final = work.dist
        final[: block.n_col] = col_dist
        final[block.n_col :] = row_dist
        row_root = self.source - g.row_offset
        roots = np.array([block.n_col + row_root] if 0 <= row_root < block.n_row else [], dtype=np.int64)
        self.threads.use(block.size)
        steps.tight_parents(block.in_indptr, block.in_indices, block.in_weights, final, self.infinity,
                            roots, work.parents)
        found = np.flatnonzero(work.parents[block.n_col :] >= 0)
        parents = np.full(piece, -1, dtype=np.int64)
        self._fold_parents(found, work.parents[block.n_col + found] + g.col_offset, parents)
        local = self.source - g.first_vertex
        if 0 <= local < piece:
            parents[local] = self.source
        reached = own != self.infinity
        rounds = 1
        with clock.collective("allreduce", world):
            missing = int(world.allreduce(np.array([int((reached & (parents < 0)).sum())], np.int64))[0])
        while missing:  # tight arcs within one distance, breadth-first from resolved vertices
            rounds += 1
            before = missing
            missing = self._attach_level(parents, final, reached)
            if missing == before:
                break  # nothing attaches: validation names the vertex (it cannot happen on a fixed point)
        self.trace.append(clock.stop())
        return parents, rounds

    def _exchange_dense(self, own):
        """This per-vertex array of the owners over the row block and the column block."""
        grid, clock = self.grid, self.clock
        with clock.collective("row_allgather", grid.row):
            row = grid.row.allgather(own)
        with clock.collective("transpose", grid.world):
            held = grid.transpose(own)
        with clock.collective("column_allgather", grid.col):
            col = grid.col.allgather(held)
        return row, col

    def _fold_parents(self, row_targets, parent_ids, parents) -> int:
        """Send (target, parent) for row-block targets to their owners; owners
        keep the first one for each vertex still without a parent. Returns how many it set."""
        g, grid = self.g, self.grid
        piece = g.part.piece
        order = np.argsort(row_targets, kind="stable")
        targets = row_targets[order].astype(np.int64)
        owner = targets // piece
        bounds = np.searchsorted(owner, np.arange(grid.cols + 1))
        local, parent = targets - owner * piece, parent_ids[order].astype(np.int64)
        shift = pair_shift(g.part, DEFAULT_TUNING)  # packed as the BFS fold packs its pairs
        if shift:
            pairs, counts = (parent << shift) | local, np.diff(bounds)
        else:
            pairs = np.empty((targets.shape[0], 2), dtype=np.int64)
            pairs[:, 0], pairs[:, 1] = local, parent
            pairs, counts = pairs.reshape(-1), np.diff(bounds) * 2
        with self.clock.collective("fold", grid.row):
            received, _ = grid.row.alltoallv(pairs, counts)
        if shift:
            vertices, offered = received & ((1 << shift) - 1), received >> shift
        else:
            vertices, offered = _exchange.unpack(received, 2)
        vertices, first = np.unique(vertices, return_index=True)
        free = parents[vertices] < 0
        parents[vertices[free]] = offered[first][free]
        return int(free.sum())

    def _attach_level(self, parents, final, reached) -> int:
        """One breadth-first round over tight arcs between equal distances from
        vertices with a parent to reached ones without; returns how many remain."""
        g, block, grid = self.g, self.block, self.grid
        row_resolved, col_resolved = (a.view(bool) for a in self._exchange_dense((parents >= 0).view(np.uint8)))
        row_reached = final[block.n_col :] != self.infinity
        sources = np.repeat(np.arange(block.n_col, dtype=np.int64), np.diff(block.indptr[: block.n_col + 1]))
        targets = block.indices.astype(np.int64) - block.n_col
        du, dv = final[sources], final[block.n_col + targets]
        tight = (col_resolved[sources] & ~row_resolved[targets] & row_reached[targets] & (du == dv)
                 & (du + block.weights == dv))
        self._fold_parents(targets[tight], sources[tight] + g.col_offset, parents)
        missing = int((reached & (parents < 0)).sum())
        with self.clock.collective("allreduce", grid.world):
            return int(grid.world.allreduce(np.array([missing], np.int64))[0])
