"""CPU+GPU cooperation on a GPU block's bottom-up levels (seed 000 §3.3), the host side.

Seed 000 lets the CPU and the GPU search every level together, each on part
of the block, and merges their results before the exchange; a CPU:GPU split
of 1:3 was best on its machine, and it asks for the ratio to be tuned
automatically because the best one depends on the machine. Here a rank whose
block is on its GPU (:mod:`.gpu`) hands the *tail* of its block's target
vertices to its host cores on bottom-up levels:

* :func:`split_rows` turns a share into that range: the first row (a multiple
  of 64, one word of the host bitmaps) from which the remaining rows of the
  block CSC hold about ``share`` of its arcs. Graph500 labels are scrambled,
  so arcs, and unvisited arcs at any level, spread evenly over the rows.
* :class:`HostHalf` runs the CPU backend's own bottom-up step
  (:func:`wavefront.backends.cpu._bfs_steps.bottom_up_step`) over a range of
  rows of a host copy of the block CSC, then lists the parents it found in
  target order (:func:`._cooperation_kernels.compact_found`), the compact
  form that crosses to the device.
* :func:`merge_halves` writes the CPU half into the GPU half's outputs (next
  frontier bitmap, visited bitmap, the step's parents array), on CuPy or
  NumPy arrays alike, so a test checks it on the CPU.
* :func:`ratio_share`, :func:`decide` and :class:`ShareState` are ``auto``:
  measure both sides' rates (edges examined per second) on the bottom-up
  levels of the first search, at a small probe share, and pick
  ``cpu_rate / (cpu_rate + gpu_rate)``, which makes both halves take the
  same time, or 0 where the level's copies and merge cost more than the CPU
  saves.

Only NumPy is imported here; the numba kernels load with the first
:class:`HostHalf`.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

ROW_ALIGN = 64  # rows per word of the host bitmaps (int64), two of the GPU's (uint32)


def split_rows(in_indptr, rows: int, share: float, align: int = ROW_ALIGN, minimum_rows: int = 0) -> int:
    """The first row of the CPU's range ``[cut, rows)``: the multiple of ``align``
    (or ``rows``) whose remaining rows hold the number of arcs nearest to
    ``share`` of the arcs of rows ``[0, rows)``, but at least ``minimum_rows``
    rows where the block has that many (``auto``'s probe must measure
    something). ``rows`` (no CPU range) for share 0 or a block without arcs."""
    share = float(share)
    if not 0 <= share < 1:
        raise ValueError(f"share must lie in [0, 1), got {share!r}")
    rows = int(rows)
    begin, end = int(in_indptr[0]), int(in_indptr[rows])
    if share == 0 or end == begin:
        return rows
    cuts = np.append(np.arange(0, rows, align, dtype=np.int64), rows)
    offsets = np.asarray(in_indptr[cuts], dtype=np.int64)
    target = end - share * (end - begin)  # the arc offset where the CPU's rows should begin
    i = int(np.searchsorted(offsets, target))
    if i == len(cuts):
        return rows
    if i > 0 and target - offsets[i - 1] < offsets[i] - target:
        i -= 1
    cut = int(cuts[i])
    if minimum_rows and rows - cut < minimum_rows:
        cut = max(0, rows - -(-minimum_rows // align) * align)
    return cut


def ratio_share(cpu_rate: float, gpu_rate: float) -> float:
    """``cpu_rate / (cpu_rate + gpu_rate)``: the share of the work that makes
    both halves take equally long (0 when the CPU examined nothing)."""
    cpu_rate, gpu_rate = float(cpu_rate), float(gpu_rate)
    if not (cpu_rate >= 0 and gpu_rate >= 0) or cpu_rate + gpu_rate == 0:
        raise ValueError(f"rates must be non-negative and not both 0, got cpu {cpu_rate!r}, gpu {gpu_rate!r}")
    return cpu_rate / (cpu_rate + gpu_rate)


@dataclass
class RateMeter:
    """What a rank measured on its cooperative bottom-up levels."""

    levels: int = 0
    cpu_examined: int = 0
    cpu_seconds: float = 0.0
    gpu_examined: int = 0
    gpu_seconds: float = 0.0
    overhead_seconds: float = 0.0  # copies in, compaction, copy out, merge: what only cooperation costs

    def add(self, cpu_examined, cpu_seconds, gpu_examined, gpu_seconds, overhead_seconds) -> None:
        self.levels += 1
        self.cpu_examined += int(cpu_examined)
        self.cpu_seconds += float(cpu_seconds)
        self.gpu_examined += int(gpu_examined)
        self.gpu_seconds += float(gpu_seconds)
        self.overhead_seconds += float(overhead_seconds)

    @property
    def cpu_rate(self) -> float:
        return self.cpu_examined / self.cpu_seconds if self.cpu_seconds > 0 else 0.0

    @property
    def gpu_rate(self) -> float:
        return self.gpu_examined / self.gpu_seconds if self.gpu_seconds > 0 else 0.0


@dataclass(frozen=True)
class ShareDecision:
    """The share ``auto`` chose, the rates behind it and why."""

    share: float
    cpu_rate: float  # arcs examined per second, host cores
    gpu_rate: float  # arcs examined per second, GPU
    ratio: float  # cpu_rate / (cpu_rate + gpu_rate)
    gpu_alone_seconds: float  # the measured levels' modelled time on the GPU alone
    together_seconds: float  # ... split at ``ratio``, plus the measured copies and merge
    levels: int  # bottom-up levels measured
    reason: str


def decide(meter: RateMeter, minimum: float = 0.0) -> ShareDecision:
    """``auto``'s choice from the measured levels: ``ratio_share`` of the two
    rates, or 0 when it is below ``minimum`` or when the measured levels, split
    at that ratio (both halves then take ``W / (cpu_rate + gpu_rate)`` for the
    ``W`` arcs examined) plus their copies and merge, would not beat the GPU
    alone (``W / gpu_rate``)."""
    cpu_rate, gpu_rate = meter.cpu_rate, meter.gpu_rate
    work = meter.cpu_examined + meter.gpu_examined

    def chosen(share, ratio, alone, together, reason):
        return ShareDecision(float(share), cpu_rate, gpu_rate, float(ratio), float(alone), float(together),
                             meter.levels, reason)

    if gpu_rate == 0 or cpu_rate == 0:
        side = "GPU" if gpu_rate == 0 else "CPU"
        return chosen(0.0, 0.0, 0.0, 0.0, f"no {side} rate measured (its range examined no arcs)")
    ratio = ratio_share(cpu_rate, gpu_rate)
    alone = work / gpu_rate
    together = work / (cpu_rate + gpu_rate) + meter.overhead_seconds
    if ratio < minimum:
        return chosen(0.0, ratio, alone, together,
                      f"the CPU's rate is {ratio / (1 - ratio):.3g} of the GPU's: share {ratio:.3g} is below "
                      f"the minimum {minimum:g}")
    if together >= alone:
        return chosen(0.0, ratio, alone, together,
                      f"copies and merge ({meter.overhead_seconds * 1e3:.3g} ms) cost more than the CPU saves: "
                      f"{together * 1e3:.3g} ms together against {alone * 1e3:.3g} ms on the GPU alone")
    return chosen(ratio, ratio, alone, together,
                  f"{together * 1e3:.3g} ms together against {alone * 1e3:.3g} ms on the GPU alone")


class ShareState:
    """One rank's CPU share for one tuning, across its searches.

    A fixed share stays; ``"auto"`` runs at ``tuning.cpu_share_probe`` and
    measures every cooperative bottom-up level until a search ends having
    measured some, then keeps :func:`decide`'s share (Graph500's untimed
    warm-up search does the measuring). Ranks decide alone: the share
    changes only how a rank computes its block's step, never what it sends.
    """

    def __init__(self, tuning):
        self.tuning = tuning
        self.auto = tuning.cpu_share == "auto"
        self.decision: ShareDecision | None = None
        self.meter = RateMeter()

    @property
    def share(self) -> float:
        if not self.auto:
            return float(self.tuning.cpu_share)
        return self.decision.share if self.decision is not None else self.tuning.cpu_share_probe

    @property
    def mode(self) -> str:
        if not self.auto:
            return "fixed"
        return "auto" if self.decision is not None else "auto (measuring)"

    def measured(self, cpu_examined, cpu_seconds, gpu_examined, gpu_seconds, overhead_seconds) -> None:
        if self.auto and self.decision is None:
            self.meter.add(cpu_examined, cpu_seconds, gpu_examined, gpu_seconds, overhead_seconds)

    def end_search(self) -> None:
        if self.auto and self.decision is None and self.meter.levels:
            self.decision = decide(self.meter, self.tuning.cpu_share_min)

    def as_dict(self) -> dict:
        """For reports: the requested share, the one in use, and ``auto``'s decision."""
        out = {"requested": self.tuning.cpu_share, "share": self.share, "mode": self.mode}
        if self.decision is not None:
            out["decision"] = asdict(self.decision)
        return out


