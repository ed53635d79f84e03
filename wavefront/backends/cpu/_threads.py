"""How many threads each step gets: small steps run on the calling thread alone.

Waking numba's thread pool costs microseconds on an idle machine and whole
scheduler ticks on a busy one, more than a step over a few thousand edges
takes; road networks and the first and last BFS levels are made of such
steps. Thread counts are per calling thread in numba, so this is safe when
several Python threads search at once.
"""
from __future__ import annotations

from numba import get_num_threads, set_num_threads

SERIAL_WORK = 1 << 14  # below this many edges (or vertices) a step runs serially


class StepThreads:
    """Set the thread count per step; :meth:`restore` puts the caller's back."""

    def __init__(self):
        self.available = get_num_threads()
        self.current = self.available

    def use(self, work: int) -> int:
        """Threads for a step of ``work`` edges/vertices (set in numba, and returned)."""
        wanted = 1 if work < SERIAL_WORK else self.available
        if wanted != self.current:
            set_num_threads(wanted)
            self.current = wanted
        return wanted

    def restore(self) -> None:
        if self.current != self.available:
            set_num_threads(self.available)
            self.current = self.available
