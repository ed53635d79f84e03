"""wavefront.csgraph against scipy.sparse.csgraph, differentially.

Random graphs in every input form SciPy takes (dense arrays with 0/inf/NaN
as "no edge", sparse arrays and matrices of each format, COO duplicates,
non-canonical CSR duplicates, explicit zeros, inf and NaN entries) go to
both libraries with the same arguments. Distances, BFS orders, BFS trees,
shapes, dtypes, warnings and errors must be SciPy's exactly. Predecessors
may differ where shortest paths tie (SciPy's choice is its heap's), so they
are checked to form a shortest-path tree to the right source instead; SciPy's
own suite (tests/scipy_csgraph) checks them exactly on its graphs.
"""
from __future__ import annotations

import doctest
import os
import warnings
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.csgraph as scipy_csgraph
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.sparse.csgraph._validation import validate_graph

import wavefront.csgraph as wf_csgraph
from wavefront.interop import csgraph as implementation

ROOT = Path(__file__).resolve().parents[1]
FORMATS = ["dense", "list", "masked", "csr_array", "csr_matrix", "csc_array", "coo_array",
           "coo_matrix", "lil_array", "dok_array", "csr_duplicates"]
WEIGHTS = [0.0, 1.0, 2.0, 3.0, 0.5, 0.1, 0.7, 2.5, np.inf, np.nan]
LIMITS = [np.inf, 0.0, 0.5, 1.0, 2.5, 4.0, np.nan]
# WAVEFRONT_CSGRAPH_EXAMPLES=5000 for a longer hunt than CI's.
EXAMPLES = int(os.environ.get("WAVEFRONT_CSGRAPH_EXAMPLES", "150"))
HYPOTHESIS = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# -- graphs -------------------------------------------------------------------------


def build(n, entries, form):
    """The graph of ``entries`` (row, col, weight) in one of SciPy's input forms."""
    rows = np.array([e[0] for e in entries], dtype=np.int64)
    cols = np.array([e[1] for e in entries], dtype=np.int64)
    data = np.array([e[2] for e in entries], dtype=np.float64)
    if form in ("dense", "list", "masked"):
        dense = np.zeros((n, n))
        dense[rows, cols] = data  # the last duplicate wins; 0, inf and NaN are "no edge"
        if form == "list":
            return dense.tolist()
        if form == "masked":
            return np.ma.masked_invalid(dense)
        return dense
    if form == "csr_duplicates":  # a CSR holding parallel arcs: SciPy keeps them all
        order = np.argsort(rows, kind="stable")
        indptr = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=n))])
        return sp.csr_array((data[order], cols[order], indptr), shape=(n, n))
    coo = sp.coo_array((data, (rows, cols)), shape=(n, n))  # duplicates are summed on conversion
    if form == "coo_matrix":
        return sp.coo_matrix(coo)
    if form == "coo_array":
        return coo
    if form == "dok_array":
        return sp.dok_array(coo.tocsr())
    return getattr(sp, form)(coo.tocsr()) if form != "csr_array" else coo.tocsr()


@st.composite
def graphs(draw, max_n=9, weights=WEIGHTS, forms=FORMATS):
    n = draw(st.integers(1, max_n))
    node = st.integers(0, n - 1)
    entries = draw(st.lists(st.tuples(node, node, st.sampled_from(weights)), max_size=3 * n))
    form = draw(st.sampled_from(forms))
    return build(n, entries, form)


def size(graph) -> int:
    return len(graph) if isinstance(graph, list) else graph.shape[0]


@st.composite
def index_sets(draw, n):
    """``indices`` as SciPy takes them: None, a (negative) scalar, a list, a 2-D array."""
    node = st.integers(-n, n - 1)
    kind = draw(st.sampled_from(["none", "scalar", "list", "2d"]))
    if kind == "none":
        return None
    if kind == "scalar":
        return draw(node)
    if kind == "list":
        return draw(st.lists(node, max_size=4))
    return np.array(draw(st.lists(node, min_size=4, max_size=4))).reshape(2, 2)


