"""The CPU fused delta-stepping's team and bin width on one machine, in one run.

    PYTHONPATH=. python benchmarks/cpu_sssp_sweep.py --graphs amsterdam,seattle \
        --teams 4,8,12,16 --scales 0.5,1,2 [--data .data]

For each graph and team (numba threads, the thread cap off so the team is
exactly that), ``wavefront.sssp`` runs at ``scale`` x the default delta for
that team (:func:`wavefront.backends.cpu.sssp.default_delta`). Each cell is
the mean over roots of the best of ``--repeat`` whole calls, ms; the whole
grid runs twice (the two passes are printed side by side) and every result is
checked against SciPy's Dijkstra. The row ``default`` is the tuning's own
choice (the capped team and its delta). Graph names are ``roads.py``'s.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

import roads  # benchmarks/roads.py: graph names, roots, shared options


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--graphs", default="amsterdam,seattle")
    parser.add_argument("--teams", default="4,8,12,16")
    parser.add_argument("--scales", default="0.5,1,2")
    roads.add_sample_args(parser)
    args = parser.parse_args(argv)

    import numba
    from scipy.sparse import csgraph

    import wavefront as wf
    from wavefront.backends.cpu import sssp as cpu_sssp
    from wavefront.backends.cpu.tuning import CPUSSSPTuning

    available = numba.get_num_threads()
    teams = [int(x) for x in args.teams.split(",")]
    scales = [float(x) for x in args.scales.split(",")]
    uncapped = CPUSSSPTuning(vertices_per_thread=0)
    print(f"numba threads available {available}; ms, mean over roots of the best of {args.repeat}; two passes\n")
    for name in args.graphs.split(","):
        label, graph = roads.build_graph(name, args.data, args.seed)
        roots = [int(r) for r in roads.pick_roots(graph, args.roots, seed=args.seed)]
        matrix = graph.to_scipy()
        references = [csgraph.dijkstra(matrix, directed=graph.directed, indices=r) for r in roots]

        def timed(team, tuning, delta, graph=graph, label=label, roots=roots, references=references):
            numba.set_num_threads(team)
            try:
                best = []
                for root, reference in zip(roots, references):
                    times = []
                    for _ in range(args.repeat):
                        start = time.perf_counter()
                        result = wf.sssp(graph, root, delta=delta, tuning=tuning)
                        times.append(time.perf_counter() - start)
                    if not np.allclose(np.asarray(result.distances, dtype=np.float64), reference):
                        raise SystemExit(f"{label} root {root}: distances differ from SciPy's")
                    best.append(min(times))
                return float(np.mean(best)) * 1e3
            finally:
                numba.set_num_threads(available)

        team_default = cpu_sssp.fused_workers(graph, available)
        cells = {}
        for _ in range(2):
            cells.setdefault("default", []).append(timed(available, None, None))
            for team in teams:
                base = cpu_sssp.default_delta(graph, uncapped, team)
                for scale in scales:
                    cells.setdefault((team, scale), []).append(timed(team, uncapped, base * scale))
        print(f"{label} (n {graph.n}, m {graph.m}): default team {team_default}, delta "
              f"{cpu_sssp.default_delta(graph):g}: {cells['default'][0]:.2f} / {cells['default'][1]:.2f} ms\n")
        print("| team | " + " | ".join(f"{s:g} x default delta" for s in scales) + " |")
        print("|---:|" + "---:|" * len(scales))
        for team in teams:
            row = " | ".join(f"{cells[(team, s)][0]:.2f} / {cells[(team, s)][1]:.2f}" for s in scales)
            print(f"| {team} | {row} |")
        print(flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
