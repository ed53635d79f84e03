"""The fused delta-stepping's thread cap on small road graphs (``CPUSSSPTuning.vertices_per_thread``).

The rule (:func:`wavefront.backends.cpu._threads.fused_team`), the teams it
gives the measured road graphs, results against SciPy with the cap on and
off, Delta computed for the capped team, and the caller's numba thread
count restored afterwards. The fused BFS levels have no cap (it lost on 16
cores, docs/decisions/cpu-roads.md): they take every thread.
"""
from contextlib import contextmanager
from types import SimpleNamespace

import numba
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_cpu_bfs import assert_valid_bfs, oracle_levels
from test_cpu_sssp import assert_valid_sssp, oracle, weighted_graphs

import wavefront as wf
from wavefront.backends.cpu import bfs as cpu_bfs
from wavefront.backends.cpu import sssp as cpu_sssp
from wavefront.backends.cpu._threads import StepThreads, fused_team
from wavefront.backends.cpu.tuning import CPUBFSTuning, CPUSSSPTuning
from wavefront.generators import road_like

THREADS = min(2, numba.config.NUMBA_NUM_THREADS)  # the most this machine's tests can ask for
needs_two = pytest.mark.skipif(THREADS < 2, reason="numba has one thread: no cap can bind")


@contextmanager
def numba_threads(k):
    previous = numba.get_num_threads()
    numba.set_num_threads(k)
    try:
        yield
    finally:
        numba.set_num_threads(previous)


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 10**8), st.integers(1, 512), st.integers(0, 10**6))
def test_fused_team_is_one_thread_per_vertices_per_thread_clamped(n, available, per_thread):
    team = fused_team(n, available, per_thread)
    assert 1 <= team <= available
    if per_thread == 0:  # no cap
        assert team == available
        return
    assert team == 1 or team * per_thread <= n  # every thread has its share of vertices
    assert team == available or (team + 1) * per_thread > n  # and no more threads would


def test_measured_road_graphs_get_their_best_team_on_16_threads():
    """The SSSP teams the 16-core sweep (tuning docstring) found best."""
    sssp = CPUSSSPTuning()
    sizes = {"amsterdam": (68_213, 153_424), "seattle": (148_463, 346_220), "road1.4m": (1_400_000, 4_480_456)}
    teams = {name: cpu_sssp.fused_workers(SimpleNamespace(n=n, m=m), 16, sssp) for name, (n, m) in sizes.items()}
    assert teams == {"amsterdam": 4, "seattle": 8, "road1.4m": 16}


def test_fused_workers_keep_the_serial_thresholds_and_spare_skewed_graphs():
    sssp = CPUSSSPTuning()
    small = SimpleNamespace(n=10_000, m=sssp.serial_arcs - 1)
    assert cpu_sssp.fused_workers(small, 16, sssp) == 1
    skewed = SimpleNamespace(n=10_000, m=16 * 10_000)  # Kronecker-like: not measured, never capped
    assert sssp.skewed(skewed) and cpu_sssp.fused_workers(skewed, 16, sssp) == 16
    road = SimpleNamespace(n=68_213, m=153_424)
    assert cpu_sssp.fused_workers(road, 16, CPUSSSPTuning(vertices_per_thread=0)) == 16
    assert cpu_sssp.fused_workers(road, 3, sssp) == 3  # never more than the caller has


def test_tuning_rejects_a_bad_cap():
    with pytest.raises(ValueError, match="vertices_per_thread"):
        CPUSSSPTuning(vertices_per_thread=-1)
    with pytest.raises(ValueError, match="vertices_per_thread"):
        CPUSSSPTuning(vertices_per_thread=1.5)
    with pytest.raises(TypeError, match="vertices_per_thread"):  # the BFS cap was deleted
        CPUBFSTuning(vertices_per_thread=0)


def test_step_threads_use_team_clamps_and_restores():
    with numba_threads(THREADS):
        threads = StepThreads()
        assert threads.use_team(0) == 1 and numba.get_num_threads() == 1
        assert threads.use_team(99) == THREADS and numba.get_num_threads() == THREADS
        threads.use_team(1)
        threads.restore()
        assert numba.get_num_threads() == THREADS


CAPS = [0, 1, 20, 10**6]  # none, a thread per vertex (all threads), a few vertices each, one thread


@settings(max_examples=40, deadline=None)
@given(weighted_graphs())
def test_sssp_matches_scipy_with_the_cap_on_and_off(case):
    graph, source = case
    expected = oracle(graph, source)
    with numba_threads(THREADS):
        for cap in CAPS:
            # No serial shortcut or Dijkstra: the fused kernel runs even on these tiny graphs.
            tuning = CPUSSSPTuning(serial_arcs=0, dijkstra_max_arcs=0, vertices_per_thread=cap)
            assert_valid_sssp(graph, source, wf.sssp(graph, source, method="auto", tuning=tuning), expected)
            assert numba.get_num_threads() == THREADS


@pytest.fixture(scope="module")
def road():
    return road_like(40_000, seed=3)  # 128 000 arcs: past serial_arcs, so the cap decides the team


def _trace_threads(result, pattern):
    """The team sizes the trace rows report (``pattern`` precedes the count)."""
    counts = set()
    for row in result.trace:
        after = row.reason.split(pattern, 1)[1]
        counts.add(int(after.split(" threads", 1)[0]))
    return counts


