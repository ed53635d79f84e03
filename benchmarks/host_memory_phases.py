"""Host memory of each rank of a distributed Graph500 run, by phase (run under mpirun, or alone for one rank).

    mpirun -n 2 python benchmarks/host_memory_phases.py --scale 20 --kernels bfs [--edgefactor 32] [--backend cuda]

The run is :func:`wavefront.distributed.run_graph500` itself. Its block
build (``from_edges``) is wrapped: when the build returns, the wrapper reads
the rank's VmRSS and VmHWM, then resets VmHWM by writing 5 to
``/proc/self/clear_refs`` (Linux 4.0 and later). The VmHWM left at the end
is then the peak after construction: the upload of GPU blocks, the searches
and validation. Rank 0 prints, per rank, the construction peak, what the
rank held after it, and the peak after it, in MiB. These are the numbers
behind ``wavefront/graph500/memory.py``'s BFS-only constants
(docs/decisions/distributed.md, "BFS-only runs"). Pinned CUDA host buffers
may be missing from VmHWM: on a GPU host, ``tests/mpi/host_peak.py
--node-memory`` measures the node's ``MemAvailable`` instead.
"""
from __future__ import annotations

import argparse
import io
import re

import wavefront.distributed as wd
import wavefront.distributed.graph500 as driver
from wavefront.distributed.launch import abort_on_error


def memory_mib() -> tuple[int, int]:
    """This process's (VmRSS, VmHWM) in MiB."""
    with open("/proc/self/status") as f:
        status = f.read()
    return tuple(int(re.search(rf"{key}:\s+(\d+)", status).group(1)) >> 10 for key in ("VmRSS", "VmHWM"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=int, required=True)
    parser.add_argument("--edgefactor", type=int, default=16)
    parser.add_argument("--roots", type=int, default=4)
    parser.add_argument("--kernels", default="bfs")
    parser.add_argument("--backend", default="cpu", choices=("cpu", "cuda"))
    args = parser.parse_args()
    built = []
    build = driver.from_edges

    def measured_build(*a, **k):
        graph = build(*a, **k)
        built.append(memory_mib())
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")  # VmHWM from here on: the phase after construction
        return graph

    # The driver calls from_edges through its module global: the warm-up's
    # small build goes through kronecker() and is not measured.
    driver.from_edges = measured_build
    grid = wd.ProcessGrid()
    with abort_on_error(grid.world):
        report = wd.run_graph500(args.scale, edgefactor=args.edgefactor, roots=args.roots, grid=grid,
                                 kernels=args.kernels, backend=args.backend, stream=io.StringIO(), log=io.StringIO())
        assert report.failure is None, report.failure
        (held, construction), after = built[-1], memory_mib()[1]
        rows = grid.world.allgather_object((grid.rank, construction, held, after))
        if grid.rank == 0:
            print(f"SCALE {args.scale}, edgefactor {args.edgefactor}, kernels {args.kernels}, backend {args.backend}, "
                  f"P = {grid.size} ({grid.rows}x{grid.cols}); MiB")
            print("rank  construction peak  held after it  peak after it")
            for rank, construction, held, after in rows:
                print(f"{rank:4d} {construction:18d} {held:14d} {after:14d}")


if __name__ == "__main__":
    main()
