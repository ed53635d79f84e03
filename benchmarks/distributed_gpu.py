"""Distributed GPU BFS search times, without validation (run under mpirun, one rank per GPU).

    mpirun -n 2 python benchmarks/distributed_gpu.py --scale 27 --roots 4 [--grid 2x1] [--trace]

Each rank generates its slice, builds its block (the distributed Graph500
construction) and moves it to its GPU; then one untimed search, and one
timed search per Graph500 root (``measure_wait`` off, a barrier on each
side, as the Graph500 driver times them). Rank 0 prints the build time, each
search's milliseconds, their median and the harmonic-mean GTEPS over
Graph500's edge count. The searches run back to back; ``--validate`` then
runs them again as Graph500 does, each validated before the next starts
(the GPU idles meanwhile, and the next search starts colder). Validation is
optional so that the largest SCALE a lent machine's 10-minute call can build
still gets its search times; `wavefront graph500 --distributed` validates
every search.

An A/B of settings on one graph, and where each level's time goes:

    mpirun -n 2 python benchmarks/distributed_gpu.py --scale 27 --roots 16 --passes 1 \
        --ab default block_alpha=None stay_bottom_up_edges=None,fixed_ids_edges=0 --level-times

``--ab`` searches each root under every setting in turn (the first setting
turning from root to root), two passes (it replaced ``--ab-overlap K,...``
and ``--ab-fixed-ids K,...``, which timed a pass a setting: write
``--ab overlap_chunks=0 overlap_chunks=1``); ``--level-times`` prints, for each
setting and root, every rank's host milliseconds a level of a search timed
as above (no synchronization added). A name ``bfs.NAME`` sets a field of the
block's BFSTuning (the kernels' constants), on the same block and buffers:
``--ab default bfs.bottom_up_small_unroll=1``.
"""
from __future__ import annotations

import argparse
import dataclasses
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import wavefront.distributed as wd
from benchmarks._common import compare_with_single, searches_between_barriers
from wavefront.backends.cuda.bfs_tuning import BFSTuning
from wavefront.bfs.policy import make_policy
from wavefront.distributed import gpu
from wavefront.distributed.grid import gpu_grid_shape, parse_grid


def overlap_chunks(text: str) -> int:
    """An ``--overlap-chunks`` value, checked as the tuning checks it (before the graph is built)."""
    from wavefront.distributed.tuning import check_overlap_chunks

    try:
        return check_overlap_chunks(int(text))
    except (TypeError, ValueError) as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


SEARCH_OPTIONS = ("alpha", "beta")  # --ab names that go to the search call, not the tuning
BLOCK_TUNING = "bfs_tuning"  # an --ab setting's BFSTuning (its bfs.NAME fields), kept with the search options


def tuning_spec(text: str):
    """An ``--ab`` value: "default", or DistributedTuning fields as NAME=VALUE[,NAME=VALUE] (integers, floats,
    None, True, False or words) and the search's ``alpha``/``beta``, checked as the tuning checks them (before the graph is
    built). Returns (label, tuning, the search's keyword arguments)."""
    if text == "default":
        return text, wd.DistributedTuning(), {}
    fields, bfs_fields, options = {}, {}, {}
    for item in text.split(","):
        name, sep, value = item.partition("=")
        name = name.strip()
        if not sep:
            raise argparse.ArgumentTypeError(f"{item!r}: expected NAME=VALUE")
        if name in SEARCH_OPTIONS:
            try:
                options[name] = float(value)
                make_policy("gap", options.get("alpha"), options.get("beta"))  # refuses a non-positive one
            except ValueError as exc:
                raise argparse.ArgumentTypeError(f"{item!r}: {name} takes a positive number ({exc})") from None
            continue
        # bfs.NAME: a BFSTuning field of the rank's block (its kernels' constants), the rest DistributedTuning's
        target, name = (bfs_fields, name[4:]) if name.startswith("bfs.") else (fields, name)
        if value in ("None", "True", "False"):
            target[name] = {"None": None, "True": True, "False": False}[value]
            continue
        for kind in (int, float, str):
            try:
                target[name] = kind(value)
                break
            except ValueError:
                continue
    try:
        if bfs_fields:
            options[BLOCK_TUNING] = BFSTuning().with_options(**bfs_fields)
        return text, wd.DistributedTuning(**fields), options
    except (TypeError, ValueError) as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def search(block, root, tuning, options):
    """One search under an ``--ab`` setting: its search options,
    on the block with its BFSTuning where the setting names one (the same
    buffers and graph; the kernels compiled for that tuning)."""
    options = dict(options)
    bfs_tuning = options.pop(BLOCK_TUNING, None)
    if bfs_tuning is not None:
        block = dataclasses.replace(block, tuning=bfs_tuning)
    return gpu.bfs(block, root, measure_wait=False, tuning=tuning, **options)


def positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=int, required=True)
    parser.add_argument("--roots", type=int, default=4)
    parser.add_argument("--transport", default="auto", choices=("auto", "nccl", "mpi"))
    parser.add_argument("--grid", metavar="RxC", default=None, help="the process grid (default: one column, P x 1)")
    parser.add_argument("--validate", action="store_true",
                        help="then the searches again, each validated (the distributed Graph500 validator) before the next")
    parser.add_argument("--profile", action="store_true",
                        help="bracket the back-to-back searches with cudaProfilerStart/Stop "
                             "(nsys profile --capture-range=cudaProfilerApi)")
    parser.add_argument("--single", action="store_true",
                        help="P = 1 only: also the single-GPU hybrid (wavefront.bfs on the graph Graph500 builds) "
                             "from the same roots, each root searched by both back to back, and the ratio")
    parser.add_argument("--overlap-chunks", type=overlap_chunks, default=None, metavar="K",
                        help="DistributedTuning.overlap_chunks: a one-column grid's bottom-up steps in K row ranges, "
                             "each range's bits sent on a second stream while the next runs "
                             "(0: off; default: the tuning's, 1)")
    parser.add_argument("--passes", type=positive, default=2,
                        help="back-to-back passes over the roots, each reported (in the overlap A/B the first ran "
                             "about 10 %% slower than the later ones on 2 x H200)")
    parser.add_argument("--ab", type=tuning_spec, nargs="+", metavar="NAME=VALUE[,...]", default=None,
                        help="then an A/B of DistributedTuning settings (and the policy's alpha, beta, and as bfs.NAME the "
                             "block's BFSTuning fields) on the same "
                             "graph (\"default\": the defaults): two passes over the roots, each root searched under every setting in turn "
                             "(with --level-times, each setting's level times)")
    parser.add_argument("--trace", action="store_true",
                        help="then one more search with the stream synchronized after each collective, "
                             "and rank 0's level trace (direction, counts, compute and per-collective ms)")
    parser.add_argument("--level-times", action="store_true",
                        help="then each root searched once more as timed (no synchronization added), and every "
                             "rank's host milliseconds a level (compute / communication calls) beside its counts")
    parser.add_argument("--json", type=Path, default=None, metavar="PATH",
                        help="with --trace: every rank's trace rows as a report benchmarks/scaling_model.py reads "
                             "(the fields of a distributed Graph500 --json report that it needs); never overwrites")
    args = parser.parse_args()
    if args.json is not None and not args.trace:
        parser.error("--json writes the traced search: add --trace")
    if args.json is not None and args.json.exists():
        parser.error(f"--json {args.json}: the file exists; name a new one")
    world = wd.world()
    grid = wd.ProcessGrid(*(parse_grid(args.grid) if args.grid else gpu_grid_shape(world.size)), world=world)
    start = time.perf_counter()
    graph = wd.kronecker(args.scale, grid=grid)
    world.barrier()
    build = time.perf_counter() - start
    block = gpu.to_gpu(graph, transport=args.transport)
    tuning = wd.DistributedTuning() if args.overlap_chunks is None else wd.DistributedTuning(
        overlap_chunks=args.overlap_chunks)
    roots = [int(r) for r in wd.choose_roots(graph, args.roots + 1)]
    gpu.bfs(block, roots[0], measure_wait=False, tuning=tuning)  # the workspace's first touch
    if args.single:
        if world.size != 1:
            parser.error("--single compares P = 1 with the single-GPU search: run it with one rank")
        compare_with_single(args.scale, "bfs", lambda root: gpu.bfs(block, root, measure_wait=False),
                            roots[: args.roots], "levels")

    def timed(validate: bool, tuning=tuning):
        return searches_between_barriers(world, graph, roots[1:],
                                         lambda root: gpu.bfs(block, root, measure_wait=False, tuning=tuning),
                                         wd.validate_bfs if validate else None)

    if args.profile:
        import cupy

        cupy.cuda.profiler.start()
    for run in range(1, args.passes + 1):
        report(args, grid, block, build, "back to back" + (f", pass {run}" if args.passes > 1 else ""), *timed(False))
    if args.profile:
        cupy.cuda.profiler.stop()
    if args.validate:  # as Graph500 runs them: each search after the last one's validation (the GPU idle meanwhile)
        report(args, grid, block, build, "each after a validation", *timed(True))
    if args.ab:
        interleaved_ab(args, world, grid, graph, block, build, roots)
    if args.level_times:
        for label, other, options in args.ab or [("default", tuning, {})]:
            splits = []
            for root in roots[1:]:
                world.barrier()
                rows = search(block, root, other, options).gather_trace()  # collective
                if grid.rank == 0:
                    print(label)
                    splits.append(print_level_times(root, rows))
            if grid.rank == 0:
                total, big, other_levels = (statistics.median(part) for part in zip(*splits, strict=True))
                print(f"{label}: rank 0's median ms a search {total:.3f}: levels examining over {BIG_LEVEL_ARCS:,} "
                      f"arcs {big:.3f}, the others {other_levels:.3f}")
    if args.trace:
        gpu.bfs(block, roots[1], measure_wait=False, tuning=tuning)  # warm: the trace follows a search
        result = gpu.bfs(block, roots[1], measure_wait=True, tuning=tuning)
        if grid.rank == 0:
            print_trace(result.trace)
        rows = result.gather_trace()  # collective
        if args.json is not None and grid.rank == 0:
            from wavefront.graph500.driver import device_name

            write_trace_report(args.json, args.scale, grid, block.transport, device_name("cuda"), roots[1], rows)


