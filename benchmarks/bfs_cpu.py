"""CPU BFS (numba): top-down, bottom-up and hybrid on Graph500 Kronecker graphs.

    PYTHONPATH=. python benchmarks/bfs_cpu.py --scales 16 18 20 22 [--relabel degree]

For each SCALE: build the Kronecker graph (edgefactor 16, unweighted; not
timed), pick 64 random roots of degree >= 1, and per method run one untimed
warm-up search, then time each search alone (the whole call, output
allocation included). TEPS are Graph500's: input edge tuples inside the
reached component over the search time; the table gives their harmonic
mean and the median search time. Every method's levels are checked against
the hybrid's for each root. ``numba.get_num_threads()`` threads are used
(set NUMBA_NUM_THREADS to change it).
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks._common import cpu_model, harmonic_mean, median, pick_roots, print_table  # noqa: E402
from wavefront.backends.cpu import bfs as cpu_bfs  # noqa: E402
from wavefront.generators import kronecker  # noqa: E402

METHODS = {"top-down": cpu_bfs.top_down, "bottom-up": cpu_bfs.bottom_up, "hybrid": cpu_bfs.hybrid}


def _compact(levels):
    """Levels in the smallest dtype that holds them (64 searches of SCALE 22 in int32 fill 1 GiB)."""
    return levels.astype(np.int8) if levels.max() < 127 else levels


def time_method(graph, search, roots, reference):
    search(graph, int(roots[0]))  # warm-up: compilation, caches, buffers
    seconds, teps = [], []
    for i, root in enumerate(roots):
        start = time.perf_counter()
        result = search(graph, int(root))
        elapsed = time.perf_counter() - start
        if reference is not None and not np.array_equal(result.levels, reference[i]):
            raise AssertionError(f"levels differ from the hybrid's at root {root}")
        seconds.append(elapsed)
        teps.append(graph.traversed_edges(result.parents >= 0) / elapsed)
    return seconds, teps


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scales", type=int, nargs="+", default=[16, 18, 20, 22])
    parser.add_argument("--edgefactor", type=int, default=16)
    parser.add_argument("--roots", type=int, default=64)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--relabel", choices=["none", "degree"], default="none",
                        help="renumber vertices by decreasing degree (seed 002) before searching")
    parser.add_argument("--trace", action="store_true", help="print one hybrid search's levels at the largest scale")
    parser.add_argument("--json", type=Path, help="also write the rows here")
    args = parser.parse_args(argv)

    import numba

    threads = numba.get_num_threads()
    print(f"CPU: {cpu_model()}; numba {numba.__version__}, {threads} threads "
          f"({numba.config.THREADING_LAYER} layer requested)", flush=True)
    rows, records, last = [], [], None
    for scale in args.scales:
        start = time.perf_counter()
        graph = kronecker(scale, edgefactor=args.edgefactor, seed=args.seed, weighted=False,
                          relabel=None if args.relabel == "none" else "degree")
        print(f"SCALE {scale}: {graph} built in {time.perf_counter() - start:.1f} s", flush=True)
        roots = pick_roots(graph, args.roots, seed=args.seed)
        reference = [_compact(cpu_bfs.hybrid(graph, int(r)).levels) for r in roots]
        for name, search in METHODS.items():
            seconds, teps = time_method(graph, search, roots, reference)
            record = {
                "scale": scale, "method": name, "threads": threads, "roots": len(roots),
                "gteps_hmean": harmonic_mean(teps) / 1e9, "median_ms": median(seconds) * 1e3,
                "relabel": args.relabel,
            }
            records.append(record)
            rows.append([scale, name, f"{record['gteps_hmean']:.3f}", f"{record['median_ms']:.2f}"])
            print(f"  {name:10s} {record['gteps_hmean']:.3f} GTEPS  {record['median_ms']:.2f} ms", flush=True)
        last = (graph, roots)
        del reference
    print_table(
        f"CPU BFS, Graph500 Kronecker (edgefactor {args.edgefactor}, relabel {args.relabel})",
        ["SCALE", "method", "GTEPS (harmonic mean)", "median ms"], rows,
        caption=f"{threads} threads, {cpu_model()}, numba {numba.__version__}",
    )
    if args.trace and last is not None:
        graph, roots = last
        from rich.console import Console

        result = cpu_bfs.hybrid(graph, int(roots[0]))
        Console().print(result.trace.table(f"hybrid levels, SCALE {args.scales[-1]}, root {roots[0]}"))
    if args.json:
        args.json.write_text(json.dumps(records, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
