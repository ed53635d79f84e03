"""The communication model of the 2-D distributed BFS: bytes per collective and level, fitted times, projections.

    PYTHONPATH=. python benchmarks/scaling_model.py runs/*.json             # check, fit, project
    PYTHONPATH=. python benchmarks/scaling_model.py --exact runs/*.json     # every byte from the regenerated graph
    PYTHONPATH=. python benchmarks/scaling_model.py --markdown              # the projection alone, as markdown
    PYTHONPATH=. python benchmarks/scaling_model.py --predict 22:1x2:nccl --roots 4 --no-projection

The JSON files are ``--json`` reports of ``wavefront graph500`` runs on the
distributed path (``mpirun -n P ...`` or ``--distributed``); their
``kernels.bfs.trace`` rows hold, per rank and level, the seconds and the
bytes of every collective (:mod:`wavefront.distributed._trace`).

1. **Bytes** (:func:`level_bytes`): what each rank hands to the others per
   collective and level, read off :mod:`wavefront.distributed.bfs2d`,
   :mod:`~wavefront.distributed.gpu` and the byte counters of the host and
   device transports. Everything but the fold's payload is a function of
   ``n``, the grid and the level alone; the fold's payload needs the number
   of pairs a rank sends to *other* owners, which the trace does not hold
   (``sent`` counts pairs to itself too). :func:`search_counts` gets those
   counts, and every other field of the trace, from the graph and the BFS
   levels (``--exact`` regenerates the Kronecker graph from the report's
   SCALE and seed); without it the fold is checked by the identity
   ``out - in = pair_bytes * (sent - received)``, which holds whatever the
   self-addressed share is.
2. **Times**: per collective call ``t = alpha + bytes / beta``, fitted per
   platform and P by quantile regression (:func:`fit_alpha_beta`: the
   median, robust to a shared machine's descheduled ranks, and a low
   quantile, the cost when no rank waits for a core). ``--pingpong`` under
   ``mpirun -n 2`` times raw MPI for scale.
3. **Projection** to 8-1024 GPUs (:func:`project`): per search, bitmap and
   fold bytes over a link class's bandwidth, the latency of each collective
   (NCCL's ring model: a base plus one hop latency per ring step, its
   constants cited in docs/scaling.md), and the GPU compute of a block, from
   the measured one-GPU times of today's code (:data:`COMPUTE_ANCHORS`, the
   fourteenth round). The other GPU constants are the measurements in
   :data:`H100_NVLINK_2GPU` (the third round, commits 7818e9b-ec6a706; the
   earlier rounds' search times stay in :data:`H100_SECOND_ROUND` and
   :data:`H100_FIRST_ROUND` as history). The measured two-GPU searches are
   checked against the projection's own P = 2 row (:func:`two_gpu_check`,
   :func:`two_gpu_points`) and split into block compute and communication
   by their traces (:func:`trace_split`); what is not measured yet is listed
   in :data:`NOT_MEASURED` and printed, never filled in.

docs/scaling.md is the decision record this script's tables come from.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

# Collectives of a level, in the order a level runs them (level 0 has no fold).
COLLECTIVES = ("fold_scan", "fold", "row_allgather", "transpose", "column_allgather", "allreduce")
GIB = 1 << 30


# -- the byte model ------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Layout:
    """A graph of ``n`` vertices over an ``rows x cols`` grid; ``nccl``: the
    GPU path's device buffers go over NCCL, whose all-to-all-v exchanges its
    counts on the host outside the fold's byte counter (MPI and staged
    transports count them: 8 bytes per other rank of the row)."""

    n: int
    rows: int
    cols: int
    nccl: bool = False

    @property
    def size(self) -> int:
        return self.rows * self.cols

    @property
    def part(self):
        from wavefront.distributed.grid import Partition

        return Partition.of(self.n, self.rows, self.cols)

    @property
    def piece_bytes(self) -> int:
        """One owner's piece of a frontier bitmap (a piece is a multiple of 64 vertices)."""
        return self.part.piece // 8

    @property
    def pair_bytes(self) -> int:
        """A fold pair: one int64 where target and parent ids pack into 63 bits, else two."""
        from wavefront.distributed.bfs2d import pair_shift
        from wavefront.distributed.tuning import DistributedTuning

        return 8 if pair_shift(self.part, DistributedTuning()) else 16

    # The vector transpose of grid.py: rank r's piece goes to the rank that
    # contributes it to its column's all-gather; rank (i, j) receives piece j*R + i.
    def transpose_dest(self, rank: int) -> int:
        return (rank % self.rows) * self.cols + rank // self.rows

    def transpose_source(self, rank: int) -> int:
        i, j = divmod(rank, self.cols)
        return j * self.rows + i

    def transpose_moves(self) -> bool:
        """Whether any rank's piece leaves it in the transpose (the worst rank pays one piece)."""
        return any(self.transpose_dest(r) != r for r in range(self.size))

    @property
    def id_bytes(self) -> int:
        """A vertex id in the GPU block's queues: its index dtype over ``span = max(n_row, n_col)`` local ids
        (``graph.index_dtype``), 4 bytes up to 2^31 - 1 of them (SCALE 30 on one column), else 8."""
        from wavefront.graph import index_dtype

        part = self.part
        return np.dtype(index_dtype(max(part.row_block_size, part.col_block_size))).itemsize

    @property
    def bitmap_bytes(self) -> int:
        """The column block's frontier bitmap, ``4 * (n_col // 32)`` bytes: what one-column GPU ranks weigh a
        level's ids against (``gpu._Search._exchange_owned``)."""
        return 4 * (self.part.col_block_size // 32)


EXCHANGES = ("bitmap", "ids", "none", "fixed")  # how a level's new frontier travels (level_bytes' ``exchange``)


def level_bytes(layout: Layout, rank: int, level: int, *, deduplicated: bool = False,
                to_others: float = 0, from_others: float = 0, exchange: str = "bitmap", ids_out: int = 0,
                ids_in: int = 0, counts_gather: bool = False,
                segment_bytes: int = 0) -> dict[str, tuple[float, float]]:
    """``{collective: (bytes out, bytes in)}`` of ``rank`` at ``level``, as the
    transports count them: payload to and from *other* ranks.

    * ``row_allgather`` / ``column_allgather``: the owners' new frontier
      pieces, ``piece / 8`` bytes to each of the other ``C - 1`` / ``R - 1``
      ranks of the grid row / column;
    * ``transpose``: one piece, unless the rank keeps it (a 1 x C or R x 1
      grid, the diagonal of a square one);
    * ``allreduce``: one int64 (the root's degree) at level 0, two after
      (accepted count and their degree sum); nothing in a world of one;
    * ``fold_scan`` (levels the CPU ranks deduplicate): the row block's found
      bitmap, ``C * piece / 8`` bytes, from every rank of the row but the last
      and into every one but the first (an exclusive scan);
    * ``fold``: ``pair_bytes`` per (target, parent) pair to another owner of
      the row, plus the all-to-all of the counts (8 bytes per other rank of
      the row) on MPI and staged transports.

    GPU ranks since ``a8f02a2`` (:func:`gpu_exchange` picks ``exchange``):

    * ``exchange="none"``: no row all-gather, transpose or column all-gather
      (no exchange follows a search's last level; P = 1 hands a step's output
      to the next step);
    * ``exchange="ids"`` (one-column grids, R x 1): the column all-gather
      carries this rank's ``ids_out`` new frontier vertices as ids
      (``layout.id_bytes`` each) to each of the other ``R - 1`` ranks and
      takes in the others' ``ids_in``; the row all-gather and the transpose
      stay empty entries;
    * ``counts_gather``: the level totals come from a host all-gather of two
      int64 a rank (its count and degree sum), 16 bytes to and from each
      other rank at every level, in place of the all-reduce;
    * ``exchange="fixed"`` (one-column grids; ``DistributedTuning.fixed_ids_edges``):
      a small top-down level's finds and totals in one segment of
      ``segment_bytes`` a rank, all-gathered over the column; no totals'
      all-gather.
    """
    if exchange not in EXCHANGES:
        raise ValueError(f"exchange must be one of {', '.join(EXCHANGES)}, got {exchange!r}")
    rows, cols, size = layout.rows, layout.cols, layout.size
    if exchange in ("ids", "fixed") and cols != 1:
        raise ValueError(f"only one-column grids exchange ids, not {rows}x{cols}: a wider grid's frontier "
                         "travels over its row and column as bitmaps")
    j = rank % cols
    piece = layout.piece_bytes
    out: dict[str, tuple[float, float]] = {}
    if level > 0:
        if deduplicated:
            scan = cols * piece
            out["fold_scan"] = (scan if j < cols - 1 else 0, scan if j > 0 else 0)
        header = 0 if layout.nccl else 8 * (cols - 1)
        pair = layout.pair_bytes
        out["fold"] = (header + pair * to_others, header + pair * from_others)
    if exchange != "none":
        row = (cols - 1) * piece
        out["row_allgather"] = (row, row)
        out["transpose"] = (piece if layout.transpose_dest(rank) != rank else 0,
                            piece if layout.transpose_source(rank) != rank else 0)
        if exchange == "ids":
            out["column_allgather"] = (layout.id_bytes * ids_out * (rows - 1), layout.id_bytes * ids_in)
        elif exchange == "fixed":
            out["column_allgather"] = ((rows - 1) * segment_bytes, (rows - 1) * segment_bytes)
            return out  # the totals came with the segments
        else:
            column = (rows - 1) * piece
            out["column_allgather"] = (column, column)
    if counts_gather:
        reduce = 16 * (size - 1)
    else:
        reduce = (8 if level == 0 else 16) if size > 1 else 0
    out["allreduce"] = (reduce, reduce)
    return out


def gpu_exchange(layout: Layout, level: int, direction: str, next_direction: str | None, total: int,
                 cooperative: bool = False, root_sent: bool = False) -> str:
    """How a GPU search (``a8f02a2`` and later, ``gpu._Search.run``) moves
    ``level``'s ``total`` new frontier vertices: "none" where no level follows
    (``next_direction`` None) and on P = 1, whose step output is the next
    step's input (except the root's bits and a cooperative bottom-up step's
    piece); on one column "ids" where the next level is top-down and the ids
    are no more bytes than the bitmap, else "bitmap" (a cooperative
    bottom-up step's piece always); wider grids "bitmap". The root bound
    for a top-down level on one column (P > 1) is "none": every rank queues
    it itself, unless ``root_sent`` (traces of the code before that, whose
    owner sent its id: :func:`trace_rules` "gpu-root-sent")."""
    from wavefront.bfs.policy import BOTTOM_UP, TOP_DOWN

    shared_step = cooperative and direction == BOTTOM_UP
    if next_direction is None:
        return "none"
    if layout.size == 1:
        return "bitmap" if level == 0 or shared_step else "none"
    if level == 0 and layout.cols == 1 and next_direction == TOP_DOWN and not root_sent:
        return "none"
    if layout.cols == 1 and not shared_step and next_direction == TOP_DOWN and (
            total * layout.id_bytes <= layout.bitmap_bytes):
        return "ids"
    return "bitmap"


# -- fold counts from the graph and the BFS levels ------------------------------------------------------------------
@dataclass
class SearchCounts:
    """Per trace row (level 0 .. depth + 1) and rank: what the distributed
    search's trace would hold, derived from the graph and its BFS levels."""

    discovered: np.ndarray  # (levels,) vertices each level added (level 0: the root)
    frontier_edges: np.ndarray  # (levels,) m_f each level started from
    deduplicated: np.ndarray  # (levels,) whether the level's fold picked one sender per target
    found: np.ndarray  # (levels, P) targets each rank's step claimed
    sent: np.ndarray  # (levels, P) pairs each rank put in the fold
    to_others: np.ndarray  # (levels, P) of those, pairs to another rank
    received: np.ndarray  # (levels, P) pairs each owner received (itself included)
    from_others: np.ndarray  # (levels, P)

    @property
    def levels(self) -> int:
        return self.discovered.shape[0]


def unique_arcs(src, dst, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Both arcs of every non-loop tuple, parallel arcs merged (the graph the blocks hold)."""
    src, dst = np.asarray(src, dtype=np.int64), np.asarray(dst, dtype=np.int64)
    proper = src != dst
    keys = np.unique(np.concatenate((src[proper] * n + dst[proper], dst[proper] * n + src[proper])))
    return keys // n, keys % n


def search_counts(tails, heads, levels, layout: Layout, dedupe: str = "auto", dedupe_ratio: float = 1.0
                  ) -> SearchCounts:
    """The trace counts of one search from the merged arcs ``tails -> heads``
    and the BFS ``levels`` (-1 unreached).

    A rank ``(i, j)`` claims at level ``L`` exactly the vertices of row block
    ``i`` at level ``L`` with an in-neighbour at level ``L - 1`` in column
    block ``j``: top-down expands the column block's frontier into the row
    block's unvisited vertices, bottom-up scans those vertices for a frontier
    parent, and both see the same visited set. ``dedupe``: "auto" (CPU ranks,
    :class:`~wavefront.distributed.tuning.DistributedTuning`'s rule: a level
    deduplicates when ``m_f * pair_bytes >= ratio * P * n_row / 8``) or
    "never" (GPU ranks); a deduplicated level keeps the first rank of the row
    that claimed a target."""
    if dedupe not in ("auto", "never"):
        raise ValueError(f"dedupe must be 'auto' or 'never', got {dedupe!r}")
    levels = np.asarray(levels, dtype=np.int64)
    part, size, cols = layout.part, layout.size, layout.cols
    depth = int(levels.max())
    rows_out = depth + 2  # level 0, levels 1..depth, and the level that finds nothing
    degree = np.bincount(tails, minlength=levels.shape[0])
    discovered = np.bincount(levels[levels >= 0], minlength=rows_out)[:rows_out]
    frontier_edges = np.zeros(rows_out, dtype=np.int64)
    per_level_degree = np.bincount(levels[levels >= 0], weights=degree[levels >= 0], minlength=rows_out)
    frontier_edges[1:] = per_level_degree[: rows_out - 1].astype(np.int64)
    if dedupe == "never" or cols == 1:
        deduplicated = np.zeros(rows_out, dtype=bool)
    else:
        threshold = dedupe_ratio * size * (part.row_block_size / 8)
        deduplicated = frontier_edges * layout.pair_bytes >= threshold
        deduplicated[0] = False

    level_of_tail, level_of_head = levels[tails], levels[heads]
    tree = (level_of_tail >= 0) & (level_of_head == level_of_tail + 1)
    keys = np.unique(heads[tree] * cols + tails[tree] // part.col_block_size)
    vertex, column = keys // cols, keys % cols
    level = levels[vertex]
    sender = (vertex // part.row_block_size) * cols + column
    owner = vertex // part.piece

    def per_level_rank(mask):
        return np.bincount(level[mask] * size + sender[mask], minlength=rows_out * size).reshape(rows_out, size)

    def per_level_owner(mask):
        return np.bincount(level[mask] * size + owner[mask], minlength=rows_out * size).reshape(rows_out, size)

    everything = np.ones(keys.shape[0], dtype=bool)
    found = per_level_rank(everything)
    first = np.zeros(keys.shape[0], dtype=bool)  # keys are sorted by vertex, then column
    first[np.unique(vertex, return_index=True)[1]] = True
    kept = np.where(deduplicated[level], first, True)
    elsewhere = kept & (owner != sender)
    return SearchCounts(
        discovered=discovered, frontier_edges=frontier_edges, deduplicated=deduplicated, found=found,
        sent=per_level_rank(kept), to_others=per_level_rank(elsewhere),
        received=per_level_owner(kept), from_others=per_level_owner(elsewhere),
    )


def bfs_levels(tails, heads, n: int, root: int) -> np.ndarray:
    """BFS levels from ``root`` by wavefront's single-process search (the oracle the distributed tests use)."""
    import wavefront
    from wavefront.graph.build import from_edges

    graph = from_edges(tails, heads, n=n, directed=True)
    return np.asarray(wavefront.bfs(graph, int(root)).levels, dtype=np.int64)


def kronecker_arcs(scale: int, edgefactor: int = 16, seed: int = 1):
    """The merged arcs of the Graph500 Kronecker graph (the same tuples every P generates)."""
    from wavefront.generators import kronecker_edges

    src, dst, _ = kronecker_edges(scale, edgefactor, seed)
    return unique_arcs(src, dst, 1 << scale), src, dst


# kind -> (dedupe, nccl, rules): "cpu" ranks; GPU ranks now ("gpu": a8f02a2 and later: no exchange after the last
# level, the totals by a host all-gather, ids on one column) and before a8f02a2 (an exchange after every level, the
# totals by an all-reduce of 8 then 16 bytes), device buffers over NCCL or staged through MPI
KINDS = {
    "cpu": ("auto", False, "cpu"),
    "nccl": ("never", True, "gpu"), "staged": ("never", False, "gpu"),
    "nccl-before-a8f02a2": ("never", True, "gpu-before-a8f02a2"),
    "staged-before-a8f02a2": ("never", False, "gpu-before-a8f02a2"),
}


def predict_levels(scale: int, rows: int, cols: int, kind: str = "cpu", roots: int = 64, edgefactor: int = 16,
                   seed: int = 1) -> list[list]:
    """The trace bytes the model gives a Graph500 run's traced search (its
    first root, drawn as the run draws ``roots`` roots) on an ``rows x cols``
    grid: per level, the vertices discovered, ``m_f``, whether the fold
    deduplicates, and per collective the bytes out, smallest-largest over
    ranks (see :data:`KINDS`). On GPU ranks now, the exchange form of a
    level depends on the next level's direction, which the policy picks
    during the run: the column all-gather is given as a bitmap, and on a
    one-column grid a last column holds its bytes as ids, the form a level
    bound for a top-down step takes while they are fewer than the bitmap's
    (:func:`gpu_exchange`)."""
    from wavefront.graph500.roots import choose_roots

    if kind not in KINDS:
        raise ValueError(f"kind must be one of {', '.join(KINDS)}, got {kind!r}")
    dedupe, nccl, rules = KINDS[kind]
    (tails, heads), src, dst = kronecker_arcs(scale, edgefactor, seed)
    n = 1 << scale
    root = int(choose_roots(src, dst, n, roots, seed)[0])
    layout = Layout(n, rows, cols, nccl)
    counts = search_counts(tails, heads, bfs_levels(tails, heads, n, root), layout, dedupe=dedupe)
    current = rules == "gpu"
    one_column = current and cols == 1 and layout.size > 1
    owner = root // layout.part.piece
    table = []
    for level in range(counts.levels):
        last = level == counts.levels - 1
        # the root, on one column: every rank queues it for the top-down level 1
        root_known = one_column and level == 0
        exchange = "none" if current and (last or root_known or (layout.size == 1 and level > 0)) else "bitmap"
        own = [int(rank == owner) if level == 0 else int(counts.found[level, rank]) for rank in range(layout.size)]
        per_rank = [level_bytes(layout, rank, level, deduplicated=bool(counts.deduplicated[level]),
                                to_others=int(counts.to_others[level, rank]),
                                from_others=int(counts.from_others[level, rank]), exchange=exchange,
                                counts_gather=current) for rank in range(layout.size)]
        cells = []
        for name in COLLECTIVES:
            values = [b[name][0] for b in per_rank if name in b]
            cells.append("-" if not values else f"{min(values):,.0f}" if min(values) == max(values)
                         else f"{min(values):,.0f}-{max(values):,.0f}")
        total = max(sum(out for out, _ in b.values()) for b in per_rank)
        row = [level, int(counts.discovered[level]), int(counts.frontier_edges[level]),
               "yes" if counts.deduplicated[level] else "no", *cells, f"{total:,.0f}"]
        if one_column:
            ids = [level_bytes(layout, rank, level, exchange="ids", ids_out=own[rank],
                               ids_in=int(counts.discovered[level]) - own[rank],
                               counts_gather=True)["column_allgather"][0] for rank in range(layout.size)]
            fits = int(counts.discovered[level]) * layout.id_bytes <= layout.bitmap_bytes
            row.append("-" if last or root_known else f"{min(ids):,.0f}-{max(ids):,.0f}"
                       + ("" if fits else " (sent as bitmap)"))
        table.append(row)
    return table


# -- reports ------------------------------------------------------------------------------------------------------
@dataclass
class Run:
    """One distributed Graph500 report: its grid, transport and BFS trace."""

    path: str
    scale: int
    edgefactor: int
    seed: int
    root: int
    layout: Layout
    backend: str
    transport: str  # "mpi" (host buffers, or device buffers staged through MPI) or "nccl"
    device: str
    trace: list

    @property
    def label(self) -> str:
        return f"{self.backend}/{self.transport}"


def load_run(path) -> Run:
    """A ``--json`` report of a distributed Graph500 run; raises ValueError
    naming what is missing when it is not one."""
    data = json.loads(Path(path).read_text())
    bfs = data.get("kernels", {}).get("bfs")
    grid = data.get("distributed", {}).get("process_grid")
    if not bfs or not grid or "trace" not in bfs:
        raise ValueError(f"{path}: not a distributed Graph500 BFS report (needs distributed.process_grid and "
                         "kernels.bfs.trace; run wavefront graph500 --distributed or under mpirun with --json)")
    rows, cols = (int(x) for x in grid.split("x"))
    reason = data.get("backend_reason", "")
    if data.get("backend") == "cuda":
        transport = "nccl" if "over nccl" in reason else "mpi"
    else:
        transport = "mpi"  # host buffers: MPI, or copies in a world of one (no bytes either way)
    return Run(
        path=str(path), scale=int(data["SCALE"]), edgefactor=int(data["edgefactor"]), seed=int(data["seed"]),
        root=int(data["roots"][0]), layout=Layout(1 << int(data["SCALE"]), rows, cols, nccl=transport == "nccl"),
        backend=str(data.get("backend")), transport=transport, device=str(data.get("device", "")),
        trace=bfs["trace"],
    )


def counts_for(run: Run, arcs=None) -> SearchCounts:
    """:func:`search_counts` of the run's traced search, on the regenerated graph (or ``arcs``)."""
    tails, heads = kronecker_arcs(run.scale, run.edgefactor, run.seed)[0] if arcs is None else arcs
    levels = bfs_levels(tails, heads, run.layout.n, run.root)
    return search_counts(tails, heads, levels, run.layout, dedupe="never" if run.backend == "cuda" else "auto")


# -- checking the bytes against a trace -----------------------------------------------------------------------------
@dataclass
class ByteCheck:
    """How a report's trace compares with the byte model."""

    path: str
    rows: int = 0
    compared: int = 0  # (row, collective, direction) values compared
    fold_exact: bool = False  # the fold's payload compared exactly (counts from the graph)
    mismatches: list = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.mismatches


def overlapped(layout: Layout, row: dict) -> bool:
    """Whether a GPU trace row is a bottom-up level whose column all-gather
    ran on a second stream while its step did (``DistributedTuning.overlap_chunks``
    on a one-column grid): its sends and their wait are separate calls, and
    it sends the bitmap whatever the next direction (filed as
    ``column_allgather_unread`` on a search's last level)."""
    if layout.cols != 1 or layout.size == 1 or row["direction"] != "bottom-up":
        return False
    collectives = row["collectives"]
    return "column_allgather_unread" in collectives or collectives.get("column_allgather", {}).get("calls", 0) > 1


def trace_rules(run: Run) -> str:
    """Which code's exchanges a report's trace follows (:data:`KINDS`' rules):
    "cpu"; "gpu-whole-graph" for a world of one whose trace holds no
    collective (``588e75b`` and later: P = 1 runs the single-GPU search on
    the whole-graph block, which exchanges nothing); "gpu-before-a8f02a2"
    where the last level of a GPU search still exchanged (every GPU search
    did before ``a8f02a2``); "gpu-root-sent" where a one-column grid's root
    owner sent its id to a top-down level 1 (before the ranks queued the
    root themselves), else "gpu"."""
    if run.backend != "cuda":
        return "cpu"
    if run.layout.size == 1 and not any(row["collectives"] for row in run.trace):
        return "gpu-whole-graph"
    last = max(int(row["level"]) for row in run.trace)
    # a small level's fixed-size exchange carries its totals, so it runs on the last level too
    exchanged = any("column_allgather" in row["collectives"] and fixed_segment(run.layout, row) is None
                    for row in run.trace if int(row["level"]) == last)
    if exchanged:
        return "gpu-before-a8f02a2"
    from wavefront.bfs.policy import TOP_DOWN

    first = {row["direction"] for row in run.trace if int(row["level"]) == 1}
    root_sent = any("column_allgather" in row["collectives"] for row in run.trace if int(row["level"]) == 0)
    if run.layout.size > 1 and run.layout.cols == 1 and first == {TOP_DOWN} and root_sent:
        return "gpu-root-sent"
    return "gpu"


def fixed_segment(layout: Layout, row: dict) -> int | None:
    """The segment bytes a rank sent where a one-column GPU trace row is a
    small top-down level with a fixed-size exchange (its totals came with
    the segments: a column all-gather and no totals' all-gather), else None."""
    measured = row["collectives"]
    if (layout.cols != 1 or layout.size == 1 or int(row["level"]) == 0 or "allreduce" in measured
            or "column_allgather" not in measured):
        return None
    return measured["column_allgather"]["bytes_out"] // (layout.rows - 1)


def check_bytes(run: Run, counts: SearchCounts | None = None) -> ByteCheck:
    """Compare every trace row's per-collective bytes (out and in) with
    :func:`level_bytes`. With ``counts`` (:func:`search_counts`) the fold's
    payload and the rows' found/sent/received/discovered/deduplicated
    fields are compared too; without, the fold is checked by the identity
    ``out - in = pair_bytes * (sent - received)`` and by its self-addressed
    pairs lying in ``[0, min(sent, received)]``. GPU reports of ``a8f02a2``
    and later (:func:`trace_rules`) take the exchange form
    :func:`gpu_exchange` gives each row from the next row's direction (the
    policy's choice, which the model does not replay), the level's total
    (``discovered``) and this rank's share of it (``found``; at the root,
    whether the rank owns it)."""
    layout = run.layout
    rules = trace_rules(run)
    direction = {(int(row["rank"]), int(row["level"])): row["direction"] for row in run.trace}
    root_owner = run.root // layout.part.piece
    result = ByteCheck(run.path, fold_exact=counts is not None)
    bad = result.mismatches
    if counts is not None:
        levels_traced = {row["level"] for row in run.trace}
        if levels_traced != set(range(counts.levels)):
            bad.append(f"levels traced {sorted(levels_traced)} != the model's 0..{counts.levels - 1}")
            return result
    for row in run.trace:
        rank, level = int(row["rank"]), int(row["level"])
        where = f"level {level} rank {rank}"
        result.rows += 1
        dedup = bool(row.get("deduplicated", False))
        if counts is not None:
            for name, model in (("deduplicated", bool(counts.deduplicated[level])),
                                ("discovered", int(counts.discovered[level])),
                                ("frontier_edges", int(counts.frontier_edges[level]))):
                if row[name] != model:
                    bad.append(f"{where}: {name} {row[name]} != model {model}")
            if level > 0:
                for name in ("found", "sent", "received"):
                    model = int(getattr(counts, name)[level, rank])
                    if row[name] != model:
                        bad.append(f"{where}: {name} {row[name]} != model {model}")
            to_others = int(counts.to_others[level, rank])
            from_others = int(counts.from_others[level, rank])
        else:
            to_others = from_others = 0
        gpu = {}
        measured = row["collectives"]
        unread = "column_allgather_unread" in measured
        if rules in ("gpu", "gpu-root-sent"):
            total = int(row["discovered"])
            own = int(rank == root_owner) if level == 0 else int(row["found"])
            exchange = gpu_exchange(layout, level, row["direction"], direction.get((rank, level + 1)), total,
                                    cooperative="cpu_share_mode" in row, root_sent=rules == "gpu-root-sent")
            if overlapped(layout, row) and not unread:
                exchange = "bitmap"  # sent while the step ran, before the next direction was known
            gpu = {"exchange": exchange, "ids_out": own, "ids_in": total - own, "counts_gather": True}
            segment = fixed_segment(layout, row)
            if segment is not None:
                if segment < 8 * (3 + int(row["found"])) or segment % 8:
                    bad.append(f"{where}: a fixed segment of {segment} bytes cannot hold {row['found']} finds")
                gpu = {"exchange": "fixed", "segment_bytes": segment}
        model = {} if rules == "gpu-whole-graph" else level_bytes(
            layout, rank, level, deduplicated=dedup, to_others=to_others, from_others=from_others, **gpu)
        if unread:  # an overlapped last level: its bitmap went out, and no level read it
            model["column_allgather_unread"] = level_bytes(layout, rank, level, exchange="bitmap")["column_allgather"]
        if set(measured) != set(model):
            bad.append(f"{where}: collectives {sorted(measured)} != model {sorted(model)}")
            continue
        for name, (out, into) in model.items():
            got = measured[name]
            if name == "fold" and counts is None:
                header = 0 if layout.nccl else 8 * (layout.cols - 1)
                pair = layout.pair_bytes
                payload_out, payload_in = got["bytes_out"] - header, got["bytes_in"] - header
                own_out = row["sent"] - payload_out / pair
                own_in = row["received"] - payload_in / pair
                result.compared += 2
                if payload_out % pair or payload_in % pair or own_out != own_in or not (
                        0 <= own_out <= min(row["sent"], row["received"])):
                    bad.append(f"{where}: fold out {got['bytes_out']} / in {got['bytes_in']} do not fit "
                               f"sent {row['sent']}, received {row['received']} at {pair} B a pair")
                continue
            result.compared += 2
            if got["bytes_out"] != out or got["bytes_in"] != into:
                bad.append(f"{where}: {name} out/in {got['bytes_out']}/{got['bytes_in']} != model {out}/{into}")
        if sum(c["bytes_out"] for c in measured.values()) != row["bytes_out"]:
            bad.append(f"{where}: the collectives' bytes do not add up to the row's bytes_out")
    return result


# -- fitting alpha and beta ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Fit:
    """``t = calls * alpha + bytes / beta`` for one platform and P, at one quantile of the times."""

    label: str
    size: int
    quantile: float
    alpha: float  # seconds per collective call
    beta: float  # bytes per second (inf where no sample moved a byte)
    samples: int
    slow: float  # share of calls that took 1 ms or more
    median_error: float  # median |predicted - measured| / measured of a level's communication seconds


def samples(run: Run) -> tuple[np.ndarray, np.ndarray, np.ndarray, list]:
    """Per trace collective entry: (calls, bytes, seconds) and its name; the
    bytes are the larger of out and in (a collective ends when both are done).
    An overlapped level's column all-gather is left out: its seconds are the
    launches and what the step did not hide, not the transfer. So are the
    entries a one-column rank files for what it does not call (``Clock.none``:
    the row, the transpose, the fold), which moved nothing in no time."""
    calls, nbytes, seconds, names = [], [], [], []
    for row in run.trace:
        hidden = overlapped(run.layout, row)
        for name, entry in row["collectives"].items():
            if hidden and name.startswith("column_allgather"):
                continue
            if entry["seconds"] == 0 and entry["bytes_out"] == 0 and entry["bytes_in"] == 0:
                continue
            calls.append(entry["calls"])
            nbytes.append(max(entry["bytes_out"], entry["bytes_in"]))
            seconds.append(entry["seconds"])
            names.append(name)
    return np.array(calls, dtype=float), np.array(nbytes, dtype=float), np.array(seconds, dtype=float), names


def fit_alpha_beta(calls, nbytes, seconds, quantile: float = 0.5) -> tuple[float, float]:
    """Quantile regression (a linear program, SciPy's HiGHS) of ``seconds =
    calls * alpha + nbytes / beta`` with ``alpha, 1/beta >= 0``; beta is inf
    when no sample moved a byte. The median (0.5) is robust to the heavy
    right tail of a shared machine (a rank descheduled for a time slice);
    a low quantile is the cost of a call when both sides run."""
    from scipy.optimize import linprog

    calls, nbytes, seconds = (np.asarray(x, dtype=float) for x in (calls, nbytes, seconds))
    if not 0 < quantile < 1:
        raise ValueError(f"quantile must lie in (0, 1), got {quantile!r}")
    moved = bool(np.any(nbytes > 0))
    scale_b = float(np.median(nbytes[nbytes > 0])) if moved else 1.0
    regressors = np.column_stack((calls, nbytes / scale_b)) if moved else calls[:, None]
    count, width = regressors.shape
    # variables: the coefficients, then the positive and negative parts of each residual
    cost = np.concatenate((np.zeros(width), np.full(count, quantile), np.full(count, 1 - quantile)))
    equality = np.hstack((regressors, np.eye(count), -np.eye(count)))
    solved = linprog(cost, A_eq=equality, b_eq=seconds, bounds=(0, None), method="highs")
    if not solved.success:
        raise RuntimeError(f"the quantile fit failed: {solved.message}")
    alpha = float(solved.x[0])
    per_byte = float(solved.x[1]) / scale_b if moved else 0.0
    return alpha, (1.0 / per_byte if per_byte > 0 else math.inf)


def fit_runs(runs: list[Run], quantile: float = 0.5) -> list[Fit]:
    """One fit per (platform, P) over every collective entry of their traces."""
    groups: dict[tuple, list[Run]] = {}
    for run in runs:
        groups.setdefault((run.label, run.layout.size), []).append(run)
    fits = []
    for (label, size), members in sorted(groups.items()):
        parts = [samples(run) for run in members]
        if not any(p[0].size for p in parts):
            continue  # P = 1's whole-graph search: nothing exchanged, nothing to fit
        calls = np.concatenate([p[0] for p in parts])
        nbytes = np.concatenate([p[1] for p in parts])
        seconds = np.concatenate([p[2] for p in parts])
        alpha, beta = fit_alpha_beta(calls, nbytes, seconds, quantile)
        errors = []
        for run in members:
            for row in run.trace:
                measured = row["comm_seconds"]
                entries = row["collectives"].values()
                predicted = sum(e["calls"] * alpha + max(e["bytes_out"], e["bytes_in"]) / beta for e in entries)
                if measured > 0:
                    errors.append(abs(predicted - measured) / measured)
        fits.append(Fit(label, size, quantile, alpha, beta, int(calls.shape[0]), float(np.mean(seconds >= 1e-3)),
                        float(np.median(errors)) if errors else 0.0))
    return fits


def per_collective(runs: list[Run]) -> list[tuple]:
    """(platform, P, collective, entries, median bytes, median seconds per call) over the runs' traces."""
    table: dict[tuple, list] = {}
    for run in runs:
        calls, nbytes, seconds, names = samples(run)
        for c, b, s, name in zip(calls, nbytes, seconds, names):
            table.setdefault((run.label, run.layout.size, name), []).append((b, s / c))
    out = []
    for key in sorted(table, key=lambda k: (k[0], k[1], COLLECTIVES.index(k[2]) if k[2] in COLLECTIVES else 99)):
        values = np.array(table[key])
        out.append((*key, values.shape[0], float(np.median(values[:, 0])), float(np.median(values[:, 1]))))
    return out


# -- the GPU measurements ------------------------------------------------------------------------------------------
# Third round, 2026-11-25 (docs/decisions/distributed.md "GPU runs, third round"): a whole-graph block (P = 1) steps
# straight into the owner's results (no fold, no accept kernel, one host read a level) and defers the result fill
# (commits 7818e9b, ec6a706). Two fresh machines of the same GPU kind, NVIDIA H100 80GB HBM3 (the H100's timings
# move 10-20 % between machines):
# * nvidia-h100-x2: 2 GPUs over NVLink NV18, NCCL, 32 host cores. P = 1 at ec6a706, P = 2 (1x2) at SCALE 27 at its
#   predecessor 0f7641c, whose 1x2 path is the same code: ``benchmarks/distributed_gpu.py``, 8 roots after a
#   warm-up search, not validated, medians. SCALE 28 on 1x2 at ec6a706: ``wavefront graph500 --kernels bfs --roots
#   2``, validated, the median of the two searches.
# * nvidia-h100-x1: one GPU, 16 host cores, 7818e9b; the same benchmark script, P = 1 at SCALE 24 and 26.
# The single-GPU driver (``wavefront graph500 --backend cuda``, 8 roots, validated) was re-timed on both machines.
# The per-collective numbers and the NCCL fit still come from the first round's SCALE 22 1x2 trace (commit f7dca24;
# root 0 with a barrier before each fold and a stream synchronization after each collective): the third round's
# traces keep per-level seconds (below), not the bytes an alpha-beta fit needs. Seconds; bytes per rank.
H100_NVLINK_2GPU = {
    "label": "0f7641c/ec6a706",
    # the x2 machine: P = 1 and the 1x2 SCALE 27 from the benchmark script, the 1x2 SCALE 28 from Graph500
    "search_seconds": {("1x1", 26): 3.62e-3, ("1x2", 27): 20.14e-3, ("1x2", 28): 45.4e-3},
    "search_seconds_range": {("1x1", 26): (3.06e-3, 4.88e-3), ("1x2", 27): (17.38e-3, 23.26e-3),
                             ("1x2", 28): (40.55e-3, 50.34e-3)},
    "gteps": {("1x1", 26): 293.0, ("1x2", 27): 105.5, ("1x2", 28): 94.5, ("single", 26): 413.0},
    # the x1 machine's medians (7818e9b); its SCALE 24 run had one 14.81 ms search among 1.41-2.40 ms
    "x1_seconds": {("1x1", 24): 2.14e-3, ("1x1", 26): 3.67e-3, ("single", 26): 2.43e-3},
    # the 'today' curve's anchors: SCALE 24 the x1 machine's median, SCALE 26 the x2 median
    "one_rank_seconds": {24: 2.14e-3, 26: 3.62e-3},
    # the single-GPU driver, median: SCALE 26 the x2 machine's, beside the P = 1 anchor; SCALE 22 the first round's
    # x2 run (f7dca24), kept because the single-GPU path has not changed since
    "single_gpu_seconds": {22: 0.78e-3, 26: 2.46e-3},
    "levels_scale22": 8,  # trace rows of the SCALE 22 search (the model's --predict gives 8 too)
    # Synchronized per-level traces, (compute s, communication s) per trace row from the root on, of the rank the
    # record quotes: P = 1 SCALE 26 (ec6a706, x2 machine) and 1x2 SCALE 27 (0f7641c, the same machine).
    "trace_1x1_26": ((0.267e-3, 0.055e-3), (0.171e-3, 0.021e-3), (0.113e-3, 0.021e-3), (1.268e-3, 0.021e-3),
                     (0.789e-3, 0.019e-3), (0.131e-3, 0.017e-3), (0.112e-3, 0.017e-3), (0.065e-3, 0.017e-3)),
    "trace_1x2_27": ((0.228e-3, 0.775e-3), (0.369e-3, 0.435e-3), (0.630e-3, 0.382e-3), (5.867e-3, 1.418e-3),
                     (4.575e-3, 1.338e-3), (0.680e-3, 0.366e-3), (0.487e-3, 0.359e-3), (0.426e-3, 0.352e-3),
                     (0.229e-3, 0.279e-3)),
    "bottom_up_levels": (3, 4),  # the two big levels, bottom-up in both traces
    # arcs examined on level 3: P = 1's whole graph against one 1x2 rank's block (half the graph)
    "examined_level3": {"1x1": 58.1e6, "1x2": 125.3e6},
    # what each GPU held during the search (the coordinator's reading, GB): SCALE 28 on 1x2
    "gpu_bytes": {("1x2", 28): 71.2e9},
    # SCALE 22 on 1x2, per level and rank: (fastest, slowest) seconds and the bytes out.
    "collective_seconds_1x2_22": {
        "fold": (0.09e-3, 0.21e-3), "row_allgather": (0.055e-3, 0.33e-3), "transpose": (0.04e-3, 0.06e-3),
        "column_allgather": (0.024e-3, 0.03e-3), "allreduce": (0.02e-3, 0.07e-3),
    },
    "collective_bytes_1x2_22": {
        "fold": (0, 4.6e6), "row_allgather": (262144, 262144), "transpose": (0, 0), "column_allgather": (0, 0),
        "allreduce": (16, 16),
    },
    "comm_seconds_per_level_1x2_22": (0.24e-3, 0.64e-3),
    # fit_alpha_beta over that trace (``scaling_model.py d2_22_nccl.json``): quantile -> (alpha s, beta B/s). Its
    # largest message is 4.6 MB, so beta is what a synchronized small exchange gets, not NVLink's rate.
    "nccl_fit_1x2_22": {0.5: (49.3e-6, 35.97e9), 0.1: (24.6e-6, 31.79e9)},
}

# The second round (commit c07a3b4, the same two machine kinds: Graph500 with 8 roots, validated, on the x2 machine;
# searches in one process over 4 roots on the x1 machine). History only: the third round made the one-rank search
# 1.9-2.7x faster (SCALE 24 about 4.1 -> 2.14 ms, SCALE 26 9.80 -> 3.62 ms), so these anchor nothing any more;
# docs/scaling.md quotes them where it compares. Merged over H100_NVLINK_2GPU, they give that round's constants.
H100_SECOND_ROUND = {
    "label": "c07a3b4",
    "search_seconds": {("1x1", 26): 9.80e-3, ("1x2", 27): 19.06e-3},  # the x2 machine's Graph500 medians
    "gteps": {("1x1", 26): 111.0, ("1x2", 27): 110.0, ("single", 26): 377.0},  # harmonic means, the same runs
    # the x1 machine, (fastest, slowest) search of a run; the single-GPU search re-timed beside it
    "in_process_1x1_seconds": {24: (3.98e-3, 4.37e-3), 26: (8.21e-3, 9.70e-3)},
    "in_process_single_seconds": {24: (1.11e-3, 1.19e-3), 26: (2.28e-3, 2.98e-3)},
    "one_rank_seconds": {24: 4.1e-3, 26: 9.80e-3},  # its 'today' anchors (x1 median about 4.1 ms; x2 median)
    "single_gpu_seconds": {22: 0.78e-3, 26: 2.72e-3},
}

# The first round (commit f7dca24, the same kind of x2 machine, Graph500 with 4 roots at SCALE 22-23, the
# benchmark script at SCALE 26-27, searches between barriers). History only, like the second round.
H100_FIRST_ROUND = {
    "label": "f7dca24",
    "search_seconds": {
        ("1x1", 22): 8.27e-3, ("1x2", 23): 8.74e-3, ("1x1", 26): 17.7e-3, ("1x2", 27): 26.3e-3,
    },
    "search_seconds_in_process_1x1_22": (4.3e-3, 4.7e-3),  # one rank in one process, no barriers
    "one_rank_seconds": {22: 8.27e-3, 26: 17.7e-3},
    "single_gpu_seconds": {22: 0.78e-3, 26: 2.62e-3},
    "gteps": {("1x1", 22): 8.4, ("1x2", 23): 15.7, ("1x1", 26): 57.9, ("1x2", 27): 78.6,
              ("single", 22): 88.0, ("single", 26): 403.0},
}
HISTORY = (H100_SECOND_ROUND, H100_FIRST_ROUND)

# The fourteenth round, 2026-11-27 (docs/scaling.md "Fourteenth round"): the projection's compute anchors re-timed
# at today's code (b583891: one column, captured small levels, bottom-up levels queued ahead). One lent
# nvidia-h100-x1 (H100 80GB HBM3, 16 host cores), ``mpirun -n 1 benchmarks/distributed_gpu.py --scale S --roots 8
# --passes 3 --single``: the same 8 roots searched by the single-GPU hybrid and by the distributed path on one GPU,
# root by root back to back, medians. These paired medians anchor both curves: the three timed passes that followed
# gave the path 1.30, 1.03, 1.01 ms at SCALE 24 and 2.59, 2.68, 2.78 ms at SCALE 26 (their first search of a pass
# on a GPU that had idled). SCALE 22 of the single-GPU driver is still the first round's.
COMPUTE_ANCHORS = {
    "label": "b583891",
    "one_rank_seconds": {24: 1.28e-3, 26: 2.53e-3},
    "single_gpu_seconds": {22: 0.78e-3, 24: 1.18e-3, 26: 2.38e-3},
}

# The fourth round, 2026-11-26 (docs/decisions/distributed.md "GPU runs, fourth round"): GPU runs default to one
# column, P x 1 (9527731: the steps write the owner's levels and parents, nothing folds; a8f02a2: a frontier bound
# for a top-down level travels as ids while they are fewer bytes than the bitmap, no exchange after the last level,
# the totals by a host all-gather; a227212: the frontier's edge count from the scan, P = 1 without its one-rank
# collectives). Every machine was a fresh lent one and the single-GPU driver (``wavefront graph500 --backend cuda
# --kernels bfs --roots 8 --scale 26``) was re-timed on each, so a time is compared only with its own machine's.
# ``benchmarks/distributed_gpu.py``, 8 roots after a warm-up search, medians; "back to back": no validation between
# the searches; "after validation": each search after the previous one's validation, as Graph500 runs them; the
# P = 1 rows are the script's searches with no mode recorded. Per machine: (seconds, GTEPS).
ONE_COLUMN_ROUND = {
    "label": "9527731-a227212",
    "machines": {
        "A": {"gpus": "2 x H200", "commit": "861af56", "note": "2x1 before the owned path: it queued and accepted",
              "single": (2.10e-3, 487.0), "p1": (3.03e-3, 333.5),
              "searches": {("2x1", 27, "after validation"): (8.19e-3, 257.8)}},
        "B": {"gpus": "2 x H100 80GB", "commit": "9527731",
              "note": "the owned path, bitmap exchange only (an nvidia-h200-x2 call that ran on H100s)",
              "single": (2.63e-3, 399.0), "p1": (3.32e-3, 303.0),
              "searches": {("2x1", 27, "after validation"): (6.49e-3, 328.4),
                           ("2x1", 26, "back to back"): (3.99e-3, 246.0),
                           ("1x2", 26, "back to back"): (11.20e-3, 93.6)}},
        "C": {"gpus": "2 x H200", "commit": "a8f02a2", "note": "+ ids for sparse top-down-bound levels; slower "
              "and noisier throughout, its single-GPU search included",
              "single": (2.48e-3, 413.0), "p1": (3.74e-3, 292.7),
              "searches": {("2x1", 26, "back to back"): (4.22e-3, 247.9),
                           ("2x1", 27, "back to back"): (7.87e-3, 267.2),
                           ("2x1", 27, "after validation"): (6.88e-3, 302.8)}},
        "E": {"gpus": "2 x H200", "commit": "a227212", "note": "+ the frontier's edge count from the scan; P = 1 "
              "without its one-rank collectives",
              "single": (2.11e-3, 480.8), "p1": (3.16e-3, 320.2),
              "searches": {("2x1", 27, "back to back"): (5.33e-3, 401.8)},
              "range": {("2x1", 27, "back to back"): (4.60e-3, 6.11e-3)}},
    },
    "target_teps_ratio": 1.7,  # 2x1 SCALE 27 TEPS over the single-GPU SCALE 26 TEPS, issue 16's goal
    # Machine E's synchronized trace of one SCALE 27 search on rank 0 of 2x1: (level, direction, found here,
    # examined here, compute s, communication s, column all-gather s or None: no exchange follows the last level)
    "trace_2x1_27": (
        (0, "root", 0, 0, 0.090e-3, 0.157e-3, 0.089e-3),
        (1, "top-down", 2, 2, 0.146e-3, 0.080e-3, 0.064e-3),
        (2, "top-down", 17356, 17666, 0.163e-3, 0.099e-3, 0.087e-3),
        (3, "bottom-up", 14529439, 76029487, 1.745e-3, 0.114e-3, 0.099e-3),
        (4, "bottom-up", 16816884, 16996426, 0.779e-3, 0.108e-3, 0.091e-3),
        (5, "bottom-up", 155087, 176075, 0.235e-3, 0.087e-3, 0.074e-3),
        (6, "top-down", 442, 157173, 0.174e-3, 0.069e-3, 0.055e-3),
        (7, "top-down", 2, 411, 0.134e-3, 0.060e-3, 0.049e-3),
        (8, "top-down", 0, 3, 0.089e-3, 0.009e-3, None),
    ),
    "host_allgather_seconds": (0.008e-3, 0.066e-3),  # the level totals' MPI all-gather of two int64, per level
    # Machine D, another lent H200: a synchronized per-call profile of P = 1 at SCALE 26, the bottom-up kernels of
    # levels 3 and 4 and the arcs level 3 examined. A different machine from E: the 2x1 comparison below is an
    # estimate, never a measured difference.
    "p1_26_bottom_up_seconds_machine_d": {3: 1.09e-3, 4: 0.57e-3},
    "p1_26_examined_level3": 58e6,
    # Validation at SCALE 27 on 2x1 (the distributed validator on the CPU), seconds a search: the first builds the
    # per-graph endpoint remap
    "validation_27_seconds": {"first": (8.3, 12.1), "later": (4.1, 5.9)},
}

# The fifth round: 4 x H200 (NVLink NV18 between every pair, 64 host cores), the weak-scaling series SCALE 26 +
# log2 P on one column, P = 1, 2, 4 (benchmarks/distributed_gpu.py, 8 roots after a warm-up search, back to back;
# docs/scaling.md "Fifth round"). Each machine a fresh lent one: compare within a machine only. "single": the
# single-GPU search on the same 8 roots as P = 1 (compare_with_single); "p1": P = 1 timed as the series is.
# Per search: (median seconds, harmonic-mean GTEPS) of each back-to-back pass; "bound": each rank bound to 64/P
# cores (mpirun --map-by slot:PE=64/P --bind-to core), else --bind-to none. Machine J is the thirteenth round's
# (2026-11-27, docs/decisions/distributed.md "GPU runs, thirteenth round"): 4 x H100 80GB at 4840a19, the code with
# small levels (``"small_levels": True``: its model prices today's exchanges, :func:`one_column_exchanges`), the
# series run by benchmarks/distributed_series.sh with BIND=0.
FOUR_GPU_ROUND = {
    "label": "24829e2-96d3d4f; 4840a19",
    "machines": {
        "F": {"commit": "24829e2", "note": "the search's edge count on the host between searches (the GPU idled)",
              "single": (1.99e-3, 498.8), "p1": [(2.62e-3, 401.4), (2.58e-3, 400.1)],
              "searches": {("2x1", 27, "unbound"): [(5.69e-3, 386.7), (4.93e-3, 431.1)],
                           ("4x1", 28, "unbound"): [(5.64e-3, 740.1), (5.10e-3, 754.0)],
                           ("2x2", 28, "unbound"): [(16.19e-3, 257.8)]}},
        "G": {"commit": "73495b7", "note": "edge counts after the searches",
              "single": (1.99e-3, 492.2), "p1": [(2.34e-3, 443.9), (2.28e-3, 440.5)],
              "searches": {("4x1", 27, "unbound"): [(4.69e-3, 381.4), (5.01e-3, 438.3)],
                           ("4x1", 27, "bound"): [(4.60e-3, 435.8), (2.97e-3, 713.1)]}},
        "H": {"commit": "73495b7", "note": "four passes, ranks bound",
              "single": (1.94e-3, 504.2),
              "p1": [(2.27e-3, 451.1), (2.44e-3, 414.4), (2.30e-3, 438.5), (2.30e-3, 436.6)],
              "searches": {("2x1", 27, "bound"): [(4.45e-3, 485.3), (3.65e-3, 560.0), (3.65e-3, 561.7),
                                                  (3.69e-3, 555.7)],
                           ("4x1", 28, "bound"): [(4.71e-3, 846.8), (4.21e-3, 975.0), (4.12e-3, 991.1),
                                                  (4.17e-3, 985.2)],
                           ("4x1", 28, "unbound"): [(4.20e-3, 860.9), (4.20e-3, 975.9), (4.91e-3, 889.9),
                                                    (4.32e-3, 960.7)]}},
        "I": {"commit": "73495b7", "note": "the padded all-gather-v's A/B, its baseline (the code kept)",
              "single": None, "p1": None,
              "searches": {("4x1", 27, "unbound"): [(3.31e-3, 563.2), (2.79e-3, 744.5), (2.81e-3, 740.8),
                                                    (2.63e-3, 764.5)]}},
        "J": {"commit": "4840a19", "gpus": "4 x H100 80GB", "small_levels": True,
              "note": "twelve rounds later: small levels with a fixed exchange, captured; three passes, unbound",
              "single": (2.27e-3, 428.3), "p1": [(2.64e-3, 391.6), (2.62e-3, 385.3), (2.77e-3, 367.7)],
              "searches": {("2x1", 27, "unbound"): [(3.85e-3, 563.3), (4.29e-3, 486.0), (4.28e-3, 481.4)],
                           ("4x1", 28, "unbound"): [(4.60e-3, 899.6), (5.09e-3, 840.2), (4.40e-3, 960.0)]}},
    },
    # benchmarks/collectives.py, one column, median us a call (machine G; I for the padded all-gather-v)
    "collectives_us": {
        4: {"ids, grouped send/recv": (60.0, 75.7), "ids, NCCL all-gather of equal parts": (31.3, 38.5),
            "ids, padded all-gather-v with its copies (lost)": (54.2, 68.8),
            "bitmap piece of SCALE 28 (8.4 MB)": (120.9, 129.0), "level totals, host all-gather": (4.5, 7.7)},
        2: {"ids, grouped send/recv": (32.3, 46.7), "ids, NCCL all-gather of equal parts": (18.9, 22.4),
            "bitmap piece of SCALE 27 (8.4 MB)": (67.6, 67.6), "level totals, host all-gather": (4.3, 4.3)},
    },
}


NOT_MEASURED = (
    ("an NCCL alpha-beta fit above 25 MB a message: the fifth round's traces (--json of "
     "benchmarks/distributed_gpu.py --trace) reach 25 MB a rank (SCALE 28 on 4x1); the 2-D fold's fit is still the "
     "SCALE 22 trace's (largest message 4.6 MB)"),
    ("how a block's cost beyond one GPU's share grows with the grid past P = 4: 1x2, 2x1, 4x1 and 2x2 are measured, "
     "and the projection's compute holds none of it"),
    ("the single-GPU (or P = 1) search at SCALE 27 and its arcs examined per level on a GPU (on the CPU, "
     "benchmarks/bottom_up_arcs.py: the one-column probe order adds no arcs, and a 2x1 rank at SCALE k + 1 examines "
     "0.90-1.14x one GPU's at SCALE k over 12 roots; the traced 1.31x was its root's)"),
    ("a P = 1 per-level trace on the machine of the 2x1 trace (E): its bottom-up levels' floor comes from "
     "another H200's profile (D)"),
    "a one-rank search at SCALE 27 (the 1x2 SCALE 28 point is compared with the model's extrapolated share)",
    "the one-rank distributed search below SCALE 24 at today's code (the model holds SCALE 24's time there)",
    "any run on 8 GPUs or more (the 8-GPU kinds were not lent), and any run across nodes (InfiniBand)",
)


@dataclass(frozen=True)
class GPUConstants:
    """What the H100 measurements give the model (each derived in :func:`gpu_constants`)."""

    call_seconds: float  # one NCCL call on a one-rank communicator, synchronized: software alone
    host_call_seconds: float  # one small MPI collective between the two ranks (host allreduce)
    step_seconds_traced: float  # one NVLink ring step on the traced (synchronized) path, at most
    fold_beta_traced: float  # the fold's effective bytes per second on the traced path, at least
    overhead_26: float  # per search: the 1-rank distributed path beyond the single-GPU driver, SCALE 26
    added_26: float  # per search: SCALE 26 on 1 GPU -> SCALE 27 on 2


def gpu_constants(m=H100_NVLINK_2GPU) -> GPUConstants:
    seconds, nbytes, search = m["collective_seconds_1x2_22"], m["collective_bytes_1x2_22"], m["search_seconds"]
    fold_span = seconds["fold"][1] - seconds["fold"][0]
    return GPUConstants(
        call_seconds=seconds["column_allgather"][0],
        host_call_seconds=seconds["allreduce"][0],
        step_seconds_traced=seconds["row_allgather"][0] - seconds["column_allgather"][0],
        # assumes the slowest fold was the one that moved the most bytes
        fold_beta_traced=(nbytes["fold"][1] - nbytes["fold"][0]) / fold_span,
        overhead_26=search[("1x1", 26)] - m["single_gpu_seconds"][26],  # both from the same x2 run
        added_26=search[("1x2", 27)] - search[("1x1", 26)],
    )


# -- the projection ------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Link:
    """A link class: per-GPU bandwidth range and NCCL's per-ring-step latency for it."""

    name: str
    beta_low: float  # bytes per second per GPU
    beta_high: float
    step: float  # seconds per ring step (NCCL tuning model, Simple protocol)


# NCCL's own latency model (src/graph/tuning.cc): a ring collective costs a
# base latency plus one hardware latency per step; Simple protocol (our
# bitmaps are megabytes): base 8.4 us, per step 3.4 us over NVLink, 9.6 us over the network.
NCCL_BASE = 8.4e-6
NVLINK = Link("NVLink", 300e9, 450e9, 3.4e-6)
INFINIBAND = Link("InfiniBand", 25e9, 50e9, 9.6e-6)
H100_FREE_BYTES = 79 * GIB  # what an H100 80GB reports free (docs/decisions/distributed.md)


@dataclass(frozen=True)
class Scenario:
    """How the code around the collectives behaves.

    ``today``: a GPU's share of a search costs what the distributed path
    measured on one GPU for a graph of that many vertices (its host
    synchronizations, one-rank collectives and fold passes included), and
    the allreduce and the fold's count exchange are host MPI calls.
    ``floor``: the share runs at the single-GPU driver's speed and every
    exchange is a device collective paying NCCL's latency alone."""

    name: str
    measured_path: bool  # compute from the distributed path's one-rank times (else the single-GPU driver's)
    host_call: float | None  # seconds of one small MPI call (None: device collectives, NCCL_BASE)


def scenarios(constants: GPUConstants) -> tuple[Scenario, Scenario]:
    return (Scenario("today", True, constants.host_call_seconds), Scenario("floor", False, None))


@dataclass(frozen=True)
class GraphShape:
    """What the fold volume and TEPS need from the graph, measured by
    :func:`graph_shape` on a smaller Kronecker graph."""

    scale: int
    reached: float  # vertices reached / n
    nedge: float  # Graph500's edge count / (edgefactor * n)
    duplication: dict  # C -> pairs claimed per vertex discovered (no deduplication)
    levels: float  # trace rows per search (level 0 .. depth + 1)
    dense_share: float  # share of the bitmap bytes left if small levels sent 4-byte ids instead


def graph_shape(scale: int, columns=(1, 2, 4, 8, 16, 32), roots: int = 4, seed: int = 1,
                edgefactor: int = 16) -> GraphShape:
    """Reach, edge count, trace rows and the fold's duplication factor
    ``D(C) = sum over ranks of pairs claimed / vertices discovered`` (a
    vertex is claimed once by every column block holding one of its parents;
    the GPU fold sends them all), averaged over Graph500 roots."""
    from wavefront.graph500.roots import choose_roots

    (tails, heads), src, dst = kronecker_arcs(scale, edgefactor, seed)
    n = 1 << scale
    reached, nedge, depth, dense, dup = [], [], [], [], {c: [] for c in columns}
    proper = src != dst
    for root in choose_roots(src, dst, n, roots, seed):
        levels = bfs_levels(tails, heads, n, int(root))
        inside = levels >= 0
        reached.append(inside.mean())
        nedge.append(np.count_nonzero(inside[src[proper]]) / (edgefactor * n))
        rows = int(levels.max()) + 2
        depth.append(rows)
        # A row's bitmap pieces carry the vertices the level discovered: as
        # 4-byte piece-local ids they would cost 32 * discovered / n of the bitmap.
        discovered = np.bincount(levels[inside], minlength=rows)[:rows]
        dense.append(np.minimum(1.0, 32.0 * discovered / n).sum() / rows)
        for c in columns:
            counts = search_counts(tails, heads, levels, Layout(n, 1, c), dedupe="never")
            dup[c].append(counts.found.sum() / max(1, counts.discovered[1:].sum()))
    return GraphShape(scale, float(np.mean(reached)), float(np.mean(nedge)),
                      {c: float(np.mean(v)) for c, v in dup.items()}, float(np.mean(depth)), float(np.mean(dense)))


def load_or_measure_shape(scale: int, path: Path | None = None) -> GraphShape:
    """:func:`graph_shape` at ``scale``, kept in ``path`` (JSON) when given: a
    SCALE 22 shape takes a quarter of an hour here."""
    if path is not None and path.exists():
        data = json.loads(path.read_text())
        if data["scale"] == scale:
            data["duplication"] = {int(c): d for c, d in data["duplication"].items()}
            return GraphShape(**data)
    shape = graph_shape(scale)
    if path is not None:
        path.write_text(json.dumps(asdict(shape), indent=1))
    return shape


def duplication(shape: GraphShape, cols: int) -> float:
    """D(C) at ``cols``: measured where it was, else extended in log2 C from
    the last two measured points (bounded by C: one pair per column block)."""
    known = sorted(shape.duplication)
    if cols in shape.duplication:
        return shape.duplication[cols]
    a, b = known[-2], known[-1]
    slope = (shape.duplication[b] - shape.duplication[a]) / (math.log2(b) - math.log2(a))
    return min(float(cols), shape.duplication[b] + slope * (math.log2(cols) - math.log2(b)))


def _interpolate(known: dict, scale: float) -> float:
    """Log-linear between the measured SCALEs; below the smallest, its time
    (small searches are latency-bound, and nothing smaller is measured). The
    callers extend it above the largest."""
    scales = sorted(known)
    if scale <= scales[0]:
        return known[scales[0]]
    return float(np.exp(np.interp(scale, scales, [math.log(known[s]) for s in scales])))


def single_gpu_seconds(scale: float, m=COMPUTE_ANCHORS) -> float:
    """The single-GPU driver's search at ``scale`` (``m``'s measured SCALEs,
    log-linear between; above the largest proportional to the edges: it
    already streams memory at a steady rate there)."""
    known = m["single_gpu_seconds"]
    top = max(known)
    return known[top] * 2.0 ** (scale - top) if scale > top else _interpolate(known, scale)


def one_rank_seconds(scale: float, m=COMPUTE_ANCHORS) -> float:
    """The distributed path's search on one GPU at ``scale``: anchored at
    SCALE 24 and 26 (``m``'s; today's were timed on one machine, the third
    round's on two of the same GPU kind), log-linear between, SCALE 24's
    time below it. Above 26, the single-GPU driver's time plus what the path
    measured beyond it at 26, held fixed. The anchors' own slope (1.41x per
    SCALE today, 1.30x in the third round) would put the path below the
    single-GPU driver (2x per SCALE) from SCALE 27 on; the excess is
    per-level launches and host reads, which do not grow with the edges, so
    holding it fixed lies between that slope (today 3.56 ms at SCALE 27) and
    growing the whole search with the edges (5.06 ms)."""
    known = m["one_rank_seconds"]
    top = max(known)
    if scale > top:
        return single_gpu_seconds(scale, m) + known[top] - single_gpu_seconds(top, m)
    return _interpolate(known, scale)


@dataclass(frozen=True)
class Projection:
    size: int
    grid: str
    scale: int
    bitmap_bytes: float  # per rank per search
    fold_bytes: float
    latency: float  # seconds per search
    compute: float
    comm_low: float  # bytes / beta at the link's high and low bandwidth
    comm_high: float
    block_bytes: int

    @property
    def search_low(self) -> float:
        return self.compute + self.latency + self.comm_low

    @property
    def search_high(self) -> float:
        return self.compute + self.latency + self.comm_high

    def limiter(self) -> str:
        parts = {"compute": self.compute, "latency": self.latency, "bytes": self.comm_high}
        return max(parts, key=parts.get)


@dataclass(frozen=True)
class OneColumnExchanges:
    """What a one-column search's exchanges carry, per search: ``bitmaps``
    levels whose new frontier travels as a bitmap (those bound for a
    bottom-up step), and ``ids_share``, the share of the reached vertices
    that travel as ids (found on levels bound for a top-down step), as the
    code of a round made them:

    * ``root_sent``: the root's owner sends its id (the code before
      ``57b7c17``); since then every rank queues it for a top-down level 1;
    * ``small_levels``: levels run as small top-down levels
      (``DistributedTuning.fixed_ids_edges`` = ``fixed_ids``, since
      ``6f2e882``), each a column all-gather of a segment of ``fixed_ids +
      3`` int64 a rank and no host all-gather of the totals; ``small_last``:
      the search's last level is one of them, and is exchanged (its
      segments carry its totals)."""

    bitmaps: int
    ids_share: float
    root_sent: bool = True
    small_levels: int = 0
    small_last: bool = False
    fixed_ids: int = 0

    def column_calls(self, levels: float) -> float:
        """Column all-gathers a search of ``levels`` trace rows makes: one
        after every level but the last, less the root's where nobody sends
        it, plus the last where it is a small level."""
        return levels - 1 - (0 if self.root_sent else 1) + (1 if self.small_last else 0)

    def host_calls(self, levels: float) -> float:
        """Host all-gathers of the totals: one a level but on small levels."""
        return levels - self.small_levels

    def segment_bytes(self) -> int:
        return 8 * (self.fixed_ids + 3)


def one_column_forms(m=ONE_COLUMN_ROUND, fixed_ids_edges: int | None = None, root_sent: bool = False) -> list[str]:
    """The exchange form (:func:`gpu_exchange`) of each level of the 2x1
    SCALE 27 trace: from the next row's direction and the level's total,
    taken as R times rank 0's found (Graph500's scrambled labels spread the
    owners evenly; the root level: one vertex), as the code with
    ``fixed_ids_edges`` (default today's, ``DistributedTuning``; 0: before
    ``6f2e882``) and ``root_sent`` (before ``57b7c17``) would make them. A
    top-down level is small where R times rank 0's examined arcs (its share
    of the frontier's ``m_f``) is at most ``fixed_ids_edges``: "fixed",
    whether or not a level follows."""
    from wavefront.bfs.policy import TOP_DOWN
    from wavefront.distributed.tuning import DistributedTuning

    fixed = DistributedTuning().fixed_ids_edges if fixed_ids_edges is None else fixed_ids_edges
    trace = m["trace_2x1_27"]
    layout = Layout(1 << 27, 2, 1, nccl=True)
    forms = []
    for i, (level, direction, found, examined, *_) in enumerate(trace):
        following = trace[i + 1][1] if i + 1 < len(trace) else None
        if level > 0 and direction == TOP_DOWN and layout.rows * examined <= fixed:
            forms.append("fixed")
            continue
        forms.append(gpu_exchange(layout, level, direction, following, 1 if level == 0 else layout.rows * found,
                                  root_sent=root_sent))
    return forms


def one_column_exchanges(m=ONE_COLUMN_ROUND, fixed_ids_edges: int | None = None,
                         root_sent: bool = False) -> OneColumnExchanges:
    """:class:`OneColumnExchanges` of the 2x1 SCALE 27 trace (rank 0's
    found vertices; the direction sequence is every rank's) under the code
    :func:`one_column_forms` describes (default today's)."""
    from wavefront.distributed.tuning import DistributedTuning

    fixed = DistributedTuning().fixed_ids_edges if fixed_ids_edges is None else fixed_ids_edges
    trace, forms = m["trace_2x1_27"], one_column_forms(m, fixed, root_sent)
    found = [row[2] for row in trace]
    as_ids = sum(f for f, form in zip(found, forms, strict=True) if form == "ids")
    return OneColumnExchanges(forms.count("bitmap"), as_ids / sum(found), root_sent=root_sent,
                              small_levels=forms.count("fixed"), small_last=forms[-1] == "fixed", fixed_ids=fixed)


# The code the earlier rounds measured: the root's id sent, no small levels (before 57b7c17 and 6f2e882).
def before_small_levels(m=ONE_COLUMN_ROUND) -> OneColumnExchanges:
    return one_column_exchanges(m, fixed_ids_edges=0, root_sent=True)


def project(scale: int, size: int, link: Link, scenario: Scenario, shape: GraphShape, levels: float | None = None,
            edgefactor: int = 16, grid: tuple[int, int] | None = None,
            exchanges: OneColumnExchanges | None = None, anchors=COMPUTE_ANCHORS) -> Projection:
    """One GPU per rank, NCCL device buffers, on ``grid`` (default the most
    square: the 2-D layout that wider runs need). Per search (``levels``
    trace rows; the first has no fold):

    * bytes per rank: every row's bitmap pieces (row and column all-gathers,
      the transpose on the worst rank) and the fold's pairs to other owners,
      ``pair_bytes * reached * n * D(C) * (C - 1) / C / P`` (balanced ranks);
    * latency: each collective over a group of ``g`` ranks costs NCCL's base
      plus ``g - 1`` ring steps (the fold's grouped send/recv counted as a
      ring too); the allreduce and the fold's count exchange are host MPI
      calls (``today``) or device ones (``floor``), ``ceil(log2 g)`` steps;
    * compute: at the SCALE of one GPU's share of the vertices (``n / P``),
      the distributed path's measured one-GPU search (``today``) or the
      single-GPU driver's (``floor``), by ``anchors`` (default today's code:
      :data:`COMPUTE_ANCHORS`). What a rank's block adds beyond its
      share (a row block of ``n / R`` vertices, the bottom-up's lost early
      exits) is not in it: see :func:`two_gpu_check`.

    A one-column grid (R x 1, R > 1; GPU runs' default since ``9527731``)
    folds nothing and exchanges over its column alone, as the code since
    ``a8f02a2`` does: ``exchanges.column_calls(levels)`` column all-gathers
    (NCCL's base plus ``R - 1`` steps each, the ids' grouped send/recv
    priced as a ring too) and ``exchanges.host_calls(levels)`` host
    all-gathers of the totals; bytes per rank: ``exchanges.bitmaps``
    bitmaps of ``(R - 1)`` pieces (about n/8 whatever R), the ids of
    ``exchanges.ids_share`` of the reached vertices and the small levels'
    segments from ``R - 1`` ranks. The default is today's code on the 2x1
    SCALE 27 trace (:func:`one_column_exchanges`): no root exchange, three
    small levels (the last among them), so ``levels - 1`` column and
    ``levels - 3`` host all-gathers; the earlier rounds' code is
    :func:`before_small_levels` (``levels - 1`` and ``levels``).
    """
    from wavefront.distributed.grid import grid_shape
    from wavefront.distributed.memory import block_bytes

    rows, cols = grid_shape(size) if grid is None else grid
    if rows * cols != size:
        raise ValueError(f"a {rows}x{cols} grid has {rows * cols} ranks, not {size}")
    n = 1 << scale
    layout = Layout(n, rows, cols, nccl=True)
    levels = shape.levels if levels is None else levels
    moves = layout.transpose_moves()
    piece = layout.piece_bytes
    one_column = cols == 1 and size > 1
    if one_column:
        exchanges = one_column_exchanges() if exchanges is None else exchanges
        bitmap = (exchanges.bitmaps * (rows - 1) * piece
                  + layout.id_bytes * exchanges.ids_share * shape.reached * n * (rows - 1) / rows
                  + exchanges.small_levels * (rows - 1) * exchanges.segment_bytes())
        fold = 0.0
    else:
        bitmap = levels * ((cols - 1) + (rows - 1) + int(moves)) * piece
        fold = layout.pair_bytes * shape.reached * n * duplication(shape, cols) * (cols - 1) / cols / size

    def ring(group):
        return NCCL_BASE + (group - 1) * link.step if group > 1 else 0.0

    def small(group):
        if group == 1:
            return 0.0
        base = NCCL_BASE if scenario.host_call is None else scenario.host_call
        return base + math.ceil(math.log2(group)) * link.step

    if one_column:
        latency = exchanges.column_calls(levels) * ring(rows) + exchanges.host_calls(levels) * small(size)
    else:
        per_level = ring(cols) + ring(rows) + (NCCL_BASE + link.step if moves else 0.0) + small(size)
        per_fold = ring(cols) + small(cols)
        latency = levels * per_level + (levels - 1) * per_fold
    share = scale - math.log2(size)  # the SCALE of one GPU's share of the vertices
    compute = one_rank_seconds(share, anchors) if scenario.measured_path else single_gpu_seconds(share, anchors)
    moved = bitmap + fold
    return Projection(size, f"{rows}x{cols}", scale, bitmap, fold, latency, compute,
                      moved / link.beta_high, moved / link.beta_low, block_bytes(scale, edgefactor, size, rows, cols))


def projection_rows(series: str, link: Link, scenario: Scenario, shape: GraphShape, levels=None,
                    sizes=(8, 16, 32, 64, 128, 256, 512, 1024), edgefactor: int = 16,
                    one_column: bool = False, strong_scale: int = 30) -> list[list]:
    """The projection's table rows: ``series`` "weak" (SCALE 26 + log2 P) or
    "strong" (``strong_scale``), on the most square grids or on one column."""
    from wavefront.backends.cuda.memory import SAFETY_BYTES

    rows = []
    for size in sizes:
        scale = 26 + int(math.log2(size)) if series == "weak" else strong_scale
        p = project(scale, size, link, scenario, shape, levels, edgefactor, grid=(size, 1) if one_column else None)
        nedge = shape.nedge * edgefactor * (1 << scale)
        fits = p.block_bytes + SAFETY_BYTES <= H100_FREE_BYTES
        rows.append([
            p.size, p.grid, p.scale, f"{p.bitmap_bytes / 1e6:,.0f}", f"{p.fold_bytes / 1e6:,.0f}",
            f"{p.latency * 1e3:.2f}", f"{p.compute * 1e3:.2f}",
            f"{p.comm_low * 1e3:.2f}-{p.comm_high * 1e3:.2f}",
            f"{p.search_low * 1e3:.1f}-{p.search_high * 1e3:.1f}",
            f"{nedge / p.search_high / 1e9:,.0f}-{nedge / p.search_low / 1e9:,.0f}",
            p.limiter(), f"{p.block_bytes / GIB:.0f}" + ("" if fits else " (no)"),
        ])
    return rows


def two_gpu_check(shape: GraphShape, constants: GPUConstants, m=H100_NVLINK_2GPU, history=HISTORY) -> list[tuple]:
    """What going from SCALE s on one GPU to SCALE s + 1 on two (1x2) adds to
    a search, per measured pair of ``m`` and of each round in ``history``
    (each labelled by its ``label``): (pair, model low, model high, fit low,
    fit high, measured).

    * model: the projection's communication ('today', NVLink, its two
      bandwidth ends, the SCALE 22 search's level count). Its compute is the
      same on both sides (one GPU's share is SCALE s either way), so the
      difference is NCCL's latency model and the bytes at 300-450 GB/s.
    * fit: the same bytes and the calls that cross ranks on a 1x2 grid (per
      level the row all-gather and the host allreduce, the fold from level 1)
      priced by the SCALE 22 trace's alpha-beta fits (``nccl_fit_1x2_22``, both
      quantiles, smaller and larger). A one-rank search moves no bytes and
      its one-rank calls hand back their input, so this is the 1x2 side
      alone. The fit's beta comes from messages of at most 4.6 MB on a
      synchronized path: an upper bound on the communication, not an estimate.
    * measured: the difference of the two medians; it also holds what the 1x2
      block adds (a row block of all n vertices, the lost early exits), which
      :func:`trace_split` separates where both searches were traced."""
    today = scenarios(constants)[0]
    levels = m["levels_scale22"]
    fits = m["nccl_fit_1x2_22"].values()
    rows = []
    for measured in (m, *history):
        search = measured["search_seconds"]
        for (grid, scale), seconds in sorted(search.items()):
            if grid != "1x1" or ("1x2", scale + 1) not in search:
                continue
            one = project(scale, 1, NVLINK, today, shape, levels)
            two = project(scale + 1, 2, NVLINK, today, shape, levels)
            calls = 3 * levels - 1
            moved = two.bitmap_bytes + two.fold_bytes
            fitted = [calls * alpha + moved / beta for alpha, beta in fits]
            rows.append((f"SCALE {scale} on 1 -> {scale + 1} on 2 ({measured['label']})", two.search_low - one.search_low,
                         two.search_high - one.search_high, min(fitted), max(fitted),
                         search[("1x2", scale + 1)] - seconds))
    return rows


@dataclass(frozen=True)
class TraceSplit:
    """Two synchronized traces, one rank at SCALE s and a 1x2 rank at s + 1,
    summed over their levels and over the big bottom-up levels alone (seconds)."""

    one_compute: float
    one_comm: float
    two_compute: float
    two_comm: float
    one_big_compute: float
    one_big_comm: float
    two_big_compute: float
    two_big_comm: float

    @property
    def added_compute(self) -> float:
        return self.two_compute - self.one_compute

    @property
    def added_comm(self) -> float:
        return self.two_comm - self.one_comm

    @property
    def added(self) -> float:
        return self.added_compute + self.added_comm


def trace_split(m=H100_NVLINK_2GPU) -> TraceSplit:
    """What the second GPU adds, split by the traces (``trace_1x1_26``,
    ``trace_1x2_27``) into the block's compute and the communication; the
    big levels are ``bottom_up_levels``. Each trace synchronizes after every
    step and collective, so a collective's seconds include waiting for the
    other rank's step, and the sums differ from the timed medians."""
    one, two = np.asarray(m["trace_1x1_26"]), np.asarray(m["trace_1x2_27"])
    big = list(m["bottom_up_levels"])
    return TraceSplit(*one.sum(axis=0), *two.sum(axis=0), *one[big].sum(axis=0), *two[big].sum(axis=0))


def two_gpu_points(shape: GraphShape, constants: GPUConstants, m=H100_NVLINK_2GPU) -> list[tuple]:
    """Every measured 1x2 search of ``m`` against the projection's own
    'today' row for it (P = 2, NVLink): (SCALE, model compute, model
    latency + bytes low, high, model search low, high, measured, the block's
    modelled bytes, measured GPU bytes or None). The model's compute is the
    one-rank curve of the same round (``m``'s anchors) at one GPU's share
    (SCALE - 1), extrapolated above 26."""
    today = scenarios(constants)[0]
    levels = m["levels_scale22"]
    rows = []
    for (grid, scale), seconds in sorted(m["search_seconds"].items()):
        if grid != "1x2":
            continue
        p = project(scale, 2, NVLINK, today, shape, levels, anchors=m)
        held = m.get("gpu_bytes", {}).get((grid, scale))
        rows.append((scale, p.compute, p.latency + p.comm_low, p.latency + p.comm_high, p.search_low, p.search_high,
                     seconds, p.block_bytes, held))
    return rows


def one_column_points(shape: GraphShape, constants: GPUConstants, m=ONE_COLUMN_ROUND, link: Link = NVLINK
                      ) -> list[tuple]:
    """Every measured search of the fourth round, each against its own
    machine only: (machine, GPUs, commit, grid, SCALE, mode, seconds,
    GTEPS, GTEPS over the same machine's single-GPU SCALE 26 GTEPS, model
    low, model high). The model (2x1 at SCALE 27 only, where the same
    machine timed P = 1 at SCALE 26, one GPU's share) is that P = 1 time
    plus the projection's one-column communication at P = 2 ('today', the
    trace's 9 rows, the code that round ran: :func:`before_small_levels`):
    latency and bytes at the link's two bandwidths. None where there is no
    such P = 1 time."""
    today = scenarios(constants)[0]
    levels = len(m["trace_2x1_27"])
    rows = []
    for name, machine in sorted(m["machines"].items()):
        single_teps = machine["single"][1]
        for (grid, scale, mode), (seconds, gteps) in sorted(machine["searches"].items()):
            low = high = None
            if grid == "2x1" and scale == 27:
                p = project(scale, 2, link, today, shape, levels, grid=(2, 1), exchanges=before_small_levels(m))
                base = machine["p1"][0] + p.latency
                low, high = base + p.comm_low, base + p.comm_high
            rows.append((name, machine["gpus"], machine["commit"], grid, scale, mode, seconds, gteps,
                         gteps / single_teps, low, high))
    return rows


def four_gpu_points(shape: GraphShape, constants: GPUConstants, m=FOUR_GPU_ROUND, link: Link = NVLINK,
                    levels: float = 9) -> list[tuple]:
    """The four-GPU machines' one-column searches, each against its own machine:
    (machine, grid, SCALE, binding, the best pass's (by GTEPS) median
    seconds, its GTEPS, GTEPS over
    the machine's single-GPU SCALE 26 (None without one), over its P = 1
    timed as the series (the mean of its passes' GTEPS), model low, model
    high). The model of ``R x 1`` at SCALE 26 + log2 R: the machine's P = 1
    median (the mean over passes) plus the projection's one-column
    communication ('today', ``levels`` trace rows, the exchanges of the code
    the machine ran: :func:`before_small_levels`, or
    :func:`one_column_exchanges` where it had small levels); None off the
    series."""
    today = scenarios(constants)[0]
    rows = []
    for name, machine in sorted(m["machines"].items()):
        p1 = machine["p1"]
        p1_seconds = None if p1 is None else float(np.mean([t for t, _ in p1]))
        p1_teps = None if p1 is None else float(np.mean([g for _, g in p1]))
        for (grid, scale, binding), passes in sorted(machine["searches"].items()):
            seconds, gteps = max(passes, key=lambda entry: entry[1])
            size = int(grid.split("x")[0]) * int(grid.split("x")[1])
            low = high = None
            if grid.endswith("x1") and p1_seconds is not None and scale == 26 + int(math.log2(size)):
                exchanges = one_column_exchanges() if machine.get("small_levels") else before_small_levels()
                p = project(scale, size, link, today, shape, levels, grid=(size, 1), exchanges=exchanges)
                low, high = p1_seconds + p.latency + p.comm_low, p1_seconds + p.latency + p.comm_high
            rows.append((name, grid, scale, binding, seconds, gteps,
                         None if machine["single"] is None else gteps / machine["single"][1],
                         None if p1_teps is None else gteps / p1_teps, low, high))
    return rows


@dataclass(frozen=True)
class OneColumnSplit:
    """Machine E's synchronized 2x1 SCALE 27 trace summed (seconds), and its
    big bottom-up levels against P = 1's at SCALE 26 scaled by the arcs
    level 3 examined (machine D's profile: another machine, an estimate)."""

    compute: float
    comm: float
    column_allgather: float
    bottom_up_compute: float  # levels 3 and 4
    examined_ratio: float  # level 3's arcs on the 2x1 rank over P = 1's at SCALE 26
    bottom_up_floor: float  # P = 1's levels 3 and 4 times examined_ratio

    @property
    def above_floor(self) -> float:
        return self.bottom_up_compute / self.bottom_up_floor - 1.0


def one_column_split(m=ONE_COLUMN_ROUND) -> OneColumnSplit:
    trace = m["trace_2x1_27"]
    p1 = m["p1_26_bottom_up_seconds_machine_d"]
    ratio = trace[3][3] / m["p1_26_examined_level3"]
    return OneColumnSplit(
        compute=sum(row[4] for row in trace), comm=sum(row[5] for row in trace),
        column_allgather=sum(row[6] for row in trace if row[6] is not None),
        bottom_up_compute=sum(trace[level][4] for level in p1), examined_ratio=ratio,
        bottom_up_floor=sum(p1.values()) * ratio)


def column_allgather_levels(m=ONE_COLUMN_ROUND, link: Link = NVLINK) -> list[tuple]:
    """Per exchanged level of the 2x1 SCALE 27 trace: (level, form, bytes a
    rank, model seconds at the high and low bandwidth, measured seconds).
    Bytes: a piece of the bitmap (2^26 vertices, 8.4 MB) or rank 0's found
    vertices as ids (the root level: one id; what the other rank sends is
    taken as equal); the model: NCCL's base, one ring step, the bytes over
    the link. The forms are those of the code that made the trace
    (:func:`before_small_levels`: the root's id sent, no small levels)."""
    layout = Layout(1 << 27, 2, 1, nccl=True)
    rows = []
    forms = one_column_forms(m, fixed_ids_edges=0, root_sent=True)
    for (level, _, found, _, _, _, seconds), form in zip(m["trace_2x1_27"], forms):
        if form == "none":
            continue
        nbytes = layout.piece_bytes if form == "bitmap" else layout.id_bytes * (1 if level == 0 else found)
        base = NCCL_BASE + (layout.rows - 1) * link.step
        rows.append((level, form, nbytes, base + nbytes / link.beta_high, base + nbytes / link.beta_low, seconds))
    return rows


def one_column_fit(m=ONE_COLUMN_ROUND, quantiles=(0.5, 0.1)) -> dict:
    """``{quantile: (alpha s, beta B/s)}`` of the 2x1 trace's column
    all-gathers (:func:`fit_alpha_beta`, one call a level): the synchronized
    path's price on machine E's H200s, an upper bound like the SCALE 22 fit."""
    rows = column_allgather_levels(m)
    nbytes = np.array([row[2] for row in rows], dtype=float)
    seconds = np.array([row[5] for row in rows], dtype=float)
    return {q: fit_alpha_beta(np.ones_like(nbytes), nbytes, seconds, q) for q in quantiles}


@dataclass(frozen=True)
class TracedLevel:
    """One level of a one-column report's synchronized trace against the
    model, over its ranks: the exchange's form and the most bytes a rank
    received, the column all-gather's model (NCCL's base, ``R - 1`` ring
    steps, those bytes over the link's high and low bandwidth) and traced
    seconds (fastest and slowest rank), the totals' host all-gather's model
    (a host call and ``ceil(log2 P)`` steps) and traced seconds, and the
    level's whole traced communication."""

    level: int
    direction: str
    form: str  # "bitmap", "ids", "none" (no exchange follows), "overlapped" (sent while the step ran)
    bytes_in: int
    model_low: float  # column all-gather at the link's high bandwidth
    model_high: float
    traced: tuple[float, float]  # column all-gather, (fastest, slowest) rank
    totals_model: float
    totals_traced: tuple[float, float]
    comm_traced: tuple[float, float]

    @property
    def comm_model(self) -> tuple[float, float]:
        exchange = (self.model_low, self.model_high) if self.form in ("bitmap", "ids") else (0.0, 0.0)
        return exchange[0] + self.totals_model, exchange[1] + self.totals_model


def traced_levels(run: Run, link: Link = NVLINK, host_call: float | None = None) -> list[TracedLevel]:
    """Per level of a one-column GPU report (``R x 1``, R > 1; the
    ``--json`` of ``benchmarks/distributed_gpu.py --trace`` or of a
    distributed Graph500 run) its traced communication against the model's
    price (:class:`TracedLevel`). The bytes are the trace's, which
    :func:`check_bytes` compares with the model separately. ``host_call``:
    one small MPI call (default the H100 traces', :class:`GPUConstants`).
    An overlapped level's traced seconds are what its step did not hide."""
    layout = run.layout
    if run.backend != "cuda" or layout.cols != 1 or layout.size == 1:
        raise ValueError(f"{run.path}: not a one-column GPU report of more than one rank "
                         f"({run.backend}, {layout.rows}x{layout.cols})")
    host = gpu_constants().host_call_seconds if host_call is None else host_call
    totals_model = host + math.ceil(math.log2(layout.size)) * link.step
    ring = NCCL_BASE + (layout.rows - 1) * link.step
    levels: dict[int, list[dict]] = {}
    for row in run.trace:
        levels.setdefault(int(row["level"]), []).append(row)
    out = []
    for level, rows in sorted(levels.items()):
        gathers = [row["collectives"].get("column_allgather") for row in rows]
        hidden = any(overlapped(layout, row) for row in rows)
        if all(entry is None for entry in gathers):
            form, received, traced = "none", 0, (0.0, 0.0)
        else:
            entries = [entry for entry in gathers if entry is not None]
            received = max(entry["bytes_in"] for entry in entries)
            bitmap = received == (layout.rows - 1) * layout.piece_bytes  # the other ranks' pieces
            fixed = all(fixed_segment(layout, row) is not None for row in rows)
            form = "overlapped" if hidden else "fixed" if fixed else "bitmap" if bitmap else "ids"
            seconds = [entry["seconds"] for entry in entries]
            traced = (min(seconds), max(seconds))
        totals = [row["collectives"].get("allreduce", {}).get("seconds", 0.0) for row in rows]
        comm = [row["comm_seconds"] for row in rows]
        out.append(TracedLevel(level, rows[0]["direction"], form, received, ring + received / link.beta_high,
                               ring + received / link.beta_low, traced, totals_model, (min(totals), max(totals)),
                               (min(comm), max(comm))))
    return out


def one_column_crossover(series: str, link: Link, scenario: Scenario, shape: GraphShape, levels=None,
                         sizes=(2, 4, 8, 16, 32, 64, 128, 256), strong_scale: int = 30, edgefactor: int = 16,
                         free_bytes: int | None = None, anchors=COMPUTE_ANCHORS) -> list[tuple]:
    """One column at each P ("weak": SCALE 26 + log2 P; "strong":
    ``strong_scale``): (P, SCALE, compute, latency, bytes at the high and
    low bandwidth, communication / compute at both, whether the block fits
    ``free_bytes``, default an H100's), compute by ``anchors``."""
    from wavefront.backends.cuda.memory import SAFETY_BYTES

    free = H100_FREE_BYTES if free_bytes is None else free_bytes
    rows = []
    for size in sizes:
        scale = 26 + int(math.log2(size)) if series == "weak" else strong_scale
        p = project(scale, size, link, scenario, shape, levels, edgefactor, grid=(size, 1), anchors=anchors)
        rows.append((size, scale, p.compute, p.latency, p.comm_low, p.comm_high,
                     (p.latency + p.comm_low) / p.compute, (p.latency + p.comm_high) / p.compute,
                     p.block_bytes + SAFETY_BYTES <= free))
    return rows


def crossover_size(rows: list[tuple], bandwidth: str = "low") -> int | None:
    """The first P of :func:`one_column_crossover`'s rows whose communication
    (latency and bytes at the link's "low" or "high" bandwidth) is at least
    its compute; None if none."""
    column = 7 if bandwidth == "low" else 6
    return next((row[0] for row in rows if row[column] >= 1.0), None)


def bytes_crossover_size(seconds_26: float, beta: float, exchanges: OneColumnExchanges | None = None,
                         reached: float = 0.571, id_bytes: int = 4) -> float:
    """The P at which a one-column rank's exchange bytes take as long as its
    compute, with compute proportional to its share of the edges
    (``seconds_26`` for 2^26 vertices, as the single-GPU search scales
    above SCALE 26) and no latency: the rank takes in ``(P - 1) / P`` of
    ``bitmaps`` bitmaps of n/8 bytes and of the ids, and computes
    ``seconds_26 * n / 2^26 / P``, so both grow with n and the answer holds
    at every SCALE: ``P = 1 + beta * seconds_26 / (2^26 * k)``, ``k`` the
    bytes a vertex (``bitmaps / 8 + id_bytes * ids_share * reached``)."""
    exchanges = one_column_exchanges() if exchanges is None else exchanges
    per_vertex = exchanges.bitmaps / 8 + id_bytes * exchanges.ids_share * reached
    return 1.0 + beta * seconds_26 / ((1 << 26) * per_vertex)


ONE_COLUMN_COLUMNS = [
    "P", "grid", "SCALE", "frontier MB/rank", "compute ms (today / floor)", "latency ms (today / floor)",
    "bytes ms", "comm / compute (today)", "comm / compute (floor)", "block GiB (fits H100?)",
]


def one_column_rows(series: str, link: Link, constants: GPUConstants, shape: GraphShape, levels=None,
                    sizes=(2, 4, 8, 16, 32, 64, 128, 256), strong_scale: int = 30, edgefactor: int = 16) -> list[list]:
    """:data:`ONE_COLUMN_COLUMNS` rows of one-column grids, both scenarios."""
    from wavefront.backends.cuda.memory import SAFETY_BYTES

    today, floor = scenarios(constants)
    rows = []
    for size in sizes:
        scale = 26 + int(math.log2(size)) if series == "weak" else strong_scale
        a, b = (project(scale, size, link, sc, shape, levels, edgefactor, grid=(size, 1)) for sc in (today, floor))
        fits = a.block_bytes + SAFETY_BYTES <= H100_FREE_BYTES
        rows.append([
            size, a.grid, scale, f"{a.bitmap_bytes / 1e6:,.0f}", f"{a.compute * 1e3:.2f} / {b.compute * 1e3:.2f}",
            f"{a.latency * 1e3:.2f} / {b.latency * 1e3:.2f}", f"{a.comm_low * 1e3:.2f}-{a.comm_high * 1e3:.2f}",
            f"{(a.latency + a.comm_low) / a.compute:.2f}-{(a.latency + a.comm_high) / a.compute:.2f}",
            f"{(b.latency + b.comm_low) / b.compute:.2f}-{(b.latency + b.comm_high) / b.compute:.2f}",
            f"{a.block_bytes / GIB:.0f}" + ("" if fits else " (no)"),
        ])
    return rows


PROJECTION_COLUMNS = [
    "P", "grid", "SCALE", "bitmap MB/rank", "fold MB/rank", "latency ms", "compute ms", "bytes ms",
    "search ms", "GTEPS", "limit", "block GiB (fits H100?)",
]


def pingpong(sizes=(8, 4096, 65536, 1 << 20, 1 << 24), repeats: int = 30) -> list[list] | None:
    """Raw MPI between ranks 0 and 1 (``mpirun -n 2``): median and 10th
    percentile seconds of one ``Sendrecv`` per size, without the algorithm's
    Python around it; rows on rank 0, None elsewhere."""
    from mpi4py import MPI

    comm = MPI.COMM_WORLD
    if comm.size != 2:
        raise SystemExit("--pingpong runs under mpirun -n 2")
    peer, rows = 1 - comm.rank, []
    for size in sizes:
        send, recv = np.ones(max(1, size // 8), dtype=np.int64), np.empty(max(1, size // 8), dtype=np.int64)
        times = []
        for _ in range(repeats):
            comm.Barrier()
            start = MPI.Wtime()
            comm.Sendrecv(send, peer, 0, recv, peer, 0)
            times.append(MPI.Wtime() - start)
        low, mid = np.percentile(times, 10), np.median(times)
        rows.append([f"{send.nbytes:,}", f"{mid * 1e6:.1f}", f"{low * 1e6:.1f}", f"{send.nbytes / low / 1e9:.2f}"])
    return rows if comm.rank == 0 else None


# -- output ------------------------------------------------------------------------------------------------------
def emit(title: str, columns: list[str], rows: list[list], markdown: bool) -> None:
    if markdown:
        print(f"\n**{title}**\n")
        print("| " + " | ".join(columns) + " |")
        print("|" + "|".join("---" if i < 2 else "---:" for i in range(len(columns))) + "|")
        for row in rows:
            print("| " + " | ".join(str(cell) for cell in row) + " |")
    else:
        from _common import print_table

        print_table(title, columns, rows)


def _engineering(value: float, unit: str) -> str:
    if math.isinf(value):
        return "-"
    if unit == "s":
        return f"{value * 1e3:.2f} ms" if value >= 1e-3 else f"{value * 1e6:.1f} us"
    return f"{value / 1e9:.2f} GB/s"


def emit_traced_levels(run: Run, markdown: bool) -> None:
    """:func:`traced_levels` of a one-column GPU report as a table, and its sums."""
    rows, sums = [], np.zeros(4)
    for t in traced_levels(run):
        model, traced = t.comm_model, t.comm_traced
        sums += (*model, *traced)
        rows.append([t.level, t.direction, t.form, f"{t.bytes_in:,}",
                     "-" if t.form == "none" else f"{t.model_low * 1e6:.0f}-{t.model_high * 1e6:.0f}",
                     "-" if t.form == "none" else f"{t.traced[0] * 1e6:.0f}-{t.traced[1] * 1e6:.0f}",
                     f"{t.totals_model * 1e6:.0f}", f"{t.totals_traced[0] * 1e6:.0f}-{t.totals_traced[1] * 1e6:.0f}",
                     f"{model[0] * 1e6:.0f}-{model[1] * 1e6:.0f}", f"{traced[0] * 1e6:.0f}-{traced[1] * 1e6:.0f}"])
    rows.append(["all", "", "", "", "", "", "", "", f"{sums[0] * 1e6:.0f}-{sums[1] * 1e6:.0f}",
                 f"{sums[2] * 1e6:.0f}-{sums[3] * 1e6:.0f}"])
    emit(f"{Path(run.path).name}: SCALE {run.scale} on {run.layout.rows}x1, communication per level against the "
         f"model (us; traced: fastest-slowest rank, synchronized; overlapped: what the step did not hide)",
         ["level", "direction", "exchange", "bytes in a rank", "column all-gather model", "traced",
          "totals model", "traced", "level comm model", "traced"], rows, markdown)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("reports", nargs="*", help="--json reports of distributed Graph500 runs")
    parser.add_argument("--exact", action="store_true",
                        help="regenerate each report's graph and compare the fold's bytes exactly too")
    parser.add_argument("--exact-max-scale", type=int, default=20, help="largest SCALE --exact regenerates")
    parser.add_argument("--shape-scale", type=int, default=18,
                        help="SCALE of the graph the fold duplication, reach and depth are measured on")
    parser.add_argument("--shape-file", type=Path, default=None,
                        help="JSON of the graph shape: read if it exists (and is of --shape-scale), else written")
    parser.add_argument("--levels", type=float, default=None,
                        help="trace rows per search in the projection (default: measured at --shape-scale)")
    parser.add_argument("--low-quantile", type=float, default=0.1,
                        help="the quantile of the second fit (the cost of a call when no rank waits for the CPU)")
    parser.add_argument("--markdown", action="store_true", help="markdown tables instead of rich ones")
    parser.add_argument("--predict", action="append", default=[], metavar="SCALE:RxC[:KIND]",
                        help="print the model's per-level bytes of that run's traced search (KIND cpu, nccl, "
                             "staged, nccl-before-a8f02a2 or staged-before-a8f02a2; default cpu); repeatable")
    parser.add_argument("--roots", type=int, default=64,
                        help="the root count of the runs --predict describes (it fixes which root is traced)")
    parser.add_argument("--no-projection", action="store_true")
    parser.add_argument("--pingpong", action="store_true",
                        help="under mpirun -n 2: time raw MPI Sendrecv per message size, then stop")
    args = parser.parse_args(argv)
    if args.pingpong:
        rows = pingpong()
        if rows is not None:
            emit("Raw MPI Sendrecv between 2 ranks", ["bytes", "median us", "p10 us", "GB/s at p10"], rows,
                 args.markdown)
        return 0

    runs = [load_run(path) for path in args.reports]
    failed = False
    if runs:
        rows = []
        for run in runs:
            counts = counts_for(run) if args.exact and run.scale <= args.exact_max_scale else None
            check = check_bytes(run, counts)
            failed |= not check.ok
            rows.append([Path(run.path).name, f"{run.layout.rows}x{run.layout.cols}", run.scale, run.label,
                         check.rows, check.compared, "exact" if check.fold_exact else "identity",
                         "yes" if check.ok else f"NO ({len(check.mismatches)})"])
            for line in check.mismatches[:10]:
                print(f"{run.path}: {line}", file=sys.stderr)
        emit("Byte model against the traces (every rank, level, collective; out and in)",
             ["report", "grid", "SCALE", "platform", "trace rows", "values", "fold", "equal"], rows, args.markdown)
        table = []
        for median, low in zip(fit_runs(runs, 0.5), fit_runs(runs, args.low_quantile)):
            table.append([median.label, median.size, median.samples, f"{median.slow:.0%}",
                          _engineering(median.alpha, "s"), _engineering(median.beta, "B/s"),
                          f"{median.median_error:.0%}", _engineering(low.alpha, "s"), _engineering(low.beta, "B/s")])
        emit("Fitted t = calls * alpha + bytes / beta per collective call (quantile regression)",
             ["platform", "P", "calls", "calls >= 1 ms", "alpha (median)", "beta (median)",
              "median |error| of a level's comm", f"alpha (q {args.low_quantile:g})", f"beta (q {args.low_quantile:g})"],
             table, args.markdown)
        emit("Median seconds per call by collective",
             ["platform", "P", "collective", "entries", "median bytes", "median us"],
             [[label, size, name, count, f"{b:,.0f}", f"{s * 1e6:.1f}"]
              for label, size, name, count, b, s in per_collective(runs)], args.markdown)
        for run in runs:
            if run.backend == "cuda" and run.layout.cols == 1 and run.layout.size > 1:
                emit_traced_levels(run, args.markdown)
    for spec in args.predict:
        parts = spec.split(":")
        try:
            scale, (rows, cols), kind = int(parts[0]), (int(x) for x in parts[1].split("x")), (parts[2:] or ["cpu"])[0]
        except (ValueError, IndexError):
            parser.error(f"--predict takes SCALE:RxC[:KIND], got {spec!r}")
        if kind not in KINDS:
            parser.error(f"--predict's KIND is one of {', '.join(KINDS)}, got {kind!r}")
        table = predict_levels(scale, rows, cols, kind, args.roots)
        columns = ["level", "discovered", "m_f", "dedup", *COLLECTIVES, "largest rank total"]
        if table and len(table[0]) > len(columns):
            columns.append("column_allgather as ids (before a top-down level)")
        emit(f"Model bytes out per rank of the traced search, SCALE {scale}, {rows}x{cols}, {kind} "
             f"(first of {args.roots} Graph500 roots)", columns, table, args.markdown)
    constants = gpu_constants()
    rounds = [(m["label"], gpu_constants({**H100_NVLINK_2GPU, **m}), m) for m in HISTORY]  # the same trace
    fit = H100_NVLINK_2GPU["nccl_fit_1x2_22"]
    label = H100_NVLINK_2GPU["label"]
    emit("GPU constants (H100 80GB HBM3; NVLink NV18 and NCCL for two; derived in gpu_constants)",
         ["constant", "value"],
         [["NCCL call, 1 rank, synchronized (column_allgather, fastest; f7dca24 trace)",
           _engineering(constants.call_seconds, "s")],
          ["host MPI allreduce, 2 ranks (fastest)", _engineering(constants.host_call_seconds, "s")],
          ["one NVLink ring step, traced path (row - column all-gather), at most",
           _engineering(constants.step_seconds_traced, "s")],
          ["fold's effective bandwidth, traced path, at least", _engineering(constants.fold_beta_traced, "B/s")],
          *[[f"NCCL fit of that trace, q {q:g}: alpha, beta",
             f"{_engineering(alpha, 's')}, {_engineering(beta, 'B/s')}"] for q, (alpha, beta) in fit.items()],
          [f"1-rank distributed path beyond the single-GPU driver, per search, SCALE 26 ({label})",
           _engineering(constants.overhead_26, "s")],
          *[[f"the same, {name}", _engineering(c.overhead_26, "s")] for name, c, _ in rounds],
          [f"SCALE 26 on 1 GPU -> 27 on 2, per search ({label})", _engineering(constants.added_26, "s")],
          *[[f"the same, {name}", _engineering(c.added_26, "s")] for name, c, _ in rounds],
          [f"1-rank search, SCALE 24 / 26, the projection's 'today' anchors ({COMPUTE_ANCHORS['label']})",
           " / ".join(_engineering(one_rank_seconds(s), "s") for s in (24, 26))],
          [f"the single-GPU search beside them, SCALE 24 / 26, the 'floor' ({COMPUTE_ANCHORS['label']})",
           " / ".join(_engineering(single_gpu_seconds(s), "s") for s in (24, 26))],
          *[[f"the same 1-rank anchors, {name}",
             " / ".join(_engineering(t, "s") for _, t in sorted(m["one_rank_seconds"].items()))]
            for name, _, m in ((label, None, H100_NVLINK_2GPU), *rounds)],
          ["SCALE 27 / 28 (above the anchors: the single-GPU driver's time plus SCALE 26's excess)",
           " / ".join(_engineering(one_rank_seconds(s), "s") for s in (27, 28))]],
         args.markdown)
    print("\nNot measured yet (the model uses no number for these):")
    for item in NOT_MEASURED:
        print(f"  - {item}")
    if failed:
        print("\nThe byte model does not match every trace (differences above on stderr).", file=sys.stderr)
    if args.no_projection:
        return 1 if failed else 0

    shape = load_or_measure_shape(args.shape_scale, args.shape_file)
    emit(f"Graph shape at SCALE {shape.scale} (Graph500 Kronecker, 4 roots)",
         ["reached", "nedge / (16 n)", "trace rows", "bitmap share if sparse", *[f"D({c})" for c in sorted(shape.duplication)]],
         [[f"{shape.reached:.3f}", f"{shape.nedge:.3f}", f"{shape.levels:.1f}", f"{shape.dense_share:.2f}",
           *[f"{shape.duplication[c]:.2f}" for c in sorted(shape.duplication)]]], args.markdown)
    emit("1 -> 2 GPUs (H100, NVLink, NCCL): what the second GPU adds to a search, model ('today'), the traced "
         "SCALE 22 fit's bound, and measured",
         ["runs", "model ms", "at the traced fit, at most, ms", "measured ms", "model's share"],
         [[label, f"{low * 1e3:.2f}-{high * 1e3:.2f}", f"{fit_low * 1e3:.2f}-{fit_high * 1e3:.2f}",
           f"{measured * 1e3:.2f}", f"{low / measured:.0%}-{high / measured:.0%}"]
          for label, low, high, fit_low, fit_high, measured in two_gpu_check(shape, constants)], args.markdown)
    split = trace_split()
    emit("1 -> 2 GPUs by the synchronized traces (P = 1 SCALE 26, 1x2 SCALE 27), ms per search",
         ["levels", "P = 1 compute", "P = 1 comm", "1x2 compute", "1x2 comm", "added compute", "added comm"],
         [[name, *(f"{x * 1e3:.2f}" for x in (oc, om, tc, tm, tc - oc, tm - om))]
          for name, oc, om, tc, tm in (
              ("all", split.one_compute, split.one_comm, split.two_compute, split.two_comm),
              ("the two bottom-up levels", split.one_big_compute, split.one_big_comm, split.two_big_compute,
               split.two_big_comm))], args.markdown)
    emit("Measured 1x2 searches against the projection's own P = 2 row ('today', NVLink)",
         ["SCALE", "model compute ms", "model latency + bytes ms", "model search ms", "measured ms",
          "measured / model", "block GB (model bound)", "GPU held, GB"],
         [[scale, f"{compute * 1e3:.2f}", f"{comm_low * 1e3:.2f}-{comm_high * 1e3:.2f}",
           f"{low * 1e3:.2f}-{high * 1e3:.2f}", f"{measured * 1e3:.2f}",
           f"{measured / high:.1f}-{measured / low:.1f}x", f"{block / 1e9:.1f}",
           "-" if held is None else f"{held / 1e9:.1f}"]
          for scale, compute, comm_low, comm_high, low, high, measured, block, held
          in two_gpu_points(shape, constants)], args.markdown)
    emit("Fourth round: each machine's measured searches, compared within the machine only (2x1 SCALE 27 against "
         "the same machine's P = 1 SCALE 26 plus the model's one-column communication at P = 2, 'today', NVLink)",
         ["machine", "GPUs", "commit", "grid", "SCALE", "mode", "measured ms", "GTEPS", "/ single-GPU SCALE 26 TEPS",
          "model ms", "measured / model"],
         [[name, gpus, commit, grid, scale, mode, f"{seconds * 1e3:.2f}", f"{gteps:.1f}", f"{ratio:.2f}",
           "-" if low is None else f"{low * 1e3:.2f}-{high * 1e3:.2f}",
           "-" if low is None else f"{seconds / high:.2f}-{seconds / low:.2f}x"]
          for name, gpus, commit, grid, scale, mode, seconds, gteps, ratio, low, high in one_column_points(
              shape, constants)], args.markdown)
    cut = one_column_split()
    emit("2x1 SCALE 27 by machine E's synchronized trace (rank 0), ms per search",
         ["compute", "comm", "of it column all-gathers", "bottom-up levels 3-4",
          "their arc-scaled P = 1 floor (machine D)", "above it"],
         [[f"{cut.compute * 1e3:.2f}", f"{cut.comm * 1e3:.2f}", f"{cut.column_allgather * 1e3:.2f}",
           f"{cut.bottom_up_compute * 1e3:.2f}", f"{cut.bottom_up_floor * 1e3:.2f} (x{cut.examined_ratio:.2f} arcs)",
           f"{cut.above_floor:.0%}"]], args.markdown)
    emit("2x1 SCALE 27: the column all-gather per level, model (NVLink, NCCL base + 1 step + bytes) against the trace",
         ["level", "form", "bytes a rank", "model us", "traced us", "traced / model"],
         [[level, form, f"{nbytes:,}", f"{low * 1e6:.1f}-{high * 1e6:.1f}", f"{seconds * 1e6:.0f}",
           f"{seconds / high:.1f}-{seconds / low:.1f}x"]
          for level, form, nbytes, low, high, seconds in column_allgather_levels()], args.markdown)
    emit("Fit of those column all-gathers (one call a level, synchronized, H200)", ["quantile", "alpha", "beta"],
         [[f"{q:g}", _engineering(alpha, "s"), _engineering(beta, "B/s")] for q, (alpha, beta) in
          one_column_fit().items()], args.markdown)
    emit("Four GPUs (fifth round: F-I, 4 x H200; thirteenth round: J, 4 x H100 80GB at 4840a19): the one-column "
         "searches against each machine's own single-GPU and P = 1 (best of the back-to-back passes; model: the "
         "machine's P = 1 plus the one-column communication at P of the code it ran, 'today', NVLink, 9 levels)",
         ["machine", "grid", "SCALE", "ranks", "ms", "GTEPS", "/ single-GPU SCALE 26", "/ P = 1 SCALE 26",
          "model ms", "measured / model"],
         [[name, grid, scale, binding, f"{seconds * 1e3:.2f}", f"{gteps:.1f}",
           "-" if single is None else f"{single:.2f}", "-" if p1 is None else f"{p1:.2f}",
           "-" if low is None else f"{low * 1e3:.2f}-{high * 1e3:.2f}",
           "-" if low is None else f"{seconds / high:.2f}-{seconds / low:.2f}x"]
          for name, grid, scale, binding, seconds, gteps, single, p1, low, high in four_gpu_points(
              shape, constants)], args.markdown)
    emit("Fifth round: the one-column collectives alone (benchmarks/collectives.py, median us a call, the range "
         "over sizes or machines)", ["P", "collective", "us"],
         [[size, name, f"{low:.1f}-{high:.1f}"] for size, calls in FOUR_GPU_ROUND["collectives_us"].items()
          for name, (low, high) in calls.items()], args.markdown)
    for series, what in (("weak", "SCALE 26 + log2 P"), ("strong", "SCALE 30"), ("strong", "SCALE 27")):
        emit(f"One column (the GPU default), {series} scaling, {what}, NVLink-class "
             f"{NVLINK.beta_low / 1e9:.0f}-{NVLINK.beta_high / 1e9:.0f} GB/s: communication against compute",
             ONE_COLUMN_COLUMNS, one_column_rows(series, NVLINK, constants, shape, args.levels,
                                                 strong_scale=int(what.split()[1])), args.markdown)
    emit("One column: the P at which the exchange bytes alone equal compute proportional to the share's edges "
         "(any SCALE, NVLink-class, no latency)",
         ["compute for 2^26 vertices", "P at 300 GB/s", "P at 450 GB/s"],
         [[f"{label} {seconds * 1e3:.2f} ms", *(f"{bytes_crossover_size(seconds, beta, reached=shape.reached):.0f}"
                                               for beta in (NVLINK.beta_low, NVLINK.beta_high))]
          for label, seconds in (("today (the path on one GPU)", one_rank_seconds(26)),
                                 ("floor (the single-GPU search)", single_gpu_seconds(26)))], args.markdown)
    for scenario in scenarios(constants):
        for series in ("weak", "strong"):
            for link in (NVLINK, INFINIBAND):
                what = "SCALE 26 + log2 P" if series == "weak" else "SCALE 30"
                emit(f"{series} scaling, {what}, {link.name} {link.beta_low / 1e9:.0f}-{link.beta_high / 1e9:.0f} "
                     f"GB/s per GPU, {link.step * 1e6:.1f} us per ring step; scenario '{scenario.name}'",
                     PROJECTION_COLUMNS, projection_rows(series, link, scenario, shape, args.levels), args.markdown)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
