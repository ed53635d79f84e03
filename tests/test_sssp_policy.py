"""The adaptive SSSP mode-switch policy (seed 001 algorithm 4) on synthetic phase
times, and the CUDA SSSP's host-side choices that need no GPU: delta-stepping's
defaults by graph shape, the bucket trace, and SSSPTuning's kernel defines."""
import math
import re

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
    assert cache.get("k") == (2.0, 1.0) and cache.reason("k") == ""
    cache.put("k", (3, 1), "calibration: kept switching")
    assert cache.get("k") == (3.0, 1.0) and cache.reason("k") == "calibration: kept switching"
    cache.clear()
    assert cache.get("k") is None and cache.reason("k") == ""


def test_calibration_says_why_it_kept_its_thresholds():
    """Issue 18 item 5: when calibration cannot place a switch, or the switch
    it placed loses when timed, the reason names the fit and the timed
    searches, and which policy was kept."""
    from wavefront.sssp.policy import ALL_ONLY, FRONTIER_ONLY, explain_thresholds, pick_thresholds

    fitted = (30 * US, 20 * US)
    kept = pick_thresholds(fitted, 10e-3, 9e-3, 8e-3)
    why = explain_thresholds(fitted, kept, 10e-3, 9e-3, 8e-3)
    assert why == ("calibration: the fit put the switch at up 30.0 us / down 20.0 us; timed all-vertex 9.00 ms, "
                   "frontier 10.00 ms, switching 8.00 ms; kept switching at up 30.0 us / down 20.0 us")
    lost = explain_thresholds(fitted, pick_thresholds(fitted, 10e-3, 9e-3, 8.9e-3), 10e-3, 9e-3, 8.9e-3)
    assert lost.endswith("switching 8.90 ms; kept all-vertex phases only")
    undecided = explain_thresholds(ALL_ONLY, pick_thresholds(ALL_ONLY, 7e-3, 9e-3, None), 7e-3, 9e-3, None)
    assert "saving too little" in undecided and "switching" not in undecided.split("timed")[1]
    assert undecided.endswith("kept frontier phases only")  # the fit said all-vertex; the timed search disagreed
    never = explain_thresholds(FRONTIER_ONLY, FRONTIER_ONLY, 7e-3, 9e-3, None)
    assert "never slower" in never and never.endswith("kept frontier phases only")


def test_delta_stepping_defaults_follow_graph_shape():
    """Road networks get wide buckets and chaining, skewed graphs the light/heavy split."""
    from wavefront.backends.cuda.sssp_tuning import SSSPTuning
    from wavefront.generators import grid, kronecker

    tuning = SSSPTuning()
    road, skewed = tuning.road, tuning.skewed
    assert tuning.for_shape(grid(30, 30)) is road
    assert tuning.for_shape(kronecker(10, seed=1)) is skewed
    assert skewed.light_heavy and not road.light_heavy
    assert road.asynchronous and not skewed.asynchronous
    everything_skewed = SSSPTuning(skewed_mean_degree=0)
    assert everything_skewed.for_shape(grid(30, 30)) is everything_skewed.skewed


def test_asynchronous_delta_narrows_with_graph_size():
    """Small road graphs get the widest buckets, large ones the narrowest, 1/n between."""
    from wavefront.backends.cuda.sssp_delta import default_delta, delta_scale
    from wavefront.backends.cuda.sssp_tuning import SSSPTuning
    from wavefront.generators import grid, kronecker

    tuning = SSSPTuning()
    widest, up_to = tuning.async_widest_scale, tuning.async_widest_up_to
    small, mid, large = grid(100, 100), grid(400, 400, weights="integer"), grid(1500, 1500)
    assert delta_scale(small, tuning) == widest
    assert delta_scale(mid, tuning) == pytest.approx(widest * up_to / mid.n)
    assert delta_scale(large, tuning) == tuning.road.delta_scale
    assert delta_scale(small, tuning) > delta_scale(mid, tuning) > delta_scale(large, tuning)
    k = kronecker(10, seed=1)
    assert delta_scale(k, tuning) == tuning.skewed.delta_scale
    mean_degree = mid.m / mid.n
    assert default_delta(mid, tuning) == pytest.approx(delta_scale(mid, tuning) * float(mid.weights.mean()) * 32
                                                       / mean_degree)
    narrower = SSSPTuning(async_widest_scale=4.0)
    assert default_delta(small, narrower) == pytest.approx(default_delta(small, tuning) / 4)


