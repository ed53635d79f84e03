"""The host memory check of a CPU Graph500 run: refused up front with a typed
error (exit 2) naming the estimate, the memory available and the largest
SCALE that fits; the estimate bounds a measured peak from above."""
import json
import subprocess
import sys

import pytest

from wavefront.errors import HostMemoryError
from wavefront.graph500.memory import (
    DISTRIBUTED_BFS_BUILD,
    DISTRIBUTED_BFS_SEARCH,
    DISTRIBUTED_BFS_SSSP,
    GPU_RUNTIME_BYTES,
    MARGIN,
    RESERVE_BYTES,
    check_distributed_host_memory,
    check_host_memory,
    distributed_peak_bytes,
    largest_scale,
    peak_bytes,
)


def test_the_estimate_grows_with_the_graph_and_is_refused_when_too_big():
    assert peak_bytes(20, 16) > peak_bytes(19, 16) > peak_bytes(19, 8)
    check_host_memory(10, 16, available=64 << 30)
    with pytest.raises(HostMemoryError) as info:
        check_host_memory(30, 16, available=16 << 30)
    fits = largest_scale(16, 16 << 30)
    assert 0 < fits < 30 and peak_bytes(fits, 16) < 16 << 30 <= peak_bytes(fits + 1, 16) + (256 << 20)
    message = str(info.value)
    assert "SCALE 30" in message and "16.00 GiB is available" in message and f"largest SCALE that fits is {fits}" in message
    assert info.value.needed_bytes == peak_bytes(30, 16)
    with pytest.raises(HostMemoryError, match="no SCALE fits"):
        check_host_memory(10, 16, available=1 << 20)


