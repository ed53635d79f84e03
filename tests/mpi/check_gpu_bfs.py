"""Checks of the GPU-block BFS (wavefront.distributed.gpu), run by
tests/test_distributed.py under ``mpirun -n P`` on a machine with a GPU.

Each rank takes the GPU of its node-local rank; with ``--transport nccl``
device buffers move over NCCL, with ``mpi`` through host copies and MPI
(the way P = 2 ranks share one GPU, which NCCL refuses). For every root and
direction policy the levels equal the single-process hybrid BFS's, and the
distributed validator passes the result with the single-process edge count.
Rank 0 writes a JSON summary to ``--out``.
"""
from __future__ import annotations

import argparse
import json

import numpy as np

import wavefront
import wavefront.distributed as wd
from wavefront.distributed import gpu
from wavefront.distributed.grid import parse_grid
from wavefront.distributed.launch import abort_on_error
from wavefront.generators import kronecker_edges
from wavefront.graph.build import from_edges


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--scale", type=int, default=12)
    parser.add_argument("--roots", type=int, default=3)
    parser.add_argument("--transport", default="auto")
    parser.add_argument("--grid", default=None, help="RxC (default: the most square)")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    world = wd.world()
    with abort_on_error(world):
        grid = wd.ProcessGrid(*parse_grid(args.grid)) if args.grid else wd.ProcessGrid()
        graph = wd.kronecker(args.scale, grid=grid)
        block = gpu.to_gpu(graph, transport=args.transport)
        roots = wd.choose_roots(graph, args.roots, seed=1)
        src, dst, _ = kronecker_edges(args.scale)
        full = from_edges(src, dst, n=1 << args.scale)
        compared = 0
        for root in roots:
            reference = wavefront.bfs(full, int(root), method="hybrid")
            for policy in ("gap", "top-down", "bottom-up"):
                result = gpu.bfs(block, int(root), policy=policy)
                nedge = graph.traversed_edges(result.reached)
                summary = wd.validate_bfs(graph, result, nedge)
                gathered = result.gather()
                if grid.rank == 0:
                    assert np.array_equal(gathered.levels, reference.levels), (int(root), policy)
                    assert nedge == summary.nedge == full.traversed_edges(reference.parents >= 0)
                    compared += 1
        trace = result.gather_trace()
        devices = world.allgather_object(block.device)
        if grid.rank == 0:
            with open(args.out, "w") as f:
                json.dump({"size": grid.size, "grid": [grid.rows, grid.cols], "transport": block.transport, "devices": devices,
                           "searches": compared, "levels": len({r["level"] for r in trace}),
                           "fold_bytes": sum(r["collectives"]["fold"]["bytes_out"] for r in trace
                                             if "fold" in r["collectives"])}, f)


if __name__ == "__main__":
    main()
