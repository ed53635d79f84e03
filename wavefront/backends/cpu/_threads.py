"""How many threads each step gets: small steps run on the calling thread alone.

Waking numba's thread pool costs microseconds on an idle machine and whole
scheduler ticks on a busy one, more than a step over a few thousand edges
takes; road networks and the first and last BFS levels are made of such
steps. Thread counts are per calling thread in numba, so this is safe when
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
        self.available = get_num_threads()
        self.current = self.available
        self.serial_work = serial_work

    def use(self, work: int, serial_work: int | None = None) -> int:
        """Threads for a step of ``work`` edges/vertices (set in numba, and returned);
        ``serial_work`` overrides the threshold for this step."""
        threshold = self.serial_work if serial_work is None else serial_work
        wanted = 1 if work < threshold else self.available
        if wanted != self.current:
            set_num_threads(wanted)
            self.current = wanted
        return wanted

    def restore(self) -> None:
        if self.current != self.available:
            set_num_threads(self.available)
            self.current = self.available
