"""The region SSSP for road networks (kernels/sssp_regions.cu).

The vertices are renumbered once per graph so that each region of a
level-structure bisection (:mod:`wavefront.graph.regions`) is a contiguous
range, one region per SM; a search runs one persistent kernel in which each
block keeps its region's distances (and arcs, when they fit) in shared
memory and exchanges only boundary updates with the other blocks. The
renumbered graph, the region inboxes and the per-search buffers are kept
with the graph (:class:`RegionWorkspace`); a search resets them, launches
once, maps the distances back and finds predecessors like every method.
"""
from __future__ import annotations

import math

import numpy as np

from ...errors import MethodLimitError
from ...results import SSSPResult, Trace, TraceRow
from .abi import (
    REGION_CTL_WORDS,
    REGION_STAT_BUSIEST_CYCLES,
    REGION_STAT_ITERATIONS,
    REGION_STAT_KERNEL_CYCLES,
    REGION_STAT_MOST_ITERATIONS,
    REGION_STAT_RELAX_CYCLES,
    REGION_STAT_RELAXED,
    REGION_STAT_SEND_CYCLES,
    REGION_STAT_SENT,
    REGION_STAT_TAKE_CYCLES,
    REGION_STAT_TOP_CYCLES,
    REGION_STAT_WAIT_CYCLES,
    REGION_STAT_WAKEUPS,
    REGION_STAT_WORDS,
    REGION_TAIL_STRIDE,
    SSSP_WEIGHT_NONE,
)
from .device import dynamic_shared_limit
from .memory import check_fits
from .sssp_common import finish_search
from .sssp_steps import RegionArgs
from .sssp_tuning import SSSPTuning

MOST_REGION_VERTICES = 1 << 16  # queues hold 16-bit local ids


def _align(x: int) -> int:
    return (x + 15) & ~15


