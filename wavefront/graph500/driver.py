"""The Graph500 benchmark driver (spec 2.0 / v3 reference; DESIGN.md §2).

Steps, as the reference runs them:

1. generate the Kronecker tuples on the chosen device (``graph_generation``,
   reported but not official), after an untimed small generate-and-build
   that keeps first-use kernel compilation out of both timings;
2. build the graph from them and prepare the backend's search structures, timed
   (kernel 1, ``construction_time``);
3. choose the roots (:mod:`.roots`);
4. per kernel: one untimed warm-up search from the first root, then one timed
   search per root, each timed alone from the call until its output is in
   memory (the GPU is synchronized before the clock stops), and each
   validated at once against the input tuples on the graph's device
   (:mod:`wavefront.validate`). The first failure ends the run, as in the
   reference;
5. with ``energy=True``, re-run each kernel's searches back to back for at
   least ``energy_seconds`` under an NVML energy meter (:mod:`.energy`), as
   the reference's energy loop does, for MTEPS/W.

:func:`run_graph500` prints the report (:mod:`.report`) and returns it.
"""
from __future__ import annotations

import os
import sys
import time
from dataclasses import asdict

import numpy as np

from .. import __version__, registry
from ..backends import choose_backend, prepare, synchronize
from ..errors import BackendUnavailableError, GPUMemoryError, UnknownMethodError, ValidationError
from .report import EnergyRun, Graph500Report, KernelRun, ValidationFailure
from .roots import choose_roots, require_roots

KERNELS = ("bfs", "sssp")
DEFAULT_SEED = 1
DEFAULT_ENERGY_SECONDS = 2.0
# Big enough (16 * 2**12 tuples) to take the generator's compiled path.
WARM_UP_SCALE = 12
# Preferred method per kernel when the caller names none: the direction-
# optimizing hybrid for BFS where the backend has one, else the backend's auto.
PREFERRED_METHODS = {"bfs": ("hybrid", "auto"), "sssp": ("auto",)}


DELTA_METHOD = "delta-stepping"  # the SSSP method a given delta implies


def with_delta(kernels, method, delta):
    """(methods, per-kernel search options) of a run given the SSSP bucket
    width ``delta`` (None: ``method`` unchanged, no options). A delta needs a
    positive finite number, an SSSP kernel, and delta-stepping: the SSSP
    method becomes it unless one is named ("auto" included), and naming
    another raises ValueError."""
    import math

    if delta is None:
        return method, {}
    if isinstance(delta, bool) or not isinstance(delta, (int, float)) or not math.isfinite(delta) or delta <= 0:
        raise ValueError(f"delta must be a positive finite number, got {delta!r}")
    if "sssp" not in kernels:
        raise ValueError(f"delta is the SSSP's bucket width, but the kernels run are {', '.join(kernels)}")
    per_kernel = dict(method) if isinstance(method, dict) else {k: method for k in kernels if method is not None}
    named = per_kernel.get("sssp")
    if named not in (None, "auto", DELTA_METHOD):
        raise ValueError(f"delta is {DELTA_METHOD}'s bucket width; the sssp method {named!r} takes none "
                         f"(name sssp={DELTA_METHOD} or leave the method out)")
    return {**per_kernel, "sssp": DELTA_METHOD}, {"sssp": {"delta": float(delta)}}


def resolve_methods(kernels, device: str, method=None) -> dict:
    """Method name per kernel: ``method`` may be None (defaults), one name for
    every kernel, or a {kernel: name} dict. Unknown names raise
    UnknownMethodError listing the choices."""
    if method is None or isinstance(method, str):
        requested = {k: method for k in kernels}
    else:
        requested = dict(method)
        stray = set(requested) - set(kernels)
        if stray:
            raise ValueError(f"methods given for kernels not run: {', '.join(sorted(stray))}")
    chosen = {}
    for kernel in kernels:
        available = registry.methods(kernel, device)
        name = requested.get(kernel)
        if name is None:
            name = next((m for m in PREFERRED_METHODS[kernel] if m in available), None)
            if name is None:
                raise UnknownMethodError(f"the {device} backend has no {kernel} method yet")
        elif name not in available:
            hint = ""
            if isinstance(method, str) and len(kernels) > 1:
                hint = f" (or name one per kernel, e.g. {kernel}={available[0]})" if available else ""
            raise UnknownMethodError(
                f"no {kernel} method {name!r} on the {device} backend; choose one of "
                f"{', '.join(available) or '(none yet)'}{hint}"
            )
        chosen[kernel] = name
    return chosen


def device_name(backend: str) -> str:
    if backend == "cuda":
        import cupy

        props = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)
        name = props["name"]
        return name.decode() if isinstance(name, bytes) else str(name)
    import platform

    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return f"{platform.processor() or platform.machine()} ({cores} cores)"


