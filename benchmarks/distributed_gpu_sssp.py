"""Distributed GPU SSSP search times on a one-column grid (run under mpirun, one rank per GPU).

    mpirun -n 2 python benchmarks/distributed_gpu_sssp.py --scale 24 --roots 4 [--validate] [--trace]
    python benchmarks/distributed_gpu_sssp.py --scale 24 --roots 4 --single     # P = 1 against one GPU

Each rank generates its slice of the weighted Graph500 tuples, builds its
block (the distributed Graph500 construction), moves it to its GPU with its
weights (:func:`wavefront.distributed.gpu.to_gpu`,
:func:`wavefront.distributed.gpu_sssp.prepare`); then one untimed search,
and one timed search per Graph500 root (``measure_wait`` off, a barrier on
each side, as the Graph500 driver times them). Rank 0 prints the build and
prepare times, each search's milliseconds, their median and the
harmonic-mean GTEPS over Graph500's edge count (input tuples in the
component). ``--validate`` then runs the searches again as Graph500 does,
each validated (the distributed validator, on host copies) before the next.
``--single`` (P = 1): the single-GPU ``wavefront.sssp`` on the graph
Graph500 builds, from the same roots, each root by both back to back,
distances checked equal, and the ratio of medians. ``--trace``: one more
search with the stream synchronized after each collective, and rank 0's
phases summed by kind (count, vertices relaxed, arcs, compute and
per-collective ms). ``--ab-delta 1,2,4``: then the same roots at those
multiples of the bucket width, two passes, each width timed in turn (a
wider bucket takes fewer phases, each a host round trip, for more
relaxations: docs/decisions/distributed.md).
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import wavefront.distributed as wd
from benchmarks._common import compare_with_single, number_list, searches_between_barriers
from wavefront.distributed import gpu, gpu_sssp
from wavefront.distributed.grid import gpu_grid_shape, parse_grid


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=int, required=True)
    parser.add_argument("--roots", type=int, default=4)
    parser.add_argument("--delta", type=float, default=None,
                        help="bucket width (default: gpu_sssp_delta_scale x sssp2d.default_delta)")
    parser.add_argument("--transport", default="auto", choices=("auto", "nccl", "mpi"))
    parser.add_argument("--grid", metavar="RxC", default=None, help="the process grid (default: one column, P x 1)")
    parser.add_argument("--validate", action="store_true",
                        help="then the searches again, each validated (the distributed Graph500 validator) before the next")
    parser.add_argument("--single", action="store_true",
                        help="P = 1 only: also the single-GPU wavefront.sssp from the same roots, and the ratio")
    parser.add_argument("--trace", action="store_true",
                        help="then one synchronized search, and rank 0's phases summed by kind")
    parser.add_argument("--ab-delta", type=number_list(float, minimum=0), default=None, metavar="F,F,...",
                        help="then an A/B of bucket widths: the roots at each multiple of delta in turn, two passes")
    args = parser.parse_args()
    world = wd.world()
    grid = wd.ProcessGrid(*(parse_grid(args.grid) if args.grid else gpu_grid_shape(world.size)), world=world)
    start = time.perf_counter()
    graph = wd.kronecker(args.scale, grid=grid, weighted=True)
    world.barrier()
    build = time.perf_counter() - start
    start = time.perf_counter()
    block = gpu.to_gpu(graph, transport=args.transport)
    prepared = gpu_sssp.prepare(block)
    world.barrier()
    prepare = time.perf_counter() - start
    roots = [int(r) for r in wd.choose_roots(graph, args.roots + 1)]
    gpu_sssp.sssp(block, roots[0], args.delta, measure_wait=False)  # the kernels' and buffers' first use
    if args.single:
        if world.size != 1:
            parser.error("--single compares P = 1 with the single-GPU search: run it with one rank")
        compare_with_single(args.scale, "sssp",
                            lambda root: gpu_sssp.sssp(block, root, args.delta, measure_wait=False), roots[1:],
                            "distances")

    def timed(validate: bool, delta=args.delta):
        """(seconds, edges, phases) per root, and each validation's seconds."""
        return searches_between_barriers(world, graph, roots[1:],
                                         lambda root: gpu_sssp.sssp(block, root, delta, measure_wait=False),
                                         gpu_sssp.validate if validate else None, lambda result: len(result.trace))

    from wavefront.distributed.tuning import DEFAULT_TUNING

    default_width = prepared.delta * DEFAULT_TUNING.gpu_sssp_delta_scale  # what gpu_sssp.sssp uses at P > 1

    def header(delta) -> str:
        return (f"SCALE {args.scale}, P = {grid.size} ({grid.rows}x{grid.cols}), transport {block.transport}, "
                f"delta {delta if delta is not None else default_width:.4g}: build {build:.1f} s, "
                f"to GPU {prepare:.1f} s")

    report(grid, header(args.delta), "back to back", *timed(False))
    if args.validate:  # as Graph500 runs them: each search after the last one's validation
        report(grid, header(args.delta), "each after a validation", *timed(True))
    if args.ab_delta:
        base = args.delta if args.delta is not None else prepared.delta  # multiples of sssp2d.default_delta
        for run in (1, 2):
            for factor in args.ab_delta:
                delta = factor * base
                gpu_sssp.sssp(block, roots[0], delta, measure_wait=False)  # warm at this width
                report(grid, header(delta), f"{factor:g} x delta, pass {run}", *timed(False, delta))
    if args.trace:
        result = gpu_sssp.sssp(block, roots[1], args.delta, measure_wait=True)
        if grid.rank == 0:
            print_trace(result.trace)


def report(grid, header, how, rows, validated) -> None:
    """Rank 0's line: the searches' ms, their median and harmonic-mean GTEPS."""
    if grid.rank != 0:
        return
    ms = [seconds * 1e3 for seconds, _, _ in rows]
    teps = len(rows) / sum(seconds / edges for seconds, edges, _ in rows)
    phases = [count for _, _, count in rows]
    print(f"{header}; {how}: ms {', '.join(f'{x:.2f}' for x in ms)}; median {statistics.median(ms):.2f} ms; "
          f"{teps / 1e9:.3f} GTEPS (harmonic mean); phases {min(phases)}-{max(phases)}")
    if validated:
        print(f"every search validated: {', '.join(f'{x:.2f}' for x in validated)} s")


def print_trace(trace) -> None:
    """Rank 0's synchronized search, its phases summed by kind."""
    sums = defaultdict(lambda: defaultdict(float))
    for record in trace:
        row = sums[record.kind]
        row["phases"] += 1
        row["vertices"] += max(record.frontier_vertices, 0)
        row["examined"] += record.examined
        row["compute ms"] += record.compute_seconds * 1e3
        row["wait ms"] += record.wait_seconds * 1e3
        for name, entry in record.collectives.items():
            row[f"{name} ms"] += entry["seconds"] * 1e3
    for kind, row in sums.items():
        print(f"{kind}: " + ", ".join(f"{name} {value:.3f}" if name.endswith("ms") else f"{name} {int(value)}"
                                      for name, value in row.items()))


if __name__ == "__main__":
    main()
