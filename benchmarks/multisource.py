"""Multi-source search: seeding every source natively vs a super-source graph.

The choice behind ``wf.bfs/wf.sssp(graph, sources=[...])``: each method
seeds all sources at level / distance 0 in its own initialisation, rather
than searching from a virtual vertex with 0-weight arcs to every source (what
the NetworkX backend did, and ``wavefront.csgraph``'s ``min_only`` does). The
super-source variant pays for a copy of the graph (CSR and CSC) per source set
and one more level or phase; this prints both, per method and source count,
as a table (median of ``--repeat`` runs, after a warm-up).

    python benchmarks/multisource.py [--graph ../shared/data/seattle.gr.gz] [--device cpu]
"""
from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import wavefront as wf
from wavefront.interop.csgraph import _with_super_source

METHODS = {"bfs": ["auto"], "sssp": ["dijkstra", "delta-stepping"]}


def median_seconds(run, repeat: int) -> float:
    run()  # warm-up: compilation, workspaces
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--graph", default="../shared/data/seattle.gr.gz")
    parser.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    parser.add_argument("--counts", default="2,16,256,4096")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    graph = wf.read_graph(args.graph).to(args.device)
    rng = np.random.default_rng(0)
    print(f"{args.graph}: n={graph.n}, m={graph.m}, device {args.device}")
    print(f"{'kernel':6} {'method':15} {'sources':>7} {'native ms':>10} {'super-source ms':>16} {'of which build':>15} {'ratio':>6}")
    for count in map(int, args.counts.split(",")):
        sources = rng.choice(graph.n, count, replace=False)
        for kernel, methods in METHODS.items():
            for method in methods:
                native, total, build = compare(graph, getattr(wf, kernel), method, sources, args.repeat)
                print(f"{kernel:6} {method:15} {count:7d} {native * 1e3:10.2f} {total * 1e3:16.2f} "
                      f"{build * 1e3:15.2f} {total / native:6.2f}")


def compare(graph, search, method: str, sources, repeat: int) -> tuple[float, float, float]:
    """(native, super-source including its build, the build alone) median seconds."""
    starts = graph.xp.asarray(np.sort(sources))

    def via_super_source():
        return search(_with_super_source(graph, starts), graph.n, method=method)

    native = median_seconds(lambda: search(graph, sources=sources, method=method), repeat)
    total = median_seconds(via_super_source, repeat)
    build = median_seconds(lambda: _with_super_source(graph, starts), repeat)
    return native, total, build

if __name__ == "__main__":
    main()