def _searcher(kernel: str):
    if kernel == "bfs":
        from ..bfs import bfs

        return bfs
    from ..sssp import sssp

    return sssp


def _validator(kernel: str):
    from ..validate import validate_bfs, validate_sssp

    return validate_bfs if kernel == "bfs" else validate_sssp


def _graph_bytes(scale: int, edgefactor: int, weighted: bool) -> int:
    """Tuples plus CSR after construction (construction scratch excluded)."""
    tuples = edgefactor << scale
    per_tuple = 8 + 8 + (4 if weighted else 0)
    per_arc = 4 + (4 if weighted else 0)
    return tuples * per_tuple + 2 * tuples * per_arc + 8 * ((1 << scale) + 1) * 2


class _Progress:
    """A rich progress bar on stderr; silent when disabled or stderr is no TTY."""

    def __init__(self, enabled: bool):
        self.enabled = enabled and sys.stderr.isatty()
        self._bar = None

    def __enter__(self):
        if self.enabled:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            self._bar = Progress(
                TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                TimeElapsedColumn(), console=Console(file=sys.stderr), transient=False,
            )
            self._bar.__enter__()
        return self

    def __exit__(self, *exc):
        if self._bar is not None:
            self._bar.__exit__(*exc)

    def task(self, description: str, total: int):
        return None if self._bar is None else self._bar.add_task(description, total=total)

    def advance(self, task, description: str | None = None) -> None:
        if self._bar is not None and task is not None:
            self._bar.update(task, advance=1, **({"description": description} if description else {}))


def run_graph500(
    scale: int,
    edgefactor: int = 16,
    roots: int = 64,
    kernels=KERNELS,
    backend: str = "auto",
    seed: int = DEFAULT_SEED,
    method=None,
    energy: bool = False,
    json_path=None,
    progress: bool = True,
    stream=None,
    log=None,
    energy_seconds: float = DEFAULT_ENERGY_SECONDS,
    delta: float | None = None,
) -> Graph500Report:
    """Run the Graph500 benchmark; print the report to ``stream`` and return it.

    ``kernels``: any of "bfs", "sssp" (in that order in the report);
    ``backend``: "auto", "cpu" or "cuda"; ``method``: None, one method name,
    or {kernel: name}; ``energy``: measure GPU MTEPS/W (CUDA only);
    ``json_path``: also write every number there; ``delta``: the SSSP's
    bucket width (delta-stepping, the SSSP method then unless one is named;
    any other named method raises ValueError). Notes (chosen backend,
    failures) go to ``log`` (stderr), the progress bar to stderr.
    A failed validation stops the run; the report's ``failure`` says which
    search and rule, and ``valid`` is False.
    """
    stream = sys.stdout if stream is None else stream
    log = sys.stderr if log is None else log
    if isinstance(kernels, str):
        kernels = kernels.split(",")
    unknown = sorted(set(kernels) - set(KERNELS))
    if unknown or not kernels:
        raise ValueError(f"kernels must be among {', '.join(KERNELS)}; got {list(kernels)}")
    kernels = tuple(k for k in KERNELS if k in set(kernels))
    if roots < 1:
        raise ValueError(f"the number of roots must be at least 1, got {roots}")
    chosen, reason = choose_backend(backend)
    print(f"wavefront graph500: backend {chosen} ({reason})", file=log, flush=True)
    method, options = with_delta(kernels, method, delta)
    methods = resolve_methods(kernels, chosen, method)
    meter = _energy_meter(chosen) if energy else None
    try:
        report = _run(
            scale, edgefactor, roots, kernels, chosen, reason, seed, methods,
            meter, energy_seconds, progress, log, options,
        )
    finally:
        if meter is not None:
            meter.close()
    if report.failure is not None:
        print(f"wavefront graph500: {report.failure.describe()}", file=log, flush=True)
    stream.write(report.text())
    stream.flush()
    if json_path is not None:
        report.write_json(json_path)
    return report


def _energy_meter(backend: str):
    if backend != "cuda":
        raise BackendUnavailableError(
            "--energy measures GPU power, but this run uses the CPU backend; "
            "run it with the CUDA backend on an NVIDIA GPU"
        )
    from .energy import open_meter

    return open_meter()


