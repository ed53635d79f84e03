"""Every CUDA SSSP method on the road-like graph, seattle and Graph500 graphs.

    PYTHONPATH=. python benchmarks/sssp_gpu.py --graphs road,seattle,kron20-24 \
        --roots 16 --json sssp_gpu.json

For each graph (built on the GPU; construction not timed) and method: one
untimed warm-up search (it also calibrates ``adaptive``), then each root's
search alone between two synchronizations (host clock, as seed 001 times).
Roots are random vertices of degree >= 1, the same for every method. Kronecker
graphs carry Graph500's float32 weights in [0, 1); GTEPS = harmonic mean of
``graph.traversed_edges(reached) / time`` (Graph500's count). Each method's
first answer is compared with delta-stepping's (they must agree exactly).
``--sweep`` also times delta-stepping's options around the defaults on each graph
(schedule, delta, chain, light/heavy; for docs/decisions/cuda-sssp.md).
"""
from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import wavefront as wf  # noqa: E402
from benchmarks._common import pick_roots, timed_on_gpu  # noqa: E402

METHODS = ["bellman-ford", "frontier", "adaptive", "delta-stepping"]
ROAD_NODES = 1_400_000


def build(name: str, seed: int):
    import cupy

    from wavefront.generators import kronecker, road_like

    if name == "road":
        g = road_like(ROAD_NODES, seed=seed).to("cuda")
    elif name == "seattle":
        local = ROOT / ".data" / "seattle.gr.gz"
        path = local if local.exists() else ROOT.parent / "shared" / "data" / "seattle.gr.gz"
        g = wf.read_graph(path).to("cuda")
    elif name.startswith("kron"):
        g = kronecker(int(name[4:]), seed=seed, device="cuda")
    else:
        raise SystemExit(f"unknown graph {name!r}")
    cupy.cuda.get_current_stream().synchronize()
    return g


def parse_graphs(text: str) -> list[str]:
    out = []
    for item in text.split(","):
        m = re.fullmatch(r"kron(\d+)-(\d+)", item)
        out += [f"kron{s}" for s in range(int(m[1]), int(m[2]) + 1)] if m else [item]
    return out


def timed(g, root, method, **options):
    return timed_on_gpu(wf.sssp, g, root, method=method, **options)


def iterations(result) -> int:
    """Phases (Harish methods) or kernel iterations (delta-stepping's bucket rows)."""
    total = 0
    for row in result.trace:
        m = re.search(r"(\d+) iterations", row.reason)
        total += int(m[1]) if m else 1
    return total


def bench(g, name, methods, roots, options=None):
    rows = []
    reference = None
    for method in methods:
        opts = dict(options or {})
        first, _ = timed(g, roots[0], method, **opts)  # warm-up (+ calibration)
        if method == "delta-stepping":
            reference = first.distances.get()
        times, teps, phases, modes = [], [], [], {}
        checked = None
        for root in roots:
            r, secs = timed(g, root, method, **opts)
            times.append(secs)
            phases.append(iterations(r))
            for row in r.trace:
                modes[row.kind] = modes.get(row.kind, 0) + 1
            if name.startswith("kron"):
                teps.append(g.traversed_edges(r.parents >= 0) / secs)
            if root == roots[0]:
                checked = r.distances.get()
        row = {
            "graph": name, "method": method, "median_ms": 1e3 * statistics.median(times),
            "mean_ms": 1e3 * statistics.fmean(times), "phases": statistics.median(phases),
            "modes": modes, "roots": len(roots),
            "gteps": (len(teps) / sum(1 / t for t in teps) / 1e9) if teps else None,
            "agrees": None,
        }
        row["_dist"] = checked
        rows.append(row)
    if reference is not None:
        for row in rows:
            row["agrees"] = bool(np.array_equal(row.pop("_dist"), reference))
    else:
        for row in rows:
            row.pop("_dist")
    return rows


