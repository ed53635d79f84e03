"""Multi-source search: ``wf.bfs(g, sources=[...])`` and ``wf.sssp(g, sources=[...])``.

Differential against SciPy's ``dijkstra(indices=[...], min_only=True)`` (and
its unweighted form for BFS levels) and NetworkX's
``multi_source_dijkstra_path_length`` on random graphs drawn by hypothesis;
every result must also pass the Graph500 validators read as a forest (each
source its own parent at level / distance 0). The ``gpu`` tests run every
CUDA method against the same oracles.
"""
from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.sparse import csgraph

import wavefront as wf
from wavefront import registry
from wavefront._xp import to_numpy
from wavefront.errors import (
    MethodLimitError,
    MultiSourceError,
    SourceArgumentError,
    VertexError,
)
from wavefront.validate import validate_bfs, validate_sssp

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
CPU_BFS = ["auto", "top-down", "bottom-up", "hybrid"]
CPU_SSSP = [("dijkstra", {}), ("delta-stepping", {}), ("delta-stepping", {"delta": 0.3}), ("auto", {})]


@st.composite
def problems(draw, weighted=True):
    """(src, dst, weights or None, n, directed, sources, relabel) of a random graph."""
    n = draw(st.integers(2, 60))
    m = draw(st.integers(0, 4 * n))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    src = rng.integers(0, n, m)
    dst = rng.integers(0, n, m)
    kind = draw(st.sampled_from(["int", "float", "float32"] if weighted else [None]))
    if kind == "int":
        weights = rng.integers(0, 9, m).astype(np.int64)  # zeros and ties
    elif kind == "float":
        weights = rng.uniform(0.0, 2.0, m)
    elif kind == "float32":
        weights = rng.uniform(0.0, 2.0, m).astype(np.float32)
    else:
        weights = None
    k = draw(st.integers(1, min(n, 8)))
    sources = [int(v) for v in rng.integers(0, n, k)]  # repeats allowed: a set of seeds
    return src, dst, weights, n, draw(st.booleans()), sources, draw(st.sampled_from([None, "degree"]))


def build(src, dst, weights, n, directed, relabel=None):
    return wf.Graph.from_edges(src, dst, weights=weights, n=n, directed=directed, relabel=relabel)


def scipy_distances(graph, sources, unweighted=False):
    """Distances to the nearest source, from SciPy (caller ids: the graph's are
    relabelled back through ``to_scipy`` on the internal order)."""
    matrix = graph.to_scipy()
    internal = graph.internal_ids(sources)
    dist = csgraph.dijkstra(matrix, directed=graph.directed, indices=internal, min_only=True,
                            unweighted=unweighted)
    if graph.labels is None:
        return dist
    out = np.empty_like(dist)
    out[graph.labels] = dist
    return out


def distinct(sources):
    return list(dict.fromkeys(sources))


def edge_tuples(src, dst, weights):
    return (src, dst) if weights is None else (src, dst, weights)


def check_forest(result, sources):
    """Every source is its own parent at level / distance 0; the result records them."""
    seeds = distinct(sources)
    np.testing.assert_array_equal(result.sources, seeds)
    assert result.source == (seeds[0] if len(seeds) == 1 else None)
    parents = to_numpy(result.parents)
    assert (parents[seeds] == seeds).all()
    others = np.setdiff1d(np.arange(parents.shape[0]), seeds)
    assert not (parents[others] == others).any(), "only a source may be its own parent"


@pytest.mark.parametrize("method", CPU_BFS)
@SETTINGS
@given(problem=problems(weighted=False))
def test_bfs_levels_match_scipy(method, problem):
    src, dst, _, n, directed, sources, relabel = problem
    graph = build(src, dst, None, n, directed, relabel)
    result = wf.bfs(graph, sources=sources, method=method)
    expected = scipy_distances(graph, sources, unweighted=True)
    levels = np.where(np.isfinite(expected), expected, -1).astype(np.int32)
    np.testing.assert_array_equal(result.levels, levels)
    check_forest(result, sources)
    if not directed:  # Graph500's rules read the tuples as undirected edges
        validate_bfs((src, dst), result, n=n)