def _run(scale, edgefactor, num_roots, kernels, backend, reason, seed, methods,
         meter, energy_seconds, progress, log, options=None) -> Graph500Report:
    from ..generators import kronecker_edges
    from ..graph.build import from_edges

    if backend == "cuda":
        import cupy as xp
    else:
        xp = np
    weighted = "sssp" in kernels
    _compile_ahead(min(scale, WARM_UP_SCALE), edgefactor, seed, xp, weighted, backend, kernels)
    try:
        start = time.perf_counter()
        src, dst, weights = kronecker_edges(scale, edgefactor, seed=seed, xp=xp)
        synchronize(backend)
        generation = time.perf_counter() - start
        if not weighted:
            weights = None

        start = time.perf_counter()
        graph = from_edges(src, dst, weights, n=1 << scale)
        prepare(graph, kernels)
        synchronize(backend)
        construction = time.perf_counter() - start
    except MemoryError as exc:
        if backend != "cuda":
            raise
        from ..backends.cuda.memory import free_bytes
        from ..distributed.memory import grid_needed_for

        free = free_bytes()
        raise GPUMemoryError(
            f"the SCALE {scale} graph (tuple list and CSR, construction scratch excluded)",
            _graph_bytes(scale, edgefactor, weighted), free,
            grid=grid_needed_for(1 << scale, 2 * edgefactor << scale, free),
        ) from exc
    edges = (src, dst) if weights is None else (src, dst, weights)
    roots = require_roots(choose_roots(src, dst, graph.n, num_roots, seed), scale, edgefactor, seed)
    print(
        f"wavefront graph500: SCALE {scale}, {graph.n:,} vertices, {graph.num_input_edges:,} "
        f"input edges, {len(roots)} roots; generation {generation:.3f} s, "
        f"construction {construction:.3f} s",
        file=log, flush=True,
    )
    report = Graph500Report(
        scale=scale, edgefactor=edgefactor, seed=seed, roots=[int(r) for r in roots],
        graph_generation=generation, construction_time=construction, backend=backend,
        backend_reason=reason, device=device_name(backend), version=__version__, kernels={},
    )
    with _Progress(progress) as bar:
        for kernel in kernels:
            run = KernelRun(kernel=kernel, method=methods[kernel], options=dict((options or {}).get(kernel, {})))
            report.kernels[kernel] = run
            failure = _timed_searches(graph, edges, roots, run, bar)
            if failure is not None:
                report.failure = failure
                return report
            if meter is not None:
                run.energy = _energy_run(graph, roots, run, meter, energy_seconds, bar)
    return report


def _compile_ahead(scale, edgefactor, seed, xp, weighted, backend, kernels) -> None:
    """Generate and build a small graph first, untimed, so CuPy's and numba's
    first-use compilation stays out of graph_generation and construction_time."""
    from ..generators import kronecker_edges
    from ..graph.build import from_edges

    src, dst, weights = kronecker_edges(scale, edgefactor, seed=seed, xp=xp)
    small = from_edges(src, dst, weights if weighted else None, n=1 << scale)
    if xp is np:
        # The timed build takes the numba engine once it has enough tuples;
        # load its kernels here even where this small build (a small
        # edgefactor) stays below that and took the array engine.
        from ..graph._csr import csr_arrays

        csr_arrays(src, dst, weights if weighted else None, n=1 << scale, engine="numba")
    prepare(small, kernels)  # compiles the search kernels once per process
    synchronize(backend)


def _search_once(search, graph, root: int, run: KernelRun, backend: str):
    start = time.perf_counter()
    result = search(graph, root, method=run.method, **run.options)
    synchronize(backend)
    return result, time.perf_counter() - start


def _timed_searches(graph, edges, roots, run: KernelRun, bar) -> ValidationFailure | None:
    search, validate = _searcher(run.kernel), _validator(run.kernel)
    backend = graph.device
    task = bar.task(f"{run.kernel} warm-up", total=len(roots))
    _search_once(search, graph, int(roots[0]), run, backend)
    for i, root in enumerate(int(r) for r in roots):
        result, seconds = _search_once(search, graph, root, run, backend)
        nedge = graph.traversed_edges(result.parents >= 0)
        start = time.perf_counter()
        try:
            summary = validate(edges, result, n=graph.n, nedge=nedge)
        except ValidationError as exc:
            return ValidationFailure(run.kernel, i, root, exc.rule, str(exc))
        synchronize(backend)
        run.validate_times.append(time.perf_counter() - start)
        run.roots.append(root)
        run.times.append(seconds)
        run.nedges.append(nedge)
        run.depths.append(summary.depth)
        run.reached.append(summary.reached)
        if i == 0:
            run.trace = [asdict(row) for row in result.trace]
        del result
        bar.advance(task, f"{run.kernel} searches")
    return None


def _energy_run(graph, roots, run: KernelRun, meter, min_seconds: float, bar) -> EnergyRun:
    """Searches from the same roots, back to back, for at least ``min_seconds``
    under the meter (outputs discarded; they were validated above)."""
    search, backend = _searcher(run.kernel), graph.device
    nedge_of = dict(zip(run.roots, run.nedges))
    times, nedges = [], []
    task = bar.task(f"{run.kernel} energy", total=None)
    with meter:
        start = time.perf_counter()
        while not times or time.perf_counter() - start < min_seconds:
            for root in run.roots:
                _result, seconds = _search_once(search, graph, root, run, backend)
                times.append(seconds)
                nedges.append(nedge_of[root])
            bar.advance(task)
    return EnergyRun(measurement=meter.measurement, times=times, nedges=nedges)
