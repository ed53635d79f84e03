"""The distributed SSSP on GPU blocks (wavefront.distributed.gpu_sssp).

On the CPU: the memory model (one column and more), the frontier entry's
width against the kernel file's own rule, and the validation wrapper on a
host result. On a GPU (marked ``gpu``): P = 1 in one process over both
device transports, distances equal to the CPU ranks' distributed SSSP's,
the single-process search's (both exactly) and SciPy's Dijkstra (within
float32 rounding), parents accepted by both validators; ties that need the
plateau rounds; integer weights and hops; 2 ranks on a 2x1 grid, and grids
of more than one column (1x2, 2x2), under mpirun; the distributed Graph500
CLI with ``--kernels bfs,sssp`` on GPU.
"""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from functools import cache
from types import SimpleNamespace

import numpy as np
import pytest
from test_distributed import SCRIPTS, check_report, mpirun

import wavefront
import wavefront.distributed as wd
from wavefront.backends.cuda import abi
from wavefront.backends.cuda.compile import KERNEL_DIR
from wavefront.cli import main
from wavefront.distributed import gpu_sssp
from wavefront.distributed.grid import ProcessGrid
from wavefront.distributed.transport import SelfTransport
from wavefront.errors import BackendUnavailableError, MethodLimitError
from wavefront.generators import kronecker_edges
from wavefront.graph.build import from_edges
from wavefront.validate import validate_sssp


