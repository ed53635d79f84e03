"""NetworkX with and without ``backend="wavefront"`` on the Seattle road network.

    PYTHONPATH=. python benchmarks/networkx_backend.py [--roots 5] [--repeats 5]
        [--device cpu|cuda|auto] [--sssp-method auto] [--threads N] [--weight-scale 1]

Reads seattle.gr.gz (.data/ or ../shared/data/) with ``wavefront.read_graph``
and builds an ``nx.DiGraph`` with a ``weight`` attribute on every arc (nodes
0..n-1 added in order). The first call with the backend converts the graph
(timed and reported, with numba's compile or cache load); NetworkX caches
the conversion on the graph, so the timed calls after it do not convert.
Each call is timed whole, as a user sees it: dispatch, search and building
the result (the dict, list or generator drained). Per root: NetworkX once,
the backend ``--repeats`` times (median; once for calls that take NetworkX
over a second); the table gives the median over
``--roots`` random roots of degree >= 1, and each backend result is checked
equal to NetworkX's (dict order aside where the guide says so).
``--weight-scale`` divides the weights (a float scale makes them floats,
checking float sums on a road network). The targets are the issue's: >= 10x
for Dijkstra lengths and >= 5x for BFS lengths, CPU backend.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks._common import cpu_model, pick_roots

TARGETS = {"single_source_dijkstra_path_length": 10.0, "single_source_shortest_path_length": 5.0}


def seattle_path() -> Path:
    for folder in (ROOT / ".data", ROOT.parent / "shared" / "data"):
        if (folder / "seattle.gr.gz").exists():
            return folder / "seattle.gr.gz"
    raise SystemExit("seattle.gr.gz not found in .data/ or ../shared/data/")


def networkx_graph(graph, weight_scale):
    """The wavefront graph as an nx.DiGraph with a ``weight`` on every arc."""
    import networkx as nx
    import numpy as np

    tails = np.repeat(np.arange(graph.n), np.diff(graph.indptr)).tolist()
    heads = graph.indices.tolist()
    weights = graph.weights.tolist() if weight_scale == 1 else (graph.weights / weight_scale).tolist()
    G = nx.DiGraph()
    G.add_nodes_from(range(graph.n))
    G.add_weighted_edges_from(zip(tails, heads, weights))
    return G


def calls(G, source, target):
    """name -> (call(backend or None), how results compare)."""
    import networkx as nx

    def drained(result):
        return list(result) if not isinstance(result, (dict, list, tuple)) else result

    return {
        "single_source_dijkstra_path_length": (
            lambda **b: nx.single_source_dijkstra_path_length(G, source, **b), "dict"),
        "single_source_shortest_path_length": (
            lambda **b: nx.single_source_shortest_path_length(G, source, **b), "dict"),
        "single_source_dijkstra (paths)": (
            lambda **b: nx.single_source_dijkstra(G, source, **b), "ordered"),
        "bfs_edges (list)": (lambda **b: drained(nx.bfs_edges(G, source, **b)), "ordered"),
        "shortest_path(s, t, weight)": (
            lambda **b: nx.shortest_path(G, source, target, weight="weight", **b), "ordered"),
    }


def check(name, got, expected, how):
    if how == "ordered":
        same = (list(got.items()) == list(expected.items()) if isinstance(got, dict)
                else [list(x.items()) if isinstance(x, dict) else x for x in got]
                == [list(x.items()) if isinstance(x, dict) else x for x in expected])
    else:
        same = got == expected
    if not same:
        raise AssertionError(f"{name}: the backend's result differs from NetworkX's")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--roots", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--device", default="cpu", choices=["cpu", "cuda", "auto"])
    parser.add_argument("--sssp-method", default="auto")
    parser.add_argument("--bfs-method", default="auto")
    parser.add_argument("--threads", type=int, default=None, help="numba threads (default: all)")
    parser.add_argument("--weight-scale", type=float, default=1)
    args = parser.parse_args(argv)

    import networkx as nx
    import numba

    import wavefront as wf

    if args.threads:
        numba.set_num_threads(args.threads)
    nx.config.warnings_to_ignore.add("cache")  # NetworkX warns on each use of a cached conversion
    config = nx.config.backends.wavefront
    config.device, config.sssp_method, config.bfs_method = args.device, args.sssp_method, args.bfs_method

    path = seattle_path()
    graph = wf.read_graph(path)
    G = networkx_graph(graph, args.weight_scale)
    roots = pick_roots(graph, count=args.roots + 1, seed=7)
    targets, roots = roots[0], roots[1:]

    start = time.perf_counter()
    nx.single_source_dijkstra_path_length(G, roots[0], backend="wavefront")
    first_weighted = time.perf_counter() - start
    start = time.perf_counter()
    nx.single_source_shortest_path_length(G, roots[0], backend="wavefront")
    first_unweighted = time.perf_counter() - start

    for call, _ in calls(G, roots[0], targets).values():
        call(backend="wavefront")  # warm: compiles (or loads) the replay kernels
    times: dict = {}
    for source in roots:
        for name, (call, how) in calls(G, source, targets).items():
            start = time.perf_counter()
            expected = call()
            nx_seconds = time.perf_counter() - start
            samples = []
            # Calls that build a path per node take seconds either way: one is enough.
            for _ in range(args.repeats if nx_seconds < 1 else 1):
                start = time.perf_counter()
                got = call(backend="wavefront")
                samples.append(time.perf_counter() - start)
            check(name, got, expected, how)
            times.setdefault(name, ([], []))
            times[name][0].append(nx_seconds)
            times[name][1].append(statistics.median(samples))

    print(f"# NetworkX {nx.__version__} vs backend=\"wavefront\" on {path.name} "
          f"(n={graph.n:,}, arcs={graph.m:,})\n")
    print(f"{cpu_model()}; {os.cpu_count()} logical CPUs; numba threads "
          f"{numba.get_num_threads()}; device={args.device}, sssp_method={args.sssp_method}, "
          f"bfs_method={args.bfs_method}, weight scale {args.weight_scale:g}; "
          f"median over {len(roots)} roots (backend: median of {args.repeats} calls per root)\n")
    print("| function | NetworkX ms | wavefront ms | speed-up | target |")
    print("|---|---:|---:|---:|---:|")
    for name, (nx_seconds, wf_seconds) in times.items():
        a, b = statistics.median(nx_seconds), statistics.median(wf_seconds)
        target = TARGETS.get(name)
        verdict = "" if target is None else f">= {target:g}x {'met' if a / b >= target else 'MISSED'}"
        print(f"| {name} | {a * 1e3:.1f} | {b * 1e3:.1f} | {a / b:.1f}x | {verdict} |")
    print(f"\nFirst calls (convert the graph, build wavefront's graph, load numba): "
          f"weighted {first_weighted * 1e3:.0f} ms, unweighted {first_unweighted * 1e3:.0f} ms. "
          "Every backend result equals NetworkX's.")


if __name__ == "__main__":
    main()