def test_bucket_trace_sums_each_bucket():
    """The GPU kernels' per-iteration rows (kind, count, bucket, end ns) become
    one trace row per bucket: vertices relaxed by near iterations (kind 0) and
    asynchronous phases (kind 5) only, seconds from the timer, the iteration
    count, and a note when the kernel wrote more rows than the trace holds."""
    import numpy as np

    from wavefront.backends.cuda.sssp_common import TRACE_CAPACITY
    from wavefront.backends.cuda.sssp_common import bucket_trace as _bucket_trace

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


# -- SSSPTuning: the kernels' tuning #defines ------------------------------------------
SSSP_KERNEL_FILES = ["sssp_harish.cu", "sssp_near_far.cu", "sssp_async.cu", "sssp_regions.cu", "sssp_parents.cu"]
# Chosen per build, not tuned: the id width, the arithmetic, and whether near_far records parents.
BUILD_SELECTIONS = {"WF_INDEX64", "SSSP_WEIGHT", "SSSP_RECORDS_PARENTS"}


def _kernel_defaults(filename: str) -> dict[str, str]:
    """Each ``#ifndef NAME`` / ``#define NAME value`` default of an SSSP kernel
    file and the SSSP header it includes, as written."""
    import re

    from wavefront.backends.cuda.compile import KERNEL_DIR

    text = (KERNEL_DIR / "sssp_common.cuh").read_text() + (KERNEL_DIR / filename).read_text()
    pairs = re.findall(r"#ifndef (\w+)\n#define (\w+) ([^\n/]+)", text)
    assert pairs and all(a == b for a, b, _ in pairs)
    return {name: value.strip() for name, _, value in pairs}


@pytest.mark.parametrize("filename", SSSP_KERNEL_FILES)
def test_default_tuning_renders_the_kernels_own_defaults(filename):
    """SSSPTuning() gives each kernel file exactly the values its #ifndef
    defaults hold, so the default tuning builds the kernels that were measured."""
    from wavefront.backends.cuda.sssp_tuning import SSSPTuning

    defaults = _kernel_defaults(filename)
    rendered = SSSPTuning().defines(filename)
    assert rendered
    assert {name: str(value) for name, value in rendered.items()} == {name: defaults[name] for name in rendered}


def test_every_kernel_choice_is_abi_build_or_tuning():
    """No #ifndef default of an SSSP kernel file is out of reach: each is an ABI
    constant (abi.py), a per-build selection or a tuning field of that file
    (of some SSSP file, for sssp_common.cuh's own)."""
    from wavefront.backends.cuda import abi
    from wavefront.backends.cuda.compile import KERNEL_DIR
    from wavefront.backends.cuda.sssp_tuning import SSSPTuning

    def reachable(filename):
        return set(abi.defines(filename)) | BUILD_SELECTIONS | set(SSSPTuning().defines(filename))

    def choices(path):
        return set(re.findall(r"#ifndef (\w+)\n#define \1\b", path.read_text()))

    for filename in SSSP_KERNEL_FILES:
        assert choices(KERNEL_DIR / filename) <= reachable(filename), filename
    assert choices(KERNEL_DIR / "sssp_common.cuh") <= set().union(*map(reachable, SSSP_KERNEL_FILES))


def test_tuning_keys_caches_and_checks_its_values():
    """Frozen and hashable (it keys the kernel cache); bad values fail at once."""
    from wavefront.backends.cuda.sssp_steps import kernel_defines
    from wavefront.backends.cuda.sssp_tuning import SSSPTuning, tuning_or_default

    assert hash(SSSPTuning()) == hash(SSSPTuning()) and SSSPTuning() == SSSPTuning()
    assert SSSPTuning(async_stats=True) != SSSPTuning()
    assert SSSPTuning(async_stats=True).defines("sssp_async.cu")["AS_STATS"] == 1
    assert SSSPTuning(pull_percent=0).defines("sssp_near_far.cu")["NF_PULL_PERCENT"] == 0
    assert SSSPTuning().defines("bfs_vertex.cu") == {}
    with pytest.raises(Exception):
        SSSPTuning().harish_arcs = 8
    for bad in ({"phases_in_flight": 3}, {"async_far_buffer": 100}, {"async_far_buffer": 64},
                {"near_far_stats": 3}, {"harish_stage": 0}, {"pull_percent": -1}):
        with pytest.raises(ValueError):
            SSSPTuning(**bad)
    with pytest.raises(TypeError):
        tuning_or_default({"chain": 3})
    assert tuning_or_default(None) == SSSPTuning()
    # near_far records parents only for float32 weights and 32-bit ids, unless the tuning says not to.
    assert kernel_defines("sssp_near_far.cu", False, 0, SSSPTuning())["SSSP_RECORDS_PARENTS"] == 1
    assert kernel_defines("sssp_near_far.cu", True, 0, SSSPTuning())["SSSP_RECORDS_PARENTS"] == 0
    assert kernel_defines("sssp_near_far.cu", False, 1, SSSPTuning())["SSSP_RECORDS_PARENTS"] == 0
    assert kernel_defines("sssp_near_far.cu", False, 0, SSSPTuning(record_parents=False))["SSSP_RECORDS_PARENTS"] == 0
    assert "SSSP_RECORDS_PARENTS" not in kernel_defines("sssp_async.cu", False, 0, SSSPTuning())