# -- checks ---------------------------------------------------------------------------


def arc_weights(graph, directed, unweighted):
    """The lightest arc ``i -> j`` a search may use, per SciPy's rules (inf if none)."""
    csr = validate_graph(graph, directed, dense_output=False)
    n = csr.shape[0]
    rows = np.repeat(np.arange(n), np.diff(csr.indptr))
    data = np.ones(csr.nnz) if unweighted else csr.data
    usable = ~np.isnan(data)
    weights = np.full((n, n), np.inf)
    np.minimum.at(weights, (rows[usable], csr.indices[usable]), data[usable])
    return weights if directed else np.minimum(weights, weights.T)


def assert_tree(dist, pred, sources_of, weights):
    """``pred`` is a shortest-path forest for ``dist``: each reached node's
    predecessor is on a shortest path to it, chains end at the node's source
    (``sources_of[v]``) and only sources and unreached nodes have none."""
    assert pred.dtype == np.int32
    n = dist.shape[0]
    for v in range(n):
        source = sources_of[v]
        if source < 0 or v == source:
            assert pred[v] == -9999, (v, pred[v])
            continue
        p = pred[v]
        assert 0 <= p < n and dist[p] + weights[p, v] == dist[v], (v, p, dist[p], dist[v])
        steps, u = 0, v
        while u != source:
            assert sources_of[u] == source, "a predecessor chain crosses to another source"
            u = pred[u]
            steps += 1
            assert 0 <= u < n and steps <= n, "predecessors do not lead back to the source"


def call_both(name, graph, *args, **kwargs):
    """(SciPy's result or exception, wavefront's result or exception), with warnings."""
    outcomes = []
    for module in (scipy_csgraph, wf_csgraph):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                result = getattr(module, name)(graph, *args, **kwargs)
            except Exception as exc:  # compared below: same type and message
                result = exc
        outcomes.append((result, [(w.category, str(w.message)) for w in caught]))
    (expected, expected_warnings), (got, got_warnings) = outcomes
    assert got_warnings == expected_warnings
    if isinstance(expected, Exception):
        assert type(got) is type(expected) and str(got) == str(expected), (expected, got)
        return None, None
    assert not isinstance(got, Exception), f"SciPy answered, wavefront raised {got!r}"
    return expected, got


def assert_same_array(got, expected):
    assert isinstance(got, np.ndarray) and got.dtype == expected.dtype and got.shape == expected.shape
    np.testing.assert_array_equal(got, expected)


def check_shortest_paths(graph, directed, indices, unweighted, expected, got, return_predecessors):
    """Distances exactly SciPy's; predecessors a valid tree per index row."""
    if not return_predecessors:
        assert_same_array(got, expected)
        return
    assert_same_array(got[0], expected[0])
    assert got[1].shape == expected[1].shape and got[1].dtype == expected[1].dtype
    weights = arc_weights(graph, directed, unweighted)
    n = size(graph)
    flat = np.arange(n) if indices is None else np.atleast_1d(np.asarray(indices)).reshape(-1) % max(n, 1)
    dist, pred = got[0].reshape(-1, n), got[1].reshape(-1, n)
    for row, source in enumerate(flat):
        sources_of = np.where(np.isfinite(dist[row]), source, -1)
        assert_tree(dist[row], pred[row], sources_of, weights)


# -- differential tests -------------------------------------------------------------------


@HYPOTHESIS
@given(data=st.data(), graph=graphs(), directed=st.booleans(), min_only=st.booleans(),
       return_predecessors=st.booleans(), unweighted=st.booleans(), limit=st.sampled_from(LIMITS))
