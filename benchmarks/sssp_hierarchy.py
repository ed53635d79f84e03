"""PHAST on a contraction hierarchy (``method="hierarchy"``) against the other SSSP methods, interleaved.

    PYTHONPATH=. python benchmarks/sssp_hierarchy.py --graphs amsterdam,seattle,road200k --roots 16

For each graph the hierarchy is built once on the host (timed and printed:
it is a one-time cost a user pays per graph), then per root, in turn (the
order rotated root by root), each method runs as a whole call (predecessors
included), CUDA ones timed between
two synchronizations. Every answer is checked exactly against SciPy's
Dijkstra from the same root. Prints the median ms per method, the hierarchy's
shape and the PHAST kernel's own time; ``--no-cuda`` runs the CPU rows alone.
``--resident 0,65536`` adds CUDA ``hierarchy`` rows with those bytes of the
narrow top in shared memory (``SSSPTuning.phast_resident_bytes``; the default
row takes all the GPU allows), interleaved with the others.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import wavefront as wf
from benchmarks._common import pick_roots, print_table, timed_on_gpu

CUDA_METHODS = ("hierarchy", "regions", "delta-stepping")
CPU_METHODS = ("hierarchy", "delta-stepping")


def build(name: str, seed: int = 1):
    from wavefront.generators import grid, road_like

    if name in ("amsterdam", "seattle"):
        local = ROOT / ".data" / f"{name}.gr.gz"
        path = local if local.exists() else ROOT.parent / "shared" / "data" / f"{name}.gr.gz"
        return wf.read_graph(path, progress=False)
    if name.startswith("road") and name.endswith("k"):
        return road_like(int(name[4:-1]) * 1000, seed=seed)
    if name.startswith("grid"):
        return grid(int(name[4:]), int(name[4:]), weights="integer", seed=seed)
    raise SystemExit(f"unknown graph {name!r} (amsterdam, seattle, road<N>k, grid<K>)")


def timed_on_cpu(run, *args, **kwargs):
    start = time.perf_counter()
    result = run(*args, **kwargs)
    return result, time.perf_counter() - start


def byte_counts(text: str) -> list[int]:
    """``--resident``'s comma-separated byte counts, each at least 0."""
    counts = [int(b) for b in text.split(",") if b]
    if any(c < 0 for c in counts):
        raise ValueError(text)
    return counts


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--graphs", default="amsterdam,seattle")
    ap.add_argument("--roots", type=int, default=16)
    ap.add_argument("--no-cuda", action="store_true")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--resident", type=byte_counts, default=[],
                    help="comma-separated phast_resident_bytes for extra CUDA rows")
    args = ap.parse_args(argv)
    from numba import get_num_threads
    from scipy.sparse.csgraph import dijkstra

    from wavefront.errors import MethodLimitError
    from wavefront.graph.hierarchy import hierarchy_of

    def call(where, method):
        """(graph, method, keyword arguments) of a row: ``hierarchy@B`` is the
        CUDA hierarchy with B bytes of the narrow top in shared memory."""
        if "@" not in method:
            return (g if where == "cuda" else host), method, {}
        from wavefront.backends.cuda.sssp_tuning import SSSPTuning

        return g, "hierarchy", {"tuning": SSSPTuning(phast_resident_bytes=int(method.split("@")[1]))}

    cupy = None if args.no_cuda else __import__("cupy")
    rows = []
    for name in args.graphs.split(","):
        host = build(name)
        start = time.perf_counter()
        h = hierarchy_of(host)
        built = time.perf_counter() - start
        print(f"{name}: n {host.n}, m {host.m}; hierarchy built in {built:.2f} s: {h.levels} levels, "
              f"{h.arcs} arcs ({h.shortcuts} shortcuts)", flush=True)
        methods = [("cpu", m) for m in CPU_METHODS]
        g = None
        if cupy is not None:
            g = host.to("cuda")
            g.derived["hierarchy"] = h  # the same hierarchy, built once
            resident = [f"hierarchy@{b}" for b in args.resident]
            methods = [("cuda", m) for m in (*CUDA_METHODS, *resident)] + methods
        matrix = host.to_scipy().astype(np.float64)
        roots = pick_roots(host, args.roots)
        for where, method in list(methods):  # warm-up: kernels, buffers, layouts
            try:
                graph, name_, kw = call(where, method)
                wf.sssp(graph, roots[0], method=name_, **kw)
            except MethodLimitError as error:  # e.g. regions beyond shared memory: the row is left out
                print(f"{name}: {where} {method} left out: {error}", flush=True)
                methods.remove((where, method))
        times = {key: [] for key in methods}
        kernel = {}
        for turn, root in enumerate(roots):
            expected = dijkstra(matrix, indices=root)
            # each row first as often as the others: the first call after the CPU rows meets a GPU that has idled
            shift = turn % len(methods)
            for where, method in methods[shift:] + methods[:shift]:
                graph, name_, kw = call(where, method)
                if where == "cuda":
                    result, seconds = timed_on_gpu(wf.sssp, graph, root, method=name_, **kw)
                    got = cupy.asnumpy(result.distances)
                    if name_ == "hierarchy":
                        kernel.setdefault((where, method), []).append(result.trace[0].seconds)
                else:
                    result, seconds = timed_on_cpu(wf.sssp, graph, root, method=name_, **kw)
                    got = np.asarray(result.distances)
                if not np.array_equal(got.astype(np.float64), expected):
                    bad = int(np.flatnonzero(got != expected)[0])
                    raise SystemExit(f"{name} {where} {method} root {root}: vertex {bad} {got[bad]} != {expected[bad]}")
                times[(where, method)].append(seconds)
        for where, method in methods:
            row = {"graph": name, "n": host.n, "m": host.m, "levels": h.levels, "build_s": built,
                   "backend": where, "method": method, "median_ms": 1e3 * statistics.median(times[(where, method)]),
                   "roots": len(roots), "threads": get_num_threads() if where == "cpu" else None}
            if (where, method) in kernel:
                row["kernel_ms"] = 1e3 * statistics.median(kernel[(where, method)])
            rows.append(row)
    device = "" if cupy is None else cupy.cuda.runtime.getDeviceProperties(0)["name"].decode() + ", "
    print_table(f"PHAST against the other SSSP methods ({device}{get_num_threads()} CPU threads; median ms)",
                ["graph", "n", "levels", "build s", "backend", "method", "median ms", "kernel ms"],
                [[r["graph"], r["n"], r["levels"], f"{r['build_s']:.2f}", r["backend"], r["method"],
                  f"{r['median_ms']:.3f}", f"{r['kernel_ms']:.3f}" if "kernel_ms" in r else ""] for r in rows])
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
