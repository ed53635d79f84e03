"""Graph container and builders, results, registry and direction policies."""
import subprocess
import sys

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import wavefront as wf
from wavefront.bfs.policy import (
    BOTTOM_UP,
    TOP_DOWN,
    FixedPolicy,
    GAPPolicy,
    LevelState,
    Seed000Policy,
    make_policy,
)
from wavefront.results import BFSResult, Trace, to_caller_ids


@st.composite
def edge_lists(draw, max_n=30, max_m=80, weighted=True):
    n = draw(st.integers(1, max_n))
    m = draw(st.integers(0, max_m))
    src = draw(st.lists(st.integers(0, n - 1), min_size=m, max_size=m))
    dst = draw(st.lists(st.integers(0, n - 1), min_size=m, max_size=m))
    w = None
    if weighted:
        w = draw(st.lists(st.integers(1, 9), min_size=m, max_size=m))
        w = np.array(w, dtype=np.float64)
    return n, np.array(src, dtype=np.int64), np.array(dst, dtype=np.int64), w


def expected_adjacency(n, src, dst, w, directed):
    """Dense oracle: min weight over parallel arcs, no self-loops."""
    dense = np.full((n, n), np.inf)
    pairs = list(zip(src, dst, w if w is not None else np.ones(len(src))))
    if not directed:
        pairs += [(b, a, c) for a, b, c in pairs]
    for a, b, c in pairs:
        if a != b:
            dense[a, b] = min(dense[a, b], c)
    return dense


def dense_of(indptr, indices, weights, n):
    dense = np.full((n, n), np.inf)
    for u in range(n):
        cols = indices[indptr[u] : indptr[u + 1]]
        assert np.all(np.diff(cols) > 0), "columns must be sorted and unique"
        ws = weights[indptr[u] : indptr[u + 1]] if weights is not None else np.ones(len(cols))
        dense[u, cols] = ws
    return dense


@settings(max_examples=60, deadline=None)
@given(edge_lists(), st.booleans())
def test_from_edges_matches_dense_oracle(case, directed):
    n, src, dst, w = case
    g = wf.Graph.from_edges(src, dst, weights=w, n=n, directed=directed)
    assert g.n == n and g.directed == directed
    assert g.indptr.dtype == np.int64 and g.indices.dtype == np.int32
    want = expected_adjacency(n, src, dst, w, directed)
    assert np.array_equal(dense_of(g.indptr, g.indices, g.weights, n), want)
    # the CSC is the transpose (for undirected graphs it aliases the CSR)
    assert np.array_equal(dense_of(g.in_indptr, g.in_indices, g.in_weights, n), want.T)
    loops = src == dst
    assert g.num_input_edges == int((~loops).sum())
    deg = np.bincount(src[~loops], minlength=n)
    if not directed:
        deg = deg + np.bincount(dst[~loops], minlength=n)
    assert np.array_equal(g.input_degree, deg)


@settings(max_examples=40, deadline=None)
@given(edge_lists(weighted=False), st.booleans())
def test_degree_relabel_is_a_permutation_sorted_by_degree(case, directed):
    n, src, dst, _ = case
    plain = wf.Graph.from_edges(src, dst, n=n, directed=directed)
    g = wf.Graph.from_edges(src, dst, n=n, directed=directed, relabel="degree")
    assert sorted(g.labels.tolist()) == list(range(n))
    assert np.all(np.diff(g.input_degree) <= 0)
    # arc (u, v) internal <-> arc (labels[u], labels[v]) in caller ids
    a = plain.to_scipy().toarray()
    b = g.to_scipy().toarray()
    assert np.array_equal(b, a[np.ix_(g.labels, g.labels)])
    for v in range(n):
        assert g.labels[g.internal_id(v)] == v


def test_from_scipy_and_to_scipy_round_trip():
    m = sp.random(20, 20, density=0.2, format="csr", random_state=3)
    m.setdiag(0)
    m.eliminate_zeros()
    g = wf.Graph.from_scipy(m, directed=True)
    assert (g.to_scipy() != m).nnz == 0


def test_index_dtype_switches_to_int64_beyond_int32():
    assert wf.graph.index_dtype(2**31 - 1) == np.int32
    assert wf.graph.index_dtype(2**31) == np.int64