def test_dijkstra_matches_scipy(data, graph, directed, min_only, return_predecessors, unweighted, limit):
    n = size(graph)
    indices = data.draw(index_sets(n))
    kwargs = dict(directed=directed, indices=indices, return_predecessors=return_predecessors,
                  unweighted=unweighted, limit=limit, min_only=min_only)
    expected, got = call_both("dijkstra", graph, **kwargs)
    if expected is None:
        return
    if not min_only:
        check_shortest_paths(graph, directed, indices, unweighted, expected, got, return_predecessors)
        return
    if not return_predecessors:
        assert_same_array(got, expected)
        return
    dist, pred, sources = got
    assert_same_array(dist, expected[0])
    assert sources.dtype == np.int32 and pred.shape == sources.shape == (n,)
    starts = set(np.asarray(indices).reshape(-1) % n) if indices is not None else set(range(n))
    reached = np.isfinite(dist)
    np.testing.assert_array_equal(sources >= 0, reached)
    assert set(sources[reached]) <= starts and all(sources[s] == s for s in starts)
    # Each node's source is one of its nearest: the distance from it is the minimum.
    for v in np.flatnonzero(reached):
        from_source = scipy_csgraph.dijkstra(graph, directed=directed, indices=int(sources[v]),
                                             unweighted=unweighted, limit=limit)
        assert from_source[v] == dist[v]
    assert_tree(dist, pred, np.where(reached, sources, -1), arc_weights(graph, directed, unweighted))


@HYPOTHESIS
@given(data=st.data(), graph=graphs(), directed=st.booleans(), return_predecessors=st.booleans(),
       unweighted=st.booleans(), method=st.sampled_from(["auto", "D", "BF", "J", "FW", "bellman_ford"]))
def test_bellman_ford_and_shortest_path_match_scipy(data, graph, directed, return_predecessors,
                                                    unweighted, method):
    indices = data.draw(index_sets(size(graph)))
    kwargs = dict(directed=directed, indices=indices, return_predecessors=return_predecessors,
                  unweighted=unweighted)
    if method == "bellman_ford":
        expected, got = call_both("bellman_ford", graph, **kwargs)
    elif method == "auto":
        # wavefront's 'auto' is 'D' for non-negative weights. SciPy's picks
        # 'FW' for dense graphs, which reads a masked array's unmasked zeros
        # as "no edge" where its 'D' reads them as 0-weight edges.
        expected = scipy_csgraph.shortest_path(graph, method="D", **kwargs)
        got = wf_csgraph.shortest_path(graph, method="auto", **kwargs)
    else:
        expected, got = call_both("shortest_path", graph, method=method, **kwargs)
    if expected is None:
        return
    if method in ("FW", "J"):  # SciPy runs these: identical, predecessors too
        for e, g in zip(expected if return_predecessors else [expected], got if return_predecessors else [got]):
            assert_same_array(g, e)
        return
    check_shortest_paths(graph, directed, indices, unweighted, expected, got, return_predecessors)


@HYPOTHESIS
@given(data=st.data(), graph=graphs(max_n=12), directed=st.booleans(), return_predecessors=st.booleans())
def test_breadth_first_order_and_tree_are_scipys(data, graph, directed, return_predecessors):
    start = data.draw(st.integers(0, size(graph) - 1))
    expected, got = call_both("breadth_first_order", graph, start, directed, return_predecessors)
    if return_predecessors:
        assert_same_array(got[0], expected[0])
        assert_same_array(got[1], expected[1])
    else:
        assert_same_array(got, expected)
    expected, got = call_both("breadth_first_tree", graph, start, directed=directed)
    assert type(got) is type(expected)
    np.testing.assert_array_equal(got.toarray(), expected.toarray())


