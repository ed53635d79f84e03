"""The peak resident set of each rank of a distributed Graph500 run, for
tests/test_host_memory.py under ``mpirun -n P``: the BFS and SSSP kernels
with a few roots, then every rank's high-water mark (VmHWM, read inside the
rank) gathered to rank 0, which writes them to ``--out`` as JSON."""
from __future__ import annotations

import argparse
import io
import json
import re

import wavefront.distributed as wd
from wavefront.distributed.launch import abort_on_error


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--scale", type=int, required=True)
    parser.add_argument("--roots", type=int, default=4)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    grid = wd.ProcessGrid()
    with abort_on_error(grid.world):
        report = wd.run_graph500(args.scale, roots=args.roots, grid=grid, stream=io.StringIO(), log=io.StringIO())
        assert report.failure is None, report.failure
        with open("/proc/self/status") as f:
            peak = int(re.search(r"VmHWM:\s+(\d+)", f.read()).group(1)) * 1024
        peaks = grid.world.allgather_object(peak)
        if grid.rank == 0:
            with open(args.out, "w") as f:
                json.dump({"size": grid.size, "peaks": peaks}, f)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