@pytest.mark.parametrize("args_type, filename, kernel", [
    ("NearFarArgs", "sssp_near_far.cu", "near_far"), ("AsyncDeltaArgs", "sssp_async.cu", "async_delta")])
def test_launch_arguments_are_the_kernels_parameters_in_order(args_type, filename, kernel):
    """The named launch arguments of the persistent kernels list the kernel's
    parameters, in order (the launcher passes them as they are)."""
    from wavefront.backends.cuda import sssp_steps
    from wavefront.backends.cuda.compile import KERNEL_DIR

    source = re.sub(r"//[^\n]*", "", (KERNEL_DIR / filename).read_text())
    signature = re.search(rf"__global__ void[^(]*\([^)]*\)\s*{kernel}\(([^)]*)\)", source)
    parameters = [re.findall(r"\w+", p)[-1] for p in signature.group(1).split(",")]
    renamed = {"queue": "q"}  # a clearer name on the host for the ring counters
    fields = [renamed.get(f, f) for f in getattr(sssp_steps, args_type)._fields]
    assert fields == parameters


def test_region_tuning_checks_its_values():
    from wavefront.backends.cuda.sssp_regions import region_count, shared_bytes
    from wavefront.backends.cuda.sssp_tuning import SSSPTuning

    for bad in ({"region_threads": 32}, {"region_threads": 100}, {"region_outbox": 100},
                {"region_threads": 256, "region_outbox": 256}, {"region_delta_scale": 0},
                {"region_min_vertices": 0}, {"region_group_lanes": 3}, {"region_group_lanes": 64}):
        with pytest.raises(ValueError):
            SSSPTuning(**bad)
    assert SSSPTuning(region_threads=64, region_outbox=128).defines("sssp_regions.cu")["RG_OUTBOX"] == 128
    # One region per SM, none smaller than region_min_vertices; shared memory grows with what it holds.
    assert region_count(68_213, 132, SSSPTuning()) == 132
    assert region_count(1_000, 132, SSSPTuning()) == 3 and region_count(10, 132, SSSPTuning()) == 1
    plain = shared_bytes(517, 0, 4, 4, 4)
    assert plain % 16 == 0 and shared_bytes(517, 1308, 4, 4, 4) >= plain + 1308 * 8 + 4 * 518
    assert shared_bytes(517, 1308, 4, 4, 0) < shared_bytes(517, 1308, 4, 4, 4)


def test_auto_takes_regions_on_small_road_networks_only():
    """``auto``'s rule, on the shapes measured against delta-stepping (H100,
    132 SMs; docs/decisions/cuda-sssp.md): regions where a region holds at
    most 1 800 arcs of a graph whose out-degrees are at most 8."""
    from wavefront.backends.cuda.sssp import regions_preferred
    from wavefront.backends.cuda.sssp_tuning import SSSPTuning

    tuning = SSSPTuning()
    assert regions_preferred(68_213, 153_424, 7, 132, tuning)  # amsterdam: 0.72x delta-stepping
    assert regions_preferred(8_000, 18_400, 6, 132, tuning)  # road-like 8 k: 0.76x
    assert regions_preferred(100_000, 230_000, 8, 132, tuning)  # road-like 100 k: 0.89x
    assert not regions_preferred(148_463, 346_220, 7, 132, tuning)  # seattle: 2 623 arcs a region
    assert not regions_preferred(148_000, 473_386, 8, 132, tuning)  # road-like 148 k, 3.2 arcs a vertex: 1.44x
    assert not regions_preferred(120_000, 311_000, 8, 132, tuning)  # road-like 120 k, 2.6 a vertex: 1.13x
    assert not regions_preferred(4_096, 120_000, 900, 132, tuning)  # a hub: not road-shaped
    assert not regions_preferred(0, 0, 0, 132, tuning)
    assert regions_preferred(68_213, 153_424, 7, 66, tuning) is False  # half the SMs: 2 325 arcs a region
    assert not regions_preferred(68_213, 153_424, 7, 132, SSSPTuning(auto_regions_arcs_per_sm=0))
    with pytest.raises(ValueError, match="auto_regions_arcs_per_sm"):
        SSSPTuning(auto_regions_arcs_per_sm=-1)
