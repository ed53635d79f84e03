"""The adaptive SSSP mode-switch policy (seed 001 algorithm 4) on synthetic phase times."""
import math

import pytest

from wavefront.sssp.policy import (
    AdaptiveModePolicy,
    FixedModePolicy,
    ThresholdCache,
    calibrate_thresholds,
    fit_line,
    size_class,
)

US = 1e-6


def replay(policy, phase_times):
    """Drive the policy like the backend does; the time depends on the mode run."""
    mode = policy.initial_mode
    modes = []
    for times in phase_times:
        modes.append(mode)
        mode, _ = policy.next_mode(mode, times[mode])
    return modes


def test_starts_in_frontier_and_switches_up_on_the_two_phase_average():
    p = AdaptiveModePolicy(up=100 * US, down=80 * US)
    assert p.initial_mode == "frontier"
    assert p.next_mode("frontier", 90 * US)[0] == "frontier"
    # 90 and 120 average 105 > 100: switch, although 120 alone would too
    mode, reason = p.next_mode("frontier", 120 * US)
    assert mode == "all" and "up" in reason


def test_single_spike_does_not_switch():
    p = AdaptiveModePolicy(up=100 * US, down=80 * US)
    p.next_mode("frontier", 20 * US)
    assert p.next_mode("frontier", 170 * US)[0] == "frontier"  # average 95


def test_switches_back_under_down_threshold_with_hysteresis():
    p = AdaptiveModePolicy(up=100 * US, down=80 * US)
    times = [{"frontier": f, "all": a} for f, a in
             [(40, 90), (150, 90), (150, 90), (150, 85), (150, 70), (30, 60), (30, 60), (30, 90)]]
    times = [{k: v * US for k, v in t.items()} for t in times]
    modes = replay(p, times)
    # Averages: phase 1 (40+150)/2 = 95 stays; phase 2's 150 > 100 goes "all";
    # phase 3 (150+85)/2 stays "all"; phase 4 (85+70)/2 = 77.5 < 80 comes back.
    assert modes == ["frontier", "frontier", "frontier", "all", "all", "frontier", "frontier", "frontier"]


def test_window_one_uses_each_phase_alone():
    p = AdaptiveModePolicy(up=100 * US, down=80 * US, window=1)
    p.next_mode("frontier", 10 * US)
    assert p.next_mode("frontier", 101 * US)[0] == "all"


def test_invalid_thresholds_are_rejected():
    with pytest.raises(ValueError, match="up threshold"):
        AdaptiveModePolicy(up=1 * US, down=2 * US)
    with pytest.raises(ValueError, match="NaN"):
        AdaptiveModePolicy(up=math.nan, down=0.0)
    with pytest.raises(ValueError, match="mode"):
        FixedModePolicy("sometimes")


def test_zero_up_threshold_starts_all_vertex():
    p = AdaptiveModePolicy(up=0.0, down=0.0)
    assert p.initial_mode == "all"
    assert p.next_mode("all", 1 * US) == ("all", "")


def test_fixed_policy_never_switches():
    p = FixedModePolicy("all")
    assert p.initial_mode == "all"
    assert p.next_mode("all", 1.0) == ("all", "fixed")


def test_fit_line_recovers_a_line():
    a, b = fit_line([(k, 5e-6 + 2e-9 * k) for k in (0, 10, 1000, 50_000)])
    assert a == pytest.approx(5e-6) and b == pytest.approx(2e-9)
    assert fit_line([(3, 1.0), (3, 3.0)]) == (2.0, 0.0)
    with pytest.raises(ValueError):
        fit_line([])


def test_calibration_puts_thresholds_around_the_crossing():
    # frontier: 10 us + 1 ns/vertex; all: 40 us + 0.25 ns/vertex -> cross at 40 000
    # vertices, where both take 50 us.
    ks = [0, 1_000, 20_000, 100_000, 400_000]
    frontier = [(k, 10 * US + 1e-9 * k) for k in ks]
    all_ = [(k, 40 * US + 0.25e-9 * k) for k in ks]
    up, down = calibrate_thresholds(frontier, all_, hysteresis=0.1)
    assert up == pytest.approx(55 * US) and down == pytest.approx(45 * US)
    p = AdaptiveModePolicy(up, down, window=1)
    assert p.next_mode("frontier", 10 * US + 1e-9 * 30_000)[0] == "frontier"
    assert p.next_mode("frontier", 10 * US + 1e-9 * 60_000)[0] == "all"


def test_calibration_edge_cases():
    frontier_always_better = calibrate_thresholds([(0, 1 * US), (10, 2 * US)], [(0, 5 * US), (10, 9 * US)])
    assert frontier_always_better == (math.inf, 0.0)
    all_always_better = calibrate_thresholds([(0, 9 * US), (10, 19 * US)], [(0, 1 * US), (10, 2 * US)])
    assert all_always_better == (0.0, 0.0)


def test_calibration_needs_a_worthwhile_saving():
    # frontier saves 10 % at k = 0 (18 vs 20 us): below the default 15 %, so
    # all-vertex phases only; with min_saving=0.05 it switches near 8 000 vertices.
    ks = [0, 1_000, 20_000, 100_000]
    frontier = [(k, 18 * US + 0.5e-9 * k) for k in ks]
    all_ = [(k, 20 * US + 0.25e-9 * k) for k in ks]
    assert calibrate_thresholds(frontier, all_) == (0.0, 0.0)
    up, down = calibrate_thresholds(frontier, all_, hysteresis=0.0, min_saving=0.05)
    assert up == down == pytest.approx(22 * US)


