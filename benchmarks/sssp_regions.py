"""The region SSSP against asynchronous delta-stepping on roads, interleaved.

    PYTHONPATH=. python benchmarks/sssp_regions.py --graphs amsterdam,seattle,road200k,road1400k \
        --roots 16 --variants "default;region_threads=256;region_shared_arcs=False"

For each graph: the region layout is built untimed (first search), then per
root, in turn, delta-stepping (the default road method) and each regions
variant (an :class:`SSSPTuning` with the given fields), each search timed
alone between two synchronizations, whole call (predecessors included).
Every answer is checked against SciPy's Dijkstra from the same root. Prints
the median ms per method and the kernel's counters (relaxations, block
iterations, messages) from the trace; ``--json`` keeps the rows.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from functools import partial
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import wavefront as wf  # noqa: E402
from benchmarks._common import pick_roots, print_table, timed_on_gpu  # noqa: E402


def build(name: str, seed: int = 1):
    from wavefront.generators import road_like

    if name in ("amsterdam", "seattle"):
        local = ROOT / ".data" / f"{name}.gr.gz"
        path = local if local.exists() else ROOT.parent / "shared" / "data" / f"{name}.gr.gz"
        return wf.read_graph(path)
    if name.startswith("road") and name.endswith("k"):
        return road_like(int(name[4:-1]) * 1000, seed=seed)
    raise SystemExit(f"unknown graph {name!r} (amsterdam, seattle, road<N>k)")


def parse_variant(text: str):
    """'default' or 'field=value,field=value' -> (label, SSSPTuning)."""
    from wavefront.backends.cuda.sssp_tuning import SSSPTuning

    text = text.strip()
    if text in ("", "default"):
        return "regions", SSSPTuning()
    fields = {}
    for item in text.split(","):
        key, _, value = item.partition("=")
        if not value:
            raise SystemExit(f"--variants takes field=value items, got {item!r}")
        fields[key] = value == "True" if value in ("True", "False") else float(value) if "." in value \
            or value in ("inf", "nan") or "e" in value else int(value)
    return f"regions {text}", SSSPTuning(**fields)


def breakdown(g, name: str, roots) -> dict:
    """Median us of each part of a default ``regions`` call, each timed alone
    between synchronizations: the set-up, the buffer resets, the kernel (its
    events), and the predecessors with the output (``finish_search``)."""
    import cupy

    from wavefront.backends.cuda.sssp_common import finish_search, prepare_search
    from wavefront.backends.cuda.sssp_regions import RegionWorkspace
    from wavefront.backends.cuda.sssp_tuning import SSSPTuning

    tuning = SSSPTuning()
    parts = {"prepare_search": [], "reset": [], "kernel": [], "finish_search": [], "whole call": []}

    def clock(label, fn):
        cupy.cuda.get_current_stream().synchronize()
        start = time.perf_counter()
        out = fn()
        cupy.cuda.get_current_stream().synchronize()
        parts[label].append(1e6 * (time.perf_counter() - start))
        return out

    for root in roots:
        ar, k, weights, in_weights, cut = clock("prepare_search", partial(prepare_search, g, root, None, tuning))
        ws = RegionWorkspace.for_graph(g, weights, ar, k, tuning)
        clock("reset", partial(ws.reset, k))
        result = clock("whole call", partial(wf.sssp, g, root, method="regions"))
        parts["kernel"].append(1e6 * result.trace[0].seconds)
        dist = result.distances.astype(ar.dist_dtype) if ar.dist_dtype != np.int64 else \
            cupy.where(cupy.isinf(result.distances), ar.infinity, result.distances).astype(np.int64)
        clock("finish_search", partial(finish_search, g, root, dist, ar, k, in_weights, result.trace, "x"))
    row = {"graph": name, "method": "regions breakdown (us)",
           **{label: statistics.median(v) for label, v in parts.items()}}
    print(f"  {name} breakdown: " + ", ".join(f"{label} {statistics.median(v):.0f} us" for label, v in parts.items()),
          flush=True)
    return row


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--graphs", default="amsterdam,seattle")
    ap.add_argument("--roots", type=int, default=16)
    ap.add_argument("--variants", default="default")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--float32", action="store_true",
                    help="search the graphs with their weights cast to float32 (32-bit distances)")
    ap.add_argument("--breakdown", action="store_true",
                    help="also time the parts of a default regions call outside its kernel (median of the roots)")
    args = ap.parse_args(argv)
    import cupy
    from scipy.sparse.csgraph import dijkstra

    variants = [parse_variant(v) for v in args.variants.split(";")]
    methods = [("delta-stepping", "delta-stepping", None)] + [(label, "regions", t) for label, t in variants]
    rows = []
    for name in args.graphs.split(","):
        host = build(name)
        if args.float32:
            from wavefront.graph.build import from_edges

            tails = np.repeat(np.arange(host.n), np.diff(host.indptr))
            host = from_edges(tails, host.indices, weights=host.weights.astype(np.float32), n=host.n, directed=True)
        g = host.to("cuda")
        matrix = host.to_scipy().astype(np.float64)
        roots = pick_roots(host, args.roots)
        times = {label: [] for label, _, _ in methods}
        reasons = {}
        for label, method, tuning in methods:  # warm-up: kernels, layout
            start = time.perf_counter()
            wf.sssp(g, roots[0], method=method, **({"tuning": tuning} if tuning else {}))
            cupy.cuda.get_current_stream().synchronize()
            print(f"{name}: {label} first search {time.perf_counter() - start:.2f} s", flush=True)
        for root in roots:
            expected = dijkstra(matrix, indices=root)
            for label, method, tuning in methods:
                result, seconds = timed_on_gpu(wf.sssp, g, root, method=method,
                                               **({"tuning": tuning} if tuning else {}))
                got = cupy.asnumpy(result.distances).astype(np.float64)
                if not np.allclose(got, expected, rtol=1e-5, equal_nan=False):
                    bad = int(np.flatnonzero(~np.isclose(got, expected, rtol=1e-5))[0])
                    raise SystemExit(f"{name} {label} root {root}: vertex {bad} {got[bad]} != {expected[bad]}")
                times[label].append(seconds)
                if method == "regions":
                    reasons.setdefault(label, []).append((result.trace[0].seconds, result.trace[0].reason))
        for label, _, _ in methods:
            row = {"graph": name, "n": host.n, "m": host.m, "method": label,
                   "median_ms": 1e3 * statistics.median(times[label]),
                   "min_ms": 1e3 * min(times[label]), "roots": len(roots)}
            if label in reasons:
                row["kernel_ms"] = 1e3 * statistics.median(s for s, _ in reasons[label])
                row["counters"] = reasons[label][len(roots) // 2][1]
            rows.append(row)
            print(f"  {name} {label}: {row['median_ms']:.3f} ms" + (
                f" (kernel {row['kernel_ms']:.3f} ms; {row['counters']})" if "kernel_ms" in row else ""), flush=True)
        if args.breakdown:
            rows.append(breakdown(g, name, roots))
    print_table(f"region SSSP against delta-stepping, {cupy.cuda.runtime.getDeviceProperties(0)['name'].decode()}",
                ["graph", "n", "method", "median ms", "kernel ms"],
                [[r["graph"], r["n"], r["method"], f"{r['median_ms']:.3f}",
                  f"{r['kernel_ms']:.3f}" if "kernel_ms" in r else ""] for r in rows if "n" in r])
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
