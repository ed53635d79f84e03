"""Where the asynchronous delta-stepping kernel's time goes (roads).

    PYTHONPATH=. python benchmarks/sssp_async_stats.py --graphs seattle,road --roots 5

Builds kernels/sssp_async.cu with AS_STATS=1 (per-warp counters and clock64
stamps, summed per search) and prints, for the last of ``--roots`` searches:
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

    from wavefront.backends.cuda import sssp_steps

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--graphs", default="seattle,road")
    ap.add_argument("--roots", type=int, default=5)
    args = ap.parse_args(argv)
    sssp_steps.ASYNC_DEFINES = {"AS_STATS": 1}
    sssp_steps._kernels.cache_clear()
    props = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)
    clock_hz = props["clockRate"] * 1e3
    print(f"{props['name'].decode() if isinstance(props['name'], bytes) else props['name']}, "
          f"block {sssp_steps.ASYNC_BLOCK} threads, counters for one search")
    for name in args.graphs.split(","):
        g = build(name, 1)
        for root in pick_roots(g, args.roots, 1):
            result, seconds = timed_on_gpu(wf.sssp, g, root, method="delta-stepping")
        ws = g.derived["cuda.sssp.async_workspace"]
        words = [int(v) for v in ws.queue[48:48 + len(COUNTERS) + len(PARTS)].get()]
        counts = dict(zip(COUNTERS, words))
        parts = dict(zip(PARTS, words[len(COUNTERS):]))
        warps = sssp_steps._kernels(bool(g.indices.dtype.itemsize == 8),
                                    sssp_steps.arithmetic(g).weight_code,
                                    cupy.cuda.Device().id).sm_count * sssp_steps.ASYNC_BLOCK // 32
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
    sssp_steps.ASYNC_DEFINES = {}
    sssp_steps._kernels.cache_clear()


if __name__ == "__main__":
    main()
