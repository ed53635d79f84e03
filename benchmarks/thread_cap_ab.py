"""A/B of the CPU fused searches' thread cap (``vertices_per_thread``) on one machine, in one run.

    python benchmarks/thread_cap_ab.py --threads 16 --graphs amsterdam,seattle,road1.4m

For each graph and kernel (wavefront's CPU ``bfs`` / ``sssp``, method auto),
the cap off (``vertices_per_thread=0``: every thread) and the tuning's
default alternate twice; each cell is the mean over roots of the best of
``--repeat`` runs, ms, and every result is checked against SciPy. Graphs and
roots are ``roads.py``'s (same names, same seed). The teams and default
delta each side gets are printed with it (docs/decisions/cpu-roads.md,
"Thread cap on small roads").
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, required=True, help="numba threads")
    parser.add_argument("--graphs", default="amsterdam,seattle,road1.4m")
    parser.add_argument("--roots", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--data", type=Path, default=None, help="folder of DIMACS *.gr.gz road files")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)

    import numba
    import roads
    from scipy.sparse import csgraph

    import wavefront as wf
    from wavefront.backends.cpu import bfs as cpu_bfs
    from wavefront.backends.cpu import sssp as cpu_sssp
    from wavefront.backends.cpu.tuning import CPUBFSTuning, CPUSSSPTuning

    numba.set_num_threads(args.threads)
    print(f"numba threads {numba.get_num_threads()}", flush=True)
    for name in args.graphs.split(","):
        label, graph = roads.build_graph(name, args.data, args.seed)
        roots = [int(r) for r in roads.pick_roots(graph, args.roots, seed=args.seed)]
        matrix = graph.to_scipy()
        references = {
            "bfs": [csgraph.dijkstra(matrix, directed=graph.directed, indices=r, unweighted=True) for r in roots],
            "sssp": [csgraph.dijkstra(matrix, directed=graph.directed, indices=r) for r in roots],
        }
        for kernel, search, tuning_type in (("bfs", wf.bfs, CPUBFSTuning), ("sssp", wf.sssp, CPUSSSPTuning)):
            sides = {"cap off": tuning_type(vertices_per_thread=0), "cap on": tuning_type()}
            teams = {
                side: (cpu_bfs.fused_workers(graph.n, args.threads, tuning) if kernel == "bfs"
                       else cpu_sssp.fused_workers(graph, args.threads, tuning))
                for side, tuning in sides.items()
            }
            for tuning in sides.values():  # compile and fill the workspaces outside the timing
                search(graph, roots[0], tuning=tuning)
            cells = {side: [] for side in sides}
            for side in list(sides) * 2:  # interleaved, twice
                best = []
                for root, reference in zip(roots, references[kernel]):
                    times = []
                    for _ in range(args.repeat):
                        start = time.perf_counter()
                        result = search(graph, root, tuning=sides[side])
                        times.append(time.perf_counter() - start)
                    if kernel == "bfs":
                        expected = np.where(np.isinf(reference), -1, reference)
                        assert np.array_equal(result.levels, expected), f"{label} bfs {side} root {root}"
                    else:
                        assert np.array_equal(result.distances, reference), f"{label} sssp {side} root {root}"
                    best.append(min(times))
                cells[side].append(1e3 * float(np.mean(best)))
            extra = ""
            if kernel == "sssp":
                deltas = {side: cpu_sssp.default_delta(graph, sides[side], teams[side]) for side in sides}
                extra = ", delta " + " / ".join(f"{deltas[side]:g}" for side in sides)
            print(f"{label} (n={graph.n}) {kernel}: " + "; ".join(
                f"{side} ({teams[side]} threads) " + " / ".join(f"{ms:.2f}" for ms in cells[side])
                for side in sides) + f" ms{extra}; checked", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