def test_cli_refuses_a_scale_that_cannot_fit():
    done = subprocess.run([sys.executable, "-m", "wavefront", "graph500", "--scale", "40", "--backend", "cpu"],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 2 and done.stdout == ""
    assert "host memory" in done.stderr and "largest SCALE that fits" in done.stderr
    assert "Traceback" not in done.stderr


def measured_peak(*argv: str) -> int:
    """Peak RSS of ``wavefront ARGV`` run in a child, measured inside it: the
    high-water mark of its address space (VmHWM), not ru_maxrss, which Linux
    carries over from the process that forked it."""
    code = (
        "import re, sys\n"
        "from wavefront.cli import main\n"
        f"status = main({list(argv)!r})\n"
        "kb = int(re.search(r'VmHWM:\\s+(\\d+)', open('/proc/self/status').read()).group(1))\n"
        "print('PEAK', kb * 1024, file=sys.stderr)\n"
        "sys.exit(status)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return int(done.stderr.split("PEAK")[-1].split()[0])


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/status")
def test_the_estimate_bounds_a_measured_peak():
    """A real SCALE 14 run."""
    peak = measured_peak("graph500", "--scale", "14", "--backend", "cpu", "--no-progress", "--roots", "4")
    assert peak <= peak_bytes(14, 16), (peak, peak_bytes(14, 16))

def test_distributed_ranks_of_a_node_are_counted_together():
    # A rank holds its share of the tuples: more ranks, less each; a node
    # running 4 of them needs the four together.
    assert distributed_peak_bytes(20, 16, 4) < distributed_peak_bytes(20, 16, 1)
    check_distributed_host_memory(20, 16, ranks=4, ranks_here=4, available=64 << 30)
    one = distributed_peak_bytes(28, 16, 1)
    with pytest.raises(HostMemoryError) as info:
        check_distributed_host_memory(28, 16, ranks=1, ranks_here=1, available=120 << 30)
    assert info.value.needed_bytes == one and "1 of 1 rank on this node" in str(info.value)
    assert "largest SCALE that fits on 1 rank is 27" in str(info.value)
    # Its row and column blocks' vertices do not shrink with the tuples, so
    # two ranks are not enough.
    assert "about 4 ranks" in str(info.value)


def test_a_rank_is_counted_on_its_grid():
    """A rank holds per-vertex arrays of its row and column blocks (n/R + n/C):
    GPU runs default to one column, whose column block is every vertex, so
    four GPU ranks hold more than four on the most square grid."""
    for kernels in (("bfs",), ("bfs", "sssp")):
        square = distributed_peak_bytes(26, 16, 4, kernels, "cuda", shape=(2, 2))
        column = distributed_peak_bytes(26, 16, 4, kernels, "cuda", shape=(4, 1))
        assert square < column == distributed_peak_bytes(26, 16, 4, kernels, "cuda")
        assert distributed_peak_bytes(26, 16, 4, kernels, "cpu") == distributed_peak_bytes(
            26, 16, 4, kernels, "cpu", shape=(2, 2))
    # On two ranks the shapes hold the same (n/2 + n either way).
    assert distributed_peak_bytes(27, 16, 2, ("bfs",), "cuda", shape=(1, 2)) == distributed_peak_bytes(
        27, 16, 2, ("bfs",), "cuda")
    # The check takes the run's grid.
    available = 4 * distributed_peak_bytes(26, 16, 4, ("bfs",), "cuda", shape=(2, 2)) + RESERVE_BYTES
    check_distributed_host_memory(26, 16, 4, 4, available, ("bfs",), "cuda", shape=(2, 2))
    with pytest.raises(HostMemoryError):
        check_distributed_host_memory(26, 16, 4, 4, available, ("bfs",), "cuda", shape=(4, 1))


def test_issue_16_weak_scaling_sizes_fit_the_lent_hosts():
    """SCALE 26 on one GPU's rank (120 GB free) and SCALE 27 on two ranks of
    one 256 GB host: the sizes the issue's weak-scaling target runs, which
    the model before tuple compaction refused (165 GB for the first)."""
    check_distributed_host_memory(26, 16, ranks=1, ranks_here=1, available=120 << 30)
    check_distributed_host_memory(27, 16, ranks=2, ranks_here=2, available=250 << 30)
    with pytest.raises(HostMemoryError, match="largest SCALE that fits on 2 ranks is 27"):
        check_distributed_host_memory(28, 16, ranks=2, ranks_here=2, available=250 << 30)


def test_distributed_cli_refuses_a_scale_that_cannot_fit():
    done = subprocess.run([sys.executable, "-m", "wavefront", "graph500", "--scale", "40", "--distributed",
                           "--backend", "cpu", "--no-progress"], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 2 and done.stdout == ""
    assert "distributed Graph500 SCALE 40" in done.stderr and "host memory" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/status")
def test_the_distributed_estimate_bounds_a_measured_peak_and_its_growth():
    """One rank of the distributed run at SCALE 17 and 19: the peak under the
    estimate, and what four times the tuples add under what the estimate
    adds (the fixed part cancels, so a few bytes more per tuple fail it)."""
    peaks = {}
    for scale in (17, 19):
        peaks[scale] = measured_peak("graph500", "--scale", str(scale), "--distributed", "--backend", "cpu",
                                     "--no-progress", "--roots", "4")
        assert peaks[scale] <= distributed_peak_bytes(scale, 16, 1), (scale, peaks[scale])
    grown = peaks[19] - peaks[17]
    assert grown <= distributed_peak_bytes(19, 16, 1) - distributed_peak_bytes(17, 16, 1), peaks


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/status")
def test_the_distributed_estimate_bounds_each_rank_of_two(tmp_path):
    """Two ranks under mpirun (the exchange, non-square blocks): every rank's
    peak under the per-rank estimate at SCALE 17 and 19, and its growth
    under the estimate's."""
    from test_distributed import SCRIPTS, mpirun

    peaks = {}
    for scale in (17, 19):
        out = tmp_path / f"peaks{scale}.json"
        done = mpirun(2, sys.executable, SCRIPTS / "host_peak.py", "--scale", scale, "--out", out, timeout=600)
        assert done.returncode == 0, done.stderr[-3000:]
        peaks[scale] = max(json.loads(out.read_text())["peaks"])
        assert peaks[scale] <= distributed_peak_bytes(scale, 16, 2), (scale, peaks[scale])
    grown = peaks[19] - peaks[17]
    assert grown <= distributed_peak_bytes(19, 16, 2) - distributed_peak_bytes(17, 16, 2), peaks


def test_bfs_only_estimate_is_below_bfs_and_sssp():
    """BFS alone keeps 8-byte tuples and no SSSP structures, at every size and
    rank count (GPU blocks alike: their upload copies from pageable memory,
    leaving no pinned copy behind)."""
    for ranks in (1, 2, 3, 4, 8, 16):
        for scale in range(16, 33, 4):
            bfs = distributed_peak_bytes(scale, 16, ranks, ("bfs",))
            assert bfs < distributed_peak_bytes(scale, 16, ranks), (scale, ranks)
            # What the phases hold, margin aside, is the larger phase plus nothing.
            assert DISTRIBUTED_BFS_SEARCH.bytes(scale, 16, ranks) < DISTRIBUTED_BFS_SSSP.bytes(scale, 16, ranks)
            assert DISTRIBUTED_BFS_BUILD.bytes(scale, 16, ranks) < DISTRIBUTED_BFS_SSSP.bytes(scale, 16, ranks)
    assert distributed_peak_bytes(20, 16, 2, ("sssp", "bfs")) == distributed_peak_bytes(20, 16, 2)
    with pytest.raises(ValueError, match="kernels must be among"):
        distributed_peak_bytes(20, 16, 2, ("bfs", "pagerank"))
    with pytest.raises(ValueError, match="backend"):
        check_distributed_host_memory(20, 16, 2, 2, 1 << 40, ("bfs",), "rocm")


def test_gpu_ranks_add_the_runtimes_fixed_bytes():
    """A GPU rank holds the CPU rank's bytes plus the CUDA/CuPy/NCCL runtimes'
    (SCALE 20 on two GPU ranks peaked 613 MiB above the CPU estimate, margin
    aside), at every size, so the check refuses on GPU blocks what just fits
    on CPU ranks."""
    for scale in (16, 20, 28):
        for kernels in (("bfs",), ("bfs", "sssp")):
            cpu = distributed_peak_bytes(scale, 16, 2, kernels)
            gpu = distributed_peak_bytes(scale, 16, 2, kernels, "cuda")
            assert gpu - cpu == pytest.approx(MARGIN * GPU_RUNTIME_BYTES, abs=2)
    assert distributed_peak_bytes(20, 16, 2, ("bfs",), "cuda") >= 1356 << 20  # the measured VmHWM
    just = 2 * distributed_peak_bytes(22, 16, 2, ("bfs",)) + RESERVE_BYTES
    check_distributed_host_memory(22, 16, 2, 2, just, ("bfs",), "cpu")
    with pytest.raises(HostMemoryError, match="GPU blocks"):
        check_distributed_host_memory(22, 16, 2, 2, just, ("bfs",), "cuda")
    with pytest.raises(ValueError, match="backend"):
        distributed_peak_bytes(20, 16, 2, ("bfs",), "rocm")


def _verdict(scale, ranks, kernels, backend, available):
    try:
        check_distributed_host_memory(scale, 16, ranks, ranks, available, kernels, backend)
    except HostMemoryError as exc:
        return str(exc)
    return "fits"


def test_issue_16_projections_scale_26_to_28(capsys):
    """What the model says for the issue's sizes: SCALE 26-28 on one and two
    ranks of one host (CPU ranks and GPU blocks alike), BFS alone and both kernels,
    with 120 and 245 GiB available (the 1- and 2-GPU device hosts). Printed
    as a table (``pytest -s``), then the verdicts the decision record quotes."""
    lines = ["kernels   ranks SCALE  per rank GiB  node GiB  120 GiB  245 GiB"]
    for kernels in (("bfs",), ("bfs", "sssp")):
        for ranks in (1, 2):
            for scale in (26, 27, 28):
                each = distributed_peak_bytes(scale, 16, ranks, kernels)
                verdicts = ["fits" if _verdict(scale, ranks, kernels, "cpu", gib << 30) == "fits" else "no"
                            for gib in (120, 245)]
                lines.append(f"{','.join(kernels):9s} {ranks:5d} {scale:5d} {each / 2**30:13.1f} "
                             f"{ranks * each / 2**30:9.1f} {verdicts[0]:>8s} {verdicts[1]:>8s}")
    with capsys.disabled():
        print("\n" + "\n".join(lines))
    host = 245 << 30
    # SCALE 27 on two GPU ranks ran on the 251 GB device host: the model must let it.
    assert _verdict(27, 2, ("bfs",), "cuda", host) == "fits"
    # SCALE 28 on two ranks running BFS alone fits, on CPU ranks and on GPU
    # blocks (issue 16's graph bigger than one GPU); with SSSP it does not.
    assert _verdict(28, 2, ("bfs",), "cpu", host) == _verdict(28, 2, ("bfs",), "cuda", host) == "fits"
    refused = _verdict(28, 2, ("bfs", "sssp"), "cpu", host)
    assert "kernels bfs,sssp" in refused and "largest SCALE that fits on 2 ranks is 27" in refused
    refused = _verdict(29, 2, ("bfs",), "cuda", host)
    assert "kernels bfs, GPU blocks" in refused and "largest SCALE that fits on 2 ranks is 28" in refused
    # One rank with 120 GiB: BFS alone reaches SCALE 28.
    assert _verdict(28, 1, ("bfs",), "cpu", 120 << 30) == _verdict(28, 1, ("bfs",), "cuda", 120 << 30) == "fits"


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/status")
def test_the_bfs_only_estimate_bounds_a_measured_peak_and_its_growth():
    """One rank running BFS alone (the GPU runs' kernel) at SCALE 17 and 19:
    the peak under the BFS-only estimate, and its growth under the estimate's
    (the fixed part cancels; above about 30 bytes a tuple it fails)."""
    peaks = {}
    for scale in (17, 19):
        peaks[scale] = measured_peak("graph500", "--scale", str(scale), "--distributed", "--backend", "cpu",
                                     "--kernels", "bfs", "--no-progress", "--roots", "4")
        assert peaks[scale] <= distributed_peak_bytes(scale, 16, 1, ("bfs",)), (scale, peaks[scale])
    grown = peaks[19] - peaks[17]
    assert grown <= distributed_peak_bytes(19, 16, 1, ("bfs",)) - distributed_peak_bytes(17, 16, 1, ("bfs",)), peaks


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/status")
def test_the_bfs_only_estimate_bounds_each_rank_of_two(tmp_path):
    """Two ranks under mpirun running BFS alone: every rank's peak under the
    per-rank BFS-only estimate at SCALE 17 and 19, and its growth under the
    estimate's (about 44 bytes a tuple of the slice would fail it)."""
    from test_distributed import SCRIPTS, mpirun

    peaks = {}
    for scale in (17, 19):
        out = tmp_path / f"peaks{scale}.json"
        done = mpirun(2, sys.executable, SCRIPTS / "host_peak.py", "--scale", scale, "--kernels", "bfs",
                      "--out", out, timeout=600)
        assert done.returncode == 0, done.stderr[-3000:]
        peaks[scale] = max(json.loads(out.read_text())["peaks"])
        assert peaks[scale] <= distributed_peak_bytes(scale, 16, 2, ("bfs",)), (scale, peaks[scale])
    grown = peaks[19] - peaks[17]
    assert grown <= distributed_peak_bytes(19, 16, 2, ("bfs",)) - distributed_peak_bytes(17, 16, 2, ("bfs",)), peaks


@pytest.mark.gpu
@pytest.mark.slow
def test_gpu_blocks_host_memory_under_the_estimate(tmp_path):
    """Two ranks with GPU blocks running BFS alone (the device hosts): what the
    node's MemAvailable fell by (pinned memory included, which VmHWM may not
    count) and each rank's VmHWM under the GPU-block estimate, at
    SCALE 20 and 23, and the node's growth under the estimate's. Needs a host
    to itself: other processes move MemAvailable too."""
    from test_distributed import SCRIPTS, mpirun

    taken, peaks = {}, {}
    for scale in (20, 23):
        out = tmp_path / f"gpu{scale}.json"
        done = mpirun(2, sys.executable, SCRIPTS / "host_peak.py", "--scale", scale, "--kernels", "bfs",
                      "--backend", "cuda", "--node-memory", "--out", out, timeout=900)
        assert done.returncode == 0, done.stderr[-3000:]
        summary = json.loads(out.read_text())
        (ranks_here, taken[scale]), = summary["nodes"]
        peaks[scale] = max(summary["peaks"])
        estimate = distributed_peak_bytes(scale, 16, 2, ("bfs",), "cuda")
        print(f"SCALE {scale}: node took {taken[scale] / 2**20:.0f} MiB, largest VmHWM {peaks[scale] / 2**20:.0f} MiB, "
              f"estimate {ranks_here} x {estimate / 2**20:.0f} MiB")
        assert peaks[scale] <= estimate and taken[scale] <= ranks_here * estimate, (scale, summary)
    grown = taken[23] - taken[20]
    assert grown <= 2 * (distributed_peak_bytes(23, 16, 2, ("bfs",), "cuda")
                         - distributed_peak_bytes(20, 16, 2, ("bfs",), "cuda")), (taken, peaks)


@pytest.mark.parametrize("size", [1, 2, 3, 4])
def test_blocks_and_chunked_validation_under_mpirun(size, tmp_path):
    """Blocks equal the single-process builder's on every rank (1x1, 1x2,
    1x3, 2x2 grids; tuples exchanged in many rounds, split unevenly, narrow
    ids kept uncopied), and validation in chunks agrees with one chunk,
    naming the same first witness (tests/mpi/check_construction.py)."""
    from test_distributed import SCRIPTS, mpirun

    out = tmp_path / "summary.json"
    done = mpirun(size, sys.executable, SCRIPTS / "check_construction.py", "--out", out)
    assert done.returncode == 0, done.stderr[-3000:]
    summary = json.loads(out.read_text())
    assert summary["size"] == size and summary["blocks"] == 5 and summary["validations"] == 2
    assert summary["bfs_rule"] == summary["sssp_rule"] == "edge-reached-unreached"
