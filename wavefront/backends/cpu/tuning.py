"""The CPU backend's tuning: every choice a benchmark switched, with the measured winners as defaults.

Passed explicitly (``tuning=`` on the CPU methods); never a module global.
The measurements behind each default are in docs/decisions/cpu-roads.md.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class CPUBFSTuning:
    """BFS on the CPU.

    ``serial_edges``: a top-down level whose frontier has fewer out-arcs runs
    on the calling thread, inside one numba call that keeps running levels
    until a frontier reaches this size (a road search is hundreds of such
    levels, and waking the thread pool costs more than each of them).
    ``parallel_work``: a parallel step over fewer edges or vertices than
    this runs on one thread (the first and last levels of a Kronecker search).
    """

    serial_edges: int = 1 << 14
    parallel_work: int = 1 << 14

    def __post_init__(self):
        for name in ("serial_edges", "parallel_work"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"CPUBFSTuning.{name} must be a non-negative integer, got {value!r}")


@dataclass(frozen=True)
class CPUSSSPTuning:
    """SSSP on the CPU (the fused delta-stepping and ``auto``'s choice).

    * ``delta_factor``: the default bucket width is ``delta_factor`` times the
      mean arc weight divided by ``sqrt(mean out-degree)`` (see
      :func:`wavefront.backends.cpu.sssp.default_delta`).
    * ``fusion_limit``: a thread keeps relaxing its own copy of the current
      bin while it holds fewer vertices than this (GAP's
      ``kBinSizeThreshold``), instead of meeting the others at a barrier.
    * ``ring``: most bins a thread keeps apart (a power of two); farther heads share an
      overflow row that is re-sorted when the search gets near.
    * ``spins``: barrier polls with the pause hint before a waiter yields its core.
    * ``serial_arcs``: graphs with fewer arcs run the fused kernel on one thread.
    * ``trace_rows``: iterations recorded one per trace row (later ones are
      summed into the last row).
    * ``dijkstra_max_arcs``: ``auto`` runs the serial Dijkstra on graphs with
      at most this many arcs, where the fused kernel's setup dominates.
    """

    delta_factor: float = 8.0
    fusion_limit: int = 1000
    ring: int = 64
    spins: int = 4000
    serial_arcs: int = 1 << 15
    trace_rows: int = 1 << 13
    dijkstra_max_arcs: int = 0

    def __post_init__(self):
        if not (self.delta_factor > 0):
            raise ValueError(f"CPUSSSPTuning.delta_factor must be positive, got {self.delta_factor!r}")
        for name in ("fusion_limit", "ring", "spins", "serial_arcs", "trace_rows", "dijkstra_max_arcs"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"CPUSSSPTuning.{name} must be a non-negative integer, got {value!r}")
        if self.ring < 2 or self.ring & (self.ring - 1) or self.trace_rows < 1:
            raise ValueError("CPUSSSPTuning.ring must be a power of two of at least 2, trace_rows at least 1")