# -- on the CPU ------------------------------------------------------------------------------
def test_gpu_sssp_memory_model_and_the_gpus_it_names():
    """The GPU SSSP's bytes (memory.sssp_bytes_for: weights, column index,
    the search's buffers, whose formula _Workspace.bytes_for uses too), the
    one-column grid that holds a run's block and its SSSP, and the
    GPUMemoryError that names it when the SSSP does not fit beside the block."""
    from wavefront.backends.cuda import memory as cuda_memory
    from wavefront.distributed import memory
    from wavefront.errors import GPUMemoryError

    sb = SimpleNamespace(piece=1024, n_col=4096, n_row=1024, rows=4, dtype=np.dtype(np.float32), index64=False,
                         width=1, chunk_capacity=3, wide=False)
    assert gpu_sssp._Workspace.bytes_for(sb) == memory.sssp_workspace_bytes(1024, 4096, 4, 4, 4, 1, 3)
    n, arcs = 1 << 20, 32 << 20
    one = memory.sssp_bytes_for(n, arcs, 1)
    assert one > 4 * arcs  # one copy of the weights on a block that is its own transpose
    assert memory.sssp_bytes_for(n, arcs, 2) > 2 * 4 * arcs // 2  # CSR and CSC orders on more than one rank
    both = memory.block_bytes_for(n, arcs, 1, 1, 1) + one + cuda_memory.SAFETY_BYTES
    assert memory.sssp_grid_needed_for(n, arcs, both) == (1, 1)
    tight = memory.sssp_grid_needed_for(n, arcs, both - one // 2)
    assert tight is not None and tight[1] == 1 and tight[0] > 1  # the suggestion is one column: the SSSP's least memory a rank
    assert memory.grid_needed_for(n, arcs, both - one // 2) == (1, 1)  # the BFS alone still fits one GPU
    assert memory.sssp_grid_needed_for(n, arcs, 2**20) is None

    dist = wd.kronecker(10, grid=ProcessGrid(world=SelfTransport()), weighted=True)
    extras = memory.sssp_bytes_for(dist.n, dist.m, 1)
    free = cuda_memory.SAFETY_BYTES + extras // 2
    with pytest.raises(GPUMemoryError) as info:
        gpu_sssp._check_fits_on_every_rank(dist, extras, free_bytes=free)
    empty = free + memory.block_bytes_for(dist.n, dist.m, 1, 1, 1, dist.local_arcs)
    assert info.value.grid_needed == memory.sssp_grid_needed_for(dist.n, dist.m, empty)
    assert info.value.gpus_needed > 1 and f"mpirun -n {info.value.gpus_needed}" in str(info.value)


def test_gpu_sssp_memory_model_on_wide_grids():
    """More than one column adds the fold's side (memory.sssp_grid_bytes) to the workspace."""
    from wavefront.distributed import memory

    one = SimpleNamespace(piece=1024, n_col=2048, n_row=1024, rows=2, dtype=np.dtype(np.float32), index64=False,
                          width=1, chunk_capacity=3, wide=False)
    wide = SimpleNamespace(**{**vars(one), "n_row": 2048, "wide": True})
    extra = memory.sssp_grid_bytes(2048, 2048, 4, 4, 1)
    assert gpu_sssp._Workspace.bytes_for(wide) == gpu_sssp._Workspace.bytes_for(one) + extra
    assert extra >= 2048 * (4 + 4 + 4 + 2 * 4 + 16) + (2048 + 2048) * (8 + 4 + 8 + 4)
    assert memory.sssp_grid_bytes(2048, 2048, 8, 4, 2) > extra  # two words an entry, wider distances


def test_run_graph500_takes_gpu_sssp_on_a_wide_grid_to_the_gpu_check():
    """No grid is refused: on a machine without a GPU the run stops at the GPU check, not at the grid."""
    from wavefront.backends import cuda_available

    if cuda_available():
        pytest.skip("a GPU is here: the run would go on")
    grid = SimpleNamespace(rows=1, cols=2, world=SelfTransport())
    with pytest.raises(BackendUnavailableError, match="(?i)cuda|gpu"):
        wd.run_graph500(8, grid=grid, backend="cuda", kernels="bfs,sssp")


def _packed_by_the_kernel_file(weight_code: int, index64: bool, tmp_path) -> int:
    """OC_PACKED of kernels/sssp_delta_2d.cu as the preprocessor sees it."""
    probe = tmp_path / "probe.cc"
    probe.write_text('#include "sssp_delta_2d.cu"\n#if OC_PACKED\nWF_PACKED_IS 1\n#else\nWF_PACKED_IS 0\n#endif\n')
    out = subprocess.run(["g++", "-E", "-P", "-x", "c++", f"-I{KERNEL_DIR}", f"-DWF_INDEX64={int(index64)}",
                          f"-DSSSP_WEIGHT={weight_code}", str(probe)],
                         capture_output=True, text=True, check=True).stdout
    line = next(line for line in out.splitlines() if line.startswith("WF_PACKED_IS"))
    return int(line.split()[1])


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++ to preprocess the kernel file")
@pytest.mark.parametrize("index64", [False, True])
@pytest.mark.parametrize("weight_code, dist", [
    (abi.SSSP_WEIGHT_FLOAT32, np.float32), (abi.SSSP_WEIGHT_FLOAT64, np.float64),
    (abi.SSSP_WEIGHT_INT32, np.int64), (abi.SSSP_WEIGHT_INT64, np.int64), (abi.SSSP_WEIGHT_NONE, np.int64),
])
def test_frontier_width_is_the_kernels_packing_rule(weight_code, dist, index64, tmp_path):
    packed = _packed_by_the_kernel_file(weight_code, index64, tmp_path)
    assert gpu_sssp.frontier_width(dist, index64) == (1 if packed else 2)


def test_validate_wrapper_passes_a_host_result_through():
    """gpu_sssp.validate takes CPU-rank results too (the same validator)."""
    dist = wd.kronecker(9, grid=ProcessGrid(world=SelfTransport()), weighted=True)
    root = int(wd.choose_roots(dist, 1)[0])
    result = wd.sssp(dist, root)
    summary = gpu_sssp.validate(dist, result, dist.traversed_edges(result.reached))
    assert summary.nedge == dist.traversed_edges(result.reached) and summary.reached == int(result.reached.sum())
    result.parents[int(np.flatnonzero(result.reached & (result.parents != root))[0])] = -1
    with pytest.raises(wavefront.ValidationError):
        gpu_sssp.validate(dist, result, dist.traversed_edges(result.reached))


# -- on a GPU ---------------------------------------------------------------------------------
@cache
def _weighted(scale):
    src, dst, weights = kronecker_edges(scale)
    distributed = wd.kronecker(scale, grid=ProcessGrid(world=SelfTransport()), weighted=True)
    return (src, dst, weights), from_edges(src, dst, weights, n=1 << scale), distributed


# P = 1 through the one-column phases, as at any P (the default runs the single-GPU search there)
PHASES = wd.DistributedTuning(whole_graph_search=False)


def _check(block, dist, graph, edges, root, dtype, delta=None, tuning=PHASES):
    """One GPU search against the CPU ranks' and the single-process one; returns it."""
    result = gpu_sssp.sssp(block, root, delta=delta, tuning=tuning)
    assert isinstance(result, wd.DistributedSSSPResult) and result.backend == "cuda"
    on_cpu = wd.sssp(dist, root)
    reference = wavefront.sssp(graph, root)
    full = result.gather()
    assert full.backend == "cuda" and full.distances.dtype == reference.distances.dtype == dtype
    assert np.array_equal(full.distances, on_cpu.gather().distances)  # exact: the unique fixed point
    assert np.array_equal(full.distances, reference.distances)
    summary = gpu_sssp.validate(dist, result, dist.traversed_edges(result.reached))
    assert summary.nedge == graph.traversed_edges(reference.parents >= 0)
    assert summary.reached == int((reference.parents >= 0).sum())
    validate_sssp(edges, full, n=graph.n)
    return result


@pytest.mark.gpu
@pytest.mark.parametrize("transport", ["nccl", "mpi"])
def test_gpu_sssp_in_a_world_of_one(transport):
    from scipy.sparse.csgraph import dijkstra

    from wavefront.distributed import gpu

    edges, graph, dist = _weighted(11)
    block = gpu.to_gpu(dist, transport=transport)
    assert block.transport == transport
    for root in wd.choose_roots(dist, 3, seed=1):
        result = _check(block, dist, graph, edges, int(root), np.float32)
        expected = dijkstra(graph.to_scipy().astype(np.float64), indices=int(root))
        got = result.distances.get()[: graph.n].astype(np.float64)
        assert np.array_equal(np.isinf(got), np.isinf(expected))
        finite = np.isfinite(expected)
        np.testing.assert_allclose(got[finite], expected[finite], rtol=1e-5, atol=1e-6)
        kinds = [r.kind for r in result.trace]
        assert kinds[0] == "root" and kinds[-1] == "parents" and {"light", "heavy"} <= set(kinds)
        phases = [r for r in result.trace if r.kind in ("light", "heavy")]
        assert all(r.examined >= 0 and r.received == r.frontier_vertices for r in phases)
        assert sum(r.improved for r in phases) >= int(result.reached.sum()) - 1  # every reached vertex was lowered
        assert set(result.trace[-1].collectives) >= {"column_allgather", "fold", "allreduce"}
    # The bucket width changes the phases, never the distances.
    root = int(wd.choose_roots(dist, 1, seed=1)[0])
    narrow = _check(block, dist, graph, edges, root, np.float32, delta=1e-3)
    wide = _check(block, dist, graph, edges, root, np.float32, delta=10.0)
    assert len(narrow.trace) > len(wide.trace)
    with pytest.raises(ValueError, match="out of range"):
        gpu_sssp.sssp(block, 1 << 11)
    with pytest.raises(ValueError, match="delta"):
        gpu_sssp.sssp(block, root, delta=0.0)
    with pytest.raises(MethodLimitError, match="too small for these weights"):
        gpu_sssp.sssp(block, root, delta=1e-300)
    # The default at P = 1: the single-GPU delta-stepping on the block, the same distances, one record a bucket.
    for root in wd.choose_roots(dist, 3, seed=1):
        whole = _check(block, dist, graph, edges, int(root), np.float32, tuning=None)
        assert whole.trace[0].kind == "root" and len(whole.trace) > 1 and whole.delta > 0
        assert all(not r.collectives and r.compute_seconds >= 0 for r in whole.trace)
    assert _check(block, dist, graph, edges, root, np.float32, delta=10.0, tuning=None).delta == 10.0


def _ties(weights_dtype):
    """A graph whose shortest paths tie (zero weights, weights a float32 distance
    absorbs, a zero-weight chain): its parents need the plateau rounds."""
    rng = np.random.default_rng(5)
    k, n = 1500, 450
    src, dst = rng.integers(0, 300, k), rng.integers(0, 300, k)
    weights = rng.integers(1, 512, k).astype(np.float32) / np.float32(16)
    pick = rng.random(k)
    weights[pick < 0.12] = 0
    weights[(pick >= 0.12) & (pick < 0.2)] = np.float32(2.0**-27)
    chain = np.arange(400, n - 1)
    src, dst = np.concatenate((src, chain, [3])), np.concatenate((dst, chain + 1, [400]))
    weights = np.concatenate((weights, np.zeros(chain.shape[0], np.float32), [np.float32(2.5)]))
    if weights_dtype == np.int32:
        weights = (weights * 16).astype(np.int32)
    return (src, dst, weights), from_edges(src, dst, weights, n=n)


@pytest.mark.gpu
@pytest.mark.parametrize("weights_dtype, dtype", [(np.float32, np.float32), (np.int32, np.float64)])
def test_gpu_sssp_ties_take_the_plateau_rounds(weights_dtype, dtype):
    from wavefront.distributed import gpu

    edges, graph = _ties(weights_dtype)
    dist = wd.from_edges(*edges[:2], graph.n, ProcessGrid(world=SelfTransport()), weights=edges[2])
    block = gpu.to_gpu(dist, transport="mpi")
    rounds = [_check(block, dist, graph, edges, root, dtype).parent_rounds for root in (0, 11, 420)]
    assert max(rounds) > 1


@pytest.mark.gpu
def test_gpu_sssp_counts_hops_on_an_unweighted_graph():
    from wavefront.distributed import gpu

    dist = wd.kronecker(10, grid=ProcessGrid(world=SelfTransport()))
    block = gpu.to_gpu(dist, transport="mpi")
    root = int(wd.choose_roots(dist, 1, seed=1)[0])
    hops = gpu_sssp.sssp(block, root).gather()
    levels = wd.bfs(dist, root).gather().levels
    assert hops.distances.dtype == np.float64
    assert np.array_equal(hops.distances, np.where(levels >= 0, levels, np.inf))
    assert np.array_equal(hops.parents >= 0, levels >= 0)


@pytest.mark.gpu
@pytest.mark.parametrize("transport", ["mpi", "nccl"])
def test_mpirun_gpu_sssp_on_a_column_of_two(transport, tmp_path):
    """2 ranks, grid 2x1: one GPU each where there are two (NCCL), else
    sharing one through host staging."""
    import cupy

    if transport == "nccl" and cupy.cuda.runtime.getDeviceCount() < 2:
        pytest.skip(f"NCCL needs a GPU per rank: 2 ranks, {cupy.cuda.runtime.getDeviceCount()} GPU(s)")
    out = tmp_path / "summary.json"
    done = mpirun(2, sys.executable, SCRIPTS / "check_gpu_sssp.py", "--scale", 11, "--roots", 2,
                  "--transport", transport, "--out", out, timeout=400)
    assert done.returncode == 0, done.stderr[-3000:]
    summary = json.loads(out.read_text())
    assert summary["size"] == 2 and summary["grid"] == [2, 1] and summary["transport"] == transport
    assert summary["kronecker"]["searches"] == 2
    assert summary["kinds"] == ["heavy", "light", "parents", "root"] and summary["trace_ranks"] == [0, 1]
    assert summary["column_bytes"] > 0  # the frontiers went over the column
    for label in ("ties_float32", "ties_int32"):
        assert summary[label]["searches"] == 3 and summary[label]["parent_rounds"] > 1


@pytest.mark.gpu
@pytest.mark.parametrize("size, shape, transport", [(2, "1x2", "mpi"), (2, "1x2", "nccl"), (4, "2x2", "mpi"),
                                                   (4, "2x2", "nccl")])
def test_mpirun_gpu_sssp_on_grids_of_more_than_one_column(size, shape, transport, tmp_path):
    """The fold on the device: 1x2 (the transpose is each rank's own) and
    2x2 (a pairwise transpose, two ranks a row and a column; over host
    staging four ranks can share fewer GPUs, over NCCL they need four).
    Distances exact, parents valid, plateau rounds on the ties graphs,
    offers over the grid row."""
    import cupy

    if transport == "nccl" and cupy.cuda.runtime.getDeviceCount() < size:
        pytest.skip(f"NCCL needs a GPU per rank: {size} ranks, {cupy.cuda.runtime.getDeviceCount()} GPU(s)")
    out = tmp_path / "summary.json"
    done = mpirun(size, sys.executable, SCRIPTS / "check_gpu_sssp.py", "--scale", 11, "--roots", 2,
                  "--transport", transport, "--grid", shape, "--out", out, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    summary = json.loads(out.read_text())
    assert summary["size"] == size and summary["grid"] == [int(k) for k in shape.split("x")]
    assert summary["kronecker"]["searches"] == 2
    assert summary["kinds"] == ["heavy", "light", "parents", "root"]
    assert summary["fold_bytes"] > 0  # offers went to the owners over the grid row
    assert (summary["transpose_bytes"] > 0) == (shape == "2x2")  # on one grid row every rank holds its own place
    for label in ("ties_float32", "ties_int32"):
        assert summary[label]["searches"] == 3 and summary[label]["parent_rounds"] > 1


@pytest.mark.gpu
def test_mpirun_cli_graph500_on_a_gpu_grid_of_two_columns(tmp_path):
    """``mpirun -n 2 wavefront graph500 --backend cuda --grid 1x2``: both
    kernels on the GPUs (host staging, so two ranks may share one), every
    search validated, the SSSP's phases folding over the grid row."""
    path = tmp_path / "report.json"
    done = mpirun(2, sys.executable, "-m", "wavefront", "graph500", "--scale", 10, "--roots", 4, "--backend", "cuda",
                  "--transport", "mpi", "--grid", "1x2", "--kernels", "bfs,sssp", "--no-progress", "--json", path,
                  timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    values = check_report(done.stdout, 2, 10, 4, ("bfs", "sssp"), backend="cuda")
    assert values["process_grid"] == "1x2"
    data = json.loads(path.read_text())
    assert data["valid"] and data["num_mpi_processes"] == 2 and len(data["kernels"]["sssp"]["searches"]) == 4
    phases = data["kernels"]["sssp"]["trace"]
    assert {row["rank"] for row in phases} == {0, 1}
    assert any(row["collectives"].get("fold", {}).get("bytes_out", 0) > 0 for row in phases)


@pytest.mark.gpu
def test_cli_distributed_gpu_graph500_runs_both_kernels_in_one_process(capsys, tmp_path):
    path = tmp_path / "report.json"
    status = main(["graph500", "--scale", "10", "--roots", "4", "--backend", "cuda", "--kernels", "bfs,sssp",
                   "--distributed", "--no-progress", "--json", str(path)])
    out, err = capsys.readouterr()
    assert status == 0, err
    lines = {line.split(":")[0]: line[32:].strip() for line in out.splitlines() if ":" in line}
    assert lines["num_mpi_processes"] == "1" and lines["backend"] == "cuda"
    assert "sssp median_TEPS" in lines and "bfs  median_TEPS" in lines
    data = json.loads(path.read_text())
    assert data["valid"] and len(data["kernels"]["sssp"]["searches"]) == 4
    phases = data["kernels"]["sssp"]["trace"]
    # P = 1 runs the single-GPU delta-stepping: the root, then one record a bucket, no collective
    assert phases[0]["kind"] == "root" and {row["kind"] for row in phases[1:]} == {"bucket"}
    assert not any(row["collectives"] for row in phases)


def test_the_benchmark_checks_its_delta_multiples_at_parse_time():
    """benchmarks/distributed_gpu_sssp.py --ab-delta (``_common.number_list``):
    positive numbers, refused before any graph is built (exit 2)."""
    import argparse
    import subprocess
    from pathlib import Path

    from benchmarks._common import number_list

    factors = number_list(float, minimum=0)
    assert factors("1,2,4") == [1.0, 2.0, 4.0]
    assert factors("0.5") == [0.5]
    for bad in ("1,0", "-2", "1,x", "", "nan"):
        with pytest.raises(argparse.ArgumentTypeError):
            factors(bad)
    assert number_list(int, minimum=1)("17,18") == [17, 18]
    with pytest.raises(argparse.ArgumentTypeError, match="int"):
        number_list(int)("1.5")
    script = Path(__file__).resolve().parents[1] / "benchmarks" / "distributed_gpu_sssp.py"
    done = subprocess.run([sys.executable, str(script), "--scale", "10", "--ab-delta", "1,0"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "--ab-delta" in done.stderr


@pytest.mark.gpu
def test_gpu_sssp_default_delta_widens_for_weights_spanning_many_decades():
    """Weights from 0.1 to 1e300 through the one-column phases: the block's
    default bucket width would put distances past int64, where the kernels'
    bucket numbers saturate into NO_BUCKET and end the search early. The
    default widens to fit (sssp2d.checked_delta), as the CPU ranks' does."""
    from wavefront.distributed import gpu

    rng = np.random.default_rng(11)
    n, m = 3000, 12000
    src, dst, weights = rng.integers(0, n, m), rng.integers(0, n, m), rng.choice([1.0, 0.1, 1e300], m)
    dist = wd.from_edges(src, dst, n, grid=ProcessGrid(world=SelfTransport()), weights=weights)
    expected = wavefront.sssp(from_edges(src, dst, weights, n=n), 0, method="dijkstra").distances
    assert (expected > 1e299).any() and np.isfinite(expected).sum() > 100
    result = gpu_sssp.sssp(gpu.to_gpu(dist, transport="mpi"), 0, tuning=PHASES)
    got = result.gather().distances
    np.testing.assert_array_equal(np.isfinite(got), np.isfinite(expected))
    np.testing.assert_allclose(got, expected, rtol=1e-12)
