"""A/B of the CPU fused delta-stepping's thread cap (``CPUSSSPTuning.vertices_per_thread``) on one machine, in one run.

    python benchmarks/thread_cap_ab.py --threads 16 --graphs amsterdam,seattle,road1.4m

For each graph, wavefront's CPU ``sssp`` (method auto) with the cap off
(``vertices_per_thread=0``: every thread) and with the tuning's default
alternate twice; each cell is the mean over roots of the best of
``--repeat`` runs, ms, and every result is checked against SciPy. Graphs and
roots are ``roads.py``'s (same names, same seed). The team and default delta
each side gets are printed with it. The BFS had a cap of its own; this A/B
on 16 cores deleted it (docs/decisions/cpu-roads.md, "Thread cap on small
roads").
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

import roads  # benchmarks/roads.py: graph names, roots, shared options


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, required=True, help="numba threads")
    parser.add_argument("--graphs", default="amsterdam,seattle,road1.4m")
    roads.add_sample_args(parser)
    args = parser.parse_args(argv)

    import numba
    from scipy.sparse import csgraph

    import wavefront as wf
    from wavefront.backends.cpu import sssp as cpu_sssp
    from wavefront.backends.cpu.tuning import CPUSSSPTuning

    numba.set_num_threads(args.threads)
    print(f"numba threads {numba.get_num_threads()}", flush=True)
    for name in args.graphs.split(","):
        label, graph = roads.build_graph(name, args.data, args.seed)
        roots = [int(r) for r in roads.pick_roots(graph, args.roots, seed=args.seed)]
        matrix = graph.to_scipy()
        references = [csgraph.dijkstra(matrix, directed=graph.directed, indices=r) for r in roots]
        sides = {"cap off": CPUSSSPTuning(vertices_per_thread=0), "cap on": CPUSSSPTuning()}
        teams = {side: cpu_sssp.fused_workers(graph, args.threads, tuning) for side, tuning in sides.items()}
        for tuning in sides.values():  # compile and fill the workspaces outside the timing
            wf.sssp(graph, roots[0], tuning=tuning)

        def check(side, k, result, label=label, references=references, roots=roots):
            assert np.array_equal(result.distances, references[k]), f"{label} sssp {side} root {roots[k]}"

        best = roads.interleaved_best(
            list(sides), roots, lambda side, root, graph=graph, sides=sides: wf.sssp(graph, root, tuning=sides[side]), check,
            args.repeat)
        cells = {side: [1e3 * float(np.mean(times)) for times in best[side]] for side in sides}
        deltas = {side: cpu_sssp.default_delta(graph, sides[side], teams[side]) for side in sides}
        print(f"{label} (n={graph.n}) sssp: " + "; ".join(
            f"{side} ({teams[side]} threads) " + " / ".join(f"{ms:.2f}" for ms in cells[side])
            for side in sides) + " ms, delta " + " / ".join(f"{deltas[side]:g}" for side in sides) + "; checked",
            flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
