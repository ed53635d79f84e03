"""CPU SSSP (Dijkstra, delta-stepping) against scipy.sparse.csgraph.dijkstra."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.sparse import csgraph

import wavefront as wf
from wavefront.backends.cpu import sssp as cpu_sssp
from wavefront.backends.cpu.tuning import CPUSSSPTuning
from wavefront.errors import WeightError

WEIGHT_DTYPES = [np.float32, np.float64, np.int32, np.int64, None]
VARIANTS = [
    ("dijkstra", {}),
    ("delta-stepping", {}),
    ("delta-stepping", {"delta": 0.3}),  # many buckets, most arcs heavy
    ("delta-stepping", {"delta": 1e6}),  # one bin
    # Two bins per thread: most improved heads go to the overflow row.
    ("delta-stepping", {"delta": 0.05, "tuning": CPUSSSPTuning(ring=2)}),
    ("delta-stepping", {"delta": 0.3, "tuning": CPUSSSPTuning(fusion_limit=0)}),  # no bucket fusion
    ("delta-stepping", {"tuning": CPUSSSPTuning(prefetch_ahead=0)}),  # no prefetch
    ("delta-stepping", {"delta": 0.3, "tuning": CPUSSSPTuning(prefetch_ahead=1)}),  # the next vertex, both halves
    ("auto", {}),
]


def oracle(graph, source, limit=np.inf):
    return csgraph.dijkstra(graph.to_scipy(), directed=graph.directed, indices=source, limit=limit)


def arc_weights(graph, tails, heads):
    """Weight of each arc ``tails[i] -> heads[i]`` (every pair must be an arc)."""
    weights = graph.weights if graph.weights is not None else np.ones(graph.m, np.int32)
    rows = np.repeat(np.arange(graph.n, dtype=np.int64), np.diff(graph.indptr))
    keys = rows * graph.n + graph.indices
    wanted = tails.astype(np.int64) * graph.n + heads
    at = np.searchsorted(keys, wanted)  # CSR keys are sorted by (row, column)
    assert (at < keys.size).all() and (keys[np.minimum(at, keys.size - 1)] == wanted).all(), (
        "a tree arc is not an edge"
    )
    return weights[at]


def assert_valid_sssp(graph, source, result, expected):
    d = result.distances
    float32 = graph.weights is not None and graph.weights.dtype == np.float32
    assert d.dtype == (np.float32 if float32 else np.float64)
    np.testing.assert_array_equal(np.isinf(d), np.isinf(expected))
    finite = np.isfinite(expected)
    if float32:  # accumulated in float32: rounding per arc on the path
        np.testing.assert_allclose(d[finite], expected[finite], rtol=1e-5, atol=1e-6)
    else:
        np.testing.assert_array_equal(d[finite], expected[finite])
    parents = result.parents
    assert parents.dtype == np.int64 and parents[source] == source and d[source] == 0
    np.testing.assert_array_equal(parents >= 0, finite)
    children = np.flatnonzero(parents >= 0)
    children = children[children != source]
    w = arc_weights(graph, parents[children], children)
    # Exact in the distance dtype: what the Graph500 validator checks.
    assert (d[parents[children]] + w.astype(d.dtype) == d[children]).all()
    assert_acyclic(parents, source)


def assert_acyclic(parents, source):
    reached = np.flatnonzero(parents >= 0)
    hops = parents.copy()
    for _ in range(int(np.ceil(np.log2(max(reached.size, 2)))) + 1):
        hops[reached] = hops[hops[reached]]  # pointer jumping
    assert (hops[reached] == source).all(), "the parent array has a cycle"


@st.composite
def weighted_graphs(draw):
    n = draw(st.integers(1, 60))
    m = draw(st.integers(0, 3 * n))
    src = np.array(draw(st.lists(st.integers(0, n - 1), min_size=m, max_size=m)), np.int64)
    dst = np.array(draw(st.lists(st.integers(0, n - 1), min_size=m, max_size=m)), np.int64)
    dtype = draw(st.sampled_from(WEIGHT_DTYPES))
    # Small integers make ties and zero-weight arcs common.
    values = np.array(draw(st.lists(st.integers(0, 9), min_size=m, max_size=m)), np.int64)
    if dtype is None:
        weights = None
    elif np.dtype(dtype).kind == "f":
        weights = (values * draw(st.sampled_from([1.0, 0.137, 1e-3]))).astype(dtype)
    else:
        weights = values.astype(dtype)
    graph = wf.Graph.from_edges(src, dst, weights=weights, n=n, directed=draw(st.booleans()))
    return graph, draw(st.integers(0, n - 1))


@settings(max_examples=80, deadline=None)
@given(weighted_graphs())
def test_every_method_matches_scipy(case):
    graph, source = case
    expected = oracle(graph, source)
    for method, options in VARIANTS:
        assert_valid_sssp(graph, source, wf.sssp(graph, source, method=method, **options), expected)


@pytest.mark.parametrize("dtype", WEIGHT_DTYPES)
@pytest.mark.parametrize("directed", [False, True])
def test_larger_random_graph(dtype, directed):
    rng = np.random.default_rng(5)
    n, m = 60_000, 200_000
    weights = None if dtype is None else (rng.random(m) * 1000).astype(dtype)
    graph = wf.Graph.from_edges(rng.integers(0, n, m), rng.integers(0, n, m), weights=weights, n=n, directed=directed)
    expected = oracle(graph, 3)
    for method in ("dijkstra", "delta-stepping"):
        assert_valid_sssp(graph, 3, wf.sssp(graph, 3, method=method), expected)


def test_isolated_source_and_unreachable_vertices():
    graph = wf.Graph.from_edges([0, 1], [1, 2], weights=[2.5, 1.0], n=5)
    for method, options in VARIANTS:
        alone = wf.sssp(graph, 4, method=method, **options)
        assert alone.distances.tolist() == [np.inf] * 4 + [0.0]
        assert alone.parents.tolist() == [-1, -1, -1, -1, 4]
        part = wf.sssp(graph, 0, method=method, **options)
        assert part.distances.tolist() == [0.0, 2.5, 3.5, np.inf, np.inf]
        assert part.parents.tolist() == [0, 0, 1, -1, -1]


def test_zero_weight_cycle_gives_a_tree():
    # 1, 2, 3 all at distance 1, joined by zero-weight arcs both ways.
    graph = wf.Graph.from_edges([0, 1, 2, 3], [1, 2, 3, 1], weights=[1, 0, 0, 0])
    for method, options in VARIANTS:
        result = wf.sssp(graph, 0, method=method, **options)
        assert result.distances.tolist() == [0.0, 1.0, 1.0, 1.0]
        assert_valid_sssp(graph, 0, result, oracle(graph, 0))


@pytest.mark.parametrize("method", ["dijkstra", "delta-stepping"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
def test_cutoff(method, dtype):
    rng = np.random.default_rng(2)
    n, m = 500, 2000
    graph = wf.Graph.from_edges(
        rng.integers(0, n, m), rng.integers(0, n, m), weights=(rng.random(m) * 10).astype(dtype), n=n
    )
    full = oracle(graph, 0)
    cutoff = float(np.median(full[np.isfinite(full)])) + 0.5
    result = wf.sssp(graph, 0, method=method, cutoff=cutoff)
    inside = result.distances <= cutoff
    assert not np.isinf(result.distances[inside]).any()
    np.testing.assert_allclose(result.distances[inside], full[inside], rtol=1e-5)
    np.testing.assert_array_equal(inside, full <= cutoff)
    assert (result.parents[~inside] == -1).all()


def test_delta_stepping_trace_rows():
    rng = np.random.default_rng(3)
    graph = wf.Graph.from_edges(rng.integers(0, 3000, 12_000), rng.integers(0, 3000, 12_000),
                                weights=rng.random(12_000).astype(np.float32))
    result = cpu_sssp.delta_stepping(graph, 0, delta=0.05)
    # One row per iteration of the fused kernel, in bin order.
    buckets = [row.step for row in result.trace]
    assert buckets == sorted(buckets) and len(set(buckets)) > 5
    assert {row.kind for row in result.trace} == {"bucket"}
    assert all("delta=0.05" in row.reason for row in result.trace)
    assert all(row.seconds >= 0 for row in result.trace) and result.trace.seconds > 0
    reached = np.isfinite(result.distances)
    assert result.trace.edges >= graph.degree()[reached].sum()  # each reached vertex relaxes all its arcs
    assert result.trace[0].frontier == 1  # the root alone


def test_default_delta_rule():
    tuning = CPUSSSPTuning()
    low, high = tuning.road_delta_range
    path = wf.Graph.from_edges([0, 1, 2], [1, 2, 3], weights=[2.0, 4.0, 6.0])  # median arc weight 4
    assert not tuning.skewed(path)
    assert cpu_sssp.default_delta(path, threads=2) == pytest.approx(high * 4.0)  # tiny: the widest bins
    assert cpu_sssp.default_delta(path, threads=8) == pytest.approx(high * 2 * 4.0)
    rng = np.random.default_rng(2)
    n = 2_000_000
    big = wf.Graph.from_edges(np.arange(n - 1), np.arange(1, n), weights=rng.integers(1, 100, n - 1), n=n)
    median = float(np.median(big.weights[:: max(1, big.m // 65_536)]))
    expected = tuning.road_delta * 1e6 / n
    assert cpu_sssp.default_delta(big, threads=2) == pytest.approx(max(expected, low) * median)
    assert cpu_sssp.default_delta(big, threads=32) == pytest.approx(max(expected, low) * 4 * median)
    rule = CPUSSSPTuning(road_delta=1.0, road_delta_range=(0.25, 2.0))
    assert cpu_sssp.default_delta(big, rule, threads=2) == pytest.approx(0.5 * median)
    dense = wf.Graph.from_edges(rng.integers(0, 50, 2000), rng.integers(0, 50, 2000),
                                weights=np.full(2000, 3.0))
    assert tuning.skewed(dense)
    assert cpu_sssp.default_delta(dense, threads=16) == pytest.approx(tuning.skewed_delta * 3.0)
    zero = wf.Graph.from_edges([0], [1], weights=[0.0])
    assert cpu_sssp.default_delta(zero) == 1.0


@pytest.mark.parametrize("bad", [0, -1.0, float("nan"), float("inf")])
def test_bad_delta(bad):
    graph = wf.Graph.from_edges([0], [1], weights=[1.0])
    with pytest.raises(ValueError, match="delta"):
        wf.sssp(graph, 0, method="delta-stepping", delta=bad)


@pytest.mark.parametrize("method", ["dijkstra", "delta-stepping", "hierarchy", "auto"])
def test_cutoffs_past_every_distance_cut_nothing_with_integer_weights(method):
    """Integer weights run in int64: a cutoff of +inf, or one beyond int64
    (2**63 as a float rounds to exactly that), must neither overflow nor wrap."""
    rng = np.random.default_rng(5)
    n, m = 300, 1200
    graph = wf.Graph.from_edges(rng.integers(0, n, m), rng.integers(0, n, m),
                                weights=rng.integers(1, 10, m).astype(np.int64), n=n)
    full = oracle(graph, 0)
    for cutoff in (float("inf"), 2.0**63, 2**63, 2**70, 1e300, float(np.iinfo(np.int64).max)):
        result = wf.sssp(graph, 0, method=method, cutoff=cutoff)
        np.testing.assert_array_equal(result.distances, full)


@pytest.mark.parametrize("method", ["dijkstra", "delta-stepping", "auto"])
def test_integer_weights_that_could_overflow_int64_are_refused(method):
    """Integer distances add up in int64, whose largest value marks an
    unreached vertex: two arcs of 2**62 gave a negative distance, and one of
    2**63 - 1 an unreachable vertex, with no error. Weights whose paths stay
    below 2**62 still run exactly."""
    from wavefront.errors import WeightError

    for weights in ([2**62, 2**62], [2**63 - 1, 1]):
        graph = wf.Graph.from_edges([0, 1], [1, 2], weights=np.array(weights, dtype=np.int64), n=3)
        with pytest.raises(WeightError, match="int64"):
            wf.sssp(graph, 0, method=method)
    heavy = 2**60
    graph = wf.Graph.from_edges([0, 1], [1, 2], weights=np.array([heavy, heavy], dtype=np.int64), n=3)
    assert wf.sssp(graph, 0, method=method).distances.tolist() == [0.0, float(heavy), float(2 * heavy)]


def test_a_delta_too_small_for_the_weights_is_refused():
    """A bucket number is a distance over delta in int64: past 2**62 it
    overflowed and most distances came out wrong, with no error."""
    from wavefront.errors import MethodLimitError

    rng = np.random.default_rng(7)
    n, m = 2000, 8000
    graph = wf.Graph.from_edges(rng.integers(0, n, m), rng.integers(0, n, m), weights=rng.random(m), n=n)
    with pytest.raises(MethodLimitError, match="too small for these weights") as caught:
        wf.sssp(graph, 0, method="delta-stepping", delta=1e-17)
    smallest = float(str(caught.value).rsplit(" ", 1)[1])
    np.testing.assert_allclose(wf.sssp(graph, 0, method="delta-stepping", delta=2 * smallest).distances,
                               oracle(graph, 0))
    heavy = wf.Graph.from_edges([0, 1], [1, 2], weights=[1e300, 1e300], n=3)
    with pytest.raises(MethodLimitError):
        wf.sssp(heavy, 0, method="delta-stepping", delta=1.0)


@pytest.mark.parametrize("graph_kind", ["directed", "distributed"])
def test_the_default_delta_widens_for_weights_spanning_many_decades(graph_kind):
    """Weights from 0.1 to 1e300: the default bucket width (a few mean or
    median weights) put distances in buckets past int64, and reachable
    vertices came out unreached with no error. The default now widens."""
    rng = np.random.default_rng(11)
    n, m = 3000, 12000
    src, dst, weights = rng.integers(0, n, m), rng.integers(0, n, m), rng.choice([1.0, 0.1, 1e300], m)
    graph = wf.Graph.from_edges(src, dst, weights=weights, n=n, directed=graph_kind == "directed")
    expected = oracle(graph, 0)
    assert np.isfinite(expected).sum() > 100 and (expected > 1e299).any()
    if graph_kind == "directed":
        got = wf.sssp(graph, 0, method="delta-stepping").distances
    else:  # the 2-D delta-stepping on one rank (undirected, as its build symmetrizes)
        import wavefront.distributed as wd
        from wavefront.distributed.grid import ProcessGrid
        from wavefront.distributed.transport import SelfTransport

        dist = wd.from_edges(src, dst, n, grid=ProcessGrid(world=SelfTransport()), weights=weights)
        got = wd.sssp(dist, 0).gather().distances
    np.testing.assert_array_equal(np.isfinite(got), np.isfinite(expected))
    np.testing.assert_allclose(got, expected, rtol=1e-12)


@pytest.mark.parametrize("bad", [-1.0, float("nan")])
def test_bad_cutoff(bad):
    graph = wf.Graph.from_edges([0], [1], weights=[1.0])
    with pytest.raises(ValueError, match="cutoff"):
        wf.sssp(graph, 0, method="dijkstra", cutoff=bad)


def test_negative_weights_rejected_before_running():
    graph = wf.Graph.from_edges([0, 1], [1, 2], weights=[1.0, -2.0])
    with pytest.raises(WeightError):
        wf.sssp(graph, 0, method="delta-stepping")


@pytest.mark.parametrize("method", ["delta-stepping", "dijkstra", "auto"])
def test_weights_absorbed_by_rounding_make_no_parent_cycle(method):
    """Vertices 0 and 1 both lie at distance 1 from the root 2, joined by an
    arc of 1e-9, which float32 rounding absorbs (1 + 1e-9 == 1): tight both
    ways although its weight is positive. The tree must not use it both ways."""
    from wavefront.validate import validate_sssp

    src, dst = np.array([2, 2, 0]), np.array([0, 1, 1])
    weights = np.array([1.0, 1.0, 1e-9], dtype=np.float32)
    g = wf.from_edges(src, dst, weights, n=3)
    result = wf.sssp(g, 2, method=method)
    assert result.distances.tolist() == [1.0, 1.0, 0.0]
    assert not (result.parents[0] == 1 and result.parents[1] == 0)
    validate_sssp((src, dst, weights), result)


def test_integer_distances_past_32_bits_fall_back_to_int64():
    """Packed words hold integer distances below 2**32 - 1; a longer path
    raises the kernel's overflow flag and the search reruns with int64
    distances (parents from the tight-arc pass), still exact."""
    weights = np.array([2**31, 2**31, 2**31, 5], dtype=np.int64)
    graph = wf.Graph.from_edges([0, 1, 2, 0], [1, 2, 3, 3], weights=weights, directed=True)
    expected = oracle(graph, 0)
    assert expected[2] >= 2**32 - 1  # past what a packed word holds
    for method in ("delta-stepping", "auto"):
        result = wf.sssp(graph, 0, method=method)
        assert_valid_sssp(graph, 0, result, expected)
        assert result.distances[2] == 2.0**32


def test_bins_grow_past_their_first_size():
    # A star: the root improves 50 000 leaves in one relaxation, far past a
    # bin's first 64 entries; the leaves' own arcs go on to a second ring.
    leaves = np.arange(1, 50_001)
    rng = np.random.default_rng(7)
    src = np.concatenate([np.zeros(leaves.size, np.int64), leaves, rng.integers(1, 50_001, 100_000)])
    dst = np.concatenate([leaves, np.full(leaves.size, 50_001), rng.integers(1, 50_001, 100_000)])
    weights = rng.integers(1, 1000, src.size).astype(np.int32)
    graph = wf.Graph.from_edges(src, dst, weights=weights)
    for options in ({}, {"delta": 3.0}, {"delta": 1e5}):
        assert_valid_sssp(graph, 0, cpu_sssp.delta_stepping(graph, 0, **options), oracle(graph, 0))


@pytest.mark.parametrize("dtype", [np.int32, np.float32])
def test_consecutive_searches_reuse_the_words(dtype):
    """A search leaves its packed words filled for the next one (the fill is
    skipped then); one that overflowed, or ran with another fill, does not."""
    rng = np.random.default_rng(9)
    n, m = 5000, 20_000
    graph = wf.Graph.from_edges(rng.integers(0, n, m), rng.integers(0, n, m),
                                weights=rng.integers(1, 100, m).astype(dtype), n=n)
    for source, cutoff in ((0, None), (17, 150.0), (4999, None), (17, None), (0, 1.0)):
        expected = oracle(graph, source, limit=np.inf if cutoff is None else cutoff + 1e-9)
        result = cpu_sssp.delta_stepping(graph, source, cutoff=cutoff)
        assert_valid_sssp(graph, source, result, expected)
    work = graph.derived[cpu_sssp._SSSP_WORKSPACE_KEY]
    assert work.words_fill is not None and (work.words == work.words_fill).all()


@pytest.mark.parametrize("capacity", [1, 3, 17])
def test_fused_kernel_keeps_what_does_not_fit_the_shared_frontier(capacity):
    """Vertices that do not fit the shared frontier stay in their thread's
    bin and are appended in a later iteration of the same bin."""
    from wavefront.backends.cpu import _sssp_fused as steps

    rng = np.random.default_rng(11)
    n = 2000
    graph = wf.Graph.from_edges(rng.integers(0, n, 8000), rng.integers(0, n, 8000),
                                weights=rng.integers(0, 50, 8000).astype(np.int32), n=n)
    words = np.empty(n, np.uint64)
    frontier = np.zeros(capacity, dtype=graph.indices.dtype)
    shared = np.zeros(steps.SHARED_SLOTS, np.int64)
    stats = np.zeros(64 * steps.STAT_COLUMNS, np.int64)
    distances, parents = np.empty(n), np.empty(n, np.int64)
    steps.fused_delta_stepping(
        graph.indptr, graph.indices, graph.weights, words, np.uint32(0), 1 / 40.0, np.iinfo(np.int64).max,
        frontier, np.zeros(n, np.int64), 1, shared, stats, 4, 1000, 1, 100, 1,
        np.uint64(0xFFFFFFFFFFFFFFFF), True, np.array([0]), np.array([0], np.uint64), distances, parents,
        np.inf, 8,
    )
    np.testing.assert_array_equal(distances, oracle(graph, 0))
    assert parents[0] == 0 and ((parents >= 0) == np.isfinite(distances)).all()


def test_tuning_rejects_bad_values():
    with pytest.raises(ValueError, match="ring"):
        CPUSSSPTuning(ring=3)
    with pytest.raises(ValueError, match="fusion_limit"):
        CPUSSSPTuning(fusion_limit=-1)
    with pytest.raises(ValueError, match="prefetch_ahead"):
        CPUSSSPTuning(prefetch_ahead=-1)
    with pytest.raises(ValueError, match="road_delta"):
        CPUSSSPTuning(road_delta=0)
    with pytest.raises(ValueError, match="road_delta_range"):
        CPUSSSPTuning(road_delta_range=(2.0, 1.0))
    with pytest.raises(ValueError, match="skewed_frontier_shares"):
        CPUSSSPTuning(skewed_frontier_shares=0)


def test_fused_kernel_forms_its_team_from_the_threads_that_run():
    """Asked for 3 workers on 1 numba thread, the prange's iterations run one
    after another: the first closes the team alone after its polls, the
    others find it closed and return. No deadlock, the same distances."""
    import numba

    from wavefront.backends.cpu import _sssp_fused as steps

    rng = np.random.default_rng(4)
    n = 3000
    graph = wf.Graph.from_edges(rng.integers(0, n, 12_000), rng.integers(0, n, 12_000),
                                weights=rng.integers(1, 50, 12_000).astype(np.int32), n=n)
    previous = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        words = np.empty(n, np.uint64)
        frontier = np.zeros(n, dtype=graph.indices.dtype)
        shared = np.zeros(steps.SHARED_SLOTS, np.int64)
        got, parents = np.empty(n), np.empty(n, np.int64)
        iterations = steps.fused_delta_stepping(
            graph.indptr, graph.indices, graph.weights, words, np.uint32(0), 1 / 30.0, np.iinfo(np.int64).max,
            frontier, np.zeros(n, np.int64), 1, shared, np.zeros(64 * steps.STAT_COLUMNS, np.int64),
            4, 1000, 1, 50, 3, np.uint64(0xFFFFFFFFFFFFFFFF), True, np.array([0]), np.array([0], np.uint64), got,
            parents, np.inf, 8,
        )
    finally:
        numba.set_num_threads(previous)
    assert iterations > 0
    # The one thread that formed the team filled and unpacked every vertex.
    np.testing.assert_array_equal(got, oracle(graph, 0))


def test_a_graph_whose_in_arcs_disagree_raises_instead_of_a_parentless_vertex():
    """A directed graph keeps its in-arcs' weights apart from its out-arcs'.
    Where they disagree (a graph assembled by hand, or a GPU graph's arrays
    changed in place), the distances (from the out-arcs) no longer match the
    in-arcs that ``hierarchy`` confirms parents from: it raises, naming the
    count, and never returns a reached vertex without a parent. The methods
    that record parents as they search stay right."""
    from wavefront.errors import InconsistentDistancesError

    g = wf.Graph.from_edges([1, 0], [0, 2], weights=np.array([5, 1], dtype=np.int64), n=3, directed=True)
    assert wf.sssp(g, 1, method="hierarchy").parents.tolist() == [1, 1, 0]
    changed = wf.Graph(g.indptr, g.indices, n=3, weights=g.weights + 1, directed=True, in_indptr=g.in_indptr,
                       in_indices=g.in_indices, in_weights=g.in_weights)  # the in-arcs keep 5 and 1
    for method in ("dijkstra", "delta-stepping"):
        r = wf.sssp(changed, 1, method=method)
        assert r.distances.tolist() == [6, 0, 8] and r.parents.tolist() == [1, 1, 0]
    with pytest.raises(InconsistentDistancesError, match="2 reached vertices .* disagree"):
        wf.sssp(changed, 1, method="hierarchy")


def test_a_graphs_arrays_are_read_only():
    """What is derived from a graph's arrays is kept with it, so they cannot
    be changed in place; the caller's own arrays keep their flags."""
    weights = np.array([5, 1], dtype=np.int64)
    g = wf.Graph.from_edges([1, 0], [0, 2], weights=weights, n=3, directed=True)
    for array in (g.indptr, g.indices, g.weights, g.in_indptr, g.in_indices, g.in_weights):
        with pytest.raises(ValueError, match="read-only"):
            array[0] = 0
    for name in ("indptr", "indices", "weights", "labels"):
        with pytest.raises(AttributeError):
            setattr(g, name, None)
    relabelled = wf.Graph.from_edges([0, 1, 1], [1, 2, 3], relabel="degree")
    with pytest.raises(ValueError, match="read-only"):
        relabelled.labels[0] = 1
    indptr, indices, w = np.array([0, 1, 1]), np.array([1], dtype=np.int32), np.array([2.0])
    own = wf.Graph(indptr.astype(np.int64), indices, n=2, weights=w)
    w[0] = 3.0  # still the caller's to change
    assert own.weights[0] == 3.0 and not own.weights.flags.writeable
