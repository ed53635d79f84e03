"""The host memory check of a CPU Graph500 run: refused up front with a typed
error (exit 2) naming the estimate, the memory available and the largest
SCALE that fits; the estimate bounds a measured peak from above."""
import subprocess
import sys

import pytest

from wavefront.errors import HostMemoryError
from wavefront.graph500.memory import (
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
                          capture_output=True, text=True, timeout=120)
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
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
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
    one = distributed_peak_bytes(26, 16, 1)
    with pytest.raises(HostMemoryError) as info:  # SCALE 26 in one rank on a 128 GB host: the OOM seen
        check_distributed_host_memory(26, 16, ranks=1, ranks_here=1, available=120 << 30)
    assert info.value.needed_bytes == one and "1 of 1 ranks" in str(info.value)
    assert "largest SCALE that fits on 1 ranks is 25" in str(info.value)
    assert "about 2 ranks" in str(info.value)


def test_distributed_cli_refuses_a_scale_that_cannot_fit():
    done = subprocess.run([sys.executable, "-m", "wavefront", "graph500", "--scale", "40", "--distributed",
                           "--backend", "cpu", "--no-progress"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and done.stdout == ""
    assert "distributed Graph500 SCALE 40" in done.stderr and "host memory" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/status")
def test_the_distributed_estimate_bounds_a_measured_peak():
    """One rank of the distributed run at SCALE 16."""
    peak = measured_peak("graph500", "--scale", "16", "--distributed", "--backend", "cpu", "--no-progress",
                         "--roots", "4")
    assert peak <= distributed_peak_bytes(16, 16, 1), (peak, distributed_peak_bytes(16, 16, 1))