def shared_bytes(cap: int, arc_cap: int, dist_size: int, vid_size: int, weight_size: int) -> int:
    """Dynamic shared memory of one block, carved as kernels/sssp_regions.cu
    does: distances, queue bits, two 16-bit queues and the 16-bit incoming
    ring (2 cap), then (``arc_cap`` > 0) the region's offsets, targets and
    weights (``weight_size`` 0: none)."""
    at = _align(dist_size * cap)
    at = _align(at + 4 * ((cap + 31) // 32))
    at = _align(at + 2 * cap)
    at = _align(at + 2 * cap)
    at = _align(at + 2 * 2 * cap)
    if arc_cap:
        at = _align(at + 4 * (cap + 1))
        at = _align(at + vid_size * arc_cap)
        at += weight_size * arc_cap
    return at


def region_count(n: int, sm_count: int, tuning: SSSPTuning) -> int:
    """One region per SM, but none below ``tuning.region_min_vertices``."""
    return max(1, min(sm_count, n // tuning.region_min_vertices))


class RegionWorkspace:
    """The renumbered graph, its regions and the search buffers, for one
    graph, weight array and tuning (kept in ``graph.derived``)."""

    def __init__(self, graph, weights, ar, k, tuning: SSSPTuning):
        import cupy

        from ...graph.regions import region_layout

        n = graph.n
        idx = k.index_dtype
        parts = region_count(n, k.sm_count, tuning)
        layout = region_layout(cupy.asnumpy(graph.indptr), cupy.asnumpy(graph.indices), n, parts)
        self.regions = layout.regions
        dist_size = np.dtype(ar.dist_dtype).itemsize
        vid_size = np.dtype(idx).itemsize
        weight_size = 0 if ar.weight_code == SSSP_WEIGHT_NONE else weights.dtype.itemsize
        self.cap = layout.most_vertices()
        # What a block may take dynamically: the opt-in maximum less the kernel's static outbox.
        limit = dynamic_shared_limit(k.region_sssp_k)
        plain = shared_bytes(self.cap, 0, dist_size, vid_size, weight_size)
        if self.cap > MOST_REGION_VERTICES or plain > limit:
            raise MethodLimitError(
                f"regions: {n} vertices make regions of up to {self.cap} vertices on {parts} SMs, "
                f"{plain} bytes of shared memory a block against {limit}; use method='delta-stepping'")
        with_arcs = shared_bytes(self.cap, layout.most_arcs(), dist_size, vid_size, weight_size)
        self.arc_cap = layout.most_arcs() if tuning.region_shared_arcs and with_arcs <= limit else 0
        self.shared = with_arcs if self.arc_cap else plain
        check_fits("region SSSP renumbered graph and buffers",
                   8 * (n + 1) + (vid_size + weight_size) * graph.m + n * (dist_size + 8 + 4 + 4)
                   + (2 * len(layout.boundary) + 64 * self.regions) * vid_size
                   + self.regions * (4 * REGION_TAIL_STRIDE + 16))
        self.rank = cupy.asarray(layout.rank)
        self.indptr = cupy.asarray(layout.indptr)
        self.indices = cupy.asarray(layout.indices.astype(idx, copy=False))
        self.weights = weights if weight_size == 0 else weights[cupy.asarray(layout.arc_order)]
        self.region_start = cupy.asarray(layout.starts.astype(idx))
        self.region_of = cupy.asarray(layout.region_of)
        self.boundary_start = cupy.asarray(layout.boundary_start)
        # Region r's inbox: 2 B_r + 64 slots (kernels/sssp_regions.cu), -1 when free.
        self.inbox = cupy.full(2 * len(layout.boundary) + 64 * self.regions, -1, dtype=idx)
        self.cut_arcs = layout.cut_arcs()
        self.dist = cupy.empty(n, dtype=ar.dist_dtype)
        self.flag = cupy.zeros(n, dtype=np.int32)
        self.tails = cupy.zeros(self.regions * REGION_TAIL_STRIDE, dtype=np.uint32)
        self.ctl = cupy.zeros(REGION_CTL_WORDS, dtype=np.int32)
        self.stats = cupy.zeros(REGION_STAT_WORDS, dtype=np.uint64)
        self.minima = cupy.empty(self.regions, dtype=ar.dist_dtype)

    @classmethod
    def for_graph(cls, graph, weights, ar, k, tuning: SSSPTuning) -> "RegionWorkspace":
        # Everything the layout and its shared-memory sizes depend on (the kernel's static
        # outbox follows tuning.region_outbox and narrows what a block may take dynamically).
        key = ("cuda.sssp.regions", tuning.region_min_vertices, tuning.region_shared_arcs,
               weights.dtype.str, k.sm_count, int(k.region_sssp_k.shared_size_bytes))
        ws = graph.derived.get(key)
        if ws is None:
            ws = graph.derived[key] = cls(graph, weights, ar, k, tuning)
        return ws

    def reset(self, k) -> None:
        """Every search buffer as a search starts (one launch: ``k.region_reset``)."""
        k.region_reset(self.dist, self.flag, self.minima, self.inbox, self.tails, self.ctl, self.stats)


def region_delta(graph, ar, tuning: SSSPTuning, delta=None):
    """The bucket width: ``delta``, or ``tuning.region_delta_scale`` x Davidson
    et al.'s delta (mean weight x warp size / mean out-degree)."""
    from .sssp_delta import _delta_scalar, default_delta, delta_scale

    if delta is None:
        delta = tuning.region_delta_scale * default_delta(graph, tuning) / delta_scale(graph, tuning)
        if not delta > 0:  # zero weights (or inf x 0): every distance is 0, no order needed
            delta = math.inf
    return _delta_scalar(delta, ar, graph, tuning)


def region_sssp(graph, source, ar, k, weights, in_weights, cut, tuning: SSSPTuning, delta=None) -> SSSPResult:
    """One search: ``source`` an id or an int64 array of distinct ids."""
    import cupy

    delta_value = region_delta(graph, ar, tuning, delta)
    ws = RegionWorkspace.for_graph(graph, weights, ar, k, tuning)
    ws.reset(k)
    seeds = ws.rank[cupy.asarray(np.atleast_1d(np.asarray(source, dtype=np.int64)))].astype(k.index_dtype)
    start = cupy.cuda.Event()
    end = cupy.cuda.Event()
    start.record()
    k.region_sssp(RegionArgs(
        indptr=ws.indptr, indices=ws.indices, weights=ws.weights, region_start=ws.region_start,
        region_of=ws.region_of, boundary_start=ws.boundary_start, inbox=ws.inbox, dist=ws.dist,
        flag=ws.flag, tails=ws.tails, ctl=ws.ctl, seeds=seeds, seed_count=seeds.size, cutoff=cut,
        delta=delta_value, minima=ws.minima,
        cap=ws.cap, arc_cap=ws.arc_cap, stats=ws.stats), ws.regions, ws.shared)
    end.record()
    dist = ws.dist[ws.rank]  # back to the graph's numbering
    # The row is built when the trace is first read, from this search's copy
    # of the statistics (the next search resets the workspace's): reading
    # them here would make the host wait for the kernel before it queues the
    # predecessors, leaving the GPU idle in between.
    stats = ws.stats.copy()
    seed_count, regions, cut_arcs = int(seeds.size), ws.regions, ws.cut_arcs
    arcs_at = "arcs in shared memory" if ws.arc_cap else "arcs in global memory"

    def make_row():
        end.synchronize()
        words = stats.get()
        reason = (f"{regions} regions (delta {float(delta_value):g}, {arcs_at}, "
                  f"{cut_arcs} arcs between regions): {int(words[REGION_STAT_RELAXED])} vertex relaxations, "
                  f"{int(words[REGION_STAT_ITERATIONS])} block iterations "
                  f"(most {int(words[REGION_STAT_MOST_ITERATIONS])} in one region), "
                  f"{int(words[REGION_STAT_SENT])} messages, {int(words[REGION_STAT_WAKEUPS])} wake-ups")
        if tuning.region_stats:
            reason += "; " + _cycle_report(words, regions)
        return (TraceRow(0, "regions", seed_count, -1, cupy.cuda.get_elapsed_time(start, end) * 1e-3, reason),)

    trace = Trace()
    trace.defer(make_row)
    return finish_search(graph, source, dist, ar, k, in_weights, trace, "regions")


def _cycle_report(stats, regions: int) -> str:
    """The RG_STATS phase times (us, at the SM clock): per relaxing iteration,
    per block, and the busiest and longest block."""
    import cupy

    mhz = int(cupy.cuda.Device().attributes["ClockRate"]) / 1e3
    iterations = max(int(stats[REGION_STAT_ITERATIONS]), 1)

    def us(word, per=1):
        return int(stats[word]) / mhz / per

    return (f"per iteration {us(REGION_STAT_RELAX_CYCLES, iterations):.2f} us relaxing + "
            f"{us(REGION_STAT_TOP_CYCLES, iterations):.2f} us between; per block "
            f"{us(REGION_STAT_RELAX_CYCLES, regions):.0f} us relaxing, {us(REGION_STAT_TOP_CYCLES, regions):.0f} "
            f"between, {us(REGION_STAT_WAIT_CYCLES, regions):.0f} waiting, mail "
            f"{us(REGION_STAT_SEND_CYCLES, regions):.0f} sending, {us(REGION_STAT_TAKE_CYCLES, regions):.0f} taking; "
            f"busiest block {us(REGION_STAT_BUSIEST_CYCLES):.0f} us relaxing + between, "
            f"longest {us(REGION_STAT_KERNEL_CYCLES):.0f} us")
