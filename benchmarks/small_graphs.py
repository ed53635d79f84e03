"""The CPU backend against SciPy on small graphs, where a call's fixed cost
and the fused levels' team decide (issue 18 item 4: never slower than SciPy
on one core).

    PYTHONPATH=. python benchmarks/small_graphs.py [--sides 10,32,100,128,300] \
        [--roads 20000,68213] [--repeat 7] [--json out.json]

For each graph (square 4-neighbour grids of ``--sides``, unweighted and with
integer weights; road-like graphs of ``--roads`` vertices; the DIMACS
amsterdam if ``.data`` or ``../shared/data`` has it) it times, root 0,
``wavefront.bfs`` / ``wavefront.sssp`` on the CPU (numba's threads as
configured) against SciPy's ``breadth_first_order`` / ``dijkstra`` on the
graph's own matrix (what a SciPy user would pass: float64 for unweighted
graphs), each the best of ``--repeat`` x a batch of calls, and checks the
levels and distances against SciPy's. Prints a Markdown table with the
ratios (SciPy / wavefront: above 1 means wavefront is faster).
"""
from __future__ import annotations

import argparse
import json
import sys
import timeit
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import wavefront as wf


def graphs(sides, roads):
    from wavefront.generators import grid, road_like

    for side in sides:
        yield f"grid {side}x{side}", grid(side, side)
        yield f"grid {side}x{side} int weights", grid(side, side, weights="integer")
    for n in roads:
        yield f"road-like {n}", road_like(n, seed=1)
    for folder in (ROOT / ".data", ROOT.parent / "shared" / "data"):
        if (folder / "amsterdam.gr.gz").exists():
            yield "amsterdam", wf.read_graph(folder / "amsterdam.gr.gz", progress=False)
            break


def best_us(call, repeat: int) -> float:
    number = max(1, int(2e-2 / max(min(timeit.repeat(call, number=1, repeat=3)), 1e-7)))  # ~20 ms a batch
    return min(timeit.repeat(call, number=number, repeat=repeat)) / number * 1e6


def bench(name, graph, repeat: int) -> dict:
    from scipy.sparse.csgraph import breadth_first_order, dijkstra, shortest_path

    matrix = graph.to_scipy()
    levels = np.asarray(wf.bfs(graph, 0).levels, dtype=np.float64)
    expected = shortest_path(matrix, indices=0, unweighted=True)
    if not np.array_equal(np.where(levels < 0, np.inf, levels), expected):
        raise SystemExit(f"{name}: BFS levels differ from SciPy's")
    distances = np.asarray(wf.sssp(graph, 0).distances, dtype=np.float64)
    if not np.allclose(distances, dijkstra(matrix, indices=0), rtol=1e-9):
        raise SystemExit(f"{name}: SSSP distances differ from SciPy's")
    row = {"graph": name, "n": graph.n, "m": graph.m, "matrix": str(matrix.dtype),
           "bfs_wf_us": best_us(lambda: wf.bfs(graph, 0), repeat),
           "bfs_scipy_us": best_us(lambda: breadth_first_order(matrix, 0, return_predecessors=True), repeat),
           "sssp_wf_us": best_us(lambda: wf.sssp(graph, 0), repeat),
           "sssp_scipy_us": best_us(lambda: dijkstra(matrix, indices=0, return_predecessors=True), repeat)}
    row["bfs_scipy_over_wf"] = row["bfs_scipy_us"] / row["bfs_wf_us"]
    row["sssp_scipy_over_wf"] = row["sssp_scipy_us"] / row["sssp_wf_us"]
    return row


def main(argv=None) -> int:
    from numba import get_num_threads

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sides", default="10,32,100,128,300")
    parser.add_argument("--roads", default="20000")
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    sides = [int(x) for x in args.sides.split(",") if x]
    roads = [int(x) for x in args.roads.split(",") if x]
    rows = [bench(name, graph, args.repeat) for name, graph in graphs(sides, roads)]
    print(f"wavefront CPU on {get_num_threads()} numba threads, SciPy on one core; us, best of {args.repeat}; "
          "every result checked against SciPy's\n")
    print("| graph | n | SciPy matrix | BFS wavefront | BFS SciPy | SciPy / wavefront | SSSP wavefront | SSSP SciPy "
          "| SciPy / wavefront |")
    print("|---|---:|---|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r['graph']} | {r['n']} | {r['matrix']} | {r['bfs_wf_us']:.1f} | {r['bfs_scipy_us']:.1f} | "
              f"{r['bfs_scipy_over_wf']:.2f} | {r['sssp_wf_us']:.1f} | {r['sssp_scipy_us']:.1f} | "
              f"{r['sssp_scipy_over_wf']:.2f} |")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
