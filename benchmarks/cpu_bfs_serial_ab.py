"""A/B of the CPU BFS's serial modes (``CPUBFSTuning``): below
``fused_parallel_vertices`` (``fused_pair_vertices`` for two threads) the
fused small levels run on one thread with plain stores, above it on the
whole team; below ``reset_serial_vertices`` the search's reset runs on the
calling thread.

    PYTHONPATH=. python benchmarks/cpu_bfs_serial_ab.py --threads 16 \
        --graphs grid128,grid300,grid500,road20000,amsterdam,seattle,road200000 \
        --modes "fused_parallel_vertices=0+fused_pair_vertices=0;default;reset_serial_vertices=0"

Each mode (``;``-separated, fields joined by ``+``; ``default`` is
``CPUBFSTuning()``; a bare number N is shorthand for both fused modes = N)
is one side. The sides alternate twice in one process on the same roots; a
cell is the median over roots of the best of ``--repeat`` whole
``wavefront.bfs`` calls, us, and every search's levels are checked against
SciPy's. Graph names are ``roads.py``'s, plus ``gridS`` (an S x S grid) and
``roadN`` (``road_like(N)``).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

import roads  # benchmarks/roads.py: graph names, roots, shared options


def build(name: str, data: Path | None, seed: int):
    from wavefront.generators import grid, road_like

    if name.startswith("grid") and name[4:].isdigit():
        side = int(name[4:])
        return name, grid(side, side)
    if name.startswith("road") and name[4:].isdigit():
        return name, road_like(int(name[4:]), seed=seed)
    import roads

    return roads.build_graph(name, data, seed)


def tuning_of(mode: str, tuning_class):
    """A mode string -> the tuning it names (see the module docstring)."""
    if mode == "default":
        return tuning_class()
    if mode.isdigit():
        return tuning_class(fused_parallel_vertices=int(mode), fused_pair_vertices=int(mode))
    fields = dict(part.split("=") for part in mode.split("+"))
    return tuning_class(**{name: _value(text) for name, text in fields.items()})


def _value(text: str):
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, required=True, help="numba threads")
    parser.add_argument("--graphs", default="grid128,grid300,grid500,road20000,amsterdam,seattle,road200000")
    parser.add_argument("--modes", default="0;default", help="tunings, one side each (see above)")
    roads.add_sample_args(parser)
    args = parser.parse_args(argv)

    import numba
    from scipy.sparse import csgraph

    import wavefront as wf
    from wavefront.backends.cpu.tuning import CPUBFSTuning

    numba.set_num_threads(args.threads)
    modes = [mode.strip() for mode in args.modes.split(";")]
    sides = {mode: tuning_of(mode, CPUBFSTuning) for mode in modes}
    print(f"numba threads {numba.get_num_threads()}; us, median over roots of the best of {args.repeat}\n")
    print("| graph | n | " + " | ".join(modes) + " |")
    print("|---|---:|" + "---:|" * len(modes))
    for name in args.graphs.split(","):
        label, graph = build(name, args.data, args.seed)
        roots = [int(r) for r in roads.pick_roots(graph, args.roots, seed=args.seed)]
        matrix = graph.to_scipy()
        expected = [csgraph.shortest_path(matrix, directed=graph.directed, indices=r, unweighted=True) for r in roots]
        for tuning in sides.values():  # compile and fill the workspaces outside the timing
            wf.bfs(graph, roots[0], tuning=tuning)
        def check(mode, k, result, label=label, expected=expected, roots=roots):
            levels = np.asarray(result.levels, dtype=np.float64)
            if not np.array_equal(np.where(levels < 0, np.inf, levels), expected[k]):
                raise SystemExit(f"{label} root {roots[k]}: levels differ from SciPy's with {mode}")

        best = roads.interleaved_best(
            modes, roots, lambda mode, root, graph=graph: wf.bfs(graph, root, tuning=sides[mode]), check, args.repeat)
        cells = {mode: [float(np.median(times)) * 1e6 for times in best[mode]] for mode in modes}
        row = " | ".join("/".join(f"{t:.0f}" for t in cells[mode]) for mode in modes)
        print(f"| {label} | {graph.n} | {row} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