@settings(max_examples=30, deadline=None)
@given(edge_lists(), st.booleans())
def test_lexsort_path_for_huge_n_agrees(case, directed):
    # Graphs with n > 2**31 can't pack (row, col) into one int64 key; force
    # that code path on small graphs and compare with the packed-key path.
    from wavefront.graph import _csr, build

    n, src, dst, w = case
    packed = build.from_edges(src, dst, weights=w, n=n, directed=directed)
    lex = build.Graph(**_csr.csr_arrays(src, dst, weights=w, n=n, directed=directed, pack_limit=-1))
    for name in ("indptr", "indices", "weights", "in_indptr", "in_indices", "in_weights"):
        a, b = getattr(packed, name), getattr(lex, name)
        assert (a is None and b is None) or np.array_equal(a, b), name


@pytest.mark.parametrize(
    "kwargs, error, text",
    [
        (dict(src=[0, -1], dst=[1, 2]), wf.VertexError, "negative"),
        (dict(src=[0, 5], dst=[1, 2], n=4), wf.VertexError, "out of range"),
        (dict(src=[0, 1], dst=[1]), ValueError, "differ in length"),
        (dict(src=[0.5], dst=[1]), wf.VertexError, "non-integer"),
        (dict(src=["a"], dst=["b"]), wf.VertexError, "integer"),
        (dict(src=[0], dst=[1], weights=[1.0, 2.0]), ValueError, "weights has 2 entries"),
        (dict(src=[0], dst=[1], weights=["x"]), ValueError, "real numbers"),
    ],
)
def test_from_edges_rejects_bad_input(kwargs, error, text):
    with pytest.raises(error, match=text):
        wf.Graph.from_edges(**kwargs)


def test_weight_dtypes_are_normalized():
    for given_dtype, stored in [
        (np.uint8, np.int32), (np.int16, np.int32), (np.int32, np.int32),
        (np.uint32, np.int64), (np.int64, np.int64), (np.float16, np.float32),
        (np.float32, np.float32), (np.float64, np.float64), (bool, np.int32),
    ]:
        g = wf.Graph.from_edges([0, 1], [1, 2], weights=np.array([1, 1], dtype=given_dtype))
        assert g.weights.dtype == stored, given_dtype


def test_internal_id_errors():
    g = wf.Graph.from_edges([0, 1], [1, 2])
    with pytest.raises(wf.VertexError, match="out of range"):
        g.internal_id(3)
    with pytest.raises(wf.VertexError, match="out of range"):
        g.internal_id(-1)
    with pytest.raises(wf.VertexError, match="integer"):
        g.internal_id("x")
    with pytest.raises(wf.VertexError, match="integer"):
        g.internal_id(1.5)
    assert g.internal_id(np.int64(2)) == 2


def test_an_empty_graph_says_it_has_no_vertices():
    g = wf.Graph.from_edges(np.array([], dtype=np.int64), np.array([], dtype=np.int64), n=0)
    with pytest.raises(wf.VertexError, match="the graph has no vertices$"):
        wf.bfs(g, 0)
    with pytest.raises(wf.VertexError, match=r"the graph has vertices 0\.\.2$"):
        wf.bfs(wf.Graph.from_edges([0, 1], [1, 2]), 3)


def test_traversed_edges_counts_input_tuples_with_duplicates():
    # tuples: 0-1 twice, 1-2, a self-loop at 2, and a separate edge 3-4
    g = wf.Graph.from_edges([0, 0, 1, 2, 3], [1, 1, 2, 2, 4])
    reached = np.array([True, True, True, False, False])
    assert g.traversed_edges(reached) == 3
    assert g.traversed_edges(np.ones(5, bool)) == 4 == g.num_input_edges


def test_to_cuda_without_gpu_says_why():
    from wavefront.backends import cuda_available

    if cuda_available():
        pytest.skip("a GPU is present")
    g = wf.Graph.from_edges([0], [1])
    with pytest.raises(wf.BackendUnavailableError, match="CUDA backend cannot run here"):
        g.to("cuda")
    with pytest.raises(ValueError, match="device must be one of"):
        g.to("tpu")


