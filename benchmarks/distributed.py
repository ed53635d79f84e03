"""Communication of the distributed searches, per collective (run under mpirun).

    mpirun -n 4 python benchmarks/distributed.py --scale 16 --roots 8

For each fold setting of the 2-D BFS (``DistributedTuning.fold_dedupe`` auto,
always, never; pairs packed or not) and for the delta-stepping SSSP, it runs
the searches from the Graph500 roots with the wait barrier on and prints, on
rank 0, the payload bytes every rank handed to the others, summed over ranks,
levels and roots, split by collective, with the median search time. Bytes do
not depend on the machine's load; the times do (see
docs/decisions/distributed.md for the hardware each table came from).
"""
from __future__ import annotations

import argparse
import statistics

import wavefront.distributed as wd


def collect(results) -> tuple[dict, list]:
    """Bytes out per collective over every rank's trace rows; and the search seconds."""
    totals, seconds = {}, []
    for result in results:
        rows = result.gather_trace()
        seconds.append(result.seconds)
        if rows is None:
            continue
        for row in rows:
            for name, entry in row["collectives"].items():
                totals[name] = totals.get(name, 0) + entry["bytes_out"]
    return totals, seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=int, default=16)
    parser.add_argument("--roots", type=int, default=8)
    parser.add_argument("--kernels", default="bfs,sssp")
    args = parser.parse_args()
    world = wd.world()
    grid = wd.ProcessGrid()
    kernels = args.kernels.split(",")
    graph = wd.kronecker(args.scale, grid=grid, weighted="sssp" in kernels)
    roots = [int(r) for r in wd.choose_roots(graph, args.roots)]
    rows = []
    if "bfs" in kernels:
        settings = {
            "auto": wd.DistributedTuning(),
            "always": wd.DistributedTuning(fold_dedupe="always"),
            "never": wd.DistributedTuning(fold_dedupe="never"),
            "never, unpacked": wd.DistributedTuning(fold_dedupe="never", pack_pairs=False),
        }
        for label, tuning in settings.items():
            wd.bfs(graph, roots[0], tuning=tuning)  # warm-up
            totals, seconds = collect(wd.bfs(graph, r, tuning=tuning) for r in roots)
            rows.append((f"bfs fold {label}", totals, statistics.median(seconds)))
    if "sssp" in kernels:
        wd.sssp(graph, roots[0])
        totals, seconds = collect(wd.sssp(graph, r) for r in roots)
        rows.append(("sssp delta-stepping", totals, statistics.median(seconds)))
    if world.rank == 0:
        names = sorted({name for _, totals, _ in rows for name in totals})
        print(f"SCALE {args.scale}, P = {grid.size} ({grid.rows}x{grid.cols}), {len(roots)} roots; "
              "bytes out summed over ranks, levels and roots")
        print("| search | " + " | ".join(names) + " | total | median ms |")
        print("|---|" + "---|" * (len(names) + 2))
        for label, totals, median in rows:
            cells = [f"{totals.get(name, 0):,}" for name in names]
            print(f"| {label} | " + " | ".join(cells) + f" | {sum(totals.values()):,} | {median * 1e3:.1f} |")


if __name__ == "__main__":
    main()
