"""Progress bars for reads, writes and graph builds that take a while.

A :class:`Meter` shows a rich progress bar on stderr once its work has run
for ``delay`` seconds (a second by default), and only when stderr is a
terminal, so that quick reads stay silent and logs, pipes and tests get
nothing. Nothing is ever written to stdout. Pass a :class:`ProgressBar` to
choose the console (``rich.console.Console(force_terminal=True)`` to force
it) or the delay.
"""
from __future__ import annotations

import sys
import threading
from dataclasses import dataclass

DELAY = 1.0


@dataclass(frozen=True)
class ProgressBar:
    """Where and when progress shows: ``console`` (default: stderr, if a terminal) after ``delay`` s."""

    console: object = None
    delay: float = DELAY


def _settings(progress) -> ProgressBar | None:
    """The ProgressBar that ``progress`` (True, False or a ProgressBar) asks for, or None for none."""
    if isinstance(progress, ProgressBar):
        return progress
    if progress is True and sys.stderr.isatty():
        return ProgressBar()
    if progress in (True, False, None):
        return None
    raise TypeError(f"progress must be True, False or a ProgressBar, got {progress!r}")


class Meter:
    """One task's progress in bytes (done, rate, time left); ``total`` None for work whose
    size is unknown (a pulsing bar and the time elapsed)."""

    def __init__(self, description: str, total: int | None, *, progress=True):
        self._settings = _settings(progress)
        self._description = description
        self._total = total
        self._bar = None
        self._task = None
        self._timer = None
        self._lock = threading.Lock()
        self._shown = False

    def __enter__(self):
        if self._settings is None:
            return self
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            DownloadColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
            TransferSpeedColumn,
        )

        columns = [TextColumn("{task.description}"), BarColumn()]
        if self._total is None:
            columns.append(TimeElapsedColumn())
        else:
            columns += [DownloadColumn(), TransferSpeedColumn(), TimeRemainingColumn()]
        console = self._settings.console or Console(file=sys.stderr)
        self._bar = Progress(*columns, console=console, transient=True)
        self._task = self._bar.add_task(self._description, total=self._total)
        if self._settings.delay <= 0:
            self._show()
        else:
            self._timer = threading.Timer(self._settings.delay, self._show)
            self._timer.daemon = True
            self._timer.start()
        return self

    def _show(self) -> None:
        with self._lock:
            if self._bar is not None and not self._shown:
                self._shown = True
                self._bar.start()

    def update(self, completed: int, total: int | None = None) -> None:
        """Set how many bytes are done (and the total, when it is an estimate that improves)."""
        if self._bar is not None:
            self._bar.update(self._task, completed=completed, **({} if total is None else {"total": total}))

    def __exit__(self, *exc):
        if self._timer is not None:
            self._timer.cancel()
        with self._lock:
            if self._shown:
                self._bar.stop()
            self._bar = None