def interleaved_ab(args, world, grid, graph, block, build, roots) -> None:
    """``--ab``: two passes over the roots, each root searched under every
    setting in turn (so the host's drift falls on all of them alike), the
    first setting of a root rotating, each search timed between barriers;
    then one line a setting and pass."""
    for _, other, options in args.ab:
        search(block, roots[0], other, options)  # its first use (buffers, kernels)
    for run in (1, 2):
        seconds = {label: [] for label, _, _ in args.ab}
        reached = []
        for i, root in enumerate(roots[1:]):
            # the order turns a setting a root: the first search of a root ran 3-5 % slower than the
            # others on 2 x H100 (a new root's allocations), which a fixed order bills to one setting
            for label, other, options in args.ab[i % len(args.ab):] + args.ab[: i % len(args.ab)]:
                world.barrier()
                start = time.perf_counter()
                result = search(block, root, other, options)
                world.barrier()
                seconds[label].append(time.perf_counter() - start)
            reached.append(result.reached)
        edges = [graph.traversed_edges(r) for r in reached]  # collective
        for label, _, _ in args.ab:
            rows = list(zip(seconds[label], edges, [None] * len(edges), strict=True))
            report(args, grid, block, build, f"{label}, pass {run} (interleaved)", rows, [])


def report(args, grid, block, build, how, rows, validated) -> None:
    """Rank 0's line: the searches' ms, their median and harmonic-mean GTEPS."""
    if grid.rank != 0:
        return
    ms = [seconds * 1e3 for seconds, _, _ in rows]
    teps = len(rows) / sum(seconds / edges for seconds, edges, _ in rows)
    print(f"SCALE {args.scale}, P = {grid.size} ({grid.rows}x{grid.cols}), transport {block.transport}, {how}: "
          f"build {build:.1f} s; ms {', '.join(f'{x:.2f}' for x in ms)}; median {statistics.median(ms):.2f} ms; "
          f"{teps / 1e9:.1f} GTEPS (harmonic mean)")
    if validated:
        print(f"every search validated: {', '.join(f'{x:.2f}' for x in validated)} s")


