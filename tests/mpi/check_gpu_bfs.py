"""Checks of the GPU-block BFS (wavefront.distributed.gpu), run by
tests/test_distributed.py under ``mpirun -n P`` on a machine with a GPU.

Each rank takes the GPU of its node-local rank; with ``--transport nccl``
device buffers move over NCCL, with ``mpi`` through host copies and MPI
(the way P = 2 ranks share one GPU, which NCCL refuses). For every root and
direction policy the levels equal the single-process hybrid BFS's, and the
distributed validator passes the result with the single-process edge count,
both for a traced search (``measure_wait``) and for one timed as the benchmarks
time it, which queues a bottom-up level's successor ahead.
``--overlap-chunks K`` runs every search with ``DistributedTuning(overlap_chunks=K)``
(a one-column grid's bottom-up steps in K row ranges, each sent on a second
stream while the next runs), and adds a depth-limited search;
``--fixed-ids-edges K`` and ``--small-tile-arcs A`` set those fields (small
top-down levels with a fixed-size exchange; the arcs a block of their kernel
takes, 1 spreading every tile over the most blocks); over NCCL the untraced
searches replay them as captured CUDA graphs, and the top-down searches'
trace bytes must equal the traced search's level by level. Rank 0 writes a JSON summary to ``--out``, with what
the last full search's trace says of its column all-gathers and how many
trace rows of the top-down searches had no totals' all-gather.
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
    parser.add_argument("--overlap-chunks", type=int, default=0)
    parser.add_argument("--fixed-ids-edges", type=int, default=wd.DistributedTuning().fixed_ids_edges)
    parser.add_argument("--small-tile-arcs", type=int, default=wd.DistributedTuning().small_tile_arcs)
    parser.add_argument("--dump-after", type=float, default=None, metavar="SECONDS",
                        help="print every thread's stack and exit after this long (to locate a hang)")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    if args.dump_after:
        import faulthandler

        faulthandler.dump_traceback_later(args.dump_after, exit=True)
    world = wd.world()
    with abort_on_error(world):
        grid = wd.ProcessGrid(*parse_grid(args.grid)) if args.grid else wd.ProcessGrid()
        graph = wd.kronecker(args.scale, grid=grid)
        block = gpu.to_gpu(graph, transport=args.transport)
        roots = wd.choose_roots(graph, args.roots, seed=1)
        src, dst, _ = kronecker_edges(args.scale)
        full = from_edges(src, dst, n=1 << args.scale)
        tuning = wd.DistributedTuning(overlap_chunks=args.overlap_chunks, fixed_ids_edges=args.fixed_ids_edges,
                                      small_tile_arcs=args.small_tile_arcs)
        compared, fixed_rows = 0, 0
        for root in roots:
            reference = wavefront.bfs(full, int(root), method="hybrid")
            for policy in ("gap", "top-down", "bottom-up"):
                result = gpu.bfs(block, int(root), policy=policy, tuning=tuning)
                if policy == "top-down":
                    rows = result.gather_trace()  # collective; rank 0's holds every rank's rows
                    if grid.rank == 0:  # small levels with a fixed-size exchange: their totals need no all-gather
                        fixed_rows += sum(r["level"] > 0 and "allreduce" not in r["collectives"] for r in rows)
                # untimed (measure_wait) and as timed: only the latter queues bottom-up levels ahead
                untraced = gpu.bfs(block, int(root), policy=policy, tuning=tuning, measure_wait=False)
                if policy == "top-down":  # the same levels: a replayed small level counts the bytes a traced one moves
                    assert [moved(r) for r in untraced.trace] == [moved(r) for r in result.trace], int(root)
                for each in (result, untraced):
                    nedge = graph.traversed_edges(each.reached)
                    summary = wd.validate_bfs(graph, each, nedge)
                    gathered = each.gather()
                    if grid.rank == 0:
                        assert np.array_equal(gathered.levels, reference.levels), (int(root), policy, each is result)
                        assert nedge == summary.nedge == full.traversed_edges(reference.parents >= 0)
                        compared += 1
        trace = result.gather_trace()  # the last root's bottom-up search: every level but the root bottom-up
        # A depth limit stops the search where no level follows: no send for a level nobody reads.
        reference = wavefront.bfs(full, int(roots[0]), method="hybrid").levels
        for wait in (True, False):
            limited = gpu.bfs(block, int(roots[0]), policy="bottom-up", depth_limit=2, tuning=tuning,
                              measure_wait=wait).gather()
            if grid.rank == 0:
                assert np.array_equal(limited.levels, np.where(reference <= 2, reference, -1)), ("depth-limited", wait)
        devices = world.allgather_object(block.device)
        captured = world.allgather_object(sum(len(small.graphs) for small in block.segments.values()))
        if grid.rank == 0:
            with open(args.out, "w") as f:
                json.dump({"size": grid.size, "grid": [grid.rows, grid.cols], "transport": block.transport, "devices": devices,
                           "searches": compared, "levels": len({r["level"] for r in trace}),
                           "fixed_rows": fixed_rows, "captured_graphs": captured,
                           **overlap_summary(trace),
                           "fold_bytes": sum(r["collectives"]["fold"]["bytes_out"] for r in trace
                                             if "fold" in r["collectives"])}, f)


def moved(row) -> dict:
    """A trace row's level and bytes by collective."""
    return {"level": row.level, **{name: (c["bytes_out"], c["bytes_in"]) for name, c in row.collectives.items()}}


def overlap_summary(trace) -> dict:
    """The column all-gathers of a bottom-up search's trace rows (every
    rank): calls and bytes out on the levels after which another follows,
    and the levels whose sends no level read. A world of one runs the
    single-GPU search, whose rows hold no collective (none of either)."""
    last = max(r["level"] for r in trace)
    middle = [r["collectives"]["column_allgather"] for r in trace
              if r["direction"] == "bottom-up" and 0 < r["level"] < last and "column_allgather" in r["collectives"]]
    return {"column_calls": sorted({c["calls"] for c in middle}),
            "column_bytes_out": sorted({c["bytes_out"] for c in middle}),
            "unread_levels": sorted({r["level"] for r in trace if "column_allgather_unread" in r["collectives"]}),
            "last_level": last,
            "last_has_column_allgather": any("column_allgather" in r["collectives"] for r in trace
                                             if r["level"] == last)}


if __name__ == "__main__":
    main()
