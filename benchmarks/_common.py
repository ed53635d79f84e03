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


def searches_between_barriers(world, graph, roots, search, validate=None, info=None):
    """A distributed search per root, each timed between two barriers of
    ``world`` (as the Graph500 driver times them), back to back. Returns
    ``(rows, validated)``: per root ``(seconds, Graph500 edge count,
    info(result))`` and, with ``validate(graph, result, edges)``, each
    validation's seconds (it runs after its search, as Graph500 runs them).
    Without validation the edge counts wait until every search has run: the
    host's count (a 64 MB copy and gather a rank at SCALE 26) left the GPU
    idle between searches, and the next one ran slower (P = 1 at SCALE 26 on
    an H200: 2.58 ms against 2.01 timed back to back with the single-GPU
    search). ``graph.traversed_edges`` is collective: every rank calls this."""
    seconds, reached, infos, validated = [], [], [], []
    for root in roots:
        world.barrier()
        start = time.perf_counter()
        result = search(root)
        world.barrier()
        seconds.append(time.perf_counter() - start)
        reached.append(result.reached)  # on the device: queued, no wait
        infos.append(None if info is None else info(result))
        if validate is not None:
            start = time.perf_counter()
            validate(graph, result, graph.traversed_edges(reached[-1]))  # raises on every rank if wrong
            validated.append(time.perf_counter() - start)
        del result
    edges = [graph.traversed_edges(r) for r in reached]
    return list(zip(seconds, edges, infos, strict=True)), validated


def number_list(kind=int, minimum=None):
    """An argparse type: comma-separated numbers of ``kind``, each above
    ``minimum`` (none if None), refused at parse time (exit 2)."""
    import argparse

    def parse(text: str) -> list:
        try:
            values = [kind(x) for x in text.split(",")]
        except ValueError:
            raise argparse.ArgumentTypeError(f"takes comma-separated {kind.__name__} values, got {text!r}") from None
        if minimum is not None and any(not v > minimum for v in values):
            raise argparse.ArgumentTypeError(f"every value must exceed {minimum}, got {text!r}")
        return values

    return parse


def compare_with_single(scale: int, kernel: str, distributed, roots, field: str) -> None:
    """A distributed search at P = 1 against the single-GPU ``wavefront``
    search of ``kernel`` ("bfs": the hybrid; "sssp") on the Graph500 graph of
    SCALE ``scale`` and the same ``roots``, each root by one then the other,
    back to back; ``distributed(root)`` runs the distributed one. The
    result arrays ``field`` ("levels", "distances") must be equal. Prints
    each search's ms, median and harmonic-mean GTEPS, and the ratio of
    the medians."""
    import cupy

    import wavefront
    from wavefront.backends import prepare
    from wavefront.generators import kronecker_edges
    from wavefront.graph.build import from_edges

    src, dst, weights = kronecker_edges(scale, xp=cupy)
    single = from_edges(src, dst, weights if kernel == "sssp" else None, n=1 << scale)
    del src, dst, weights
    prepare(single, [kernel])
    search = {"bfs": lambda root: wavefront.bfs(single, root, method="hybrid"),
              "sssp": lambda root: wavefront.sssp(single, root)}[kernel]
    search(roots[0])  # warm, as Graph500 does
    ms = {"single": [], "distributed": []}
    edges = []
    for root in roots:
        got = {}
        for name, run in (("single", search), ("distributed", distributed)):
            got[name], seconds = timed_on_gpu(run, root)
            ms[name].append(seconds * 1e3)
        expected = getattr(got["single"], field)
        if not bool((getattr(got["distributed"], field)[: single.n] == expected).all()):
            raise SystemExit(f"root {root}: the two searches' {field} differ")
        edges.append(single.traversed_edges(got["single"].parents >= 0))
    for name, times in ms.items():
        teps = harmonic_mean([e / (t / 1e3) for t, e in zip(times, edges, strict=True)])
        print(f"SCALE {scale}, {name} search, same roots: ms {', '.join(f'{t:.2f}' for t in times)}; "
              f"median {median(times):.2f} ms; {teps / 1e9:.3f} GTEPS (harmonic mean)")
    ratio = median(ms["distributed"]) / median(ms["single"])
    print(f"P = 1 / single-GPU: {ratio:.3f} (medians); {field} identical on all {len(roots)} roots")


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