@settings(max_examples=max(30, EXAMPLES // 5), deadline=None)
@given(graph=graphs(max_n=30, weights=[1.0, 2.0, 3.0], forms=["csr_array"]), directed=st.booleans(),
       data=st.data())
def test_predecessors_equal_scipys_where_shortest_paths_are_unique(graph, directed, data):
    # Integer weights 1..3 tie often; where a node has one shortest path,
    # its predecessor is determined, and must be SciPy's.
    n = size(graph)
    source = data.draw(st.integers(0, n - 1))
    expected = scipy_csgraph.dijkstra(graph, directed=directed, indices=source, return_predecessors=True)
    got = wf_csgraph.dijkstra(graph, directed=directed, indices=source, return_predecessors=True)
    weights = arc_weights(graph, directed, False)
    dist = expected[0]
    finite = np.isfinite(dist)
    tight = (dist[:, None] + weights == dist[None, :]) & finite[:, None] & finite[None, :]
    unique = tight.sum(axis=0) == 1
    np.testing.assert_array_equal(got[1][unique], expected[1][unique])


# -- the SciPy conventions, one by one ---------------------------------------------------------

GRAPH = np.array([[0, 3, 3, 0, 0],
                  [0, 0, 0, 2, 4],
                  [0, 0, 0, 0, 0],
                  [1, 0, 0, 0, 0],
                  [2, 0, 0, 2, 0]], dtype=float)


def test_shapes_follow_indices():
    assert wf_csgraph.dijkstra(GRAPH).shape == (5, 5)
    assert wf_csgraph.dijkstra(GRAPH, indices=1).shape == (5,)
    assert wf_csgraph.dijkstra(GRAPH, indices=[[0], [1]]).shape == (2, 1, 5)
    assert wf_csgraph.dijkstra(GRAPH, indices=[]).shape == (0, 5)
    assert wf_csgraph.dijkstra(GRAPH, indices=[0, 1], min_only=True).shape == (5,)
    dist, pred = wf_csgraph.dijkstra(GRAPH, indices=-1, return_predecessors=True)
    assert dist.dtype == np.float64 and pred.dtype == np.int32 and dist[4] == 0


def test_explicit_zero_is_an_edge_in_sparse_input_only():
    sparse = sp.csr_array(([0.0], ([0], [1])), shape=(2, 2))
    assert wf_csgraph.dijkstra(sparse, indices=0).tolist() == [0.0, 0.0]
    assert wf_csgraph.dijkstra(sparse.toarray(), indices=0).tolist() == [0.0, np.inf]
    assert wf_csgraph.breadth_first_order(sparse, 0, return_predecessors=False).tolist() == [0, 1]


def test_undirected_takes_the_lighter_direction():
    graph = np.array([[0, 5.0], [2.0, 0]])
    assert wf_csgraph.dijkstra(graph, directed=False, indices=0).tolist() == [0.0, 2.0]
    assert wf_csgraph.dijkstra(graph, directed=True, indices=0).tolist() == [0.0, 5.0]


def test_read_only_and_int64_index_input():
    graph = sp.csr_array(GRAPH)
    graph.data.flags.writeable = False
    np.testing.assert_array_equal(wf_csgraph.dijkstra(graph), scipy_csgraph.dijkstra(GRAPH))
    wide = sp.csr_array((graph.data, graph.indices.astype(np.int64), graph.indptr.astype(np.int64)),
                        shape=graph.shape)
    np.testing.assert_array_equal(wf_csgraph.shortest_path(wide, directed=False),
                                  scipy_csgraph.shortest_path(GRAPH, directed=False))


def test_negative_weights_go_to_scipy():
    negative = np.array([[0, 2.0, 0], [0, 0, -1.0], [0, 0, 0]])
    with pytest.warns(UserWarning, match="negative weights"):
        np.testing.assert_array_equal(wf_csgraph.dijkstra(negative, indices=0), [0.0, 2.0, 1.0])
    np.testing.assert_array_equal(wf_csgraph.bellman_ford(negative, indices=0), [0.0, 2.0, 1.0])
    np.testing.assert_array_equal(wf_csgraph.shortest_path(negative, indices=0), [0.0, 2.0, 1.0])
    with pytest.raises(scipy_csgraph.NegativeCycleError):
        wf_csgraph.bellman_ford(negative, directed=False)
    with pytest.raises(wf_csgraph.NegativeCycleError):  # the same class, re-exported
        wf_csgraph.shortest_path(negative, method="BF", directed=False)


@pytest.mark.parametrize("call, error, message", [
    (lambda: wf_csgraph.dijkstra(np.ones((2, 3))), ValueError, "graph should be a square array"),
    (lambda: wf_csgraph.dijkstra(sp.csr_array((2, 3))), ValueError, "must be shape"),
    (lambda: wf_csgraph.dijkstra(np.ones((2, 2, 2))), ValueError, "two dimensions"),
    (lambda: wf_csgraph.dijkstra(GRAPH, indices=5), ValueError, "indices out of range"),
    (lambda: wf_csgraph.dijkstra(GRAPH, indices=[0, -6]), ValueError, "indices out of range"),
    (lambda: wf_csgraph.bellman_ford(GRAPH, indices=7), ValueError, "indices out of range"),
    (lambda: wf_csgraph.dijkstra(GRAPH, limit=-1), ValueError, "limit must be >= 0"),
    (lambda: wf_csgraph.dijkstra(GRAPH, limit="far"), TypeError, "limit must be a real number"),
    (lambda: wf_csgraph.dijkstra(GRAPH, limit="1"), TypeError, "limit must be a real number"),  # not float("1")
    (lambda: wf_csgraph.shortest_path(GRAPH, method="XX"), ValueError, "unrecognized method 'XX'"),
    (lambda: wf_csgraph.shortest_path(GRAPH, method="FW", indices=0), ValueError, "Cannot specify indices"),
    (lambda: wf_csgraph.breadth_first_order(GRAPH, 5), ValueError, "i_start out of range"),
    (lambda: wf_csgraph.breadth_first_order(GRAPH, -1), ValueError, "i_start out of range"),
    (lambda: wf_csgraph.breadth_first_tree(GRAPH, "0"), TypeError, "i_start must be an integer"),
])
def test_bad_input_raises(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_float_start_node_is_truncated_as_scipy_does():
    got = wf_csgraph.breadth_first_order(GRAPH, 1.7)
    expected = scipy_csgraph.breadth_first_order(GRAPH, 1.7)
    np.testing.assert_array_equal(got[0], expected[0])
    np.testing.assert_array_equal(got[1], expected[1])


def test_empty_graph():
    empty = np.zeros((0, 0))
    assert wf_csgraph.dijkstra(empty).shape == (0, 0)
    assert wf_csgraph.dijkstra(empty, min_only=True, return_predecessors=True)[2].shape == (0,)


def test_each_index_is_one_wavefront_search(monkeypatch):
    calls = []
    real = implementation.sssp
    def spy(graph, **options):
        seeds = options.get("sources", options.get("source"))
        calls.append(seeds.tolist() if hasattr(seeds, "tolist") else seeds)
        return real(graph, **options)

    monkeypatch.setattr(implementation, "sssp", spy)
    wf_csgraph.dijkstra(GRAPH, indices=[3, 0, 3])
    assert calls == [3, 0]  # a repeated index is searched once
    calls.clear()
    wf_csgraph.dijkstra(GRAPH, indices=[3, 0, 1], min_only=True)
    assert calls == [[0, 1, 3]]  # min_only: one search from all the indices at once


def test_module_layout():
    assert wf_csgraph.dijkstra is implementation.dijkstra
    assert set(wf_csgraph.__all__) == set(implementation.__all__)
    assert wf_csgraph.NegativeCycleError is scipy_csgraph.NegativeCycleError
    with pytest.raises(AttributeError):
        implementation.no_such_function  # noqa: B018


def test_imports_stay_light():
    # ``import wavefront`` loads no adapter; ``import wavefront.csgraph`` no SciPy csgraph.
    import subprocess
    import sys

    code = ("import sys, wavefront; a = 'wavefront.interop.csgraph' in sys.modules; "
            "import wavefront.csgraph; "
            "print(a, any(m.startswith('scipy.sparse.csgraph') for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


# -- documentation -----------------------------------------------------------------------


def test_user_guide_examples_run():
    result = doctest.testfile(str(ROOT / "docs" / "guide" / "scipy.md"), module_relative=False,
                              optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


def test_module_docstring_example_runs():
    import wavefront.csgraph

    result = doctest.testmod(wavefront.csgraph)
    assert result.attempted > 0 and result.failed == 0


# -- the GPU: cupyx.scipy.sparse in, CuPy out -------------------------------------------------


def to_gpu(graph):
    import cupy
    import cupyx.scipy.sparse as cusparse

    if isinstance(graph, list) or isinstance(graph, np.ndarray):
        return cupy.asarray(np.asarray(graph))
    return cusparse.csr_matrix(sp.csr_matrix(graph))


@pytest.mark.gpu
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), graph=graphs(forms=["dense", "csr_array", "coo_array"]), directed=st.booleans(),
       min_only=st.booleans(), unweighted=st.booleans(), limit=st.sampled_from(LIMITS))
def test_cupyx_input_runs_on_the_gpu_and_agrees(data, graph, directed, min_only, unweighted, limit):
    import cupy

    n = size(graph)
    indices = data.draw(index_sets(n))
    kwargs = dict(directed=directed, indices=indices, unweighted=unweighted, limit=limit,
                  min_only=min_only, return_predecessors=True)
    try:
        expected = scipy_csgraph.dijkstra(graph, **kwargs)
    except ValueError:
        with pytest.raises(ValueError):
            wf_csgraph.dijkstra(to_gpu(graph), **kwargs)
        return
    got = wf_csgraph.dijkstra(to_gpu(graph), **kwargs)
    assert all(isinstance(a, cupy.ndarray) for a in got)
    got = tuple(a.get() for a in got)
    if min_only:
        assert_same_array(got[0], expected[0])
        reached = np.isfinite(got[0])
        assert_tree(got[0], got[1], np.where(reached, got[2], -1), arc_weights(graph, directed, unweighted))
    else:
        check_shortest_paths(graph, directed, indices, unweighted, expected, got, True)


@pytest.mark.gpu
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), graph=graphs(max_n=12, forms=["dense", "csr_array", "coo_array"]),
       directed=st.booleans())
def test_cupyx_breadth_first_is_scipys(data, graph, directed):
    import cupyx.scipy.sparse as cusparse

    start = data.draw(st.integers(0, size(graph) - 1))
    order, pred = wf_csgraph.breadth_first_order(to_gpu(graph), start, directed)
    expected = scipy_csgraph.breadth_first_order(graph, start, directed)
    np.testing.assert_array_equal(order.get(), expected[0])
    np.testing.assert_array_equal(pred.get(), expected[1])
    tree = wf_csgraph.breadth_first_tree(to_gpu(graph), start, directed)
    assert isinstance(tree, cusparse.csr_matrix)
    np.testing.assert_array_equal(tree.toarray().get(),
                                  scipy_csgraph.breadth_first_tree(graph, start, directed).toarray())


@pytest.mark.gpu
def test_cupyx_negative_weights_and_delegated_methods_come_back_to_the_gpu():
    import cupy

    negative = np.array([[0, 2.0, 0], [0, 0, -1.0], [0, 0, 0]])
    got = wf_csgraph.bellman_ford(to_gpu(negative), indices=0)
    assert isinstance(got, cupy.ndarray) and got.get().tolist() == [0.0, 2.0, 1.0]
    got = wf_csgraph.shortest_path(to_gpu(GRAPH), method="FW", return_predecessors=True)
    assert all(isinstance(a, cupy.ndarray) for a in got)
    np.testing.assert_array_equal(got[0].get(), scipy_csgraph.shortest_path(GRAPH, method="FW"))