class HostHalf:
    """The CPU's rows ``[begin, end)`` of a block's bottom-up step.

    ``indptr`` (``end - begin + 1`` offsets, from 0) and ``indices`` (the
    rows' in-neighbours, column-local ids, in the order to probe them) are a
    host copy of those rows of the block CSC. ``next_bits`` (int64, one bit
    per row) and ``found_parents`` (the indices' dtype, one per row) may be
    given (pinned buffers that a device copy reads); else they are allocated.
    """

    def __init__(self, begin: int, end: int, indptr, indices, next_bits=None, found_parents=None):
        if begin % ROW_ALIGN or (end - begin) % ROW_ALIGN:
            raise ValueError(f"rows [{begin}, {end}) must start and span multiples of {ROW_ALIGN}")
        rows = end - begin
        words = rows // ROW_ALIGN
        self.begin, self.end, self.rows, self.words = begin, end, rows, words
        self.indptr = np.ascontiguousarray(indptr, dtype=np.int64)
        self.indices = indices
        if self.indptr.shape[0] != rows + 1:
            raise ValueError(f"indptr has {self.indptr.shape[0]} offsets for {rows} rows")
        self.parents = np.empty(rows, dtype=np.int64)
        self.levels = np.empty(rows, dtype=np.int32)  # the step writes levels; owners keep the real ones
        self.unvisited = np.empty(words, dtype=np.int64)
        self.next_bits = np.empty(words, dtype=np.int64) if next_bits is None else next_bits
        self.found_parents = np.empty(rows, dtype=indices.dtype) if found_parents is None else found_parents
        self.cursor = np.zeros(1, dtype=np.int64)
        self.found = 0

    def warm_up(self, frontier_bits, workers: int) -> None:
        """Load both numba kernels for the types of these arrays and of
        ``frontier_bits`` (the buffer later levels pass), with nothing
        unvisited (no work), so no measured level pays for the loading."""
        self.unvisited.fill(0)
        self._step(frontier_bits, 1, workers)
        self.compact()

    def run(self, frontier_bits, visited_bits, level: int, workers: int) -> tuple[int, int]:
        """Scan the unvisited rows (``~visited_bits``, int64 words of this
        range) for an in-neighbour in ``frontier_bits`` (int64 words over the
        column block); writes ``next_bits`` and ``parents``. Returns (found,
        arcs examined)."""
        np.invert(visited_bits, out=self.unvisited)
        return self._step(frontier_bits, level, workers)

    def _step(self, frontier_bits, level, workers):
        from ..backends.cpu._bfs_steps import bottom_up_step

        # The CSC offsets stand in for the out-degree array too: the degree
        # sum the step returns is not used (owners count m_f).
        found, _, examined = bottom_up_step(
            self.indptr, self.indices, self.indptr, self.parents, self.levels, level, frontier_bits,
            self.unvisited, self.next_bits, self.cursor, workers,
        )
        self.found = int(found)
        return int(found), int(examined)

    def compact(self) -> int:
        """The found rows' parents into ``found_parents[:found]``, in row order."""
        from ._cooperation_kernels import compact_found

        return int(compact_found(self.next_bits, self.parents, self.found_parents))


def merge_halves(xp, begin: int, bits, parents, found: int, next_frontier, visited, step_parents) -> None:
    """Write a :class:`HostHalf`'s result for rows ``[begin, begin + 64 * len(bits))``
    into the block step's outputs (``xp``: cupy or numpy).

    ``bits``: its next-frontier words (int64); ``parents``: its
    ``found_parents`` (``found`` of them, row order). ``next_frontier`` and
    ``visited`` are the step's uint32 bitmaps: the range's words are set
    (the GPU half left them alone) and ``next_frontier`` is cleared past the
    range (rows no step covered: none have in-arcs). ``step_parents[v]``
    becomes each found row's column-local parent.
    """
    bits32 = bits.view(xp.uint32)
    first = begin // 32
    last = first + bits32.shape[0]
    next_frontier[first:last] = bits32
    next_frontier[last:] = 0
    visited[first:last] |= bits32
    if found:
        rows = xp.flatnonzero(xp.unpackbits(bits32.view(xp.uint8), bitorder="little"))
        step_parents[begin + rows] = parents[:found].astype(step_parents.dtype, copy=False)
