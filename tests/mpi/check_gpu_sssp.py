"""Checks of the GPU-block SSSP (wavefront.distributed.gpu_sssp), run by
tests/test_distributed_gpu_sssp.py under ``mpirun -n P`` on a machine with a GPU.

The grid is ``--grid`` (default one column, P x 1, the GPU runs' default;
wider ones fold offers over the grid row). Each rank takes the GPU of its
node-local rank; ``--transport mpi`` moves device buffers through host
copies (how ranks share one GPU, which NCCL refuses).

* The Graph500 Kronecker graph with its float32 weights: for each root the
  gathered distances equal, exactly, the CPU ranks' distributed SSSP on the
  same grid and the single-process ``wavefront.sssp``; the distributed
  validator passes the GPU result with the single-process edge count, and
  the single-process validator passes the gathered one.
* A small irregular graph (n not a multiple of 64; a tenth of the weights 0
  and a tenth below half an ulp of any distance >= 1, so parents need the
  plateau rounds; a zero-weight chain) with float32 weights and with int32
  weights (int64 sums, float64 distances): the same checks.

Rank 0 writes a JSON summary to ``--out``; any failure ends every rank.
"""
from __future__ import annotations

import argparse
import faulthandler
import json
import os

import numpy as np

import wavefront
import wavefront.distributed as wd
from wavefront.distributed import gpu, gpu_sssp
from wavefront.distributed.grid import gpu_grid_shape, parse_grid
from wavefront.distributed.launch import abort_on_error
from wavefront.generators import kronecker_edges
from wavefront.graph.build import from_edges
from wavefront.validate import validate_sssp


def ties_graph(n: int = 901):
    """(src, dst, float32 weights) of a graph whose shortest paths tie: see the module docstring."""
    rng = np.random.default_rng(2024)
    k = 2500
    src, dst = rng.integers(0, 640, k), rng.integers(0, 640, k)
    weights = rng.integers(1, 4096, k).astype(np.float32) / np.float32(128)
    pick = rng.random(k)
    weights[pick < 0.1] = 0
    weights[(pick >= 0.1) & (pick < 0.2)] = np.float32(2.0**-27)
    chain = np.arange(800, n - 1)
    return (np.concatenate((src, chain, [5])), np.concatenate((dst, chain + 1, [800])),
            np.concatenate((weights, np.zeros(chain.shape[0], np.float32), [np.float32(3.0)])))


def searches(block, graph, full, edges, roots, dtype, rank) -> dict:
    """GPU, CPU-rank and single-process searches from every root; rank 0 compares."""
    compared, rounds = 0, 0
    for root in roots:
        result = gpu_sssp.sssp(block, int(root))
        on_cpu = wd.sssp(graph, int(root))
        nedge = graph.traversed_edges(result.reached)
        summary = gpu_sssp.validate(graph, result, nedge)
        gathered, cpu_gathered = result.gather(), on_cpu.gather()
        rounds = max(rounds, result.parent_rounds)
        if rank == 0:
            reference = wavefront.sssp(full, int(root))
            assert gathered.backend == "cuda"
            assert gathered.distances.dtype == cpu_gathered.distances.dtype == reference.distances.dtype == dtype
            assert np.array_equal(gathered.distances, cpu_gathered.distances), int(root)
            assert np.array_equal(gathered.distances, reference.distances), int(root)
            assert nedge == summary.nedge == full.traversed_edges(reference.parents >= 0)
            validate_sssp(edges, gathered, n=full.n, nedge=nedge)
            compared += 1
    return {"searches": compared, "parent_rounds": rounds}


def my_slice(arrays, grid):
    k = arrays[0].shape[0]
    lo, hi = k * grid.rank // grid.size, k * (grid.rank + 1) // grid.size
    return [a[lo:hi] for a in arrays], lo


def main() -> None:
    if os.environ.get("WF_CHECK_TRACEBACK_AFTER"):  # a hung rank prints where it waits, then exits
        faulthandler.dump_traceback_later(float(os.environ["WF_CHECK_TRACEBACK_AFTER"]), exit=True)
    parser = argparse.ArgumentParser()
    parser.add_argument("--scale", type=int, default=11)
    parser.add_argument("--roots", type=int, default=3)
    parser.add_argument("--transport", default="auto")
    parser.add_argument("--grid", default=None, help="RxC (default: one column)")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    world = wd.world()
    with abort_on_error(world):
        shape = parse_grid(args.grid) if args.grid else gpu_grid_shape(world.size)
        grid = wd.ProcessGrid(*shape, world=world)
        graph = wd.kronecker(args.scale, grid=grid, weighted=True)
        block = gpu.to_gpu(graph, transport=args.transport)
        roots = wd.choose_roots(graph, args.roots, seed=1)
        src, dst, weights = kronecker_edges(args.scale)
        full = from_edges(src, dst, weights, n=1 << args.scale)
        summary = {"size": grid.size, "grid": [grid.rows, grid.cols], "transport": block.transport,
                   "devices": world.allgather_object(block.device)}
        summary["kronecker"] = searches(block, graph, full, (src, dst, weights), roots, np.float32, grid.rank)
        trace = gpu_sssp.sssp(block, int(roots[0])).gather_trace()
        if grid.rank == 0:
            summary["kinds"] = sorted({row["kind"] for row in trace})
            summary["column_bytes"] = sum(row["collectives"]["column_allgather"]["bytes_out"] for row in trace
                                          if "column_allgather" in row["collectives"])
            summary["trace_ranks"] = sorted({row["rank"] for row in trace})
            for name in ("fold", "transpose"):
                summary[f"{name}_bytes"] = sum(row["collectives"][name]["bytes_out"] for row in trace
                                               if name in row["collectives"])

        tsrc, tdst, tw = ties_graph()
        n = 901
        for label, w, dtype in (("ties_float32", tw, np.float32), ("ties_int32", (tw * 128).astype(np.int32),
                                                                     np.float64)):
            (s, d, ws), first = my_slice((tsrc, tdst, w), grid)
            small = wd.from_edges(s, d, n, grid, tuple_offset=first, weights=ws)
            small_block = gpu.to_gpu(small, transport=args.transport)
            small_full = from_edges(tsrc, tdst, w, n=n)
            summary[label] = searches(small_block, small, small_full, (tsrc, tdst, w), (0, 7, 850), dtype, grid.rank)
        if grid.rank == 0:
            with open(args.out, "w") as f:
                json.dump(summary, f)


if __name__ == "__main__":
    main()
