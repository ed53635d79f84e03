"""The CPU backend's tuning: every choice a benchmark switched, with the measured winners as defaults.

Passed explicitly (``tuning=`` on the CPU methods); never a module global.
The measurements behind each default are in docs/decisions/cpu-roads.md.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class CPUBFSTuning:
    """BFS on the CPU.

    * ``fused_edges``: while the frontier has fewer out-arcs than this, levels
      run top-down in one parallel region with a barrier between them
      (a road search is hundreds of such levels, and a step per level pays a
      Python round trip and a thread-pool wake-up that cost more than it).
    * ``fused_parallel_vertices``: graphs with fewer vertices run those
      levels on one thread, larger ones on every thread. On 16 cores one
      thread won below 65 536 vertices (grid 200 x 200 0.37 against 0.83 ms
      on 16 threads, road-like 20 k 0.45 against 0.64) and the team from
      amsterdam's 68 213 up (1.11 against 1.45 ms); 8 and 4 threads agreed.
      A team of one thread per 8 000 vertices (amsterdam on 8 of 16) lost
      8 % (docs/decisions/cpu-roads.md, "Thread cap on small roads").
    * ``fused_pair_vertices``: ``fused_parallel_vertices`` where the caller
      has two threads. A pair's barrier a level costs more than the second
      thread saves up to about half a million vertices: on 2 cores one thread
      took 0.14 against 0.47 ms on a 128 x 128 grid, 2.5 against 4.2 on a
      500 x 500 one, and tied on roads of 68 k-500 k vertices; the pair won
      from a million (1024 x 1024 grid 23-27 against 28-31 ms, road-like
      1.4 M 36-42 against 44-48; docs/decisions/cpu-roads.md).
    * ``reset_serial_vertices``: graphs with fewer vertices reset the
      search's arrays on the calling thread, larger ones on the team. The
      fused levels that follow on one thread then find them in its own
      cache: on 2 cores a 128 x 128 grid's search took 0.09 against 0.12 ms
      (docs/decisions/cpu-roads.md, "BFS: the call's fixed cost").
    * ``parallel_work``: a per-level parallel step over fewer edges or
      vertices than this runs on one thread.
    * ``spins``: barrier polls with the pause hint before a waiter yields its core.
    """

    fused_edges: int = 1 << 14
    fused_parallel_vertices: int = 1 << 16
    fused_pair_vertices: int = 1 << 19
    reset_serial_vertices: int = 1 << 16
    parallel_work: int = 1 << 14
    spins: int = 4000

    def __post_init__(self):
        for name in ("fused_edges", "fused_parallel_vertices", "fused_pair_vertices", "reset_serial_vertices",
                     "parallel_work", "spins"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"CPUBFSTuning.{name} must be a non-negative integer, got {value!r}")


@dataclass(frozen=True)
class CPUSSSPTuning:
    """SSSP on the CPU (the fused delta-stepping and ``auto``'s choice).

    Two graph shapes get their own defaults: *skewed* graphs (mean out-degree
    at least ``skewed_mean_degree``: Kronecker, social networks; low
    diameter, hubs) and *road* graphs (the rest: roads, grids; hundreds to
    thousands of hops).

    * ``road_delta``, ``road_delta_range``: the default bin width on road
      graphs, in median arc weights for a million vertices, scaled by
      ``1e6 / n`` and clamped to the range, then scaled by ``sqrt(threads / 2)``
      for the fused kernel's team (:func:`wavefront.backends.cpu.sssp.default_delta`): small road graphs
      want wide bins (few iterations; bucket fusion eats the long thin
      tail), large ones narrow bins (wide ones redo work), and more threads
      wider ones (each iteration's barriers cost more).
    * ``skewed_delta``: the default bin width on skewed graphs, in mean arc
      weights: narrow (a wide bin relaxes most of the graph many times over).
    * ``road_frontier_shares`` / ``skewed_frontier_shares``: chunks per
      thread a shared frontier is cut into (taken from a shared cursor):
      few and large, since a frontier lists neighbouring vertices together
      and small interleaved blocks make the threads write the same cache
      lines; more than one where hubs would unbalance a static split.
    * ``fusion_limit``: a thread keeps relaxing its own copy of the current
      bin while it holds fewer vertices than this (GAP's
      ``kBinSizeThreshold``), instead of meeting the others at a barrier.
    * ``ring``: most bins a thread keeps apart (a power of two; the kernel
      uses the smallest that covers the heaviest arc's jump); farther heads
      share an overflow row that is re-sorted each time the search gets near,
      which costs that row's length each time: keep it large enough that the
      row stays nearly empty.
    * ``prefetch_ahead``: the relax loop prefetches the CSR row offsets and
      distance word of the vertex this many entries ahead in its queue, and
      the arcs of the one half as far (each vertex is a chain of dependent
      cache misses); 0 turns it off.
    * ``spins``: barrier polls with the pause hint before a waiter yields its core.
    * ``serial_arcs``: graphs with fewer arcs run the fused kernel on one thread.
    * ``vertices_per_thread``: on road graphs the fused kernel runs on one
      thread per this many vertices (at least one, at most numba's count;
      :func:`._threads.fused_team`), and the default delta is the one for
      that team; 0: all threads. Skewed graphs always get all threads (not
      measured). A small road's bins hold too few vertices to keep a large
      team busy, so each bin's barriers wait on idle threads. Measured on the
      16-core Xeon host of the lent H100 machine (2026-11-25,
      ``numba.set_num_threads(k)``, ``wf.sssp`` auto, mean of 4 roots of the
      best of 5), ms by threads::

          graph (n)            1       2      4      6      8      12     16
          amsterdam (68 k)     2.94    2.22   2.20   2.36   2.51   2.58   2.55
          seattle (148 k)      9.80    7.22   5.27   5.01   4.84   5.26   5.62
          road 1.4 M           118.79  78.76  45.11  32.63  27.75  19.83  18.00

      17 000 puts amsterdam on 4 threads and seattle on 8, each a measured
      best (18 000 would give amsterdam 3, which was not measured), and road
      1.4 M on all 16. Against the cap off, interleaved in one run on a
      host of the same kind (commit 7818e9b): amsterdam 15 % faster, seattle 10 %, road 1.4 M the
      same (docs/decisions/cpu-roads.md).
    * ``trace_rows``: iterations recorded one per trace row (later ones are
      summed into the last row).
    * ``dijkstra_max_arcs``: ``auto`` runs the serial Dijkstra on graphs with
      at most this many arcs, where the fused kernel's setup costs more.
    * ``phast_parallel_width``: the ``hierarchy`` method splits a level of at
      least this many vertices among the threads (a barrier after it); thread
      0 runs narrower ones alone (a road hierarchy's top levels hold a few
      vertices each). Not tuned by measurement yet: a barrier costs about as
      much as thread 0 pulling a few hundred vertices.
    * ``phast_auto_max_vertices``: ``auto`` runs ``hierarchy`` (once the
      graph's hierarchy is built) on graphs of at most this many vertices.
      On the 16-core host of a lent H100 machine (2026-11-27,
      ``benchmarks/sssp_hierarchy.py``, median ms, hierarchy / fused
      delta-stepping): amsterdam (68 k) 2.08 / 3.11, grid 300^2 (90 k)
      1.94 / 4.92, seattle (148 k) 2.38 / 5.91, road-like 200 k 3.15 / 7.54,
      grid 1024^2 (1.05 M) 15.34 / 13.33, road-like 1.4 M 29.35 / 23.35: the
      sweeps' random reads cost more than delta-stepping's work past a few
      hundred thousand vertices. 2^18 is the largest measured win, rounded.
    """

    skewed_mean_degree: float = 8.0
    road_delta: float = 2.5
    road_delta_range: tuple = (0.5, 16.0)
    skewed_delta: float = 1 / 64
    road_frontier_shares: int = 1
    skewed_frontier_shares: int = 4
    fusion_limit: int = 1000
    ring: int = 1024
    prefetch_ahead: int = 12
    spins: int = 4000
    serial_arcs: int = 1 << 15
    vertices_per_thread: int = 17_000
    trace_rows: int = 1 << 13
    dijkstra_max_arcs: int = 1 << 13
    phast_parallel_width: int = 512
    phast_auto_max_vertices: int = 1 << 18

    def __post_init__(self):
        for name in ("skewed_mean_degree", "road_delta", "skewed_delta"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
                raise ValueError(f"CPUSSSPTuning.{name} must be a positive number, got {value!r}")
        low, high = self.road_delta_range
        if not 0 < low <= high:
            raise ValueError(f"CPUSSSPTuning.road_delta_range must be (low, high) with 0 < low <= high, "
                             f"got {self.road_delta_range!r}")
        for name in ("road_frontier_shares", "skewed_frontier_shares", "fusion_limit", "ring", "prefetch_ahead",
                     "spins", "serial_arcs", "vertices_per_thread", "trace_rows", "dijkstra_max_arcs",
                     "phast_parallel_width", "phast_auto_max_vertices"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"CPUSSSPTuning.{name} must be a non-negative integer, got {value!r}")
        for name in ("road_frontier_shares", "skewed_frontier_shares", "trace_rows", "phast_parallel_width"):
            if getattr(self, name) < 1:
                raise ValueError(f"CPUSSSPTuning.{name} must be at least 1, got {getattr(self, name)!r}")
        if self.ring < 2 or self.ring & (self.ring - 1):
            raise ValueError(f"CPUSSSPTuning.ring must be a power of two of at least 2, got {self.ring!r}")

    def skewed(self, graph) -> bool:
        """Whether ``graph`` has the skewed shape (else the road shape)."""
        return graph.m >= self.skewed_mean_degree * graph.n