def sweep_options(g):
    """(label, options) pairs around the defaults for this graph's shape."""
    from wavefront.backends.cuda.sssp_delta import default_delta, delta_scale
    from wavefront.backends.cuda.sssp_tuning import SSSPTuning

    tuning = SSSPTuning()
    base = default_delta(g, tuning)
    out = []
    if tuning.for_shape(g).asynchronous:
        for factor in (1 / 4, 1 / 2, 1, 2, 4):
            for chain in (8, 1000):
                out.append((f"asynchronous delta x{factor:<6.4g} chain {chain}",
                            dict(asynchronous=True, delta=base * factor, chain=chain)))
        # The bulk-synchronous default before the asynchronous one (32 x Davidson), and half that.
        previous = base * 32 / delta_scale(g, tuning)
        for factor in (1 / 2, 1):
            out.append((f"bulk-synchronous delta {previous * factor:.4g} chain 2",
                        dict(asynchronous=False, light_heavy=False, delta=previous * factor,
                             chain=2, blocks_per_sm=1)))
        return out
    for light_heavy in (True, False):
        for factor in (1 / 64, 1 / 32, 1 / 16, 1 / 8, 1 / 4, 1, 4):
            for chain in (0, 2):
                out.append((f"light/heavy {light_heavy!s:<5} delta x{factor:<7.4g} chain {chain}",
                            dict(delta=base * factor, chain=chain, light_heavy=light_heavy)))
    return out


def sweep(g, name, roots):
    """Delta-stepping's options around the defaults (:func:`sweep_options`)."""
    out = []
    for label, opts in sweep_options(g):
        timed(g, roots[0], "delta-stepping", **opts)
        runs = [timed(g, r, "delta-stepping", **opts) for r in roots]
        out.append({"graph": name, "setting": label, **{k: v for k, v in opts.items()},
                    "median_ms": 1e3 * statistics.median(t for _, t in runs),
                    "iterations": statistics.median(iterations(r) for r, _ in runs)})
        print(f"  sweep {name} {label}: {out[-1]['median_ms']:8.2f} ms "
              f"{out[-1]['iterations']:>6} iterations or buckets", flush=True)
    return out


def main(argv=None):
    import cupy

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--graphs", default="road,seattle,kron20-24")
    ap.add_argument("--methods", default=",".join(METHODS))
    ap.add_argument("--roots", type=int, default=16)
    ap.add_argument("--kron-harish-max", type=int, default=22,
                    help="largest Kronecker SCALE for the seed-001 methods (they are slow on hubs)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--sweep", action="store_true")
    ap.add_argument("--json")
    args = ap.parse_args(argv)
    props = cupy.cuda.runtime.getDeviceProperties(0)
    gpu = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
    methods = args.methods.split(",")
    results, sweeps = [], []
    for name in parse_graphs(args.graphs):
        g = build(name, args.seed)
        roots = pick_roots(g, args.roots, args.seed)
        use = methods
        if name.startswith("kron") and int(name[4:]) > args.kron_harish_max:
            use = [m for m in methods if m == "delta-stepping"]
        print(f"{name}: n={g.n:,} m={g.m:,} roots={len(roots)}", flush=True)
        rows = bench(g, name, use, roots)
        for row in rows:
            gteps = "" if row["gteps"] is None else f"{row['gteps']:.2f} GTEPS"
            print(f"  {row['method']:<15} {row['median_ms']:9.2f} ms  phases {row['phases']:>7}"
                  f"  {gteps}  agrees={row['agrees']}  {row['modes']}", flush=True)
        results += rows
        if args.sweep:
            sweeps += sweep(g, name, roots[: max(1, len(roots) // 2)])
        del g
        cupy.get_default_memory_pool().free_all_blocks()
    print(f"\n{gpu}, {time.strftime('%Y-%m-%d')}")
    print("| graph | method | median ms/source | phases | GTEPS (hmean) | agrees |")
    print("|---|---|---:|---:|---:|---|")
    for r in results:
        gteps = "" if r["gteps"] is None else f"{r['gteps']:.2f}"
        print(f"| {r['graph']} | {r['method']} | {r['median_ms']:.2f} | {r['phases']:g} | {gteps} | {r['agrees']} |")
    if args.json:
        Path(args.json).write_text(json.dumps({"gpu": gpu, "results": results, "sweep": sweeps}, indent=1))


if __name__ == "__main__":
    main()
