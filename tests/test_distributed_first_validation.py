"""The first validation of a distributed Graph500 run does no one-time work
the warm-up could have done, and its one-time work runs on every thread.

* The endpoint routes' kernels (:func:`mark_seen`, :func:`count_seen`,
  :func:`place_seen`, built once per graph on the first validation) give
  what NumPy's ``seen[ids] = True``, ``np.flatnonzero`` and ``np.cumsum``
  gave, for any number of tasks.
* Under ``mpirun -n 2``: after the driver's warm-up, told the run's id
  dtype, constructing and validating a graph in that dtype, over many
  chunks, adds no numba specialization (no compile, no cache load), and the
  grid-wide warm-up adds none on rank 0 after its solo one (where two ranks
  would compile at once); a warm-up told the other dtype leaves the
  validation specializing, which the check sees.
"""
from __future__ import annotations

import json
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_distributed import SCRIPTS, mpirun

from wavefront.distributed import _exchange
from wavefront.distributed.grid import Partition
from wavefront.distributed.transport import SelfTransport


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(1, 3000),
    sizes=st.lists(st.integers(0, 4000), min_size=1, max_size=3),
    dtype=st.sampled_from([np.uint32, np.int64]),
    tasks=st.sampled_from([1, 2, 3, 7, 64]),
    position_dtype=st.sampled_from([np.int32, np.int64]),
    seed=st.integers(0, 2**32 - 1),
)
def test_endpoint_route_kernels_match_numpy(n, sizes, dtype, tasks, position_dtype, seed):
    from wavefront.distributed import _validate_kernels as kernels

    rng = np.random.default_rng(seed)
    # Skewed ids, as Kronecker endpoints are: most in a few vertices, some anywhere.
    arrays = [np.where(rng.random(size) < 0.5, rng.integers(0, max(1, n // 50), size),
                       rng.integers(0, n, size)).astype(dtype) for size in sizes]
    want = np.zeros(n, dtype=bool)
    for array in arrays:
        want[array] = True
    seen = np.zeros(n, dtype=bool)
    for array in arrays:
        kernels.mark_seen(array, seen)
    assert np.array_equal(seen, want)
    counts = np.empty(tasks, dtype=np.int64)
    kernels.count_seen(seen, counts)
    unique = np.empty(int(counts.sum()), dtype=np.int64)
    position = np.empty(n, dtype=position_dtype)
    kernels.place_seen(seen, np.cumsum(counts) - counts, position, unique)
    assert np.array_equal(unique, np.flatnonzero(want))
    assert np.array_equal(position, np.cumsum(want) - 1)


def test_a_world_of_one_routes_nothing():
    tuples = np.arange(5, dtype=np.uint32)
    look = _exchange.EndpointLookup(SelfTransport(), Partition.of(100, 1, 1), tuples)
    assert look.route is None
    assert len(look.remapped) == 1 and look.remapped[0] is tuples  # read at the ids themselves, nothing kept


def _added(tmp_path, name, *argv) -> dict:
    out = tmp_path / f"{name}.json"
    done = mpirun(2, sys.executable, SCRIPTS / "check_first_validation.py", "--out", out, *argv)
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(out.read_text())


def test_nothing_specializes_after_the_warm_up(tmp_path):
    # int64 ids first: rank 0's solo warm-up writes their specializations to
    # numba's cache alone, so the control below only loads them (two ranks
    # compiling one kernel at once race on its cache files, numba #4807).
    for ids in ("int64", "uint32"):
        got = _added(tmp_path, ids, "--ids", ids)
        assert got["size"] == 2 and got["ids"] == ids and got["chunks"] > 10, got
        assert min(got["reached"]) > 1, got  # the searches went somewhere: the tuple rules ran
        assert got["grid_warm_up"] == {}, f"ranks specialized together in the warm-up: {got['grid_warm_up']}"
        assert got["construction"] == {}, f"kernel 1 specialized: {got['construction']}"
        assert got["validation"] == {}, f"the first validation specialized: {got['validation']}"
    # The control: a warm-up in uint32 ids, a run in int64: the check sees the tuple kernels specialize.
    got = _added(tmp_path, "control", "--ids", "int64", "--warm-ids", "uint32")
    names = {name.rsplit(".", 1)[1] for name in got["validation"]}
    assert {"bfs_tuples", "sssp_tuples", "mark_seen"} <= names, got["validation"]


@pytest.mark.parametrize("n_pad_log", [10, 31])
def test_the_routed_kernels_load_in_the_run_dtypes(n_pad_log):
    """load_routed_kernels runs on empty arrays in the dtypes a run of that size gives them."""
    from wavefront.distributed import _validate_kernels as kernels
    from wavefront.distributed.validate import load_routed_kernels

    part = Partition.of(1 << n_pad_log, 1, 2)
    load_routed_kernels(part, np.uint32)
    positions = {str(sig[2].dtype) for sig in kernels.place_seen.signatures}
    assert "int32" in positions and ("int64" in positions or n_pad_log < 31)