def write_trace_report(path: Path, scale: int, grid, transport: str, device: str, root: int,
                       rows: list[dict]) -> None:
    """The traced search as ``scaling_model.load_run`` reads a distributed
    Graph500 report: SCALE, the edge factor and seed :func:`wd.kronecker`
    defaults to (16, 1; this script passes neither), the traced root first,
    the grid, the backend and transport, and ``kernels.bfs.trace``."""
    import json

    report = {
        "SCALE": scale, "edgefactor": 16, "seed": 1, "roots": [int(root)],
        "backend": "cuda", "device": device,
        "backend_reason": f"distributed over {grid.size} MPI ranks, one GPU each, "
                          f"device buffers over {transport}",
        "distributed": {"process_grid": f"{grid.rows}x{grid.cols}"},
        "kernels": {"bfs": {"trace": rows}},
    }
    with open(path, "x") as out:  # "x": never clobbers a file that appeared since the check at parse time
        json.dump(report, out, indent=1)


BIG_LEVEL_ARCS = 5_000_000  # a level whose rank examined more is a "big" one in the level-time summary


def print_level_times(root: int, rows: list[dict]) -> tuple[float, float, float]:
    """One line a level of an unsynchronized search: its counts, then each
    rank's host ms, split into compute (steps, launches, read-backs) and
    communication calls (with no synchronization added, a collective's time
    is its call's, and a read-back that waits for it is compute). Returns
    the first rank's ms: the search, its big levels, the rest."""
    ranks = sorted({row["rank"] for row in rows})
    by_level: dict = {}
    for row in rows:
        by_level.setdefault(row["level"], {})[row["rank"]] = row
    print(f"root {root}: level direction n_f m_f discovered examined(rank 0) | " +
          " | ".join(f"rank {r} ms compute+comm" for r in ranks))
    totals = {r: 0.0 for r in ranks}
    for level in sorted(by_level):
        first = by_level[level][ranks[0]]
        cells = []
        for r in ranks:
            row = by_level[level][r]
            compute, comm = row["compute_seconds"] * 1e3, (row["comm_seconds"] + row["wait_seconds"]) * 1e3
            totals[r] += compute + comm
            cells.append(f"{compute + comm:.3f} = {compute:.3f}+{comm:.3f}")
        print(f"  {level} {first['direction']} {first['frontier_vertices']} {first['frontier_edges']} "
              f"{first['discovered']} {first['examined']} | " + " | ".join(cells))
    print("  total ms " + " | ".join(f"rank {r} {totals[r]:.3f}" for r in ranks))
    big = sum(row["compute_seconds"] + row["comm_seconds"] + row["wait_seconds"]
              for row in rows if row["rank"] == ranks[0] and row["examined"] > BIG_LEVEL_ARCS) * 1e3
    return totals[ranks[0]], big, totals[ranks[0]] - big


def print_trace(trace) -> None:
    """One line a level: where a synchronized search's time went on this rank."""
    print("level direction found examined discovered | compute ms comm ms | collective ms")
    for record in trace:
        collectives = " ".join(f"{name}={entry['seconds'] * 1e3:.3f}" for name, entry in record.collectives.items())
        print(f"{record.level} {record.direction} {record.found} {record.examined} {record.discovered} | "
              f"{record.compute_seconds * 1e3:.3f} {record.comm_seconds * 1e3:.3f} | {collectives}")


if __name__ == "__main__":
    main()
