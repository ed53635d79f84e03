"""GPU SSSP (wavefront.backends.cuda.sssp) against Dijkstra oracles.

Small graphs are checked exactly against a heap Dijkstra that adds in the
search's own arithmetic (float32 for float32 weights, int64 for integers);
seattle and Kronecker graphs against SciPy. Parents must confirm every
distance in that arithmetic and form a tree rooted at the source.
"""
import heapq
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import wavefront
from wavefront.backends.cuda.sssp_tuning import SSSPTuning
from wavefront.errors import WeightError
from wavefront.graph.build import from_edges

from conftest import road_file

pytestmark = pytest.mark.gpu

METHODS = ["bellman-ford", "frontier", "adaptive", "delta-stepping", "regions", "auto"]
DTYPES = [np.float32, np.float64, np.int32, np.int64, None]


def random_graph(seed, dtype, directed, n=400, m=1600, zero_fraction=0.1):
    """Two components (ids < 300 and 300..379) plus isolated vertices 380..399."""
    rng = np.random.default_rng(seed)
    src = np.concatenate([rng.integers(0, 300, m), rng.integers(300, 380, m // 8)])
    dst = np.concatenate([rng.integers(0, 300, m), rng.integers(300, 380, m // 8)])
    k = len(src)
    if dtype is None:
        w = None
    elif np.dtype(dtype).kind == "f":
        w = rng.random(k).astype(dtype)
    elif dtype == np.int64:
        w = rng.integers(0, 10**12, k).astype(dtype)
    else:
        w = rng.integers(0, 1000, k).astype(dtype)
    if w is not None:
        w[rng.random(k) < zero_fraction] = 0
    return from_edges(src, dst, weights=w, n=n, directed=directed)


def oracle(g, source):
    """Heap Dijkstra in the search's arithmetic; returns (distances float, reached)."""
    indptr, indices = g.indptr, g.indices
    w = g.weights
    if w is None:
        add = lambda d, i: d + 1
        zero, inf = 0, None
    elif w.dtype == np.float32:
        add = lambda d, i: np.float32(d + w[i])
        zero, inf = np.float32(0), None
    elif w.dtype == np.float64:
        add = lambda d, i: d + float(w[i])
        zero, inf = 0.0, None
    else:
        add = lambda d, i: d + int(w[i])
        zero, inf = 0, None
    dist = [inf] * g.n
    dist[source] = zero
    heap = [(zero, source)]
    while heap:
        d, v = heapq.heappop(heap)
        if d != dist[v]:
            continue
        for i in range(indptr[v], indptr[v + 1]):
            u = int(indices[i])
            nd = add(d, i)
            if dist[u] is None or nd < dist[u]:
                dist[u] = nd
                heapq.heappush(heap, (nd, u))
    out_dtype = np.float32 if (w is not None and w.dtype == np.float32) else np.float64
    return np.array([np.inf if d is None else d for d in dist], dtype=out_dtype)


def check_parents(g, source, dist, parents):
    """Every reached vertex is confirmed by its parent's arc, and the parents form
    a tree rooted at the source (pointer jumping reaches it)."""
    assert parents[source] == source
    reached = np.isfinite(dist)
    assert np.array_equal(parents >= 0, reached)
    v = np.flatnonzero(reached & (np.arange(g.n) != source))
    p = parents[v]
    for vi, pi in zip(v, p):
        lo, hi = g.indptr[pi], g.indptr[pi + 1]
        hits = np.flatnonzero(g.indices[lo:hi] == vi)
        assert hits.size == 1, f"parent {pi} of {vi} has no arc to it"
        w = 1 if g.weights is None else g.weights[lo + hits[0]]
        if dist.dtype == np.float32:
            assert np.float32(dist[pi] + np.float32(w)) == dist[vi]
        elif g.weights is not None and g.weights.dtype.kind == "i":
            assert int(dist[pi]) + int(w) == int(dist[vi])
        else:
            assert dist[pi] + float(w) == dist[vi]
    anc = np.where(reached, parents, source)  # pointer doubling: 2^k steps after k rounds
    for _ in range(max(1, int(g.n).bit_length()) + 1):
        anc = anc[anc]
    assert np.all(anc == source), "the parent array has a cycle"


def run(g_gpu, source, method, **options):
    r = wavefront.sssp(g_gpu, source, method=method, **options)
    assert r.backend == "cuda"
    return r.distances.get(), r.parents.get(), r


@pytest.mark.parametrize("directed", [False, True])
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: "unweighted" if d is None else np.dtype(d).name)
@pytest.mark.parametrize("method", METHODS)
def test_matches_dijkstra(method, dtype, directed):
    g = random_graph(7, dtype, directed)
    gg = g.to("cuda")
    for source in (0, 310):
        dist, parents, _ = run(gg, source, method)
        expected = oracle(g, source)
        assert dist.dtype == expected.dtype
        np.testing.assert_array_equal(dist, expected)
        check_parents(g, source, dist, parents)
        target = int(np.flatnonzero(np.isfinite(dist))[-1])
        path = wavefront.path(wavefront.SSSPResult(source, parents, distances=dist), target)
        assert path[0] == source and path[-1] == target


@pytest.mark.parametrize("method", METHODS)
def test_zero_weight_plateaus_have_acyclic_parents(method):
    rng = np.random.default_rng(3)
    n = 300
    src, dst = rng.integers(0, n, 1500), rng.integers(0, n, 1500)
    w = (rng.random(1500) < 0.3).astype(np.int32)  # 70 % zero weights
    g = from_edges(src, dst, weights=w, n=n)
    dist, parents, _ = run(g.to("cuda"), 5, method)
    np.testing.assert_array_equal(dist, oracle(g, 5))
    check_parents(g, 5, dist, parents)


@pytest.mark.parametrize("method", METHODS)
def test_isolated_source(method):
    g = random_graph(1, np.float64, False)
    dist, parents, _ = run(g.to("cuda"), 395, method)
    assert dist[395] == 0 and parents[395] == 395
    assert np.isinf(np.delete(dist, 395)).all() and (np.delete(parents, 395) == -1).all()


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_cutoff(method, dtype):
    g = random_graph(11, dtype, False)
    full = oracle(g, 0)
    cutoff = float(np.median(full[np.isfinite(full)]))
    dist, parents, _ = run(g.to("cuda"), 0, method, cutoff=cutoff)
    expected = np.where(full <= cutoff, full, np.inf)
    np.testing.assert_array_equal(dist, expected)
    check_parents(g, 0, dist, parents)


@pytest.mark.parametrize("method", [*METHODS, "hierarchy"])
def test_cutoffs_past_every_distance_cut_nothing_with_integer_weights(method):
    """+inf and cutoffs beyond int64 act as none in the int64 arithmetic."""
    g = random_graph(13, np.int32, False)
    gg = g.to("cuda")
    full = oracle(g, 0)
    for cutoff in (float("inf"), 2.0**63, 2**70):
        dist, _, _ = run(gg, 0, method, cutoff=cutoff)
        np.testing.assert_array_equal(dist, full)


@pytest.mark.parametrize("method", [*METHODS, "hierarchy"])
def test_heavy_integer_weights_below_the_bound_run_exactly(method):
    """Weights just inside check_weights' int64 bound: the default bucket
    width (about the mean weight) must not overflow its int64 either; past
    the bound, WeightError."""
    from wavefront.errors import WeightError

    heavy = 2**60
    g = wavefront.Graph.from_edges([0, 1], [1, 2], weights=np.array([heavy, heavy], dtype=np.int64), n=3).to("cuda")
    dist, _, _ = run(g, 0, method)
    assert dist.tolist() == [0.0, float(heavy), float(2 * heavy)]
    over = wavefront.Graph.from_edges([0, 1], [1, 2], weights=np.array([2**62, 2**62], dtype=np.int64), n=3).to("cuda")
    with pytest.raises(WeightError, match="overflow int64"):
        wavefront.sssp(over, 0, method=method)


def test_many_cutoffs_keep_a_bounded_set_of_captured_phases():
    """Each cutoff value has its own captured phases; a sweep over many must
    not keep them all, and every answer stays exact."""
    from wavefront.backends.cuda.sssp_capture import MAX_CAPTURED_PHASES

    g = random_graph(12, np.int32, False)
    gg = g.to("cuda")
    full = oracle(g, 0)
    finite = np.sort(full[np.isfinite(full)])
    for cutoff in np.unique(finite)[:20]:
        dist, _, _ = run(gg, 0, "adaptive", cutoff=float(cutoff), thresholds=(2e-5, 1e-5))
        np.testing.assert_array_equal(dist, np.where(full <= cutoff, full, np.inf))
        captured = gg.derived["cuda.sssp.harish_workspace"].captured
        assert len(captured) <= MAX_CAPTURED_PHASES


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("asynchronous", [True, False])
def test_both_delta_stepping_schedules_match_dijkstra(dtype, asynchronous):
    g = random_graph(13, dtype, True)
    dist, parents, _ = run(g.to("cuda"), 0, "delta-stepping", asynchronous=asynchronous)
    np.testing.assert_array_equal(dist, oracle(g, 0))
    check_parents(g, 0, dist, parents)


@pytest.mark.parametrize("light_heavy", [True, False])
def test_recorded_parents_cross_zero_weight_plateaus(light_heavy):
    """Bulk-synchronous delta-stepping with float32 weights records each parent
    as it lowers a distance; with 70 % zero weights many parents have the
    child's own distance, and the recorded parents must still form a tree. The
    pull pass (confirm_parents) must not be needed: with
    ``require_recorded_parents`` an incomplete record raises."""
    from wavefront.backends.cuda.sssp_steps import SSSPKernels
    from wavefront.backends.cuda.sssp_tuning import SSSPTuning

    strict = SSSPTuning(require_recorded_parents=True)
    rng = np.random.default_rng(31)
    n = 300
    src, dst = rng.integers(0, n, 2000), rng.integers(0, n, 2000)
    w = np.where(rng.random(2000) < 0.3, rng.random(2000), 0).astype(np.float32)
    g = from_edges(src, dst, weights=w, n=n)
    gg = g.to("cuda")
    assert SSSPKernels.for_graph(gg, SSSPTuning()).records_parents
    assert not SSSPKernels.for_graph(gg, SSSPTuning(record_parents=False)).records_parents
    for chain in (0, 2):
        for source in (5, 77):
            dist, parents, _ = run(gg, source, "delta-stepping", asynchronous=False, tuning=strict,
                                   light_heavy=light_heavy, chain=chain, delta=0.05)
            np.testing.assert_array_equal(dist, oracle(g, source))
            check_parents(g, source, dist, parents)
    # the strict tuning does raise where the pull pass would have run: this search records nothing
    with pytest.raises(RuntimeError, match="recorded no parents"):
        run(gg, 5, "delta-stepping", asynchronous=False, tuning=SSSPTuning(record_parents=False,
                                                                        require_recorded_parents=True))


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.float64])
def test_heavy_steps_in_pull_form(monkeypatch, dtype):
    """With the pull threshold raised, every heavy step of bulk-synchronous
    delta-stepping reads the unsettled vertices' in-arcs instead of pushing
    the settled vertices' heavy arcs (directed: the CSC); same distances."""
    from wavefront.backends.cuda import sssp_common
    from wavefront.backends.cuda.abi import SSSP_TRACE_PULL
    from wavefront.backends.cuda.sssp_tuning import SSSPTuning

    kinds = []
    summarise = sssp_common.bucket_trace
    monkeypatch.setattr(sssp_common, "bucket_trace",
                        lambda rows, *a, **k: kinds.extend(rows[:-1, 0].tolist()) or summarise(rows, *a, **k))
    always_pull = SSSPTuning(pull_percent=10**6)
    for directed in (False, True):
        g = random_graph(41, dtype, directed)
        for gg in (g.to("cuda"), with_64bit_ids(g).to("cuda")):
            for source in (0, 310):
                kinds.clear()
                dist, parents, _ = run(gg, source, "delta-stepping", asynchronous=False, light_heavy=True,
                                       delta=0.1 if dtype != np.int32 else 50, tuning=always_pull)
                np.testing.assert_array_equal(dist, oracle(g, source))
                check_parents(g, source, dist, parents)
                assert SSSP_TRACE_PULL in kinds, "no heavy step ran in pull form"


@pytest.mark.parametrize("options", [{"harish_stage": 32}, {"harish_arcs": 1}, {"harish_arcs": 8}])
def test_seed001_kernel_variants_keep_answers(options):
    """A block stage smaller than a block's appends (the rest goes to NWa a
    warp at a time) and other arc batches give the same answers."""
    from wavefront.backends.cuda.sssp_tuning import SSSPTuning

    tuning = SSSPTuning(**options)
    for directed in (False, True):
        g = random_graph(14, np.int32, directed, m=6000)  # ~20 arcs a vertex
        gg = g.to("cuda")
        for method, extra in (("frontier", {}), ("bellman-ford", {}),
                              ("adaptive", {"thresholds": (2e-5, 1e-5)})):
            dist, parents, _ = run(gg, 0, method, tuning=tuning, **extra)
            np.testing.assert_array_equal(dist, oracle(g, 0))
            check_parents(g, 0, dist, parents)


def test_tunings_on_one_graph_keep_their_own_kernels():
    """Searches with different tunings on the same graph each run their own
    kernels (captured phases included), and every answer is exact."""
    from wavefront.backends.cuda.sssp_steps import SSSPKernels
    from wavefront.backends.cuda.sssp_tuning import SSSPTuning

    g = random_graph(15, np.float32, True, m=6000)
    gg = g.to("cuda")
    expected = oracle(g, 0)
    small_stage = SSSPTuning(harish_stage=32, phases_in_flight=1)
    assert SSSPKernels.for_graph(gg, small_stage) is not SSSPKernels.for_graph(gg, SSSPTuning())
    assert SSSPKernels.for_graph(gg, SSSPTuning()) is SSSPKernels.for_graph(gg, SSSPTuning())
    for tuning in (None, small_stage, None, SSSPTuning(async_hand_to_idle_lanes=False),
                   SSSPTuning(record_parents=False)):
        for method, options in [(method, {}) for method in METHODS] + [("delta-stepping", {"asynchronous": True})]:
            dist, parents, _ = run(gg, 0, method, tuning=tuning, **options)
            np.testing.assert_array_equal(dist, expected, err_msg=f"{method} {options} {tuning}")
            check_parents(g, 0, dist, parents)
    with pytest.raises(TypeError, match="SSSPTuning"):
        wavefront.sssp(gg, 0, method="delta-stepping", tuning={"chain": 3})


def test_parents_fall_back_to_the_pull_pass_without_a_record():
    """A record that misses vertices (which its invariant rules out) is not
    trusted in part: every parent then comes from the pull pass."""
    import cupy

    from wavefront.backends.cuda.sssp_common import finish_search, prepare_search
    from wavefront.backends.cuda.sssp_steps import NO_RECORD
    from wavefront.backends.cuda.sssp_tuning import SSSPTuning
    from wavefront.results import Trace

    g = random_graph(37, np.float32, True)
    gg = g.to("cuda")
    dist = cupy.asarray(oracle(g, 0))
    ar, k, _, in_weights, _ = prepare_search(gg, 0, None, SSSPTuning())
    record = cupy.full(g.n, NO_RECORD, dtype=np.uint64)
    result = finish_search(gg, 0, dist, ar, k, in_weights, Trace(), "test", record)
    check_parents(g, 0, dist.get(), result.parents.get())


def test_asynchronous_ring_wraps_and_overflows(monkeypatch):
    """A ring far smaller than the work: slots are reused many times over, and
    most pushes find it half full and go through the far pile instead."""
    from wavefront.backends.cuda import sssp_async

    g = random_graph(17, np.float64, False, n=400, m=6000)
    expected = oracle(g, 0)
    gg = g.to("cuda")
    for capacity in (64, 4096):
        monkeypatch.setattr(sssp_async, "_ring_capacity", lambda n, c=capacity: c)
        for chain in (0, 3):
            dist, parents, r = run(gg, 0, "delta-stepping", asynchronous=True, chain=chain,
                                   delta=1e9)
            np.testing.assert_array_equal(dist, expected, err_msg=f"{capacity} {chain}")
            check_parents(g, 0, dist, parents)
            relaxed = int(r.trace[-1].reason.split("; ")[-1].split()[0])
            assert relaxed >= np.isfinite(expected).sum()
            if capacity == 64:
                assert relaxed > 2 * capacity  # the ring wrapped


@pytest.mark.parametrize("hand_over", [False, True])
def test_asynchronous_hand_over_to_idle_lanes(hand_over):
    """Improved targets handed to idle lanes of the same warp (the default) or
    all sent through the ring, with chains cut short (1 hop) or not: the same
    distances as Dijkstra, on a grid and a random graph."""
    from wavefront.backends.cuda.sssp_tuning import SSSPTuning
    from wavefront.generators import grid

    tuning = SSSPTuning(async_hand_to_idle_lanes=hand_over)
    for g in (grid(60, 70, weights="integer", seed=3), random_graph(19, np.float32, True)):
        gg = g.to("cuda")
        for chain in (1, 1000):
            dist, parents, _ = run(gg, 5, "delta-stepping", asynchronous=True, chain=chain, tuning=tuning)
            np.testing.assert_array_equal(dist, oracle(g, 5), err_msg=f"chain {chain}")
            check_parents(g, 5, dist, parents)


def test_asynchronous_workspace_is_reused_and_left_clean():
    """The ring is kept with the graph between searches: every slot must be
    free again after a search, whatever the source."""
    g = random_graph(19, np.int64, False)
    gg = g.to("cuda")
    for source in (0, 310, 5):
        dist, parents, _ = run(gg, source, "delta-stepping", asynchronous=True)
        np.testing.assert_array_equal(dist, oracle(g, source))
        check_parents(g, source, dist, parents)
        ws = gg.derived["cuda.sssp.async_workspace"]
        assert bool((ws.ring[0] == -1).all())
        assert bool((ws.ring[1] == -1).all())  # int64 distances: a free slot is all ones


def test_int64_weights_that_fit_run_as_int32():
    """int64 weights below 2^31 are read as an int32 copy (same int64 sums, so
    the same answers); larger ones are read as they are."""
    g = random_graph(23, np.int32, True)
    small = from_edges(*_arcs(g), weights=g.weights.astype(np.int64), n=g.n, directed=True)
    gg = small.to("cuda")
    expected = oracle(small, 0)
    for method in METHODS:
        dist, parents, _ = run(gg, 0, method)
        np.testing.assert_array_equal(dist, expected, err_msg=method)
        check_parents(small, 0, dist, parents)
    narrow = gg.derived["cuda.sssp.int32_weights"]
    assert narrow is not None and narrow[0].dtype == np.int32
    big = random_graph(23, np.int64, True)  # weights up to 10^12
    gb = big.to("cuda")
    dist, _, _ = run(gb, 0, "delta-stepping")
    np.testing.assert_array_equal(dist, oracle(big, 0))
    assert gb.derived["cuda.sssp.int32_weights"] is None


def with_64bit_ids(g):
    """The same graph with 64-bit vertex ids (the n >= 2^31 build of the kernels)."""
    from wavefront.graph.container import Graph

    wide = Graph(
        g.indptr, g.indices.astype(np.int64), n=g.n, directed=g.directed, weights=g.weights,
        in_indptr=g.in_indptr if g.directed else None,
        in_indices=g.in_indices.astype(np.int64) if g.directed else None,
        in_weights=g.in_weights if g.directed else None, check=False,
    )
    assert wide.indices.dtype == np.int64
    return wide


@pytest.mark.parametrize("asynchronous", [True, False])
def test_int64_index_path(asynchronous):
    """64-bit vertex ids (the n >= 2^31 build of every SSSP kernel) on a small graph."""
    for directed in (False, True):
        g = random_graph(29, np.float32, directed)
        wide = with_64bit_ids(g).to("cuda")
        for method in ("delta-stepping", "bellman-ford", "frontier", "regions"):
            dist, parents, _ = run(wide, 0, method, **({"asynchronous": asynchronous}
                                                     if method == "delta-stepping" else {}))
            np.testing.assert_array_equal(dist, oracle(g, 0), err_msg=f"{method} {directed}")
            check_parents(g, 0, dist, parents)


def _arcs(g):
    src = np.repeat(np.arange(g.n), np.diff(g.indptr))
    return src, g.indices


def test_bad_options_raise():
    gg = random_graph(2, np.float32, False).to("cuda")
    with pytest.raises(ValueError, match="cutoff"):
        wavefront.sssp(gg, 0, method="delta-stepping", cutoff=-1)
    with pytest.raises(ValueError, match="delta"):
        wavefront.sssp(gg, 0, method="delta-stepping", delta=0)
    with pytest.raises(ValueError, match="chain"):
        wavefront.sssp(gg, 0, method="delta-stepping", chain=-1)
    with pytest.raises(ValueError, match="blocks_per_sm"):
        wavefront.sssp(gg, 0, method="delta-stepping", blocks_per_sm=3, asynchronous=False)
    with pytest.raises(ValueError, match="blocks_per_sm"):
        wavefront.sssp(gg, 0, method="delta-stepping", blocks_per_sm=5, asynchronous=True)
    with pytest.raises(ValueError, match="asynchronous"):
        wavefront.sssp(gg, 0, method="delta-stepping", asynchronous=True, light_heavy=True)
    with pytest.raises(TypeError):
        wavefront.sssp(gg, 0, method="bellman-ford", delta=3)
    with pytest.raises(ValueError, match="up threshold"):
        wavefront.sssp(gg, 0, method="adaptive", thresholds=(1e-6, 1e-3))
    for bad in (0, 3, True, 1.5):
        with pytest.raises(ValueError, match="in_flight"):
            wavefront.sssp(gg, 0, method="frontier", in_flight=bad)


def test_negative_and_huge_weights_are_rejected():
    g = from_edges(np.array([0, 1]), np.array([1, 2]), weights=np.array([1.0, -2.0]), n=3)
    with pytest.raises(WeightError):
        wavefront.sssp(g.to("cuda"), 0, method="delta-stepping")
    g = from_edges(np.array([0, 1]), np.array([1, 2]), weights=np.array([2**61, 1], dtype=np.int64), n=3)
    with pytest.raises(WeightError, match="overflow"):
        wavefront.sssp(g.to("cuda"), 0, method="frontier")


@pytest.mark.parametrize("in_flight", [1, 2])
def test_threshold_override_controls_modes(in_flight):
    g = random_graph(5, np.int32, False)
    gg = g.to("cuda")
    expected = oracle(g, 0)
    # To "all" after the first phase, never back: the choice takes effect on
    # the first phase not yet queued when the first one ended.
    dist, _, r = run(gg, 0, "adaptive", thresholds=(1e-9, 0.0), in_flight=in_flight)
    kinds = [row.kind for row in r.trace]
    assert kinds[:in_flight] == ["frontier"] * in_flight and set(kinds[in_flight:]) == {"all"}
    np.testing.assert_array_equal(dist, expected)
    dist, _, r = run(gg, 0, "adaptive", thresholds=(0.0, 0.0), in_flight=in_flight)  # "all" only
    assert {row.kind for row in r.trace} == {"all"}
    np.testing.assert_array_equal(dist, expected)
    dist, _, r = run(gg, 0, "adaptive", thresholds=(math.inf, 0.0), in_flight=in_flight)
    assert {row.kind for row in r.trace} == {"frontier"}
    np.testing.assert_array_equal(dist, expected)


def test_adaptive_switches_both_ways_on_road_like_graph():
    """At the seed's scale, with thresholds inside the range of measured
    all-vertex phase times, big phases run over all vertices and small ones
    over the frontier, rebuilt by SWITCH (seed 001 fig. 6). The calibrated
    policy must give the same answer, whatever it chose on this GPU."""
    from wavefront.generators import road_like

    gg = road_like(1_400_000, seed=1).to("cuda")
    conventional = wavefront.sssp(gg, 0, method="bellman-ford")
    times = np.array([row.seconds for row in conventional.trace])
    up, down = np.percentile(times, 70), np.percentile(times, 50)
    dist, parents, r = run(gg, 0, "adaptive", thresholds=(up, down))
    kinds = {row.kind for row in r.trace}
    assert {"frontier", "all", "switch"} <= kinds
    assert r.trace[0].reason.startswith("thresholds given")
    np.testing.assert_array_equal(dist, conventional.distances.get())
    np.testing.assert_array_equal(parents, conventional.parents.get())
    dist, parents, r = run(gg, 0, "adaptive", recalibrate=True)
    assert {row.kind for row in r.trace} <= {"frontier", "all", "switch"}
    # The trace says what calibration measured and kept (issue 18 item 5).
    assert r.trace[0].reason.startswith("calibration: ") and "; kept " in r.trace[0].reason
    np.testing.assert_array_equal(dist, conventional.distances.get())


def test_road_network_seattle():
    from scipy.sparse.csgraph import dijkstra

    g = wavefront.read_graph(road_file("seattle.gr.gz"))
    gg = g.to("cuda")
    expected = dijkstra(g.to_scipy().astype(np.float64), indices=0)
    for method in METHODS:
        dist, parents, _ = run(gg, 0, method)
        np.testing.assert_array_equal(dist, expected)
        reached = np.flatnonzero(np.isfinite(dist))
        assert wavefront.path(wavefront.SSSPResult(0, parents, distances=dist), reached[-1])[0] == 0


def test_auto_runs_regions_on_small_roads_and_delta_stepping_elsewhere():
    """``auto``'s rule (``regions_preferred``) on the GPU: amsterdam (1 162
    arcs a region on 132 SMs) runs ``regions``; a road-like graph of 148 k
    vertices and 3.2 arcs a vertex, a Kronecker graph, a bucket width given
    (``delta``, delta-stepping's option) or the rule turned off run
    delta-stepping; every answer is Dijkstra's."""
    from scipy.sparse.csgraph import dijkstra

    from wavefront.generators import kronecker, road_like

    cases = [(wavefront.read_graph(road_file("amsterdam.gr.gz")), {}, "regions"),
             (road_like(148_000, seed=1), {}, "delta-stepping"),
             (kronecker(12, seed=1), {}, "delta-stepping")]
    g = cases[0][0]
    cases += [(g, {"delta": 2000.0}, "delta-stepping"),
              (g, {"tuning": SSSPTuning(auto_regions_arcs_per_sm=0)}, "delta-stepping"),
              (g, {"cutoff": 5000.0}, "regions")]
    for graph, options, method in cases:
        gg = graph.to("cuda")
        full = dijkstra(graph.to_scipy().astype(np.float64), indices=3)
        cut = options.get("cutoff", np.inf)
        dist, _, r = run(gg, 3, "auto", **options)
        assert r.method == method, (graph, options)
        np.testing.assert_allclose(dist, np.where(full <= cut, full, np.inf), rtol=1e-5)


def test_auto_falls_back_to_delta_stepping_where_regions_refuse():
    """A tuning whose regions cannot fit shared memory (one region for the
    whole graph): ``auto`` runs delta-stepping, and remembers the refusal."""
    from scipy.sparse.csgraph import dijkstra

    from wavefront.errors import MethodLimitError

    from wavefront.generators import road_like

    g = road_like(20_000, seed=2, mean_degree=2.3)
    gg = g.to("cuda")
    tuning = SSSPTuning(region_min_vertices=10**9)
    with pytest.raises(MethodLimitError):
        wavefront.sssp(gg, 0, method="regions", tuning=tuning)
    expected = dijkstra(g.to_scipy().astype(np.float64), indices=0)
    for _ in range(2):
        dist, _, r = run(gg, 0, "auto", tuning=tuning)
        assert r.method == "delta-stepping"
        np.testing.assert_array_equal(dist, expected)
    assert gg.derived.get("cuda.sssp.regions_refused")


def test_kronecker_float32_graph500_rules():
    from scipy.sparse.csgraph import dijkstra

    from wavefront.generators import kronecker

    g = kronecker(11, seed=2)
    gg = g.to("cuda")
    source = int(np.argmax(np.diff(g.indptr)))
    expected = dijkstra(g.to_scipy().astype(np.float64), indices=source)
    for method in METHODS:
        dist, parents, _ = run(gg, source, method)
        assert dist.dtype == np.float32
        np.testing.assert_allclose(dist, expected, rtol=1e-5)
        check_parents(g, source, dist, parents)
        # Graph500 check: no arc shortens a distance (exact in float32).
        src = np.repeat(np.arange(g.n), np.diff(g.indptr))
        ok = np.isfinite(dist[src])
        assert np.all(np.float32(dist[src][ok] + g.weights[ok]) >= dist[g.indices[ok]])


def test_skewed_degrees_hub_chunks_and_long_batches():
    """A hub far above the near-far chunk size (1024 arcs), many vertices whose
    lists together overflow a block's batch several times, and a long path:
    every load-balancing branch of the delta-stepping kernel, against SciPy."""
    from scipy.sparse.csgraph import dijkstra

    rng = np.random.default_rng(5)
    n = 6000
    hub_dst = rng.choice(np.arange(1, n), 5000, replace=False)
    mids = rng.choice(np.arange(1, n), 700, replace=False)
    mid_src = np.repeat(mids, rng.integers(20, 900, mids.size))
    mid_dst = rng.integers(0, n, mid_src.size)
    chain = np.arange(1, 400)
    src = np.concatenate([np.zeros(hub_dst.size, dtype=np.int64), mid_src, chain])
    dst = np.concatenate([hub_dst, mid_dst, chain + 1])
    w = rng.integers(0, 50, src.size).astype(np.int32)
    g = from_edges(src, dst, weights=w, n=n)
    expected = dijkstra(g.to_scipy().astype(np.float64), indices=0)
    gg = g.to("cuda")
    for options in ({}, {"delta": 1}, {"delta": 10**6}, {"chain": 4}, {"blocks_per_sm": 2},
                    {"light_heavy": False}, {"light_heavy": True, "delta": 3, "chain": 2},
                    {"asynchronous": True}, {"asynchronous": True, "chain": 0, "delta": 1},
                    {"asynchronous": True, "blocks_per_sm": 4, "delta": 10**6}):
        dist, parents, _ = run(gg, 0, "delta-stepping", **options)
        np.testing.assert_array_equal(dist, expected, err_msg=str(options))
        check_parents(g, 0, dist, parents)


@pytest.mark.parametrize("method, options", [
    ("delta-stepping", {"delta": 1e-3}), ("delta-stepping", {"delta": 1e9}),
    ("delta-stepping", {"chain": 0}), ("delta-stepping", {"chain": 64}),
    ("delta-stepping", {"blocks_per_sm": 1}), ("delta-stepping", {"blocks_per_sm": 2}),
    ("delta-stepping", {"light_heavy": False}), ("delta-stepping", {"light_heavy": True}),
    ("delta-stepping", {"light_heavy": True, "delta": 0.05}),
    ("delta-stepping", {"asynchronous": True}), ("delta-stepping", {"asynchronous": False}),
    ("delta-stepping", {"asynchronous": True, "chain": 0}),
    ("delta-stepping", {"asynchronous": True, "chain": 1000, "delta": 1e9}),
    ("delta-stepping", {"asynchronous": True, "delta": 1e-3, "blocks_per_sm": 2}),
    ("bellman-ford", {"cuda_graphs": False}), ("frontier", {"cuda_graphs": False}),
    ("adaptive", {"cuda_graphs": False, "thresholds": (3e-5, 2e-5)}),
    ("bellman-ford", {"in_flight": 1}), ("frontier", {"in_flight": 1}),
    ("adaptive", {"in_flight": 1, "thresholds": (3e-5, 2e-5)}),
    ("adaptive", {"cuda_graphs": False, "in_flight": 1, "thresholds": (3e-5, 2e-5)}),
])
def test_options_keep_answers(method, options):
    g = random_graph(9, np.float32, True)
    dist, parents, _ = run(g.to("cuda"), 0, method, **options)
    np.testing.assert_array_equal(dist, oracle(g, 0))
    check_parents(g, 0, dist, parents)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    n=st.integers(1, 60),
    edges=st.lists(st.tuples(st.integers(0, 59), st.integers(0, 59), st.integers(0, 20)), max_size=200),
    directed=st.booleans(),
    method=st.sampled_from(["frontier", "adaptive", "delta-stepping", "regions"]),
)
def test_random_small_graphs(n, edges, directed, method):
    edges = [(a % n, b % n, w) for a, b, w in edges]
    src = np.array([e[0] for e in edges], dtype=np.int64)
    dst = np.array([e[1] for e in edges], dtype=np.int64)
    w = np.array([e[2] for e in edges], dtype=np.int32)
    g = from_edges(src, dst, weights=w, n=n, directed=directed)
    options = {"adaptive": {"thresholds": (2e-5, 1e-5)}, "regions": {"tuning": MANY_REGIONS}}.get(method, {})
    dist, parents, _ = run(g.to("cuda"), 0, method, **options)
    np.testing.assert_array_equal(dist, oracle(g, 0))
    check_parents(g, 0, dist, parents)


# Regions of a few vertices: the small test graphs cross many region boundaries.
MANY_REGIONS = SSSPTuning(region_min_vertices=3)


@pytest.mark.parametrize("variant", [{}, {"region_shared_arcs": False},
                                     {"region_threads": 64, "region_outbox": 128},
                                     {"region_delta_scale": 1e-4}, {"region_delta_scale": math.inf},
                                     {"region_stats": True}, {"region_group_lanes": 1},
                                     {"region_group_lanes": 32, "region_threads": 64, "region_outbox": 128}],
                         ids=["shared-arcs", "global-arcs", "full-outbox", "narrow-buckets", "no-order", "stats",
                              "lane-per-vertex", "warp-per-vertex"])
@pytest.mark.parametrize("directed", [False, True])
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: "unweighted" if d is None else np.dtype(d).name)
def test_regions_across_many_regions(dtype, directed, variant):
    """Every message path of kernels/sssp_regions.cu: 400 vertices in up to
    133 regions (one per SM), arcs in shared or global memory, an outbox so
    small that relaxing lanes also send themselves, buckets so narrow that
    most queued vertices wait for the floor, and no order at all."""
    g = random_graph(41, dtype, directed)
    gg = g.to("cuda")
    tuning = SSSPTuning(region_min_vertices=3, **variant)
    for source in (0, 7, 310, 390):
        dist, parents, r = run(gg, source, "regions", tuning=tuning)
        np.testing.assert_array_equal(dist, oracle(g, source), err_msg=f"source {source}")
        check_parents(g, source, dist, parents)
        assert r.method == "regions" and "regions (" in r.trace[0].reason
        assert ("per iteration" in r.trace[0].reason) == bool(variant.get("region_stats"))


def test_regions_many_sources_and_cutoff():
    g = random_graph(43, np.float32, False)
    gg = g.to("cuda")
    seeds = [0, 5, 301]
    r = wavefront.sssp(gg, sources=seeds, method="regions", tuning=MANY_REGIONS)
    expected = np.min([oracle(g, s) for s in seeds], axis=0)
    np.testing.assert_array_equal(r.distances.get(), expected)
    full = oracle(g, 0)
    cut = float(np.median(full[np.isfinite(full)]))
    dist, _, _ = run(gg, 0, "regions", cutoff=cut, tuning=MANY_REGIONS)
    np.testing.assert_array_equal(dist, np.where(full <= cut, full, np.inf))


def test_regions_repeat_on_a_grid_of_long_paths():
    """A 2-D grid (road-like depth: ~120 hops) searched twice from each of three
    sources: the buffers are reset between searches."""
    from scipy.sparse.csgraph import dijkstra

    k = 60
    ids = np.arange(k * k).reshape(k, k)
    src = np.concatenate([ids[:, :-1].ravel(), ids[:-1].ravel()])
    dst = np.concatenate([ids[:, 1:].ravel(), ids[1:].ravel()])
    w = np.random.default_rng(5).integers(1, 100, len(src)).astype(np.int32)
    g = from_edges(src, dst, weights=w, n=k * k, directed=False)
    gg = g.to("cuda")
    for source in (0, k * k // 2, k * k - 1, 0):
        expected = dijkstra(g.to_scipy().astype(np.float64), indices=source)
        dist, parents, _ = run(gg, source, "regions", tuning=SSSPTuning(region_min_vertices=16))
        np.testing.assert_array_equal(dist, expected)