@pytest.mark.parametrize(("method", "options"), CPU_SSSP)
@SETTINGS
@given(problem=problems())
def test_sssp_distances_match_scipy(method, options, problem):
    src, dst, weights, n, directed, sources, relabel = problem
    graph = build(src, dst, weights, n, directed, relabel)
    result = wf.sssp(graph, sources=sources, method=method, **options)
    expected = scipy_distances(graph, sources)
    assert_distances(result.distances, expected, weights)
    check_forest(result, sources)
    if not directed:
        validate_sssp((src, dst, weights), result, n=n)


def assert_distances(got, expected, weights):
    got = np.asarray(got)
    np.testing.assert_array_equal(np.isinf(got), np.isinf(expected))
    finite = np.isfinite(expected)
    if weights is not None and weights.dtype.kind == "f":
        # Sums in another order (float32 sums in float32): rounding only.
        np.testing.assert_allclose(got[finite], expected[finite], rtol=2e-6 if weights.dtype == np.float32
                                   else 1e-12, atol=1e-6)
    else:
        np.testing.assert_array_equal(got[finite], expected[finite])


@SETTINGS
@given(problem=problems())
def test_sssp_matches_networkx_multi_source_dijkstra(problem):
    src, dst, weights, n, directed, sources, relabel = problem
    weights = np.abs(weights.astype(np.float64)) if weights is not None else None
    G = nx.DiGraph() if directed else nx.Graph()
    G.add_nodes_from(range(n))
    for u, v, w in zip(src.tolist(), dst.tolist(), weights.tolist()):
        if u != v and (not G.has_edge(u, v) or G[u][v]["weight"] > w):
            G.add_edge(u, v, weight=w)  # a multigraph's parallel arcs: the lightest counts
    expected = nx.multi_source_dijkstra_path_length(G, set(sources))
    result = wf.sssp(build(src, dst, weights, n, directed, relabel), sources=sources)
    got = {v: float(d) for v, d in enumerate(result.distances) if np.isfinite(d)}
    assert got.keys() == expected.keys()
    for v, d in expected.items():
        assert got[v] == pytest.approx(d, rel=1e-12, abs=1e-12)


def test_one_source_in_a_list_equals_the_single_source_search():
    rng = np.random.default_rng(1)
    src, dst = rng.integers(0, 200, 800), rng.integers(0, 200, 800)
    graph = build(src, dst, rng.uniform(0.1, 1.0, 800), 200, False, "degree")
    for search in (wf.bfs, wf.sssp):
        one = search(graph, 7)
        listed = search(graph, sources=[7, 7])
        assert listed.source == one.source == 7
        np.testing.assert_array_equal(listed.sources, [7])
        np.testing.assert_array_equal(listed.parents, one.parents)


def test_every_source_is_a_root_at_zero_even_when_one_reaches_another():
    # A path 0 - 1 - 2 - 3 - 4 with sources 0 and 3: 3 is a root, not 0's descendant.
    src, dst = np.arange(4), np.arange(1, 5)
    graph = build(src, dst, np.ones(4), 5, False)
    bfs = wf.bfs(graph, sources=[0, 3])
    np.testing.assert_array_equal(bfs.levels, [0, 1, 1, 0, 1])
    np.testing.assert_array_equal(bfs.parents[[0, 3]], [0, 3])
    assert bfs.parents[4] == 3 and bfs.parents[1] == 0
    sssp = wf.sssp(graph, sources=[3, 0], method="delta-stepping")
    np.testing.assert_array_equal(sssp.distances, [0, 1, 1, 0, 1])
    np.testing.assert_array_equal(sssp.sources, [3, 0])
    np.testing.assert_array_equal(wf.path(sssp, 4), [3, 4])
    np.testing.assert_array_equal(wf.path(sssp, 1), [0, 1])


def test_zero_weight_arcs_between_sources_keep_each_source_its_own_parent():
    # 0 -0- 1 -0- 2 and 2 -1- 3: three vertices at distance 0, two of them sources.
    graph = build(np.array([0, 1, 2]), np.array([1, 2, 3]), np.array([0, 0, 1]), 4, False)
    for method in ("dijkstra", "delta-stepping"):
        result = wf.sssp(graph, sources=[0, 2], method=method)
        np.testing.assert_array_equal(result.distances, [0, 0, 0, 1])
        assert result.parents[0] == 0 and result.parents[2] == 2 and result.parents[1] in (0, 2)
        validate_sssp((np.array([0, 1, 2]), np.array([1, 2, 3]), np.array([0.0, 0.0, 1.0])), result)


