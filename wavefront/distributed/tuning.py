"""The choices of the distributed searches that a measurement decides, as one frozen object.

Passed explicitly (``bfs(graph, root, tuning=...)``); never a module global.
The defaults are the winners recorded in ``docs/decisions/distributed.md``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from numbers import Integral, Real

FOLD_DEDUPE = ("auto", "always", "never")


@dataclass(frozen=True)
class DistributedTuning:
    """How the BFS fold (the (target, parent) exchange of seed 000 fig. 8) is done.

    * ``fold_dedupe``: pick one sender per discovered target before the
      all-to-all (fig. 8 steps 6-8): each rank of a grid row learns, by an
      exclusive OR-scan of the row's found bitmaps, which targets a rank
      before it found, and sends only the others. It costs a row-block
      bitmap (``n / (8 R)`` bytes) per rank, so ``"auto"`` runs it on levels
      whose frontier holds enough edges for the duplicate pairs to cost more:
      ``m_f * pair_bytes >= dedupe_ratio * P * n / (8 R)``. ``"always"`` and
      ``"never"`` force it (the same choice on every rank: it is collective).
    * ``pack_pairs``: a pair travels as one int64 ``parent << b | target``
      (``b`` bits for a vertex of an owner's piece) where ``b`` plus the bits
      of a vertex id fit in 63, else as two int64.

    CPU+GPU cooperation (seed 000 §3.3; GPU blocks only, :mod:`.gpu`):

    * ``cpu_share``: the share of a GPU block's bottom-up work (a contiguous
      range of its target vertices holding that share of the block's CSC
      arcs) that the rank's host cores scan while the GPU scans the rest;
      a number in [0, 1), or ``"auto"``: measure both sides' rates (edges
      examined per second) on the first search's bottom-up levels and take
      ``cpu_rate / (cpu_rate + gpu_rate)``, or 0 where copies and merge cost
      more than the CPU saves. 0 (the default) runs the GPU alone, with no
      host copies (see ``docs/decisions/distributed.md``).
    * ``cpu_share_probe``: the share ``"auto"`` measures at.
    * ``cpu_share_min``: ``"auto"`` picks 0 below this share (the copies of a
      level cost about the same whatever the share, so a sliver never pays).

    Communication overlapping computation (GPU blocks on a one-column grid,
    R x 1 with R > 1, the GPU alone; :mod:`.gpu`):

    * ``overlap_chunks``: K >= 1 splits a bottom-up level's step into K row
      ranges (64-row boundaries; fewer where the piece has fewer 64-row
      groups) and sends each range's new frontier words to the column on a
      second CUDA stream as soon as its kernels are done, while the next
      range runs and the host reads the level's totals; after such a level
      the frontier always travels as the bitmap, never as ids. 0 runs the
      step, then its column all-gather once the next level's direction is
      known. The default, 1, won on 2 x H200 at SCALE 27: 4.13-4.16 ms a
      search against 4.48-4.56 without overlap; 2 and 4 ranges did not pay
      there (``docs/decisions/distributed.md``, "Overlap on streams").
      Ignored on other grids, on top-down levels and with a CPU share.

    * ``bottom_up_ahead``: with overlapped sends (``overlap_chunks`` >= 1),
      a level the policy sends bottom-up also queues the next level's
      bottom-up step and its send before the host reads this level's
      totals, as the single-GPU search does (``BFSTuning.bottom_up_ahead``):
      a level's set is the same whichever direction finds it, so the GPU
      runs the next step while the host reads, all-gathers and decides. The
      level after the last one the policy sends bottom-up runs bottom-up
      too, where it would have been a small top-down level. A traced search
      (``measure_wait``) queues nothing ahead: its rows bill each level's
      own sends. False: every level waits for the host's decision (the
      traced path). True won on three 2 x H100 machines at SCALE 27, +2.4
      to +9.1 % TEPS (docs/decisions/distributed.md, "GPU runs, ninth
      round").

    * ``fixed_ids_edges``: K > 0 runs a top-down level whose frontier holds
      at most K arcs in all (``m_f``, known to every rank before the step)
      as one kernel on a one-column grid (R > 1, the GPU alone), and sends
      its finds as one segment of K + 3 int64 a rank (count, degree sum, arcs
      examined, ids) in an all-gather of equal parts, which also carries the
      level's totals: no rank can find more than K vertices. 0 runs every
      top-down level as the edge-balanced step with an all-gather-v of the
      ids and a host all-gather of the totals. A rank holds R + 1 segments
      of (K + 3) 8 bytes; the all-gather moves (R - 1) of them a small level,
      so at large R a smaller K pays (docs/scaling.md: near 100 ranks).
      2^14 beat 0 and 2^16 on 2 x H100 at SCALE 27 (``docs/decisions/
      distributed.md``, "GPU runs, seventh round").

    * ``small_tile_arcs``: a small level's kernel takes its frontier in
      tiles of 256 vertices, a block each, and spreads a tile's arcs over
      ceil(m_f / (tiles x small_tile_arcs)) blocks (at most 64), so a hub's
      arcs are claimed by many threads at once. One warp a vertex took a
      level with a 4 k-arc hub in 0.34-0.35 ms on 2 x H100 at SCALE 27, the
      tiles 0.12-0.15 ms; 1024 and 4096 tied.

    * ``stay_bottom_up_edges``: with the small levels on, a switch back from
      bottom-up to top-down waits while m_f > m_u - stay_bottom_up_edges,
      unless the frontier fits the small levels (which always run top-down):
      there a top-down level from a frontier of 35-310 k vertices cost
      0.24-0.35 ms on 2 x H100 at SCALE 27 and the bottom-up level that
      replaces it 0.16-0.24 ms. None keeps the single GPU's margin (m_f > m_u + n / 256).
      2^21, 2^23 and 2^25 chose the same levels at SCALE 27.

    * ``block_alpha``: GAP's policy in the 2-D level loop (by default or by
      name, with no ``alpha`` given to the search) takes this alpha instead
      of GAP's 15: a top-down level whose frontier holds 110-125 M arcs cost
      2.9-4.0 ms on 2 x H100 at SCALE 27 where the bottom-up level that
      alpha 30 picks cost 2.2-2.7 ms (docs/decisions/distributed.md, "GPU
      runs, eighth round"). None keeps the policy's own. A world of one
      runs the single-GPU search and its rules, which this does not change.

    A world of one on a GPU:

    * ``whole_graph_search``: True (the default) runs the single-GPU search's
      own steps on the rank's block, which is then the whole graph (BFS
      without a CPU share: the hybrid's level loop and ``BFSSearch``; SSSP on
      a weighted graph: the single-GPU delta-stepping): a world of one
      exchanges nothing. False runs the distributed loop at P = 1 as at any
      P (its tests in one process, and the A/B in
      ``docs/decisions/distributed.md``: BFS SCALE 26 3.16 against 2.11 ms,
      SSSP SCALE 22 34.6 against 8.6 ms, on H200s).

    GPU SSSP over a grid (:mod:`.gpu_sssp`):

    * ``gpu_sssp_delta_scale``: the bucket width is this multiple of
      :func:`.sssp2d.default_delta` (the CPU ranks keep 1x). Each bucket
      costs a fixed ~0.3 ms of collectives and launches on GPU ranks, so
      fewer, wider buckets pay despite more arcs relaxed: 2 x H100, SCALE 22,
      2x1: 1x 42.80 ms (109-114 buckets), 2x 37.08, 4x 33.62 (52-55)
      (docs/decisions/distributed.md).
    """

    fold_dedupe: str = "auto"
    dedupe_ratio: float = 1.0
    gpu_sssp_delta_scale: float = 4.0
    pack_pairs: bool = True
    cpu_share: float | str = 0.0
    cpu_share_probe: float = 0.0625
    cpu_share_min: float = 0.02
    overlap_chunks: int = 1
    bottom_up_ahead: bool = True
    fixed_ids_edges: int = 1 << 14
    small_tile_arcs: int = 1024
    stay_bottom_up_edges: int | None = 1 << 23
    block_alpha: float | None = 30.0
    whole_graph_search: bool = True

    def __post_init__(self):
        if self.fold_dedupe not in FOLD_DEDUPE:
            raise ValueError(f"fold_dedupe must be one of {', '.join(FOLD_DEDUPE)}, got {self.fold_dedupe!r}")
        if not self.dedupe_ratio > 0:
            raise ValueError(f"dedupe_ratio must be positive, got {self.dedupe_ratio!r}")
        if not (self.gpu_sssp_delta_scale > 0 and math.isfinite(self.gpu_sssp_delta_scale)):
            raise ValueError(f"gpu_sssp_delta_scale must be a positive finite number, got {self.gpu_sssp_delta_scale!r}")
        object.__setattr__(self, "cpu_share", check_cpu_share(self.cpu_share))
        if not 0 < self.cpu_share_probe < 1:
            raise ValueError(f"cpu_share_probe must lie in (0, 1), got {self.cpu_share_probe!r}")
        if not 0 <= self.cpu_share_min < 1:
            raise ValueError(f"cpu_share_min must lie in [0, 1), got {self.cpu_share_min!r}")
        object.__setattr__(self, "overlap_chunks", check_overlap_chunks(self.overlap_chunks))
        for name in ("pack_pairs", "bottom_up_ahead", "whole_graph_search"):  # "False" would read as true
            if not isinstance(getattr(self, name), bool):
                raise TypeError(f"{name} must be True or False, got {getattr(self, name)!r}")
        fixed = self.fixed_ids_edges
        if isinstance(fixed, bool) or not isinstance(fixed, Integral) or not (0 <= fixed <= MAX_FIXED_IDS_EDGES):
            raise ValueError(f"fixed_ids_edges must be an integer in [0, {MAX_FIXED_IDS_EDGES}] (0: off), "
                             f"got {fixed!r}")
        object.__setattr__(self, "fixed_ids_edges", int(fixed))
        arcs = self.small_tile_arcs
        if isinstance(arcs, bool) or not isinstance(arcs, Integral) or arcs < 1:
            raise ValueError(f"small_tile_arcs must be a positive integer, got {arcs!r}")
        object.__setattr__(self, "small_tile_arcs", int(arcs))
        alpha = self.block_alpha
        if alpha is not None and (isinstance(alpha, bool) or not isinstance(alpha, Real)
                                  or not (alpha > 0 and math.isfinite(alpha))):
            raise ValueError(f"block_alpha must be None or a positive finite number, got {alpha!r}")
        stay = self.stay_bottom_up_edges
        if stay is not None:
            if isinstance(stay, bool) or not isinstance(stay, Integral) or stay < 0:
                raise ValueError(f"stay_bottom_up_edges must be None or a non-negative integer, got {stay!r}")
            object.__setattr__(self, "stay_bottom_up_edges", int(stay))


def check_cpu_share(value) -> float | str:
    """``value`` as a CPU share: ``"auto"``, or a float in [0, 1) (a number or
    its text). Raises ValueError (TypeError for neither a number nor text)
    saying what is allowed."""
    if isinstance(value, str):
        text = value.strip()
        if text.lower() == "auto":
            return "auto"
        try:
            value = float(text)
        except ValueError:
            raise ValueError(f"the CPU share must be 'auto' or a number in [0, 1), got {value!r}") from None
    elif isinstance(value, bool) or not isinstance(value, Real):
        raise TypeError(f"the CPU share must be 'auto' or a number in [0, 1), got {value!r}")
    value = float(value)
    if not 0 <= value < 1:  # also refuses NaN
        raise ValueError(
            f"the CPU share must lie in [0, 1) (the GPU keeps the rest of the block), got {value!r}"
        )
    return value


MAX_OVERLAP_CHUNKS = 64  # a chunk is two launches and a grouped send/receive: past this, launches dominate
# A segment of 8 MiB a rank; a rank holds its own and the R gathered ones. 2^16 already lost to 2^14 on
# 2 x H100 (docs/decisions/distributed.md, "GPU runs, seventh round"): past this the bytes only grow.
MAX_FIXED_IDS_EDGES = 1 << 20


def check_overlap_chunks(value) -> int:
    """``value`` as ``overlap_chunks``: an integer in [0, MAX_OVERLAP_CHUNKS]
    (0: no overlap). Raises TypeError for a non-integer (a bool or float
    included), ValueError out of range."""
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise TypeError(f"overlap_chunks must be an integer (0: no overlap), got {value!r}")
    value = int(value)
    if not 0 <= value <= MAX_OVERLAP_CHUNKS:
        raise ValueError(f"overlap_chunks must lie in [0, {MAX_OVERLAP_CHUNKS}] (0: no overlap; K: the bottom-up "
                         f"step in K row ranges, each sent while the next runs), got {value}")
    return value


DEFAULT_TUNING = DistributedTuning()
