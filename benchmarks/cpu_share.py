"""CPU+GPU cooperation (seed 000 §3.3): the distributed GPU BFS for several CPU shares.

    PYTHONPATH=. python benchmarks/cpu_share.py --scale 22 --roots 16

One GPU, one process: a world of one (the code path of ``mpirun -n 1``, the
block being the whole graph). The Kronecker graph (edgefactor 16) is built
and moved to the GPU once; then for each share (``--shares``, default 0, 0.1,
0.25, 0.5, auto; ``DistributedTuning.cpu_share``) one untimed warm-up search
(it builds the host copy of the CPU's rows, and ``auto`` measures both sides'
rates in it), then one search per root, each timed alone from the call until
its result is on the device (``measure_wait`` off, as Graph500 times them).

The table: the median search time, the harmonic mean of the searches' TEPS
(Graph500's edge count over the search time) in GTEPS, whether every
search's levels equal the share-0 search's from the same root, the medians
over searches of the GPU half's, the CPU half's and the overhead's seconds
summed over the search's bottom-up levels (the overhead: waiting for the
host's inputs, the compaction, the copy back, the merge), and ``auto``'s
share with the rates that chose it. With ``--validate`` every search is also
checked by the distributed Graph500 validator.

Host memory bounds the SCALE: the distributed construction holds the tuples,
the exchanged arcs and the block on the host (about 150 bytes per tuple; a
128 GB host takes SCALE 24 comfortably, 25 barely).
"""
from __future__ import annotations

import argparse
import hashlib
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np

import wavefront.distributed as wd
from benchmarks._common import cpu_model, harmonic_mean
from wavefront.distributed.tuning import DistributedTuning, check_cpu_share


def parse_shares(text: str) -> list:
    shares = [check_cpu_share(part) for part in text.split(",") if part.strip()]
    if 0.0 not in shares:
        shares.insert(0, 0.0)  # the baseline the levels are compared with
    return sorted(set(shares), key=lambda s: (s == "auto", s if s != "auto" else 0))


def bottom_up_seconds(trace) -> tuple[float, float, float, float]:
    """(GPU half, CPU half, overhead, level compute) seconds summed over the
    search's bottom-up levels (0 for the halves where the GPU ran alone)."""
    rows = [r for r in trace if r.direction == "bottom-up"]
    return (sum(getattr(r, "gpu_seconds", 0.0) for r in rows), sum(getattr(r, "cpu_seconds", 0.0) for r in rows),
            sum(getattr(r, "overhead_seconds", 0.0) for r in rows), sum(r.compute_seconds for r in rows))


def digest(levels) -> str:
    return hashlib.blake2b(np.ascontiguousarray(levels.get()).tobytes(), digest_size=16).hexdigest()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=int, required=True, help="log2 of the vertices of the Kronecker graph")
    parser.add_argument("--roots", type=int, default=16)
    parser.add_argument("--shares", default="0,0.1,0.25,0.5,auto",
                        help="comma-separated CPU shares (numbers in [0, 1) or auto); 0 is always run")
    parser.add_argument("--policy", default="gap", help="direction policy (default gap)")
    parser.add_argument("--transport", default="auto", choices=("auto", "nccl", "mpi"))
    parser.add_argument("--validate", action="store_true", help="validate every search (distributed validator)")
    args = parser.parse_args()

    import cupy
    import numba

    from wavefront.distributed import gpu, gpu_cooperation
    from wavefront.distributed.grid import ProcessGrid
    from wavefront.distributed.transport import SelfTransport

    shares = parse_shares(args.shares)
    start = time.perf_counter()
    dist = wd.kronecker(args.scale, grid=ProcessGrid(world=SelfTransport()))
    block = gpu.to_gpu(dist, transport=args.transport)
    built = time.perf_counter() - start
    roots = [int(r) for r in wd.choose_roots(dist, args.roots)]
    name = cupy.cuda.runtime.getDeviceProperties(block.device)["name"]
    name = name.decode() if isinstance(name, bytes) else name
    commit = subprocess.run(["git", "-C", str(ROOT), "log", "-1", "--format=%h"], capture_output=True, text=True,
                            check=False).stdout.strip()
    print(f"GPU {name}; host {cpu_model()}, {numba.get_num_threads()} numba threads; commit {commit or '?'}; "
          f"{time.strftime('%Y-%m-%d')}")
    print(f"SCALE {args.scale}: {dist.n:,} vertices, {dist.m:,} arcs; generation + construction + upload "
          f"{built:.1f} s; {len(roots)} roots, policy {args.policy}, transport {block.transport}")

    baseline: dict[int, str] = {}
    nedges: dict[int, int] = {}
    rows = []
    for share in shares:
        tuning = DistributedTuning(cpu_share=share)
        warm = time.perf_counter()
        gpu.bfs(block, roots[0], policy=args.policy, measure_wait=False, tuning=tuning)
        warm = time.perf_counter() - warm
        times, teps, halves, same = [], [], [], True
        for root in roots:
            result = gpu.bfs(block, root, policy=args.policy, measure_wait=False, tuning=tuning)
            if root not in nedges:
                nedges[root] = dist.traversed_edges(result.reached)
            if args.validate:
                wd.validate_bfs(dist, result, nedges[root])
            levels = digest(result.levels)
            baseline.setdefault(root, levels)  # share 0 runs first
            same &= levels == baseline[root]
            times.append(result.seconds)
            teps.append(nedges[root] / result.seconds)
            halves.append(bottom_up_seconds(result.trace))
        report = gpu_cooperation.cpu_share_report(block, tuning)
        decision = report.get("decision")
        chosen = "-" if decision is None else (
            f"{decision['share']:.3f} (CPU {decision['cpu_rate'] / 1e9:.2f}, GPU {decision['gpu_rate'] / 1e9:.2f} "
            f"G arcs/s)"
        )
        gpu_s, cpu_s, over_s, level_s = (statistics.median(h[k] for h in halves) * 1e3 for k in range(4))
        rows.append([
            str(share), f"{report['share']:.3f}", f"{statistics.median(times) * 1e3:.2f}",
            f"{harmonic_mean(teps) / 1e9:.3f}", "yes" if same else "NO", f"{level_s:.2f}", f"{gpu_s:.2f}",
            f"{cpu_s:.2f}", f"{over_s:.2f}", f"{warm:.2f}", chosen,
        ])
        if decision is not None:
            print(f"auto: {decision['reason']}")
    # Plain text, not a rich table: piped to a log, rich would cut the columns to 80 characters.
    header = ["share", "used", "median ms", "GTEPS hmean", "levels identical", "bottom-up ms", "GPU half ms",
              "CPU half ms", "overhead ms", "warm-up s", "auto chose"]
    widths = [max(len(header[k]), *(len(r[k]) for r in rows)) for k in range(len(header))]
    print(f"\ndistributed GPU BFS, one rank, SCALE {args.scale}: CPU share of the bottom-up work")
    for line in [header, ["-" * w for w in widths], *rows]:
        print("  ".join(cell.rjust(w) if k not in (0, len(header) - 1) else cell.ljust(w)
                        for k, (cell, w) in enumerate(zip(line, widths))).rstrip())
    print("bottom-up ms: the compute of the search's bottom-up levels; GPU/CPU half and overhead: their sums over "
          "those levels (0 where the GPU ran alone); all medians over the roots")


if __name__ == "__main__":
    main()
