"""Where a distributed GPU search's host time goes, function by function (run under mpirun, one rank per GPU).

    mpirun -n 2 python benchmarks/distributed_gpu_host_profile.py --scale 23 --roots 8 --passes 3

Every function of the distributed GPU BFS's level loop that launches, reads
back or exchanges (the CUDA launchers of ``bfs_steps`` and ``bfs_bottom_up``,
the search's level steps and exchanges, the column transport, the host
all-gather of the totals, the trace clock) is wrapped in a timer; then the
searches run back to back between barriers, as ``distributed_gpu.py`` times
them, and every rank prints its inclusive microseconds a search and a call
for each wrapped function, largest first. At a small SCALE the GPU has
almost nothing to do, so the table is the host's work between levels
(docs/decisions/distributed.md, "GPU runs, sixth round": it found CuPy array
operations at 10-33 us each where a launch costs 5-7 us). cProfile charges
its own overhead to every Python call; a timer per wrapped call costs about
a microsecond.
"""
from __future__ import annotations

import argparse
import collections
import functools
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

# (module or class path, attribute names) of what gets a timer
WRAPPED = {
    "wavefront.backends.cuda.bfs_steps": ("reset_counters", "read_counters", "frontier_edges", "frontier_offsets",
                                          "top_down_balanced", "bitmap_to_queue", "queue_to_bitmap",
                                          "complete_results", "get_kernel", "queue_counter_copy",
                                          "wait_counters"),
    "wavefront.distributed.gpu_steps": ("start_distributed", "offset_queue"),
    "wavefront.backends.cuda.bfs_bottom_up": ("bottom_up",),
    "wavefront.distributed.gpu": ("_range_step", "bfs"),
    "wavefront.distributed.gpu._Search": ("__init__", "run", "_owned_level", "_top_down_owned", "_bottom_up_owned",
                                          "_queue_bottom_up",
                                          "_chunked_bottom_up", "_exchange_owned", "_finish_overlap", "_no_fold",
                                          "_decide", "_small_level", "_from_segments"),
    "wavefront.distributed.gpu_small_levels.SmallLevels": ("run", "_capture", "_step", "_gather", "_to_queue"),
    "wavefront.distributed._trace.Clock": ("start", "stop", "lap", "none", "collective"),
}


def owner_of(path: str):
    """The module or class named by ``path`` (a dotted module path, or a module path and a class name)."""
    import importlib

    try:
        return importlib.import_module(path)
    except ModuleNotFoundError:
        module, _, name = path.rpartition(".")
        return getattr(importlib.import_module(module), name)


def wrap(owner, name: str, label: str, seconds: dict, calls: collections.Counter) -> None:
    """Replace ``owner.name`` by a version that adds its inclusive time under ``label``."""
    function = getattr(owner, name)

    @functools.wraps(function)
    def timed(*args, **kwargs):
        start = time.perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            seconds[label] += time.perf_counter() - start
            calls[label] += 1

    setattr(owner, name, timed)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=int, default=23)
    parser.add_argument("--roots", type=int, default=8)
    parser.add_argument("--passes", type=int, default=3)
    parser.add_argument("--transport", default="auto", choices=("auto", "nccl", "mpi"))
    args = parser.parse_args()

    import wavefront.distributed as wd
    from benchmarks._common import searches_between_barriers
    from wavefront.distributed import gpu
    from wavefront.distributed.grid import gpu_grid_shape

    seconds, calls = collections.defaultdict(float), collections.Counter()
    for path, names in WRAPPED.items():
        owner = owner_of(path)
        for name in names:
            wrap(owner, name, f"{path.rsplit('.', 1)[-1]}.{name}", seconds, calls)
    world = wd.world()
    grid = wd.ProcessGrid(*gpu_grid_shape(world.size), world=world)
    graph = wd.kronecker(args.scale, grid=grid)
    block = gpu.to_gpu(graph, transport=args.transport)
    wrap(type(grid.world), "allgather", "host.allgather", seconds, calls)  # the totals' all-gather
    column = type(block.transports[2])
    for name in ("allgather", "allgatherv", "allgather_into"):
        wrap(column, name, f"column.{name}", seconds, calls)
    roots = [int(r) for r in wd.choose_roots(graph, args.roots + 1)]
    gpu.bfs(block, roots[0], measure_wait=False)  # the workspace's first touch, the kernels' compilation
    seconds.clear()
    calls.clear()
    times = []
    for _ in range(args.passes):
        rows, _ = searches_between_barriers(world, graph, roots[1:], lambda root: gpu.bfs(block, root,
                                                                                          measure_wait=False))
        times += [s for s, _, _ in rows]
    searches = len(times)
    for rank in range(grid.size):
        world.barrier()
        if rank != grid.rank:
            continue
        print(f"rank {rank} of {grid.size} ({grid.rows}x{grid.cols}), SCALE {args.scale}, transport "
              f"{block.transport}: {searches} searches, median {statistics.median(times) * 1e6:.0f} us")
        print(f"  {'function':36s} {'us a search':>12s} {'calls':>7s} {'us a call':>10s}")
        for label, total in sorted(seconds.items(), key=lambda item: -item[1]):
            print(f"  {label:36s} {total / searches * 1e6:12.1f} {calls[label] / searches:7.1f} "
                  f"{total / calls[label] * 1e6:10.1f}")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
