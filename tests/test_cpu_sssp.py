"""CPU SSSP (Dijkstra, delta-stepping) against scipy.sparse.csgraph.dijkstra."""
import numpy as np
import pytest
import scipy.sparse.csgraph as csgraph
from hypothesis import given, settings
from hypothesis import strategies as st

import wavefront as wf
from wavefront.backends.cpu import sssp as cpu_sssp
from wavefront.errors import WeightError

WEIGHT_DTYPES = [np.float32, np.float64, np.int32, np.int64, None]
VARIANTS = [
    ("dijkstra", {}),
    ("delta-stepping", {}),
    ("delta-stepping", {"delta": 0.3}),  # many buckets, most arcs heavy
    ("delta-stepping", {"delta": 1e6}),  # one bucket: light phases only
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
    buckets = [row.step for row in result.trace]
    assert buckets == sorted(buckets) and len(set(buckets)) > 5
    assert {row.kind for row in result.trace} == {"light", "heavy"}
    reached = np.isfinite(result.distances)
    # Every reached vertex is a frontier vertex of some light phase of its own bucket.
    assert sum(row.frontier for row in result.trace if row.kind == "light") >= reached.sum()
    assert result.trace.edges >= graph.degree()[reached].sum()  # each reached vertex relaxes all its arcs


def test_default_delta_rule():
    graph = wf.Graph.from_edges([0, 1, 2], [1, 2, 3], weights=[2.0, 4.0, 6.0])
    mean_degree = graph.m / graph.n
    assert cpu_sssp.default_delta(graph) == pytest.approx(cpu_sssp.DELTA_FACTOR * 4.0 / mean_degree)
    zero = wf.Graph.from_edges([0], [1], weights=[0.0])
    assert cpu_sssp.default_delta(zero) == 1.0


@pytest.mark.parametrize("bad", [0, -1.0, float("nan"), float("inf")])
def test_bad_delta(bad):
    graph = wf.Graph.from_edges([0], [1], weights=[1.0])
    with pytest.raises(ValueError, match="delta"):
        wf.sssp(graph, 0, method="delta-stepping", delta=bad)


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
