"""Seed 001's phases as captured CUDA graphs, and the arrays they run on.

A phase (seed 001 algorithm 1's loop body) is two kernel launches, RELAX and
UPDATE over all vertices or over the frontier list, plus the copy of its
counters to the host. Each is captured once per (kernels, mode, list parity,
host slot, cutoff) as a CUDA graph and replayed, so that a phase's
host-measured time reflects the GPU's work rather than Python's launch
overhead (the seed's K20c phases took hundreds of µs; an H200's, tens). The
host loop that times phases and asks the policy is
:func:`wavefront.backends.cuda.sssp_harish.harish_search`.
"""
from __future__ import annotations

import numpy as np

from .memory import check_fits

SLOT_WORDS = 4  # each in-flight phase copies its three counters to its own host slot
_CAPTURES_PER_CUTOFF = 2 * 3  # per slot: one all-vertex phase, a frontier phase per list parity
MAX_CAPTURED_PHASES = 8 * _CAPTURES_PER_CUTOFF  # captured phase graphs kept per graph


class HarishWorkspace:
    """Seed 001's arrays (Ca, Ua, Ma, NRa/NWa) for one graph, kept between
    searches with the CUDA graphs captured over them, so that a search pays
    neither allocations nor captures. Not for concurrent use."""

    def __init__(self, graph, ar, k):
        import cupy

        n = graph.n
        self.stream = cupy.cuda.Stream(non_blocking=True)
        with self.stream:
            self.cost = cupy.empty(n, dtype=ar.dist_dtype)
            self.updating = cupy.empty(n, dtype=ar.dist_dtype)
            self.mask = cupy.empty(n, dtype=np.uint8)
            self.lists = (cupy.empty(n, dtype=k.index_dtype), cupy.empty(n, dtype=k.index_dtype))
            # counts[0], counts[1]: lengths of the two frontier lists (NRa/NWa by
            # parity); counts[2]: vertices updated by an all-vertex phase.
            self.counts = cupy.empty(3, dtype=np.uint32)
        self.count_of = (self.counts[0:1], self.counts[1:2])
        self.all_count = self.counts[2:3]
        self.captured = {}
        # One event per in-flight phase: the host waits on the oldest.
        self.phase_done = [cupy.cuda.Event(disable_timing=True) for _ in range(2)]

    @classmethod
    def for_graph(cls, graph, ar, k) -> "HarishWorkspace":
        key = "cuda.sssp.harish_workspace"
        ws = graph.derived.get(key)
        if ws is None:
            itemsize = np.dtype(ar.dist_dtype).itemsize
            idx_size = np.dtype(k.index_dtype).itemsize
            check_fits("seed-001 SSSP workspace", graph.n * (2 * itemsize + 1 + 2 * idx_size))
            ws = graph.derived[key] = cls(graph, ar, k)
        return ws

    def reset(self, source, ar) -> None:
        """Every cost infinite but the sources' (``source``: an id, or a device array of ids)."""
        self.cost.fill(ar.infinity)
        self.updating.fill(ar.infinity)
        self.mask.fill(0)
        self.counts.fill(0)
        self.cost[source] = 0
        self.updating[source] = 0
        self.mask[source] = 1


class SeedPhases:
    """The phases of one search: their kernel launches, and the CUDA graphs
    captured over them (kept in the workspace)."""

    def __init__(self, graph, ws: HarishWorkspace, k, weights, cut):
        self.graph, self.ws, self.k, self.weights, self.cut = graph, ws, k, weights, cut
        self.cut_key = cut.item()  # phases captured for another cutoff are other graphs
        self.host_view = k.host_view

    def launch_kernels(self, mode: str, cur: int, slot: int) -> None:
        """Queue one phase's kernels and the copy of its counters to host slot ``slot``."""
        g, ws, k, weights, cut = self.graph, self.ws, self.k, self.weights, self.cut
        if mode == "all":
            k.relax_all(g, weights, ws.mask, ws.cost, ws.updating, cut, ws.all_count)
            k.update_all(g.n, ws.mask, ws.cost, ws.updating, ws.all_count)
        else:
            k.select_relax(g, weights, frontier_len=None, frontier_count=ws.count_of[cur],
                           frontier=ws.lists[cur], mask=ws.mask, cost=ws.cost, updating=ws.updating,
                           next_frontier=ws.lists[1 - cur], next_count=ws.count_of[1 - cur], cutoff=cut)
            k.select_update(updated_count=ws.count_of[1 - cur], updated=ws.lists[1 - cur], mask=ws.mask,
                            cost=ws.cost, updating=ws.updating, read_count=ws.count_of[cur])
        k.copy_words_to_host(ws.counts, 3, ws.stream, at=slot * SLOT_WORDS)

    def phase_graph(self, mode: str, cur: int, slot: int):
        """The captured phase for (mode, list parity, slot), captured on first use."""
        key = (self.k, mode, cur if mode == "frontier" else 0, slot, self.cut_key)
        phase = self.ws.captured.get(key)
        if phase is None:
            self.ws.stream.begin_capture()
            self.launch_kernels(mode, cur, slot)
            phase = self.ws.captured[key] = self.ws.stream.end_capture()
        return phase

    def capture_all(self, modes, in_flight: int) -> None:
        """Capture every phase the search may run, before anything is timed."""
        if len(self.ws.captured) > MAX_CAPTURED_PHASES - _CAPTURES_PER_CUTOFF:  # many cutoffs
            self.ws.captured.clear()
        for mode in modes:
            for slot in range(in_flight):
                for cur in ((0, 1) if mode == "frontier" else (0,)):
                    self.phase_graph(mode, cur, slot)

    def updated(self, mode: str, cur: int, slot: int) -> int:
        """Vertices a finished phase updated, from its host slot."""
        return int(self.host_view[slot * SLOT_WORDS + (1 - cur if mode == "frontier" else 2)])
