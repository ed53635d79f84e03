"""Where the asynchronous delta-stepping kernel's time goes (roads).

    PYTHONPATH=. python benchmarks/sssp_async_stats.py --graphs seattle,road --roots 5

Runs with ``SSSPTuning(async_stats=True)``: kernels/sssp_async.cu built with
AS_STATS=1 (per-warp counters and clock64 stamps, summed per search) and prints, for the last of ``--roots`` searches:
busy steps (warp steps with at least one item), lanes busy per step, idle
polls, claims and failed claims on the ring, and the cycles of an average
busy step split into its parts (offsets and distance; arcs and atomicMin;
push; far-pile buffer and other rounds; end of step). The statistics cost a
little time themselves; time the defaults with benchmarks/sssp_gpu.py.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import wavefront as wf  # noqa: E402
from benchmarks._common import pick_roots, timed_on_gpu  # noqa: E402
from benchmarks.sssp_gpu import build  # noqa: E402

COUNTERS = ["vertices relaxed", "busy steps", "lane-items", "idle polls", "claims",
            "claimed items", "failed claims", "busy cycles"]
PARTS = ["offsets + distance", "arcs + atomicMin", "push", "far buffer, other rounds",
         "end of step"]


def main(argv=None):
    import cupy

    from wavefront.backends.cuda.abi import ASYNC_BLOCK, ASYNC_QUEUE_RELAXED
    from wavefront.backends.cuda.sssp_steps import SSSPKernels
    from wavefront.backends.cuda.sssp_tuning import SSSPTuning

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--graphs", default="seattle,road")
    ap.add_argument("--roots", type=int, default=5)
    args = ap.parse_args(argv)
    tuning = SSSPTuning(async_stats=True)
    props = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)
    clock_hz = props["clockRate"] * 1e3
    print(f"{props['name'].decode() if isinstance(props['name'], bytes) else props['name']}, "
          f"block {ASYNC_BLOCK} threads, counters for one search")
    for name in args.graphs.split(","):
        g = build(name, 1)
        for root in pick_roots(g, args.roots, 1):
            result, seconds = timed_on_gpu(wf.sssp, g, root, method="delta-stepping", tuning=tuning)
        ws = g.derived["cuda.sssp.async_workspace"]
        # The relaxation count, then the AS_STATS counters after it.
        first = ASYNC_QUEUE_RELAXED
        words = [int(v) for v in ws.queue[first:first + len(COUNTERS) + len(PARTS)].get()]
        counts = dict(zip(COUNTERS, words))
        parts = dict(zip(PARTS, words[len(COUNTERS):]))
        warps = SSSPKernels.for_graph(g, tuning).sm_count * ASYNC_BLOCK // 32
        kernel = sum(row.seconds for row in result.trace)
        steps = max(counts["busy steps"], 1)
        print(f"\n{name}: n={g.n:,} search {1e3 * seconds:.2f} ms, kernel {1e3 * kernel:.2f} ms, "
              f"{len(result.trace)} buckets, {warps} warps")
        print("| counter | value |\n|---|---:|")
        for key, value in counts.items():
            print(f"| {key} | {value:,} |")
        print(f"| lanes busy per busy step | {counts['lane-items'] / steps:.2f} |")
        print(f"| busy warp time / all warp time | "
              f"{counts['busy cycles'] / clock_hz / (warps * kernel):.0%} |")
        print("\n| part of a busy step | cycles |\n|---|---:|")
        for key, value in parts.items():
            print(f"| {key} | {value / steps:.0f} |")
        print(f"| total | {counts['busy cycles'] / steps:.0f} |")


if __name__ == "__main__":
    main()