@needs_two
def test_capped_sssp_on_a_road_runs_one_thread_with_its_delta(road):
    source = 17
    expected = oracle(road, source)
    with numba_threads(THREADS):
        capped = CPUSSSPTuning(vertices_per_thread=road.n)  # n // n: one thread
        assert cpu_sssp.fused_workers(road, THREADS, capped) == 1
        result = wf.sssp(road, source, method="delta-stepping", tuning=capped)
        assert_valid_sssp(road, source, result, expected)
        assert numba.get_num_threads() == THREADS
        assert _trace_threads(result, ", ") == {1}
        one = cpu_sssp.default_delta(road, capped, threads=1)
        assert one < cpu_sssp.default_delta(road, capped, threads=THREADS)  # the cap changes delta
        assert cpu_sssp.default_delta(road, capped) == one  # the default sees the capped team
        assert all(row.reason.startswith(f"delta={one:g}, 1 threads") for row in result.trace)

        free = CPUSSSPTuning(vertices_per_thread=0)
        result = wf.sssp(road, source, method="delta-stepping", tuning=free)
        assert_valid_sssp(road, source, result, expected)
        assert numba.get_num_threads() == THREADS
        wide = cpu_sssp.default_delta(road, free, threads=THREADS)
        assert cpu_sssp.default_delta(road, free) == wide
        assert all(row.reason.startswith(f"delta={wide:g}, ") for row in result.trace)
        assert _trace_threads(result, ", ") <= set(range(1, THREADS + 1))


@needs_two
def test_fused_bfs_levels_take_every_thread_even_on_a_small_road(monkeypatch):
    """No team sized to the graph: the fused levels ask for all of the caller's
    threads (one only below ``fused_parallel_vertices``, or ``fused_pair_vertices``
    where the caller has two). 5 000 vertices would
    have had one thread under the deleted cap of one per 8 000."""
    small = road_like(5_000, seed=4)
    source = 17
    expected = oracle_levels(small, source)
    asked = []
    original, serial = cpu_bfs.fused_levels.fused_top_down, cpu_bfs.fused_levels.serial_top_down

    def spy(*args):
        asked.append(args[-1])  # the team the driver asks for
        return original(*args)

    def serial_spy(*args):
        asked.append(1)  # a team of one runs the serial kernel
        return serial(*args)

    monkeypatch.setattr(cpu_bfs.fused_levels, "fused_top_down", spy)
    monkeypatch.setattr(cpu_bfs.fused_levels, "serial_top_down", serial_spy)
    with numba_threads(THREADS):
        every = CPUBFSTuning(fused_parallel_vertices=0, fused_pair_vertices=0)  # no serial limit, whatever the team
        for tuning, team in ((every, THREADS), (CPUBFSTuning(), 1)):
            asked.clear()
            result = wf.bfs(small, source, method="hybrid", tuning=tuning)
            assert_valid_bfs(small, source, result, expected)
            assert numba.get_num_threads() == THREADS
            assert asked and set(asked) == {team}
            fused = SimpleNamespace(trace=[row for row in result.trace if row.reason.startswith("fused")])
            assert len(fused.trace) > 50  # a road search is mostly fused levels
            assert _trace_threads(fused, "(") <= set(range(1, team + 1))


@needs_two
def test_a_pair_of_threads_runs_the_fused_levels_alone_below_its_own_limit(monkeypatch):
    """With two threads the fused levels run serially below
    ``fused_pair_vertices`` (a 140 x 140 grid: 19 600 vertices), and as a
    pair above it."""
    from wavefront.generators import grid

    g = grid(140, 140)
    expected = oracle_levels(g, 5)
    asked = []
    original, serial = cpu_bfs.fused_levels.fused_top_down, cpu_bfs.fused_levels.serial_top_down
    monkeypatch.setattr(cpu_bfs.fused_levels, "fused_top_down", lambda *args: asked.append(args[-1]) or original(*args))
    monkeypatch.setattr(cpu_bfs.fused_levels, "serial_top_down", lambda *args: asked.append(1) or serial(*args))
    with numba_threads(2):
        for tuning, team in ((CPUBFSTuning(), 1), (CPUBFSTuning(fused_pair_vertices=10_000), 2)):
            asked.clear()
            result = wf.bfs(g, 5, method="hybrid", tuning=tuning)
            assert_valid_bfs(g, 5, result, expected)
            assert asked and set(asked) == {team}


@needs_two
def test_caller_thread_count_restored_when_a_capped_search_fails(road):
    capped = CPUSSSPTuning(vertices_per_thread=road.n)
    with numba_threads(THREADS):
        with pytest.raises(ValueError, match="cutoff"):
            cpu_sssp.delta_stepping(road, 0, cutoff=-1.0, tuning=capped)
        assert numba.get_num_threads() == THREADS


@needs_two
def test_a_small_search_leaves_numba_thread_count_alone(monkeypatch):
    """Below ``reset_serial_vertices`` and the fused levels' serial limit a
    search runs on the calling thread without setting numba's thread count
    (setting it and back cost ~2 us a call); with the reset limit at 0 the
    reset runs on the team, and the count is set back after."""
    from wavefront.backends.cpu import _threads
    from wavefront.generators import grid

    g = grid(30, 30)
    expected = oracle_levels(g, 7)
    calls = []
    original = _threads.set_num_threads
    monkeypatch.setattr(_threads, "set_num_threads", lambda k: calls.append(k) or original(k))
    with numba_threads(THREADS):
        assert_valid_bfs(g, 7, wf.bfs(g, 7), expected)
        assert calls == []
        # The parallel reset on a graph this small asks for one thread (under
        # ``parallel_work``), and the caller's count comes back after.
        assert_valid_bfs(g, 7, wf.bfs(g, 7, tuning=CPUBFSTuning(reset_serial_vertices=0)), expected)
        assert calls == [1, THREADS]
        assert numba.get_num_threads() == THREADS
