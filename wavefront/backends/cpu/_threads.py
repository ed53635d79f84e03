"""How many threads each step gets: small steps run on the calling thread alone.

Waking numba's thread pool costs microseconds on an idle machine and whole
scheduler ticks on a busy one, more than a step over a few thousand edges
takes; road networks and the first and last BFS levels are made of such
steps. The fused delta-stepping (one parallel region, barriers every bin)
on a small road graph gets a team sized to the graph (:func:`fused_team`).
Thread counts are per calling thread in numba, so this is safe when
several Python threads search at once.
"""
from __future__ import annotations

from numba import get_num_threads, set_num_threads


class StepThreads:
    """Set the thread count per step; :meth:`restore` puts the caller's back.

    ``serial_work``: below this many edges (or vertices) a step runs on one
    thread (the single-process drivers pass their tuning's measured value;
    the default is the one the distributed steps were measured with).
    """

    def __init__(self, serial_work: int = 1 << 14):
        self._available = None  # read on first use: a small search that stays serial never asks (~1 us)
        self.serial_work = serial_work

    @property
    def available(self) -> int:
        """The caller's numba thread count, as it was when first asked for."""
        if self._available is None:
            self._available = self._current = get_num_threads()
        return self._available

    def use(self, work: int, serial_work: int | None = None) -> int:
        """Threads for a step of ``work`` edges/vertices (set in numba, and returned);
        ``serial_work`` overrides the threshold for this step."""
        threshold = self.serial_work if serial_work is None else serial_work
        return self.use_team(1 if work < threshold else self.available)

    def use_team(self, wanted: int) -> int:
        """Exactly ``wanted`` threads, at most the caller's and at least one (set in numba, and returned)."""
        wanted = max(1, min(int(wanted), self.available))
        if wanted != self._current:
            set_num_threads(wanted)
            self._current = wanted
        return wanted

    def restore(self) -> None:
        if self._available is not None and self._current != self._available:
            set_num_threads(self._available)
            self._current = self._available


def fused_team(n: int, available: int, vertices_per_thread: int) -> int:
    """Threads for the fused delta-stepping (one parallel region, barriers every bin) on ``n`` vertices.

    One thread per ``vertices_per_thread`` vertices, at least one and at most
    ``available``; ``vertices_per_thread`` 0 means no cap (all of
    ``available``). A small road graph's bins hold too few vertices to keep
    a large team busy between barriers, so idle threads only add to each
    barrier's cost (the measurement is in :class:`.tuning.CPUSSSPTuning`).
    The fused BFS levels take every thread: the same rule lost there.
    """
    available = max(1, int(available))
    if vertices_per_thread <= 0:
        return available
    return max(1, min(available, int(n) // vertices_per_thread))