def test_depth_limit_and_cutoff_apply_to_the_nearest_source():
    src, dst = np.arange(9), np.arange(1, 10)  # a path of 10 vertices
    graph = build(src, dst, np.full(9, 2.0), 10, False)
    levels = wf.bfs(graph, sources=[0, 9], depth_limit=2).levels
    np.testing.assert_array_equal(levels, [0, 1, 2, -1, -1, -1, -1, 2, 1, 0])
    for method in ("dijkstra", "delta-stepping"):
        d = wf.sssp(graph, sources=[0, 9], method=method, cutoff=3.0).distances
        np.testing.assert_array_equal(d, [0, 2, np.inf, np.inf, np.inf, np.inf, np.inf, np.inf, 2, 0])


def test_sources_may_be_any_integer_sequence():
    graph = build(np.arange(4), np.arange(1, 5), None, 5, False)
    for sources in ([0, 4], (0, 4), np.array([0, 4], dtype=np.uint8), np.array([0.0, 4.0]), range(0, 5, 4)):
        np.testing.assert_array_equal(wf.bfs(graph, sources=sources).levels, [0, 1, 2, 1, 0])


@pytest.mark.parametrize("search", [wf.bfs, wf.sssp])
def test_argument_errors_are_typed_and_say_what_to_do(search):
    graph = build(np.arange(4), np.arange(1, 5), None, 5, False)
    with pytest.raises(SourceArgumentError, match="not both"):
        search(graph, 0, sources=[1])
    with pytest.raises(SourceArgumentError, match="needs a start"):
        search(graph)
    with pytest.raises(SourceArgumentError, match="empty"):
        search(graph, sources=[])
    with pytest.raises(SourceArgumentError, match="for one vertex pass source="):
        search(graph, sources=3)
    with pytest.raises(VertexError, match=r"sources\[2\] = 5 is out of range: .*0\.\.4"):
        search(graph, sources=[0, 1, 5, 9])
    with pytest.raises(VertexError, match=r"sources\[1\] = -1 is out of range"):
        search(graph, sources=[0, -1])
    with pytest.raises(VertexError, match=r"sources\[1\] must be an integer vertex id, got 1\.5"):
        search(graph, sources=[0, 1.5])
    with pytest.raises(VertexError, match=r"sources\[0\] must be an integer vertex id, got 'a'"):
        search(graph, sources=["a"])
    # The errors subclass the builtins a caller would catch.
    assert issubclass(SourceArgumentError, TypeError) and issubclass(SourceArgumentError, ValueError)
    # Single-source calls are unchanged.
    with pytest.raises(VertexError, match="vertex 5 is out of range"):
        search(graph, 5)


def test_a_one_source_method_names_the_methods_that_take_several(monkeypatch):
    monkeypatch.setattr(registry, "_extra", {})
    calls = []

    def single(graph, source, **options):
        calls.append(source)
        return wf.bfs(graph, source, method="top-down")

    registry.register("bfs", "cpu", "plugin", single)
    graph = build(np.arange(4), np.arange(1, 5), None, 5, False)
    with pytest.raises(MultiSourceError, match="'plugin'.*one source only.*auto, bottom-up, hybrid, top-down"):
        wf.bfs(graph, sources=[0, 4], method="plugin")
    assert calls == []
    # A single seed (even given as a list) still runs it, as an int.
    assert wf.bfs(graph, sources=[4], method="plugin").source == 4
    assert calls == [4]


def test_relabelled_graph_results_come_back_in_caller_ids():
    rng = np.random.default_rng(5)
    src, dst = rng.integers(0, 300, 1500), rng.integers(0, 300, 1500)
    w = rng.integers(1, 20, 1500)
    plain, relabelled = build(src, dst, w, 300, True), build(src, dst, w, 300, True, "degree")
    assert relabelled.labels is not None
    sources = [17, 250, 3]
    for search in (wf.bfs, wf.sssp):
        a, b = search(plain, sources=sources), search(relabelled, sources=sources)
        np.testing.assert_array_equal(b.sources, sources)
        field = "levels" if search is wf.bfs else "distances"
        np.testing.assert_array_equal(getattr(a, field), getattr(b, field))
        assert (b.parents[sources] == sources).all()