def test_measured_search_picks_the_thresholds():
    from wavefront.sssp.policy import ALL_ONLY, FRONTIER_ONLY, pick_thresholds

    fitted = (30 * US, 20 * US)
    assert pick_thresholds(fitted, 10.0, 9.0, 8.0) == fitted
    assert pick_thresholds(fitted, 10.0, 9.0, 9.5) == ALL_ONLY
    assert pick_thresholds(fitted, 7.0, 9.0, 8.0) == FRONTIER_ONLY
    assert pick_thresholds(fitted, 10.0, 9.0, None) == ALL_ONLY
    # all-vertex phases stay unless another policy wins by more than the margin
    assert pick_thresholds(fitted, 10.0, 9.0, 8.8) == ALL_ONLY
    assert pick_thresholds(fitted, 10.0, 9.0, 8.8, margin=0.0) == fitted
    # The chosen thresholds do what they say.
    assert AdaptiveModePolicy(*ALL_ONLY).initial_mode == "all"
    assert AdaptiveModePolicy(*ALL_ONLY).next_mode("all", 0.0)[0] == "all"
    assert AdaptiveModePolicy(*FRONTIER_ONLY).initial_mode == "frontier"
    assert AdaptiveModePolicy(*FRONTIER_ONLY).next_mode("frontier", 1e9)[0] == "frontier"


def test_size_class_and_cache():
    assert size_class(1_400_000, 4_500_000) == size_class(1_300_000, 4_300_000)
    assert size_class(1_400_000, 4_500_000) != size_class(150_000, 350_000)
    cache = ThresholdCache()
    assert cache.get("k") is None
    cache.put("k", (2, 1))
    assert cache.get("k") == (2.0, 1.0)
    cache.clear()
    assert cache.get("k") is None


def test_delta_stepping_defaults_follow_graph_shape():
    """Road networks get wide buckets and chaining, skewed graphs the light/heavy split."""
    from wavefront.backends.cuda.sssp import ROAD_TUNING, SKEWED_TUNING, tuning_for
    from wavefront.generators import grid, kronecker

    assert tuning_for(grid(30, 30)) is ROAD_TUNING
    assert tuning_for(kronecker(10, seed=1)) is SKEWED_TUNING
    assert SKEWED_TUNING.light_heavy and not ROAD_TUNING.light_heavy
    assert ROAD_TUNING.asynchronous and not SKEWED_TUNING.asynchronous


def test_asynchronous_delta_narrows_with_graph_size():
    """Small road graphs get the widest buckets, large ones the narrowest, 1/n between."""
    from wavefront.backends.cuda.sssp import (ASYNC_WIDEST_SCALE, ASYNC_WIDEST_UP_TO, ROAD_TUNING,
                                              SKEWED_TUNING, delta_scale, default_delta)
    from wavefront.generators import grid, kronecker

    small, mid, large = grid(100, 100), grid(400, 400, weights="integer"), grid(1500, 1500)
    assert delta_scale(small) == ASYNC_WIDEST_SCALE
    assert delta_scale(mid) == pytest.approx(ASYNC_WIDEST_SCALE * ASYNC_WIDEST_UP_TO / mid.n)
    assert delta_scale(large) == ROAD_TUNING.delta_scale
    assert delta_scale(small) > delta_scale(mid) > delta_scale(large)
    k = kronecker(10, seed=1)
    assert delta_scale(k) == SKEWED_TUNING.delta_scale
    mean_degree = mid.m / mid.n
    assert default_delta(mid) == pytest.approx(delta_scale(mid) * float(mid.weights.mean()) * 32
                                               / mean_degree)


def test_bucket_trace_sums_each_bucket():
    """The GPU kernels' per-iteration rows (kind, count, bucket, end ns) become
    one trace row per bucket: vertices relaxed by near iterations (kind 0) and
    asynchronous phases (kind 5) only, seconds from the timer, the iteration
    count, and a note when the kernel wrote more rows than the trace holds."""
    import numpy as np

    from wavefront.backends.cuda.sssp import TRACE_CAPACITY, _bucket_trace

    rows = np.array([
        [0, 5, 0, 1_000],    # bucket 0: two near iterations and a heavy step
        [0, 7, 0, 3_000],
        [3, 9, 0, 4_000],    # heavy: not counted as relaxed vertices
        [1, 2, 0, 6_000],    # the split after it belongs to bucket 0 too
        [0, 4, 1, 7_000],    # bucket 1
        [2, 0, 2, 10_000],   # end row: its time closes the last iteration
    ], dtype=np.int64)
    trace = _bucket_trace(rows, 5, 0.25)
    assert [r.step for r in trace] == [0, 1]
    assert [r.frontier for r in trace] == [12, 4]
    assert [r.kind for r in trace] == ["bucket", "bucket"]
    assert trace[0].seconds == pytest.approx(6e-6) and trace[1].seconds == pytest.approx(3e-6)
    assert trace[0].reason == "bucket 0 (delta 0.25): 4 iterations"
    assert type(trace[0].frontier) is int and type(trace[0].seconds) is float

    phases = np.array([[5, 30, 0, 0], [1, 3, 0, 500], [5, 11, 1, 600], [2, 0, 2, 900]], dtype=np.int64)
    trace = _bucket_trace(phases, TRACE_CAPACITY + 7, 2.0, asynchronous=True)
    assert [r.frontier for r in trace] == [30, 11]
    assert trace[1].reason.startswith("bucket 1 (delta 2): asynchronous")
    assert trace[-1].reason.endswith(f"trace truncated after {TRACE_CAPACITY} of {TRACE_CAPACITY + 7} iterations")
    assert len(_bucket_trace(rows[:1], 0, 1.0)) == 0
