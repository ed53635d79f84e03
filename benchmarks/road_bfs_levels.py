"""Road BFS per level: the hybrid's multi-level kernels (the single block's
edge- and vertex-balanced forms, the grid levels) against the latency
floors, measured in one run on one GPU.

    PYTHONPATH=. python benchmarks/road_bfs_levels.py [--roots 8] [--repeats 5] \
        [--graphs amsterdam,seattle,grid,road1.4m] [--modes edges,vertices,per-level] [--json out.json]

For each graph (the DIMACS roads in ``--data``, default ``.data`` then
``../shared/data``, the road-like graphs of benchmarks/roads.py by name, and
a ``--grid-side`` square 4-neighbour grid) and each mode (a BFSTuning:
``edges`` and ``padded``, the single block's balance with everything else
default; ``per-level``, the grid-levels kernel off, as before it; or BFSTuning
fields), times the CUDA hybrid
(``wavefront.bfs(g, root, method="hybrid", tuning=...)``) from ``--roots``
random roots of degree >= 1, ``--repeats`` times each, the modes interleaved
root by root; every result's levels are checked against SciPy's BFS
(``breadth_first_order``) before the next call. A call is timed between two
stream synchronizations (host wall clock: the launch, the block's levels,
the read-back); the trace's GPU-timer rows give the time inside the single
block alone.

The floors, measured in the same process (CuPy RawKernels below):

* ``launch``: an empty kernel's launch and a stream synchronize, the round
  trip any search pays at least once;
* ``barrier``, ``1 L2 trip``, ``2 L2 trips``: one 1024-thread block running
  ``--floor-iterations`` iterations of {a chain of 0, 1 or 2 dependent
  ``ld.global.cg`` loads (L1 bypassed, a random cycle through a 16 MiB
  array that stays in L2), __syncthreads}, in microseconds per iteration:
  the per-level floor of a level that must read a vertex's row and then its
  neighbours (two dependent L2 trips) before the next level may start;
* ``grid barrier``, ``grid barrier + 2 L2 trips``: the same on every SM (one
  256-thread block each) with persistent.cuh's software grid barrier in
  place of __syncthreads: the floor of a grid-levels level.

Prints one table per run (graph, depth, mode, median and best ms, us per
level end to end and inside the block, levels in the block / on the grid)
and the floors, headed by the GPU and the commit (``$WAVEFRONT_COMMIT`` for a
copy without git history); writes the same as JSON to ``--json`` or, when
``$OUT`` is set, ``$OUT/road_bfs_levels.json``.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks._common import pick_roots, timed_on_gpu
from benchmarks.roads import ROAD_SIZES

FLOOR_SOURCE = r"""
#include "persistent.cuh"

extern "C" __global__ void empty_kernel() {}

// One block; each thread follows its own random cycle through `next`,
// CHAIN dependent L2 loads per iteration, then the block's barrier.
template <int CHAIN>
__device__ void chase(const unsigned int* next, unsigned int n, int iterations, unsigned int* out) {
    unsigned int p = (threadIdx.x * 2654435761u) % n;
    for (int i = 0; i < iterations; ++i) {
#pragma unroll
        for (int c = 0; c < CHAIN; ++c) p = __ldcg(next + p);
        __syncthreads();
    }
    out[threadIdx.x] = p;  // keeps the chain alive
}

extern "C" __global__ void __launch_bounds__(1024) chase0(const unsigned int* next, unsigned int n,
                                                         int iterations, unsigned int* out) {
    chase<0>(next, n, iterations, out);
}
extern "C" __global__ void __launch_bounds__(1024) chase1(const unsigned int* next, unsigned int n,
                                                         int iterations, unsigned int* out) {
    chase<1>(next, n, iterations, out);
}
extern "C" __global__ void __launch_bounds__(1024) chase2(const unsigned int* next, unsigned int n,
                                                         int iterations, unsigned int* out) {
    chase<2>(next, n, iterations, out);
}

