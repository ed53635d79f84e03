"""What numba specializes after the distributed Graph500 warm-up, run by
tests/test_distributed_first_validation.py under ``mpirun -n P``.

The script does what :func:`wavefront.distributed.graph500.run_graph500`
does before its first timed validation: the warm-up on a SCALE 10 graph
(rank 0 alone first, as the driver does), then a bigger graph built from the
run's tuples in ``--ids`` (uint32 below SCALE 33, int64 above), exchanged and
validated ``--chunk`` tuples at a time (many rounds, as a large run's), a BFS
and an SSSP search, and their validations. ``--warm-ids`` is the dtype the
warm-up is told the run uses (default: ``--ids``).

Rank 0 writes to ``--out`` the signatures each phase added to any of
wavefront's numba dispatchers (``dispatcher.signatures``: a compile or a
load from numba's cache, both a first-use cost): ``grid_warm_up`` (the
grid-wide warm-up on rank 0, after its solo part, in the validator's
kernels: compiling there would race with the other ranks; the edge
exchange's kernels have their own rank-0-first step, ``graph._compile_first``), ``construction`` and ``validation`` (the two
validations only, not the searches).
"""
from __future__ import annotations

import argparse
import json
import sys

from wavefront.distributed import graph500 as driver
from wavefront.distributed import validate
from wavefront.distributed.graph import from_edges, kronecker_slice
from wavefront.distributed.grid import ProcessGrid
from wavefront.distributed.launch import abort_on_error

KERNELS = ("bfs", "sssp")
ID_SCALE = {"uint32": 32, "int64": 33}  # the smallest SCALE whose run keeps its ids so (graph.id_dtype)


def signatures() -> dict[str, set[str]]:
    """Every wavefront numba dispatcher's compiled signatures, by name."""
    found = {}
    for name, module in list(sys.modules.items()):
        if not name.startswith("wavefront") or module is None:
            continue
        for attr, value in vars(module).items():
            if hasattr(value, "signatures") and hasattr(value, "py_func"):
                found[f"{name}.{attr}"] = {str(s) for s in value.signatures}
    return found


def added(before: dict, after: dict) -> dict[str, list[str]]:
    return {name: sorted(sigs - before.get(name, set())) for name, sigs in after.items()
            if sigs - before.get(name, set())}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--scale", type=int, default=13)
    parser.add_argument("--chunk", type=int, default=3000)
    parser.add_argument("--ids", choices=tuple(ID_SCALE), default="uint32")
    parser.add_argument("--warm-ids", choices=tuple(ID_SCALE), default=None)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    grid = ProcessGrid()
    world = grid.world
    with abort_on_error(world):
        run_scale = ID_SCALE[args.warm_ids or args.ids]  # the run the warm-up is told of
        if world.rank == 0:  # the driver's solo part, first here too, to see what the rest adds
            driver._warm_up_alone(grid, 10, 16, 1, None, KERNELS, "cpu", None, run_scale)
        world.barrier()
        solo = signatures()
        driver._warm_up(grid, 10, 16, 1, None, KERNELS, run_scale=run_scale)
        warm = signatures()

        edges = kronecker_slice(args.scale, 16, 1, grid, weighted=True, chunk=args.chunk)
        graph = from_edges(edges.src.astype(args.ids), edges.dst.astype(args.ids), 1 << args.scale, grid,
                           tuple_offset=edges.first, weights=edges.weights, chunk=args.chunk)
        driver._prepare(graph, KERNELS)
        built = signatures()
        root = int(driver.choose_roots(graph, 1, 1)[0])
        bfs = driver.bfs(graph, root)
        sssp = driver.sssp(graph, root)
        searched = signatures()
        checked = [validate.validate_bfs(graph, bfs, graph.traversed_edges(bfs.reached)),
                   validate.validate_sssp(graph, sssp, graph.traversed_edges(sssp.reached))]
        validated = signatures()
        if world.rank == 0:
            with open(args.out, "w") as f:
                json.dump({
                    "size": world.size, "ids": str(graph.src.dtype), "chunks": -(-graph.src.shape[0] // graph.chunk),
                    "reached": [summary.reached for summary in checked],
                    "grid_warm_up": {name: sigs for name, sigs in added(solo, warm).items()
                                     if name.startswith("wavefront.distributed._validate_kernels.")},
                    "construction": added(warm, built),
                    "validation": added(searched, validated),
                }, f)


if __name__ == "__main__":
    main()
