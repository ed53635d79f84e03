"""Multi-source search: the time of one search from a set of sources, per method.

``wf.bfs/wf.sssp(graph, sources=[...])`` seed every source at level /
distance 0 in each method's own initialisation. The alternative, a search
from a virtual vertex with 0-weight arcs to every source, lost (its numbers
are in docs/decisions/multi-source.md) and is gone. This prints, per method
and source count, the median of ``--repeat`` runs after a warm-up, beside
the single-source search from the first of the sources.

    python benchmarks/multisource.py [--graph ../shared/data/seattle.gr.gz] [--device cpu]
"""
from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import wavefront as wf

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
    print(f"{'kernel':6} {'method':15} {'sources':>7} {'ms':>10} {'one source ms':>14}")
    for count in map(int, args.counts.split(",")):
        sources = rng.choice(graph.n, count, replace=False)
        for kernel, methods in METHODS.items():
            search = getattr(wf, kernel)
            for method in methods:
                many = median_seconds(lambda: search(graph, sources=sources, method=method), args.repeat)
                one = median_seconds(lambda: search(graph, int(sources[0]), method=method), args.repeat)
                print(f"{kernel:6} {method:15} {count:7d} {many * 1e3:10.2f} {one * 1e3:14.2f}")


if __name__ == "__main__":
    main()
