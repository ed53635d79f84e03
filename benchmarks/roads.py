"""Road networks side by side: wavefront (CUDA, CPU) against GAP and SciPy, BFS and SSSP.

    PYTHONPATH=. python benchmarks/roads.py --gap .scratch/gapbs [--cores 2] \
        [--graphs roads,road1.4m,road4m,grid,kron22] [--roots 8] [--repeat 3] [--json out.json]

Prints one markdown table: per graph n, m (stored arcs), the median BFS
depth over the roots, then for BFS and for SSSP the time of wavefront CUDA
(when CuPy sees a GPU), wavefront CPU (``--cores`` numba threads), GAP (the
same cores; for SSSP the best delta of a sweep) and SciPy (one core), and
the ratios the road-network issue sets targets on. With ``--hierarchy`` each
graph is contracted first (:mod:`wavefront.graph.hierarchy`, timed, its own
column) and SSSP's ``auto`` searches the hierarchy: on CUDA always, on the
CPU up to its size rule. ``--cuda-methods sssp:regions,sssp:delta-stepping``
then records the searches without it (JSON and log).

Graphs (``--graphs``, comma separated):

* ``roads``: every ``*.gr.gz`` DIMACS file in ``--data`` (default: ``.data``
  here, else ``../shared/data``); a name such as ``seattle`` picks one; a
  path to a ``.gr``/``.gr.gz`` file works too;
* ``road1.4m`` / ``road4m``: :func:`wavefront.generators.road_like` (seed
  001's Kanto statistics) at 1.4 M and 4 M vertices;
* ``grid``: a 1024 x 1024 4-neighbour grid, integer weights in [1, 100];
* ``kron22`` (any ``kronN``): Graph500 Kronecker, edgefactor 16, its float
  weights mapped to integers in [1, 255] (``1 + floor(255 w)``, GAP's own
  Kronecker weight range) so every program runs the same integer graph.

Every program reads the same CSR: weights are stored as int32 (GAP's
``WeightT``; road weights fit) and GAP gets the CSR itself in its serialized
``.sg``/``.wsg`` form (written once under ``--work``), so vertex ids, arc
order and roots agree. Roots are random vertices of degree >= 1 (the same
for every program; GAP gets each with ``-r``).

Timing: one untimed warm-up per program and graph, then each root ``--repeat``
times; a root's time is the best of its repeats (the machine may be shared),
a graph's time the mean over its roots. Wavefront CPU and CUDA times are the
public calls ``wavefront.bfs``/``sssp`` with the default method ("auto"),
from the call until the result is in memory (CUDA: between two stream
synchronizations). GAP's are its own "Trial Time" lines (it times the kernel
alone, without graph loading); SciPy's are ``breadth_first_order`` and
``dijkstra`` on a float64 CSR made once.

Checks, every root and every program: wavefront BFS levels equal the levels
of SciPy's BFS tree and pass the Graph500 BFS validator; wavefront SSSP
distances equal SciPy's (exactly for integer weights) and pass the exact
SSSP validator (rtol 0, parents included); GAP's reached-vertex count (its
``-a`` analysis line) equals SciPy's. A failed check stops the run.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks._common import cpu_model, pick_roots
from wavefront.errors import MethodLimitError  # noqa: E402

DEFAULT_GRAPHS = "roads,road1.4m,road4m,grid,kron22"
ROAD_SIZES = {"road1.4m": 1_400_000, "road4m": 4_000_000}
GRID_SIDE = 1024
GRID_MAX_WEIGHT = 100
KRONECKER_MAX_WEIGHT = 255
# GAP's delta sweep: the graph's mean arc weight times these factors, then a refinement.
DELTA_FACTORS = tuple(4.0**k for k in range(-4, 7))


class CheckFailed(AssertionError):
    """A result disagrees with SciPy or fails validation: the table would be wrong."""


# -- graphs ------------------------------------------------------------------------------------


def data_dirs(explicit: Path | None) -> list[Path]:
    if explicit is not None:
        return [explicit]
    return [p for p in (ROOT / ".data", ROOT.parent / "shared" / "data") if p.is_dir()]


def expand_graphs(text: str, data: Path | None) -> list[str]:
    """Graph names: ``roads`` becomes every DIMACS file found, in size order."""
    names: list[str] = []
    for item in filter(None, (s.strip() for s in text.split(","))):
        if item == "roads":
            found: dict[str, Path] = {}
            for folder in data_dirs(data):
                for path in folder.glob("*.gr.gz"):
                    found.setdefault(path.name, path)
            names += [str(p) for p in sorted(found.values(), key=lambda p: p.stat().st_size)]
        else:
            names.append(item)
    return names


def add_sample_args(parser, roots: int = 4, repeat: int = 5) -> None:
    """The options the road A/B scripts share: roots, repeats, the DIMACS folder, the seed."""
    parser.add_argument("--roots", type=int, default=roots)
    parser.add_argument("--repeat", type=int, default=repeat)
    parser.add_argument("--data", type=Path, default=None, help="folder of DIMACS *.gr.gz road files")
    parser.add_argument("--seed", type=int, default=1)


def interleaved_best(sides, roots, run, check, repeat: int, passes: int = 2) -> dict:
    """A/B sides in turn, ``passes`` times, on the same roots: per root the best
    of ``repeat`` calls ``run(side, root)`` (timed whole), then ``check(side,
    root index, result)`` on the last. Returns {side: [per pass, the roots' best seconds]}."""
    cells = {side: [] for side in sides}
    for side in list(sides) * passes:
        best = []
        for k, root in enumerate(roots):
            times = []
            for _ in range(repeat):
                start = time.perf_counter()
                result = run(side, root)
                times.append(time.perf_counter() - start)
            check(side, k, result)
            best.append(min(times))
        cells[side].append(best)
    return cells


def road_file(name: str, data: Path | None) -> Path | None:
    path = Path(name)
    if path.suffix in (".gr", ".gz") and path.exists():
        return path
    for folder in data_dirs(data):
        candidate = folder / f"{name}.gr.gz"
        if candidate.exists():
            return candidate
    return None


def _int32_weights(graph):
    """The same graph with int32 weights (what GAP stores); refuses values that do not fit."""
    import wavefront as wf

    w = graph.weights
    if w is None or w.dtype == np.int32:
        return graph
    if w.dtype.kind != "i" or int(w.min()) < 1 or int(w.max()) >= 2**31:
        raise SystemExit(f"weights of dtype {w.dtype} in [{w.min()}, {w.max()}] do not fit GAP's int32")
    in_w = None if not graph.directed else graph.in_weights.astype(np.int32)
    return wf.Graph(
        graph.indptr, graph.indices, n=graph.n, weights=w.astype(np.int32), directed=graph.directed,
        in_indptr=graph.in_indptr if graph.directed else None,
        in_indices=graph.in_indices if graph.directed else None, in_weights=in_w,
        input_degree=graph.input_degree, num_input_edges=graph.num_input_edges, labels=graph.labels,
    )


def build_graph(name: str, data: Path | None, seed: int):
    """(short name, CPU graph with int32 weights)."""
    import wavefront as wf
    from wavefront.generators import grid, kronecker, road_like

    path = road_file(name, data)
    if path is not None:
        label = path.name.split(".")[0]
        graph = wf.read_graph(path, progress=False)
    elif name in ROAD_SIZES:
        label, graph = name, road_like(ROAD_SIZES[name], seed=seed)
    elif name == "grid":
        label = f"grid{GRID_SIDE}"
        graph = grid(GRID_SIDE, GRID_SIDE, weights="integer", max_weight=GRID_MAX_WEIGHT, seed=seed)
    elif re.fullmatch(r"kron\d+", name):
        label = name
        graph = kronecker(int(name[4:]), seed=seed)
        ints = (1 + np.floor(graph.weights.astype(np.float64) * KRONECKER_MAX_WEIGHT)).astype(np.int32)
        graph = wf.Graph(
            graph.indptr, graph.indices, n=graph.n, weights=ints, directed=False,
            input_degree=graph.input_degree, num_input_edges=graph.num_input_edges, labels=graph.labels,
        )
    else:
        raise SystemExit(f"unknown graph {name!r} (no DIMACS file of that name in {data_dirs(data)})")
    if graph.labels is not None:
        raise SystemExit(f"{label}: relabelled graphs are not supported (GAP must see the same ids)")
    return label, _int32_weights(graph)


def edge_list(graph):
    """(src, dst, weights) of every stored arc: the validators' input."""
    src = np.repeat(np.arange(graph.n, dtype=np.int64), np.diff(graph.indptr))
    return src, graph.indices, graph.weights


# -- SciPy (one core) --------------------------------------------------------------------------


def _levels_from_tree():
    from numba import njit

    @njit(cache=False)
    def levels_of(order, predecessors, n):
        levels = np.full(n, -1, dtype=np.int32)
        levels[order[0]] = 0
        for i in range(1, order.shape[0]):
            v = order[i]
            levels[v] = levels[predecessors[v]] + 1
        return levels

    return levels_of


@dataclass
class Reference:
    levels: list = field(default_factory=list)
    distances: list = field(default_factory=list)
    bfs_seconds: list = field(default_factory=list)
    sssp_seconds: list = field(default_factory=list)


def scipy_reference(graph, roots, repeat: int, do_bfs: bool, do_sssp: bool) -> Reference:
    import scipy.sparse as sp
    from scipy.sparse import csgraph

    matrix = sp.csr_array(
        (graph.weights.astype(np.float64), graph.indices, graph.indptr), shape=(graph.n, graph.n)
    )
    levels_of = _levels_from_tree()
    ref = Reference()
    for root in roots:
        if do_bfs:
            best = np.inf
            for _ in range(repeat):
                start = time.perf_counter()
                order, pred = csgraph.breadth_first_order(
                    matrix, root, directed=graph.directed, return_predecessors=True
                )
                best = min(best, time.perf_counter() - start)
            ref.bfs_seconds.append(best)
            ref.levels.append(levels_of(order, pred, graph.n))
        if do_sssp:
            best = np.inf
            for _ in range(repeat):
                start = time.perf_counter()
                dist = csgraph.dijkstra(matrix, directed=graph.directed, indices=root)
                best = min(best, time.perf_counter() - start)
            ref.sssp_seconds.append(best)
            ref.distances.append(dist)
    return ref


# -- wavefront ---------------------------------------------------------------------------------


def _check_bfs(label, where, graph, edges, root, result, levels):
    from wavefront.validate import validate_bfs

    got = result.levels.get() if hasattr(result.levels, "get") else result.levels
    if not np.array_equal(got, levels):
        bad = np.flatnonzero(got != levels)
        raise CheckFailed(f"{label} {where} BFS from {root}: levels differ from SciPy's at {bad.size} "
                          f"vertices (first {bad[0]}: {got[bad[0]]} vs {levels[bad[0]]})")
    validate_bfs(edges, _on_cpu(result), n=graph.n)


def _check_sssp(label, where, graph, edges, root, result, expected):
    from wavefront.validate import validate_sssp

    host = _on_cpu(result)
    got = host.distances
    same_inf = np.array_equal(np.isinf(got), np.isinf(expected))
    finite = np.isfinite(expected)
    if np.dtype(got.dtype) == np.float32:  # float32 accumulation: rounding per arc on a path
        close = np.allclose(got[finite], expected[finite], rtol=1e-5, atol=0)
    else:
        close = np.array_equal(got[finite], expected[finite])
    if not (same_inf and close):
        raise CheckFailed(f"{label} {where} SSSP from {root}: distances differ from SciPy's")
    validate_sssp(edges, host, n=graph.n, rtol=0)


class _Host:
    def __init__(self, result):
        self.source = result.source
        for name in ("parents", "levels", "distances"):
            value = getattr(result, name, None)
            setattr(self, name, value.get() if hasattr(value, "get") else value)


def _on_cpu(result):
    return _Host(result)


def time_wavefront(graph, roots, repeat, kernel, run_check, on_gpu: bool, method: str = "auto"):
    """Mean over roots of the best of ``repeat`` calls; each root's first result is checked."""
    import wavefront as wf
    from benchmarks._common import timed_on_gpu

    call = wf.bfs if kernel == "bfs" else wf.sssp

    def once(root):
        if on_gpu:
            return timed_on_gpu(call, graph, root, method=method)
        start = time.perf_counter()
        result = call(graph, root, method=method)
        return result, time.perf_counter() - start

    once(roots[0])  # warm-up: compilation, buffers
    per_root, methods = [], set()
    for i, root in enumerate(roots):
        best = np.inf
        for r in range(repeat):
            result, seconds = once(root)
            best = min(best, seconds)
            if r == 0:
                run_check(i, root, result)
                methods.add(result.method)
        per_root.append(best)
    return statistics.fmean(per_root), sorted(methods)


# -- GAP ---------------------------------------------------------------------------------------


def ensure_gap(path: Path) -> Path:
    if not (path / "Makefile").exists():
        raise SystemExit(f"--gap {path}: no GAP checkout there (expected its Makefile)")
    if not all((path / exe).exists() for exe in ("bfs", "sssp")):
        print(f"building GAP in {path} (make bfs sssp)", file=sys.stderr, flush=True)
        subprocess.run(["make", "-C", str(path), "bfs", "sssp"], check=True, stdout=sys.stderr)
    return path


def write_serialized(graph, path: Path, weighted: bool) -> Path:
    """The CSR in GAP's serialized form (reader.h ReadSerializedGraph): a bool
    ``directed``, int64 arcs, int64 n, int64 offsets, then int32 neighbours
    (``.sg``) or (int32 id, int32 weight) pairs (``.wsg``); a directed graph
    repeats offsets and neighbours for its in-arcs."""
    if path.exists():
        return path
    tmp = path.parent / (path.name + ".tmp")
    with open(tmp, "wb") as out:
        out.write(np.array([graph.directed], dtype=np.bool_).tobytes())
        out.write(np.array([graph.m, graph.n], dtype=np.int64).tobytes())
        parts = [(graph.indptr, graph.indices, graph.weights)]
        if graph.directed:
            parts.append((graph.in_indptr, graph.in_indices, graph.in_weights))
        for indptr, indices, weights in parts:
            out.write(np.ascontiguousarray(indptr, dtype=np.int64).tobytes())
            if weighted:
                pairs = np.empty((indices.shape[0], 2), dtype=np.int32)
                pairs[:, 0] = indices
                pairs[:, 1] = weights
                out.write(pairs.tobytes())
            else:
                out.write(np.ascontiguousarray(indices, dtype=np.int32).tobytes())
    tmp.rename(path)
    return path


_TRIAL = re.compile(r"Trial Time:\s+([0-9.]+)")
_REACHED = re.compile(r"(?:BFS Tree has|SSSP Tree reaches) (\d+) nodes")


def run_gap(gap: Path, exe: str, graph_file: Path, root: int, trials: int, cores: int, delta=None):
    """(best trial seconds, reached vertices, GAP's Average Time) of one GAP invocation."""
    cmd = [str(gap / exe), "-f", str(graph_file), "-r", str(root), "-n", str(trials), "-a"]
    if delta is not None:
        cmd += ["-d", str(delta)]
    env = dict(os.environ, OMP_NUM_THREADS=str(cores))
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True).stdout
    trials_s = [float(t) for t in _TRIAL.findall(out)]
    reached = _REACHED.search(out)
    average = re.search(r"Average Time:\s+([0-9.]+)", out)
    if not trials_s or reached is None or average is None:
        raise CheckFailed(f"unexpected GAP output from {' '.join(cmd)}:\n{out}")
    return min(trials_s), int(reached[1]), float(average[1])


def gap_delta(graph, gap, wsg, roots, cores, trials: int, sweep_roots: int):
    """The sweep's best delta (an integer: GAP's weights are int32).

    Each candidate's time is the sum over the first ``sweep_roots`` roots of
    the best of ``trials`` trials. Coarse first, the mean arc weight times
    powers of 4 from 1/256 to 4096, stopping three steps past the best (the
    time is about unimodal in delta; one noisy step does not stop it), then
    the best's halves and doubles. Returns (delta, {delta: seconds}).
    """
    mean_weight = float(graph.weights.mean(dtype=np.float64))
    timings: dict[int, float] = {}

    def timed(delta: int) -> float:
        if delta not in timings:
            timings[delta] = sum(run_gap(gap, "sssp", wsg, r, trials, cores, delta)[0]
                                 for r in roots[:sweep_roots])
        return timings[delta]

    worse = 0
    for factor in DELTA_FACTORS:
        delta = max(1, round(mean_weight * factor))
        if delta in timings:
            continue
        best_before = min(timings.values(), default=np.inf)
        worse = worse + 1 if timed(delta) >= best_before else 0
        if worse == 3:
            break
    best = min(timings, key=timings.get)
    for delta in (max(1, best // 2), best * 2):
        timed(delta)
    best = min(timings, key=timings.get)
    return best, timings


# -- the table ---------------------------------------------------------------------------------


def ms(seconds) -> str:
    return "—" if seconds is None else f"{seconds * 1e3:.2f}"


def ratio(a, b) -> str:
    return "—" if a is None or b is None else f"{a / b:.2f}"


def cuda_available() -> bool:
    try:
        import cupy

        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:  # noqa: BLE001 - no CuPy, no driver or no device: no CUDA column
        return False


def bench_graph(name, args, cores, use_cuda):
    start = time.perf_counter()
    label, graph = build_graph(name, args.data, args.seed)
    kron = label.startswith("kron")
    log(f"{label}: {graph} ready in {time.perf_counter() - start:.1f} s")
    roots = pick_roots(graph, args.kron_roots if kron else args.roots, seed=args.seed)
    edges = edge_list(graph)
    kernels = [k for k in ("bfs", "sssp") if k in args.kernels]
    start = time.perf_counter()
    ref = scipy_reference(graph, roots, args.scipy_repeat, "bfs" in kernels, "sssp" in kernels)
    log(f"  SciPy done in {time.perf_counter() - start:.1f} s")
    row = {"graph": label, "n": graph.n, "m": graph.m, "roots": [int(r) for r in roots], "cores": cores}
    if ref.levels:
        row["levels"] = statistics.median(int(lv.max()) for lv in ref.levels)
    if args.hierarchy and "sssp" in kernels:
        build_hierarchy(graph, row)
    devices = [("cpu", graph)]
    if use_cuda:
        devices.append(("cuda", graph.to("cuda")))
    for kernel in kernels:
        row[f"{kernel}_scipy"] = statistics.fmean(ref.bfs_seconds if kernel == "bfs" else ref.sssp_seconds)
        for where, g in devices:
            def check(i, root, result, kernel=kernel, where=where):
                if kernel == "bfs":
                    _check_bfs(label, where, graph, edges, root, result, ref.levels[i])
                else:
                    _check_sssp(label, where, graph, edges, root, result, ref.distances[i])

            seconds, methods = time_wavefront(g, roots, args.repeat, kernel, check, where == "cuda")
            row[f"{kernel}_{where}"], row[f"{kernel}_{where}_method"] = seconds, methods
            log(f"  {kernel} {where}: {seconds * 1e3:.2f} ms ({', '.join(methods)}), checked")
            extra = (args.cpu_methods if where == "cpu" else args.cuda_methods).get(kernel, [])
            for method in extra:  # other methods, for the record (JSON and log only)
                try:
                    seconds, _ = time_wavefront(g, roots, args.repeat, kernel, check, where == "cuda", method)
                except MethodLimitError as error:  # e.g. regions on a graph beyond shared memory
                    row.setdefault(f"{kernel}_{where}_methods", {})[method] = None
                    log(f"  {kernel} {where} {method}: not run ({error})")
                    continue
                row.setdefault(f"{kernel}_{where}_methods", {})[method] = seconds
                log(f"  {kernel} {where} {method}: {seconds * 1e3:.2f} ms, checked")
    if args.gap is not None:
        gap_bench(row, graph, roots, ref, kernels, args, cores)
    return row


def build_hierarchy(graph, row) -> None:
    """Contract the graph once, on the CPU's threads, before any search:
    ``auto`` then searches it (CUDA always, the CPU up to its size rule), and
    ``graph.to("cuda")`` takes it along. The build's seconds go in the row."""
    from wavefront.graph.hierarchy import hierarchy_of

    start = time.perf_counter()
    try:
        h = hierarchy_of(graph)
    except MethodLimitError as error:  # a hub (Kronecker): auto keeps its other methods
        log(f"  hierarchy: not built ({error})")
        return
    row["hierarchy_build_s"], row["hierarchy_levels"] = time.perf_counter() - start, h.levels
    log(f"  hierarchy: {h.levels} levels, {h.shortcuts} shortcuts, built in {row['hierarchy_build_s']:.1f} s")


def gap_bench(row, graph, roots, ref, kernels, args, cores):
    work = args.work
    work.mkdir(parents=True, exist_ok=True)
    stem = f"{row['graph']}-seed{args.seed}"  # generated graphs depend on the seed
    reached = [int(np.count_nonzero(lv >= 0)) for lv in ref.levels] or [
        int(np.count_nonzero(np.isfinite(d))) for d in ref.distances
    ]
    if "bfs" in kernels:
        sg = write_serialized(graph, work / f"{stem}.sg", weighted=False)
        run_gap(args.gap, "bfs", sg, roots[0], 1, cores)  # warm-up (page cache)
        best = []
        for i, root in enumerate(roots):
            seconds, count, _ = run_gap(args.gap, "bfs", sg, root, args.repeat, cores)
            if count != reached[i]:
                raise CheckFailed(f"{row['graph']} GAP BFS from {root} reaches {count}, SciPy {reached[i]}")
            best.append(seconds)
        row["bfs_gap"] = statistics.fmean(best)
        log(f"  bfs GAP: {row['bfs_gap'] * 1e3:.2f} ms, reached counts checked")
    if "sssp" in kernels:
        far = max(float(d[np.isfinite(d)].max()) for d in ref.distances)
        if far >= 2**30:  # GAP's kDistInf is INT32_MAX / 2
            raise SystemExit(f"{row['graph']}: distances up to {far:.0f} overflow GAP's int32 distances")
        wsg = write_serialized(graph, work / f"{stem}.wsg", weighted=True)
        delta, sweep = (args.gap_delta, {}) if args.gap_delta else gap_delta(
            graph, args.gap, wsg, roots, cores, args.gap_sweep_trials, args.gap_sweep_roots)
        best = []
        for i, root in enumerate(roots):
            seconds, count, _ = run_gap(args.gap, "sssp", wsg, root, args.repeat, cores, delta)
            expected = int(np.count_nonzero(np.isfinite(ref.distances[i])))
            if count != expected:
                raise CheckFailed(f"{row['graph']} GAP SSSP from {root} reaches {count}, SciPy {expected}")
            best.append(seconds)
        row["sssp_gap"], row["gap_delta"] = statistics.fmean(best), delta
        row["gap_delta_sweep_ms"] = {str(d): 1e3 * s / min(args.gap_sweep_roots, len(roots))
                                     for d, s in sorted(sweep.items())}
        log(f"  sssp GAP: {row['sssp_gap'] * 1e3:.2f} ms (delta {delta}), reached counts checked")


def table(rows, cores, use_cuda) -> str:
    built = any("hierarchy_build_s" in r for r in rows)
    cols = ["graph", "n", "m", "BFS levels"] + (["hierarchy build s"] if built else [])
    for k in ("BFS", "SSSP"):
        cols += ([f"{k} CUDA ms"] if use_cuda else []) + [
            f"{k} CPU ms ({cores})", f"{k} GAP ms ({cores})", f"{k} SciPy ms (1)",
            f"{k} CPU/GAP", f"{k} SciPy/CPU",
        ] + ([f"{k} GAP/CUDA"] if use_cuda else [])
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for r in rows:
        cells = [r["graph"], f"{r['n']:,}", f"{r['m']:,}", str(r.get("levels", "—"))]
        if built:
            cells.append(f"{r['hierarchy_build_s']:.1f}" if "hierarchy_build_s" in r else "—")
        for k in ("bfs", "sssp"):
            gap = r.get(f"{k}_gap")
            gap_cell = ms(gap) + (f" (Δ={r['gap_delta']})" if k == "sssp" and gap is not None else "")
            cpu, scipy_s, cuda = r.get(f"{k}_cpu"), r.get(f"{k}_scipy"), r.get(f"{k}_cuda")
            cells += ([ms(cuda)] if use_cuda else []) + [
                ms(cpu), gap_cell, ms(scipy_s), ratio(cpu, gap), ratio(scipy_s, cpu),
            ] + ([ratio(gap, cuda)] if use_cuda else [])
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def log(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gap", type=Path, help="a GAP (sbeamer/gapbs) checkout; built with make if needed")
    parser.add_argument("--graphs", default=DEFAULT_GRAPHS)
    parser.add_argument("--data", type=Path, help="folder of DIMACS *.gr.gz road files")
    parser.add_argument("--kernels", default="bfs,sssp")
    parser.add_argument("--cores", type=int, help="numba threads and OMP_NUM_THREADS (default: numba's)")
    parser.add_argument("--roots", type=int, default=8)
    parser.add_argument("--kron-roots", type=int, default=2, help="roots on Kronecker graphs")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs per root (best kept)")
    parser.add_argument("--scipy-repeat", type=int, default=1)
    parser.add_argument("--gap-delta", type=int, help="skip the sweep and give GAP this delta")
    parser.add_argument("--gap-sweep-trials", type=int, default=5, help="GAP trials per sweep point and root")
    parser.add_argument("--gap-sweep-roots", type=int, default=2, help="roots each sweep point is timed on")
    parser.add_argument("--cpu-methods", default="",
                        help="also time these CPU methods, e.g. sssp:dijkstra,bfs:top-down (JSON and log)")
    parser.add_argument("--cuda-methods", default="",
                        help="also time these CUDA methods, e.g. sssp:regions,bfs:frontier (JSON and log)")
    parser.add_argument("--hierarchy", action="store_true",
                        help="contract each graph first (timed, a column of its own) so that SSSP's auto searches "
                             "the hierarchy: always on CUDA, up to the CPU tuning's size rule on the CPU")
    parser.add_argument("--no-cuda", action="store_true")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--work", type=Path, default=ROOT / ".scratch" / "roads",
                        help="where GAP's serialized graphs are cached")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    for option in ("cpu_methods", "cuda_methods"):
        methods: dict[str, list[str]] = {}
        for item in filter(None, getattr(args, option).split(",")):
            kernel, _, method = item.partition(":")
            if kernel not in ("bfs", "sssp") or not method:
                parser.error(f"--{option.replace('_', '-')} takes kernel:method items, got {item!r}")
            methods.setdefault(kernel, []).append(method)
        setattr(args, option, methods)

    import numba

    cores = args.cores or numba.get_num_threads()
    numba.set_num_threads(cores)
    if args.gap is not None:
        args.gap = ensure_gap(args.gap.resolve())
    use_cuda = not args.no_cuda and cuda_available()
    log(f"CPU: {cpu_model()}, {os.cpu_count()} logical CPUs; {cores} cores for wavefront CPU and GAP; "
        f"numba {numba.__version__} ({numba.config.THREADING_LAYER} layer); CUDA: {use_cuda}")
    rows = []
    for name in expand_graphs(args.graphs, args.data):
        rows.append(bench_graph(name, args, cores, use_cuda))
        if args.json:
            args.json.write_text(json.dumps(rows, indent=2, default=float))
    print(table(rows, cores, use_cuda))
    return 0


if __name__ == "__main__":
    sys.exit(main())