def test_to_caller_ids_maps_parents_and_levels_back():
    g = wf.Graph.from_edges([0, 1, 1, 1], [1, 2, 3, 0], relabel="degree")
    # internal BFS by hand from internal source = internal id of caller 0
    s = g.internal_id(0)
    sci = sp.csgraph.breadth_first_order(g.to_scipy(), s, directed=True, return_predecessors=True)
    pred = sci[1].astype(np.int64)
    pred[pred < 0] = -1
    pred[s] = s
    levels = np.full(g.n, -1, np.int32)
    levels[s] = 0
    for v in sci[0][1:]:
        levels[v] = levels[pred[v]] + 1
    internal = BFSResult(source=s, parents=pred, levels=levels, trace=Trace())
    res = to_caller_ids(g, internal, 0)
    assert res.source == 0
    assert res.parents.tolist() == [0, 0, 1, 1]
    assert res.levels.tolist() == [0, 1, 2, 2]


def test_path_follows_parents_and_reports_unreachable():
    r = BFSResult(source=0, parents=np.array([0, 0, 1, -1]), levels=np.array([0, 1, 2, -1]))
    assert wf.path(r, 2).tolist() == [0, 1, 2]
    assert wf.path(r, 0).tolist() == [0]
    with pytest.raises(ValueError, match="not reachable"):
        wf.path(r, 3)
    with pytest.raises(wf.VertexError):
        wf.path(r, 9)
    cyclic = BFSResult(source=0, parents=np.array([0, 2, 1]), levels=None)
    with pytest.raises(ValueError, match="cycle"):
        wf.path(cyclic, 1)


def test_registry_lists_and_rejects_methods():
    assert {"top-down", "bottom-up", "hybrid", "auto"} <= set(wf.methods("bfs", "cpu"))
    g = wf.Graph.from_edges([0], [1])
    with pytest.raises(wf.UnknownMethodError, match="choose one of"):
        wf.bfs(g, 0, method="no-such-method")
    with pytest.raises(ValueError):
        wf.methods("pagerank", "cpu")


def test_registered_method_is_called_with_internal_ids(monkeypatch):
    from wavefront import registry

    monkeypatch.setattr(registry, "_extra", {})  # the method leaves with the test
    seen = {}

    def fake(graph, source, **options):
        seen["source"] = source
        seen["options"] = options
        parents = np.full(graph.n, -1, np.int64)
        parents[source] = source
        levels = np.where(parents >= 0, 0, -1).astype(np.int32)
        return BFSResult(source=source, parents=parents, levels=levels, method="fake")

    wf.register("bfs", "cpu", "test-fake", fake)
    g = wf.Graph.from_edges([0, 1, 1], [1, 2, 3], relabel="degree")
    res = wf.bfs(g, 3, method="test-fake", depth_limit=2)
    assert seen["source"] == g.internal_id(3)
    assert seen["options"] == {"depth_limit": 2}
    assert res.parents.tolist() == [-1, -1, -1, 3]
    assert "test-fake" in wf.methods("bfs", "cpu")


def state(**kw):
    base = dict(level=1, n=1000, m=16000, frontier_vertices=10, frontier_edges=100,
                unexplored_edges=15000, previous_frontier_vertices=1, direction=TOP_DOWN)
    base.update(kw)
    return LevelState(**base)


def test_seed000_policy_thresholds():
    p = Seed000Policy()  # alpha 10, beta 14
    assert p.choose(state(frontier_edges=1600))[0] == TOP_DOWN  # m/alpha = 1600
    assert p.choose(state(frontier_edges=1601))[0] == BOTTOM_UP
    # back when n_f < n^2/(beta m) = 1e6 / 224000 = 4.46
    assert p.choose(state(direction=BOTTOM_UP, frontier_vertices=4))[0] == TOP_DOWN
    assert p.choose(state(direction=BOTTOM_UP, frontier_vertices=5))[0] == BOTTOM_UP


def test_gap_policy_thresholds():
    p = GAPPolicy()  # alpha 15, beta 18
    assert p.choose(state(frontier_edges=1000, unexplored_edges=15000))[0] == TOP_DOWN
    assert p.choose(state(frontier_edges=1001, unexplored_edges=15000))[0] == BOTTOM_UP
    # back only when shrinking and n_f < n/beta = 55.6
    bu = dict(direction=BOTTOM_UP, previous_frontier_vertices=100)
    assert p.choose(state(frontier_vertices=55, **bu))[0] == TOP_DOWN
    assert p.choose(state(frontier_vertices=56, **bu))[0] == BOTTOM_UP
    growing = dict(direction=BOTTOM_UP, previous_frontier_vertices=10)
    assert p.choose(state(frontier_vertices=20, **growing))[0] == BOTTOM_UP


