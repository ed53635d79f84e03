"""Where the region SSSP beats delta-stepping: the measurements behind
``auto``'s rule (``wavefront.backends.cuda.sssp.regions_preferred``).

    PYTHONPATH=. python benchmarks/sssp_auto_rule.py \
        [--graphs amsterdam,seattle,road68k:2.3:1.4,road148k] [--roots 6] [--repeats 3] [--json out.json]

Graphs: the DIMACS roads (``.data`` or ``../shared/data``) and road-like
graphs named ``road<N>k[:<arcs a vertex>[:<weight CV>]]`` (the generator's
``mean_degree`` and ``std_weight`` = CV x its mean weight; defaults 3.2 and
the generator's own spread). For each graph, per root in turn,
delta-stepping, ``regions`` and ``auto``, each timed alone between two
synchronizations (whole call, predecessors included), every answer checked
against SciPy's Dijkstra. Prints one table: arcs a vertex, the weights'
coefficient of variation, arcs a region (m / SMs), the median ms of each
method, the ratio regions / delta-stepping and the method ``auto`` ran.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import wavefront as wf
from benchmarks._common import pick_roots, timed_on_gpu

METHODS = ("delta-stepping", "regions", "auto")


def build(name: str):
    from wavefront.generators import road_like
    from wavefront.generators.road import KANTO_MEAN_DEGREE, KANTO_MEAN_WEIGHT

    if name in ("amsterdam", "seattle"):
        local = ROOT / ".data" / f"{name}.gr.gz"
        return wf.read_graph(local if local.exists() else ROOT.parent / "shared" / "data" / f"{name}.gr.gz",
                             progress=False)
    head, *shape = name.split(":")
    if not (head.startswith("road") and head.endswith("k")) or len(shape) > 2:
        raise SystemExit(f"unknown graph {name!r} (amsterdam, seattle, road<N>k[:<arcs a vertex>[:<weight CV>]])")
    options = {"mean_degree": float(shape[0]) if shape else KANTO_MEAN_DEGREE}
    if len(shape) == 2:
        options["std_weight"] = float(shape[1]) * KANTO_MEAN_WEIGHT
    return road_like(int(head[4:-1]) * 1000, seed=1, **options)


def bench(name: str, roots: int, repeats: int) -> dict:
    import cupy
    from scipy.sparse.csgraph import dijkstra

    graph = build(name)
    weights = np.asarray(graph.weights, dtype=np.float64)
    scipy_graph = graph.to_scipy().astype(np.float64)
    gd = graph.to("cuda")
    picked = pick_roots(graph, roots, seed=1)
    for method in METHODS:  # compile, split and allocate outside the timing
        wf.sssp(gd, picked[0], method=method)
    times = {method: [] for method in METHODS}
    chosen = set()
    for repeat in range(repeats):
        for root in picked:
            expected = dijkstra(scipy_graph, indices=root) if repeat == 0 else None
            for method in METHODS:
                result, seconds = timed_on_gpu(wf.sssp, gd, root, method=method)
                times[method].append(seconds)
                if method == "auto":
                    chosen.add(result.method)
                if expected is not None:
                    got = result.distances.get().astype(np.float64)
                    if not np.allclose(got, expected, rtol=1e-6, equal_nan=False):
                        raise SystemExit(f"{name} {method} from {root}: distances differ from SciPy's")
    sm_count = int(cupy.cuda.Device().attributes["MultiProcessorCount"])
    median = {method: statistics.median(t) * 1e3 for method, t in times.items()}
    return {"graph": name, "n": graph.n, "m": graph.m, "arcs_per_vertex": round(graph.m / graph.n, 2),
            "weight_cv": round(float(weights.std() / weights.mean()), 2),
            "arcs_per_region": graph.m // sm_count, **{f"{m}_ms": round(v, 3) for m, v in median.items()},
            "regions_over_delta": round(median["regions"] / median["delta-stepping"], 3),
            "auto_ran": ",".join(sorted(chosen)), "checked": True}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--graphs", default="amsterdam,seattle,road68k:2.3:1.4,road148k:2.3:1.4,road148k")
    parser.add_argument("--roots", type=int, default=6)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    rows = [bench(name.strip(), args.roots, args.repeats) for name in args.graphs.split(",") if name.strip()]
    columns = ["graph", "n", "arcs_per_vertex", "weight_cv", "arcs_per_region", "delta-stepping_ms", "regions_ms",
               "auto_ms", "regions_over_delta", "auto_ran"]
    # A Markdown table (the rich one truncates its columns on a narrow or piped console).
    print("| " + " | ".join(columns) + " |")
    print("|" + "---|" * len(columns))
    for row in rows:
        print("| " + " | ".join(str(row[c]) for c in columns) + " |")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
