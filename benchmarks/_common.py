"""Helpers shared by the benchmark scripts: roots, statistics, machine facts, tables."""
from __future__ import annotations

import platform
import statistics
import time

import numpy as np


def pick_roots(graph, count: int = 64, seed: int = 1, caller_ids: bool = False) -> list[int]:
    """Up to ``count`` distinct random vertices of degree >= 1, as Graph500
    picks roots: internal ids (for backend functions), or the caller's ids
    (for ``wavefront.bfs``/``sssp``) when the graph was relabelled."""
    from wavefront._xp import to_numpy

    eligible = np.flatnonzero(to_numpy(graph.degree()) > 0)
    if caller_ids and graph.labels is not None:
        eligible = to_numpy(graph.labels)[eligible]
    rng = np.random.default_rng(seed)
    return rng.choice(eligible, size=min(count, eligible.size), replace=False).tolist()


def timed_on_gpu(run, *args, **kwargs):
    """``(run(*args, **kwargs), seconds)``, timed alone between two GPU
    synchronizations: from the call until the output is in device memory."""
    import cupy

    stream = cupy.cuda.get_current_stream()
    stream.synchronize()
    start = time.perf_counter()
    result = run(*args, **kwargs)
    stream.synchronize()
    return result, time.perf_counter() - start


def harmonic_mean(values) -> float:
    values = np.asarray(values, dtype=np.float64)
    return float(values.size / np.sum(1.0 / values))


def median(values) -> float:
    return float(statistics.median(values))


def cpu_model() -> str:
    """The CPU's model name (from /proc/cpuinfo where there is one)."""
    try:
        with open("/proc/cpuinfo") as info:
            for line in info:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def print_table(title: str, columns: list[str], rows: list[list], caption: str | None = None) -> None:
    """Print rows as a rich table; columns after the first two are right-aligned."""
    from rich.console import Console
    from rich.table import Table

    table = Table(title=title, caption=caption)
    for i, name in enumerate(columns):
        table.add_column(name, justify="left" if i < 2 else "right")
    for row in rows:
        table.add_row(*[str(cell) for cell in row])
    Console().print(table)


def status_mb(field: str) -> float:
    """A memory field of /proc/self/status (VmRSS, VmHWM) in MB; NaN where there is none."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


def reset_peak() -> bool:
    """Reset this process's VmHWM to its current RSS (Linux >= 4.0); False where not allowed."""
    try:
        with open("/proc/self/clear_refs", "w") as refs:
            refs.write("5")
        return True
    except OSError:
        return False