def test_make_policy():
    assert isinstance(make_policy(), GAPPolicy)
    p = make_policy("seed000", alpha=3)
    assert isinstance(p, Seed000Policy) and p.alpha == 3 and p.beta == 14
    assert make_policy("bottom-up").choose(state())[0] == BOTTOM_UP
    assert isinstance(make_policy(FixedPolicy(TOP_DOWN)), FixedPolicy)
    with pytest.raises(ValueError, match="unknown direction policy"):
        make_policy("fastest")
    with pytest.raises(ValueError, match="positive"):
        GAPPolicy(alpha=0)


def test_trace_views():
    t = Trace()
    t.add(1, TOP_DOWN, 1, 5, 0.001, "start")
    t.add(2, BOTTOM_UP, 5, 40, 0.002)
    assert t.edges == 45 and t.edges_by_kind() == {TOP_DOWN: 5, BOTTOM_UP: 40}
    rec = t.to_records()
    assert rec["edges"].tolist() == [5, 40] and rec["kind"][1] == BOTTOM_UP
    assert t.table().row_count == 2


def test_deferred_trace_rows_are_built_once_in_order():
    """Rows a driver defers appear, in order, in every view of the list
    (length, indexing, iteration, equality, copies, pickles), and are built once."""
    import copy
    import pickle

    from wavefront.results import TraceRow

    built = []

    def make_rows():
        built.append(1)
        return (TraceRow(s, TOP_DOWN, s, s, 0.001) for s in (2, 3))

    t = Trace()
    t.add(1, TOP_DOWN, 1, 1, 0.001)
    t.defer(make_rows)
    t.add(4, BOTTOM_UP, 4, 4, 0.001)
    assert built == []
    assert len(t) == 4 and [r.step for r in t] == [1, 2, 3, 4] and t[-1].kind == BOTTOM_UP
    assert built == [1]
    assert t.edges == 10 and len(t.to_records()) == 4
    for fresh in (lambda: Trace(), lambda: Trace([TraceRow(0, TOP_DOWN, 1, 1, 0.0)])):
        u = fresh()
        before = list.__len__(u)
        u.defer(lambda: [TraceRow(9, TOP_DOWN, 1, 1, 0.0)])
        assert bool(u) and u[-1].step == 9 and len(u) == before + 1
        v = fresh()
        v.defer(lambda: [TraceRow(9, TOP_DOWN, 1, 1, 0.0)])
        for clone in (pickle.loads(pickle.dumps(v)), copy.deepcopy(v), v.copy(), v + []):
            assert [r.step for r in clone] == [r.step for r in u]
    w = Trace()
    w.defer(lambda: [TraceRow(5, TOP_DOWN, 1, 1, 0.0)])
    w.append(TraceRow(6, TOP_DOWN, 1, 1, 0.0))
    assert [r.step for r in w] == [5, 6]


def test_import_is_light():
    code = "import sys, wavefront; print('numba' in sys.modules, 'cupy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


@pytest.mark.parametrize("relabel", [None, "degree"])
def test_traversed_edges_takes_the_callers_ids_on_relabelled_graphs(relabel):
    """Two components of different sizes and an isolated vertex: the TEPS count
    of a search's reached set is the input tuples inside it, whatever the
    internal order (relabel="degree" stores input_degree permuted)."""
    rng = np.random.default_rng(3)
    big = rng.integers(0, 200, (2, 1000))
    small = rng.integers(200, 299, (2, 150))
    src = np.concatenate([big[0], small[0]])
    dst = np.concatenate([big[1], small[1]])
    g = wf.from_edges(src, dst, n=300, relabel=relabel)
    for source in (int(src[0]), int(small[0, 0])):
        reached = np.asarray(wf.bfs(g, source).reached)
        inside = (src != dst) & reached[src] & reached[dst]
        assert 0 < inside.sum() < src.size
        assert g.traversed_edges(reached) == int(inside.sum())
    isolated = np.zeros(300, dtype=bool)
    isolated[299] = True
    assert g.traversed_edges(isolated) == 0