// Every block resident (one per SM): CHAIN dependent L2 loads, then the grid barrier.
template <int CHAIN>
__device__ void chase_grid(const unsigned int* next, unsigned int n, int iterations, unsigned int* arrived,
                           unsigned int* out) {
    unsigned int p = ((blockIdx.x * blockDim.x + threadIdx.x) * 2654435761u) % n;
    for (int i = 0; i < iterations; ++i) {
#pragma unroll
        for (int c = 0; c < CHAIN; ++c) p = __ldcg(next + p);
        grid_barrier(arrived, gridDim.x * (unsigned int)(i + 1));
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = p;
}

extern "C" __global__ void __launch_bounds__(256) grid_chase0(const unsigned int* next, unsigned int n,
                                                              int iterations, unsigned int* arrived,
                                                              unsigned int* out) {
    chase_grid<0>(next, n, iterations, arrived, out);
}
extern "C" __global__ void __launch_bounds__(256) grid_chase2(const unsigned int* next, unsigned int n,
                                                              int iterations, unsigned int* arrived,
                                                              unsigned int* out) {
    chase_grid<2>(next, n, iterations, arrived, out);
}

// As grid_chase2, with 3 scattered 4-byte stores per thread before each
// barrier (a level's levels, parents and queue writes): the barrier's release
// waits for them.
extern "C" __global__ void __launch_bounds__(256) grid_chase2_stores(const unsigned int* next, unsigned int n,
                                                                     int iterations, unsigned int* arrived,
                                                                     unsigned int* out, unsigned int* scatter,
                                                                     unsigned int scatter_n) {
    unsigned int p = ((blockIdx.x * blockDim.x + threadIdx.x) * 2654435761u) % n;
    for (int i = 0; i < iterations; ++i) {
        p = __ldcg(next + p);
        p = __ldcg(next + p);
#pragma unroll
        for (int s = 0; s < 3; ++s) scatter[(p * (2u * s + 1u) * 2654435761u) % scatter_n] = p;
        grid_barrier(arrived, gridDim.x * (unsigned int)(i + 1));
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = p;
}
"""
FLOOR_WORDS = 1 << 22  # 16 MiB of uint32: in L2 (50 MB on an H100/H200), not in L1
KERNEL_DIR = ROOT / "wavefront" / "backends" / "cuda" / "kernels"


def mode_tuning(mode: str):
    """The BFSTuning a ``--modes`` entry stands for: a name, or BFSTuning
    fields as ``field=value`` joined by ``+`` (``grid_levels_block_edges=1024+grid_levels_blocks=16``)."""
    import ast

    from wavefront.backends.cuda.bfs_tuning import BFSTuning

    modes = {balance: BFSTuning(single_block_balance=balance) for balance in ("edges", "padded")}
    modes["per-level"] = BFSTuning(grid_levels=False)
    if mode in modes:
        return modes[mode]
    if "=" not in mode:
        raise SystemExit(f"unknown mode {mode!r}; choose from {sorted(modes)} or give field=value+...")
    fields = {}
    for item in mode.split("+"):
        key, _, value = item.partition("=")
        try:
            fields[key.strip()] = ast.literal_eval(value.strip())
        except (ValueError, SyntaxError):
            fields[key.strip()] = value.strip()
    return BFSTuning().with_options(**fields)


class CheckFailed(AssertionError):
    """A BFS result's levels differ from SciPy's: the table would be wrong."""


# -- graphs and the SciPy reference ---------------------------------------------------------


def data_dirs(explicit: Path | None) -> list[Path]:
    if explicit is not None:
        return [explicit]
    return [p for p in (ROOT / ".data", ROOT.parent / "shared" / "data") if p.is_dir()]


def load_graph(name: str, data: Path | None, grid_side: int):
    """(label, unweighted CPU graph)."""
    import wavefront as wf
    from wavefront.generators import grid

    if name == "grid":
        return f"grid{grid_side}", grid(grid_side, grid_side)
    if name in ROAD_SIZES:  # the road-like generator, as benchmarks/roads.py builds it (seed 1)
        from wavefront.generators import road_like

        return name, road_like(ROAD_SIZES[name], seed=1)
    for folder in data_dirs(data):
        path = folder / f"{name}.gr.gz"
        if path.exists():
            return name, wf.read_graph(path, weighted=False, progress=False)
    raise SystemExit(f"no {name}.gr.gz in {data_dirs(data)} (carry .data to the device)")


def scipy_levels(graph, root: int) -> np.ndarray:
    """Hop levels from SciPy's BFS tree (-1 unreached): each vertex's depth
    in the predecessor tree, by pointer jumping (log2(depth) array passes)."""
    import scipy.sparse as sp
    from scipy.sparse import csgraph

    matrix = sp.csr_array((np.ones(graph.m, dtype=np.int8), graph.indices, graph.indptr), shape=(graph.n, graph.n))
    order, pred = csgraph.breadth_first_order(matrix, root, directed=graph.directed, return_predecessors=True)
    levels = np.full(graph.n, -1, dtype=np.int64)
    ancestor = np.where(pred >= 0, pred, np.arange(graph.n))[order]  # the root is its own ancestor
    depth = (order != root).astype(np.int64)
    where = np.full(graph.n, -1, dtype=np.int64)
    where[order] = np.arange(order.size)
    ancestor = where[ancestor]  # positions in `order`
    while True:  # list ranking: the root (position 0) has depth 0 and is its own ancestor
        depth = depth + depth[ancestor]
        up = ancestor[ancestor]
        if np.array_equal(up, ancestor):
            break
        ancestor = up
    levels[order] = depth
    return levels


# -- the floors -----------------------------------------------------------------------------


def measure_floors(iterations: int, launches: int) -> dict:
    import cupy

    module = cupy.RawModule(code=FLOOR_SOURCE, options=("-std=c++17", f"-I{KERNEL_DIR}"))
    empty = module.get_function("empty_kernel")
    stream = cupy.cuda.get_current_stream()
    for _ in range(20):
        empty((1,), (1,), ())
    stream.synchronize()
    trips = []
    for _ in range(launches):
        start = time.perf_counter()
        empty((1,), (1,), ())
        stream.synchronize()
        trips.append(time.perf_counter() - start)

    # A random single cycle (Sattolo), so no thread's chain closes early.
    rng = np.random.default_rng(5)
    perm = rng.permutation(FLOOR_WORDS).astype(np.uint32)
    nxt = np.empty(FLOOR_WORDS, dtype=np.uint32)
    nxt[perm] = np.roll(perm, -1)
    device_next = cupy.asarray(nxt)
    out = cupy.empty(1024, dtype=cupy.uint32)
    floors = {"launch_sync_us": statistics.median(trips) * 1e6, "launch_sync_best_us": min(trips) * 1e6}
    for chain in (0, 1, 2):
        fn = module.get_function(f"chase{chain}")
        args = (device_next, np.uint32(FLOOR_WORDS), np.int32(iterations), out)
        fn((1,), (1024,), args)  # warm: L2 holds the array after this
        times = []
        for _ in range(5):
            begin, end = cupy.cuda.Event(), cupy.cuda.Event()
            begin.record()
            fn((1,), (1024,), args)
            end.record()
            end.synchronize()
            times.append(cupy.cuda.get_elapsed_time(begin, end) * 1e3 / iterations)  # us per iteration
        floors[f"chain{chain}_us_per_iteration"] = statistics.median(times)
    sms = cupy.cuda.Device().attributes["MultiProcessorCount"]
    arrived = cupy.zeros(1, dtype=cupy.uint32)
    wide_out = cupy.empty(sms * 256, dtype=cupy.uint32)
    for chain in (0, 2):
        fn = module.get_function(f"grid_chase{chain}")
        times = []
        for _ in range(6):
            arrived.fill(0)
            begin, end = cupy.cuda.Event(), cupy.cuda.Event()
            begin.record()
            fn((sms,), (256,), (device_next, np.uint32(FLOOR_WORDS), np.int32(iterations), arrived, wide_out))
            end.record()
            end.synchronize()
            times.append(cupy.cuda.get_elapsed_time(begin, end) * 1e3 / iterations)
        floors[f"grid_chain{chain}_us_per_iteration"] = statistics.median(times[1:])  # the first one warms L2
    scatter = cupy.empty(1 << 24, dtype=cupy.uint32)  # 64 MiB
    fn = module.get_function("grid_chase2_stores")
    times = []
    for _ in range(6):
        arrived.fill(0)
        begin, end = cupy.cuda.Event(), cupy.cuda.Event()
        begin.record()
        fn((sms,), (256,), (device_next, np.uint32(FLOOR_WORDS), np.int32(iterations), arrived, wide_out, scatter,
                            np.uint32(scatter.size)))
        end.record()
        end.synchronize()
        times.append(cupy.cuda.get_elapsed_time(begin, end) * 1e3 / iterations)
    floors["grid_chain2_stores_us_per_iteration"] = statistics.median(times[1:])
    return floors


# -- the BFS runs ---------------------------------------------------------------------------


def block_split(result) -> dict:
    """Levels run in the single block, in the grid-levels kernel and one launch
    each, with the GPU-timer seconds inside the two kernels."""
    block = [row for row in result.trace if "[single block]" in row.reason]
    grid = [row for row in result.trace if "[grid levels]" in row.reason]
    kinds = ["block" if "[single block]" in r.reason else "grid" if "[grid levels]" in r.reason else "launch"
             for r in result.trace]
    return {"switches": sum(a != b for a, b in zip(kinds, kinds[1:], strict=False)),
            "block_levels": len(block), "grid_kernel_levels": len(grid),
            "grid_levels": len(result.trace) - len(block) - len(grid),
            "block_seconds": sum(row.seconds for row in block), "grid_kernel_seconds": sum(row.seconds for row in grid)}


def bench_graph(label, graph, roots, modes, repeats) -> list[dict]:
    import wavefront as wf
    from wavefront.backends.cuda.bfs_single_block import single_block_balance
    from wavefront.backends.cuda.bfs_tuning import BFSTuning

    gd = graph.to("cuda")
    tunings = {mode: mode_tuning(mode) for mode in modes}
    auto = single_block_balance(gd, BFSTuning())
    start = time.perf_counter()
    expected = [scipy_levels(graph, root) for root in roots]
    depths = [int(levels.max()) for levels in expected]
    log(f"{label}: n {graph.n}, m {graph.m}, SciPy levels in {time.perf_counter() - start:.1f} s, "
        f"depths {min(depths)}-{max(depths)}, auto picks {auto}")
    for tuning in tunings.values():  # compile and build the workspace outside the timing
        wf.bfs(gd, roots[0], method="hybrid", tuning=tuning)
    runs = {mode: [] for mode in modes}
    for _ in range(repeats):
        for i, root in enumerate(roots):
            for mode, tuning in tunings.items():
                result, seconds = timed_on_gpu(wf.bfs, gd, root, method="hybrid", tuning=tuning)
                got = result.levels.get()
                if not np.array_equal(got, expected[i]):
                    bad = np.flatnonzero(got != expected[i])
                    raise CheckFailed(f"{label} {mode} from {root}: levels differ from SciPy's at {bad.size} "
                                      f"vertices (first {bad[0]}: {got[bad[0]]} vs {expected[i][bad[0]]})")
                runs[mode].append({"root": int(root), "depth": depths[i], "seconds": seconds,
                                   **block_split(result)})
    rows = []
    for mode, mine in runs.items():
        seconds = [r["seconds"] for r in mine]
        per_level = [r["seconds"] / r["depth"] for r in mine if r["depth"]]
        block = [r["block_seconds"] / r["block_levels"] for r in mine if r["block_levels"]]
        grid = [r["grid_kernel_seconds"] / r["grid_kernel_levels"] for r in mine if r["grid_kernel_levels"]]
        rows.append({
            "graph": label, "n": graph.n, "m": graph.m, "mode": mode, "auto": auto,
            "depth_median": statistics.median(depths), "runs": len(mine),
            "ms_median": statistics.median(seconds) * 1e3, "ms_best": min(seconds) * 1e3,
            "us_per_level": statistics.median(per_level) * 1e6 if per_level else float("nan"),
            "block_us_per_level": statistics.median(block) * 1e6 if block else float("nan"),
            "grid_kernel_us_per_level": statistics.median(grid) * 1e6 if grid else float("nan"),
            "block_levels": statistics.median(r["block_levels"] for r in mine),
            "grid_kernel_levels": statistics.median(r["grid_kernel_levels"] for r in mine),
            "grid_levels": statistics.median(r["grid_levels"] for r in mine),
            "switches": statistics.median(r["switches"] for r in mine),
            "per_run": mine,
        })
        log(f"  {mode}: {rows[-1]['ms_median']:.3f} ms median, {rows[-1]['us_per_level']:.2f} us/level, checked")
    return rows


def log(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def device_facts() -> dict:
    import cupy

    props = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)
    name = props["name"].decode() if isinstance(props["name"], bytes) else str(props["name"])
    return {"gpu": name, "commit": tree_commit(), "date": time.strftime("%Y-%m-%d")}


def tree_commit() -> str:
    """The commit of the code that runs: ``$WAVEFRONT_COMMIT`` if set (a
    ``git archive`` copy has no history), else this checkout's HEAD, but only
    where ROOT is a checkout's top (a copy inside another repository would
    otherwise report that repository's HEAD)."""
    if os.environ.get("WAVEFRONT_COMMIT"):
        return os.environ["WAVEFRONT_COMMIT"]

    def git(*argv) -> str:
        return subprocess.run(["git", "-C", str(ROOT), *argv], capture_output=True, text=True,
                              check=True).stdout.strip()

    try:
        if Path(git("rev-parse", "--show-toplevel")).resolve() != ROOT:
            return "unknown (a copy; set WAVEFRONT_COMMIT)"
        return git("rev-parse", "--short", "HEAD")
    except (OSError, subprocess.CalledProcessError):
        return "unknown (set WAVEFRONT_COMMIT)"


def table(rows, floors, facts) -> str:
    lines = [f"GPU {facts['gpu']}, commit {facts['commit']}, {facts['date']}", "",
             "| graph | levels | mode | ms median | ms best | us/level | block us/level | grid kernel us/level | "
             "levels: block / grid kernel / one launch each | kernel switches |",
             "|---|---:|---|---:|---:|---:|---:|---:|---|---:|"]
    for r in rows:
        mode = r["mode"] + (" (auto balance)" if r["mode"] == r["auto"] else "")
        lines.append(f"| {r['graph']} | {r['depth_median']:g} | {mode} | {r['ms_median']:.3f} | {r['ms_best']:.3f} | "
                     f"{r['us_per_level']:.2f} | {r['block_us_per_level']:.2f} | "
                     f"{r['grid_kernel_us_per_level']:.2f} | "
                     f"{r['block_levels']:g} / {r['grid_kernel_levels']:g} / {r['grid_levels']:g} | "
                     f"{r['switches']:g} |")
    lines += ["", "| floor | us |", "|---|---:|",
              (f"| empty launch + sync (median / best) | {floors['launch_sync_us']:.1f} / "
               f"{floors['launch_sync_best_us']:.1f} |"),
              f"| barrier alone, per iteration | {floors['chain0_us_per_iteration']:.3f} |",
              f"| 1 L2 load + barrier, per iteration | {floors['chain1_us_per_iteration']:.3f} |",
              f"| 2 dependent L2 loads + barrier, per iteration | {floors['chain2_us_per_iteration']:.3f} |",
              f"| grid barrier alone (a block per SM), per iteration | {floors['grid_chain0_us_per_iteration']:.3f} |",
              (f"| 2 dependent L2 loads + grid barrier, per iteration | "
               f"{floors['grid_chain2_us_per_iteration']:.3f} |"),
              (f"| the same with 3 scattered stores a thread before the barrier | "
               f"{floors['grid_chain2_stores_us_per_iteration']:.3f} |")]
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--graphs", default="amsterdam,seattle,grid")
    parser.add_argument("--modes", default="edges,per-level")
    parser.add_argument("--roots", type=int, default=8)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--grid-side", type=int, default=1024)
    parser.add_argument("--data", type=Path, default=None)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--floor-iterations", type=int, default=20000)
    parser.add_argument("--floor-launches", type=int, default=200)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]

    facts = device_facts()
    log(f"{facts['gpu']}, commit {facts['commit']}")
    floors = measure_floors(args.floor_iterations, args.floor_launches)
    log(f"floors: {json.dumps({k: round(v, 3) for k, v in floors.items()})}")
    rows = []
    for name in filter(None, (s.strip() for s in args.graphs.split(","))):
        label, graph = load_graph(name, args.data, args.grid_side)
        roots = pick_roots(graph, args.roots, seed=args.seed)
        rows += bench_graph(label, graph, roots, modes, args.repeats)
    floors_after = measure_floors(args.floor_iterations, args.floor_launches)  # drift check
    text = table(rows, floors, facts)
    print(text, flush=True)
    target = args.json or (Path(os.environ["OUT"]) / "road_bfs_levels.json" if os.environ.get("OUT") else None)
    if target is not None:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps({**facts, "args": {k: str(v) for k, v in vars(args).items()},
                                      "floors": floors, "floors_after": floors_after, "rows": rows,
                                      "table": text}, indent=1))
        log(f"wrote {target}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
