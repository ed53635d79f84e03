"""The peak resident set of each rank of a distributed Graph500 run, for
tests/test_host_memory.py under ``mpirun -n P``: the chosen kernels (BFS and
SSSP by default) with a few roots, then every rank's high-water mark (VmHWM,
read inside the rank) gathered to rank 0, which writes them to ``--out`` as
JSON.

With ``--node-memory``, the first rank of each node also watches the node's
``MemAvailable`` from a separate process (50 ms apart, so numba and CuPy
calls that hold the GIL do not stall it) and reports how far it fell below
its value at the start: the memory the node's ranks took, pinned CUDA host
buffers included, which a process's VmHWM may not count. Other processes on
the node move it too, so it is a measurement for a machine of one's own (the
device hosts), not for a shared one.
"""
from __future__ import annotations

import argparse
import io
import json
import re
import subprocess
import sys

import wavefront.distributed as wd
from wavefront.distributed.launch import abort_on_error

# The watcher: prints MemAvailable at its start, then, once its stdin closes,
# the largest fall below it.
WATCH = """
import select, sys
def available():
    with open('/proc/meminfo') as f:
        for line in f:
            if line.startswith('MemAvailable:'):
                return int(line.split()[1]) * 1024
start = low = available()
print(start, flush=True)
while not select.select([sys.stdin], [], [], 0.05)[0]:
    low = min(low, available())
print(start - min(low, available()), flush=True)
"""


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--scale", type=int, required=True)
    parser.add_argument("--edgefactor", type=int, default=16)
    parser.add_argument("--roots", type=int, default=4)
    parser.add_argument("--kernels", default="bfs,sssp")
    parser.add_argument("--backend", default="cpu", choices=("cpu", "cuda"))
    parser.add_argument("--node-memory", action="store_true")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    grid = wd.ProcessGrid()
    watcher = None
    with abort_on_error(grid.world):
        node = grid.world.node_local()  # collective
        if args.node_memory and node.rank == 0:
            watcher = subprocess.Popen([sys.executable, "-c", WATCH], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                       text=True)
            watcher.stdout.readline()  # it has its starting value
        grid.world.barrier()
        report = wd.run_graph500(args.scale, edgefactor=args.edgefactor, roots=args.roots, grid=grid,
                                 kernels=args.kernels, backend=args.backend, stream=io.StringIO(), log=io.StringIO())
        assert report.failure is None, report.failure
        grid.world.barrier()
        node_drop = None
        if watcher is not None:
            out, _ = watcher.communicate("")
            node_drop = int(out.split()[-1])
        with open("/proc/self/status") as f:
            peak = int(re.search(r"VmHWM:\s+(\d+)", f.read()).group(1)) * 1024
        peaks = grid.world.allgather_object(peak)
        nodes = grid.world.allgather_object(None if node_drop is None else (node.size, node_drop))
        if grid.rank == 0:
            with open(args.out, "w") as f:
                json.dump({"size": grid.size, "peaks": peaks, "scale": args.scale, "edgefactor": args.edgefactor,
                           "kernels": args.kernels, "backend": args.backend,
                           "nodes": [node for node in nodes if node is not None]}, f)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