def test_trace_starts_from_every_source():
    graph = build(np.arange(9), np.arange(1, 10), None, 10, False)
    result = wf.bfs(graph, sources=[0, 5, 9], method="top-down")
    assert result.trace[0].frontier == 3


# -- CUDA ---------------------------------------------------------------------
def cuda_methods(kernel):
    return registry.methods(kernel, "cuda")


@pytest.mark.gpu
@pytest.mark.parametrize("method", ["vertex-push", "vertex-pull", "edge", "frontier", "frontier-privatized",
                                    "load-balanced", "bottom-up", "single-block", "hybrid", "auto"])
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problem=problems(weighted=False))
def test_cuda_bfs_matches_scipy(method, problem):
    src, dst, _, n, directed, sources, relabel = problem
    graph = build(src, dst, None, n, directed, relabel)
    result = wf.bfs(graph.to("cuda"), sources=sources, method=method).to("cpu")
    expected = scipy_distances(graph, sources, unweighted=True)
    np.testing.assert_array_equal(result.levels, np.where(np.isfinite(expected), expected, -1))
    check_forest(result, sources)
    if not directed:
        validate_bfs((src, dst), result, n=n)


@pytest.mark.gpu
@pytest.mark.parametrize("method", ["bellman-ford", "frontier", "adaptive", "delta-stepping", "auto"])
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problem=problems())
def test_cuda_sssp_matches_scipy(method, problem):
    src, dst, weights, n, directed, sources, relabel = problem
    graph = build(src, dst, weights, n, directed, relabel)
    result = wf.sssp(graph.to("cuda"), sources=sources, method=method).to("cpu")
    assert_distances(result.distances, scipy_distances(graph, sources), weights)
    check_forest(result, sources)
    if not directed:
        validate_sssp((src, dst, weights), result, n=n)


@pytest.mark.gpu
def test_cuda_methods_all_take_several_sources():
    from wavefront._sources import capable_methods

    for kernel in ("bfs", "sssp"):
        assert capable_methods(kernel, "cuda") == cuda_methods(kernel)


@pytest.mark.gpu
@pytest.mark.parametrize("count", [2, 64, 5000])
def test_cuda_large_multi_source_search_matches_cpu(count):
    # Large enough that the CUDA drivers leave their single-block start, and
    # (5000 sources) that the level-0 frontier itself overflows a block.
    g = wf.kronecker(14, seed=3, relabel="degree")
    rng = np.random.default_rng(count)
    sources = rng.choice(g.n, count, replace=False).tolist()
    gpu_graph = g.to("cuda")
    for method in cuda_methods("bfs"):
        cpu = wf.bfs(g, sources=sources)
        gpu = wf.bfs(gpu_graph, sources=sources, method=method).to("cpu")
        np.testing.assert_array_equal(cpu.levels, gpu.levels, err_msg=method)
        validate_bfs(g_edges(g), gpu)
    for method in cuda_methods("sssp"):
        if method == "hierarchy":  # float weights and hubs: refused, with a typed error (tests/test_hierarchy.py)
            with pytest.raises(MethodLimitError):
                wf.sssp(gpu_graph, sources=sources, method=method)
            continue
        cpu = wf.sssp(g, sources=sources, method="dijkstra")
        gpu = wf.sssp(gpu_graph, sources=sources, method=method).to("cpu")
        np.testing.assert_allclose(gpu.distances, cpu.distances, rtol=1e-5, err_msg=method)
        check_forest(gpu, sources)


def g_edges(graph):
    """The stored arcs of an undirected CPU graph as a tuple list (caller ids)."""
    rows = np.repeat(np.arange(graph.n, dtype=np.int64), np.diff(graph.indptr))
    cols = graph.indices.astype(np.int64)
    if graph.labels is not None:
        rows, cols = graph.labels[rows], graph.labels[cols]
    return rows, cols
