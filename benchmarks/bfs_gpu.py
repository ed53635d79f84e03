"""Every CUDA BFS method on Graph500 Kronecker graphs and on road networks.

    PYTHONPATH=. python benchmarks/bfs_gpu.py --scales 18-26 --roots 64 \
        --json bfs_gpu.json --plot trace.png

One process. For each SCALE it builds the Kronecker graph on the GPU
(edgefactor 16, unweighted), prepares the BFS workspace (not timed, as in
Graph500's construction), then times each method from the same random roots
(vertices of degree >= 1): one untimed warm-up search, then each search alone
between two synchronizations. TEPS are counted as Graph500 counts them:
input edge tuples inside the reached component (``graph.traversed_edges``)
over the search time; the table reports their harmonic mean in GTEPS. Each
method's first search is checked against the hybrid's levels.

A method whose median search exceeded ``--budget-ms`` at one scale is not run
at larger ones (the vertex- and edge-centric methods touch every vertex or
arc per level: hopeless on big graphs); the table says so. Road networks
(``.data/`` or ``../shared/data``) report the median milliseconds over
``--road-roots`` random roots. Finally one search at the largest scale is
traced per level (edges examined by direction, as in seed 002's table) for
the hybrid, top-down-only and bottom-up-only BFS, and plotted with --plot.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from dataclasses import asdict
from pathlib import Path


ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import wavefront as wf  # noqa: E402
from benchmarks._common import pick_roots, timed_on_gpu  # noqa: E402

ALL_METHODS = [
    "hybrid", "hybrid:seed000", "bottom-up", "load-balanced", "single-block",
    "frontier-privatized", "frontier", "vertex-pull", "vertex-push", "edge",
]
ROADS = ("seattle.gr.gz", "amsterdam.gr.gz")


def parse_scales(text: str) -> list[int]:
    if not text.strip():
        return []
    if "-" in text:
        lo, hi = text.split("-")
        return list(range(int(lo), int(hi) + 1))
    return [int(s) for s in text.split(",")]


def split_method(spec: str) -> tuple[str, dict]:
    """"hybrid:seed000" -> ("hybrid", {"policy": "seed000"})."""
    name, _, policy = spec.partition(":")
    return name, ({"policy": policy} if policy else {})


def gpu_name() -> str:
    import cupy

    props = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)
    name = props["name"]
    return name.decode() if isinstance(name, bytes) else name


def timed_search(graph, source, method, options):
    return timed_on_gpu(wf.bfs, graph, source, method=method, **options)


def run_method(graph, spec, roots, reference_levels):
    method, options = split_method(spec)
    timed_search(graph, roots[0], method, options)  # warm-up
    seconds, teps = [], []
    agrees = True
    for k, root in enumerate(roots):
        result, t = timed_search(graph, root, method, options)
        if k == 0 and reference_levels is not None:
            agrees = bool((result.levels == reference_levels).all())
        edges = graph.traversed_edges(result.parents >= 0)
        seconds.append(t)
        teps.append(edges / t)
    harmonic = len(teps) / sum(1.0 / x for x in teps)
    return {
        "method": spec,
        "gteps_hmean": harmonic / 1e9,
        "ms_median": statistics.median(seconds) * 1e3,
        "ms_min": min(seconds) * 1e3,
        "agrees": agrees,
    }


def kronecker_section(args, methods, rows, traces):
    import cupy

    from wavefront.backends.cuda.bfs import prepare

    skipped: dict[str, str] = {}
    for scale in args.scales:
        t0 = time.perf_counter()
        graph = wf.kronecker(scale, seed=args.seed, device="cuda", weighted=False, relabel=args.relabel)
        cupy.cuda.get_current_stream().synchronize()
        build = time.perf_counter() - t0
        t0 = time.perf_counter()
        prepare(graph)
        prep = time.perf_counter() - t0
        print(f"SCALE {scale}: n={graph.n:,} m={graph.m:,} stored arcs, built in {build:.1f} s, "
              f"prepared in {prep:.2f} s; graph {graph.nbytes / 2**30:.2f} GiB "
              f"({graph.nbytes / max(graph.num_input_edges, 1):.2f} B per input edge)", flush=True)
        roots = pick_roots(graph, args.roots, args.seed + scale, caller_ids=True)
        reference = wf.bfs(graph, roots[0], method="hybrid").levels
        for spec in methods:
            if spec in skipped:
                rows.append({"scale": scale, "method": spec, "skipped": skipped[spec]})
                continue
            row = {"scale": scale, **run_method(graph, spec, roots, reference)}
            rows.append(row)
            print(f"  {spec:22s} {row['gteps_hmean']:9.3f} GTEPS  median {row['ms_median']:9.3f} ms"
                  f"  agrees={row['agrees']}", flush=True)
            if row["ms_median"] > args.budget_ms:
                skipped[spec] = f"median {row['ms_median']:.0f} ms at SCALE {scale} > budget {args.budget_ms:.0f} ms"
        if scale == args.scales[-1]:
            root = roots[0]
            for name in ("hybrid", "load-balanced", "bottom-up"):
                traces[name] = wf.bfs(graph, root, method=name).trace
            traces["_scale"] = scale
        del graph, reference
        cupy.get_default_memory_pool().free_all_blocks()


def road_section(args, methods, rows):
    import cupy

    from wavefront.backends.cuda.bfs import prepare

    folders = [ROOT / ".data", ROOT.parent / "shared" / "data"]
    for name in ROADS:
        path = next((f / name for f in folders if (f / name).exists()), None)
        if path is None:
            print(f"{name}: not found in {[str(f) for f in folders]}")
            continue
        graph = wf.read_graph(path, weighted=False, device="cuda")
        prepare(graph)
        roots = pick_roots(graph, args.road_roots, args.seed, caller_ids=True)
        reference = wf.bfs(graph, roots[0], method="hybrid").levels
        depth = int(reference.max())
        print(f"{name}: n={graph.n:,} m={graph.m:,}, depth from root {roots[0]}: {depth}", flush=True)
        for spec in methods:
            row = {"graph": name, **run_method(graph, spec, roots, reference)}
            rows.append(row)
            print(f"  {spec:22s} median {row['ms_median']:8.3f} ms  min {row['ms_min']:8.3f} ms"
                  f"  agrees={row['agrees']}", flush=True)
        del graph
        cupy.get_default_memory_pool().free_all_blocks()


def print_tables(rows, road_rows, traces, device):
    from rich.console import Console
    from rich.table import Table

    console = Console(width=140)
    t = Table(title=f"Graph500 Kronecker BFS, harmonic-mean GTEPS ({device})")
    scales = sorted({r["scale"] for r in rows})
    methods = list(dict.fromkeys(r["method"] for r in rows))
    t.add_column("method")
    for s in scales:
        t.add_column(f"SCALE {s}", justify="right")
    notes = []
    for m in methods:
        cells = []
        for s in scales:
            r = next((r for r in rows if r["scale"] == s and r["method"] == m), None)
            if r is None:
                cells.append("")
            elif "skipped" in r:
                cells.append("skip")
                notes.append(f"{m} @ {s}: {r['skipped']}")
            else:
                cells.append(f"{r['gteps_hmean']:.2f}" + ("" if r["agrees"] else " WRONG"))
        t.add_row(m, *cells)
    console.print(t)
    for note in dict.fromkeys(notes):
        console.print(f"  skip: {note}")
    if road_rows:
        t = Table(title=f"Road networks, median ms per search ({device})")
        t.add_column("method")
        graphs = list(dict.fromkeys(r["graph"] for r in road_rows))
        for g in graphs:
            t.add_column(g, justify="right")
        for m in dict.fromkeys(r["method"] for r in road_rows):
            cells = []
            for g in graphs:
                r = next(r for r in road_rows if r["graph"] == g and r["method"] == m)
                cells.append(f"{r['ms_median']:.3f}" + ("" if r["agrees"] else " WRONG"))
            t.add_row(m, *cells)
        console.print(t)
    if traces:
        scale = traces["_scale"]
        console.print(traces["hybrid"].table(title=f"hybrid, one search at SCALE {scale}"))
        summary = Table(title=f"edges examined at SCALE {scale} (seed 002's comparison)")
        summary.add_column("BFS")
        summary.add_column("edges examined", justify="right")
        summary.add_column("ms", justify="right")
        for name in ("load-balanced", "bottom-up", "hybrid"):
            tr = traces[name]
            summary.add_row(name, f"{tr.edges:,}", f"{tr.seconds * 1e3:.3f}")
        console.print(summary)


def plot_trace(traces, path, device):
    """Seed 002's comparison as ``wavefront plot``'s bfs-levels figure: the
    hybrid's levels as bars by direction, the one-direction searches over it."""
    from wavefront import plot
    from wavefront.records import SearchTrace

    context = f"Graph500 SCALE {traces['_scale']}, {device}"
    shown = [SearchTrace("bfs", label, context, tuple(traces[name])) for name, label in (
        ("hybrid", "hybrid"), ("load-balanced", "load-balanced only (top-down)"),
        ("bottom-up", "bottom-up only"))]
    plot.save(plot.bfs_levels(*shown), path)
    print(f"plot saved to {path}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scales", type=parse_scales, default=parse_scales("18-26"))
    parser.add_argument("--methods", default=",".join(ALL_METHODS), help="comma-separated; hybrid:<policy> picks a policy")
    parser.add_argument("--roots", type=int, default=64)
    parser.add_argument("--road-roots", type=int, default=16)
    parser.add_argument("--no-roads", action="store_true")
    parser.add_argument("--relabel", choices=["degree"], default=None, help="seed 002's degree-sorted vertex ids")
    parser.add_argument("--budget-ms", type=float, default=40.0, help="skip a method at larger scales past this median")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--memory-limit-gib", type=float, default=None,
                        help="cap CuPy's memory pool (e.g. 78 to check that SCALE 26 fits an 80 GB H100)")
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--plot", type=Path, default=None)
    args = parser.parse_args(argv)
    methods = [m for m in args.methods.split(",") if m]

    from wavefront.backends import require_cuda

    require_cuda()
    device = gpu_name()
    if args.memory_limit_gib:
        import cupy

        cupy.get_default_memory_pool().set_limit(size=int(args.memory_limit_gib * 2**30))
        device += f", pool capped at {args.memory_limit_gib:g} GiB"
    print(f"device: {device}", flush=True)
    rows, road_rows, traces = [], [], {}
    if args.scales:
        kronecker_section(args, methods, rows, traces)
    if not args.no_roads:
        road_section(args, methods, road_rows)
    print_tables(rows, road_rows, traces, device)
    if args.plot and traces:
        plot_trace(traces, args.plot, device)
    if args.json:
        record = {
            "device": device,
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "args": {k: str(v) for k, v in vars(args).items()},
            "kronecker": rows,
            "roads": road_rows,
            "trace": {k: [asdict(r) for r in v] for k, v in traces.items() if k != "_scale"},
        }
        args.json.write_text(json.dumps(record, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
