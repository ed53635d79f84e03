"""Graph conversions: ``Graph.from_networkx`` / ``to_networkx``, ``from_scipy`` /
``to_scipy``, ``from_cupy``.

Differential: searches on a converted graph against NetworkX's
``single_source_dijkstra_path_length`` / ``multi_source_dijkstra_path_length``
on the original, and against SciPy's ``dijkstra(indices=[...], min_only=True)``
on ``to_scipy``; hypothesis draws the graphs (kind, node keys, weights,
missing attributes). ``gpu`` tests build from CuPy data on the device.
"""
from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.sparse import csgraph

import wavefront as wf
from wavefront.errors import VertexError, WeightError

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
KINDS = {"graph": nx.Graph, "digraph": nx.DiGraph, "multigraph": nx.MultiGraph, "multidigraph": nx.MultiDiGraph}


@st.composite
def nx_graphs(draw):
    """A NetworkX graph of any kind, with node keys that are not 0..n-1 unless
    drawn so, int or float weights, some edges without the attribute."""
    kind = draw(st.sampled_from(sorted(KINDS)))
    n = draw(st.integers(1, 30))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    keys = draw(st.sampled_from(["identity", "strings", "shuffled-ints", "tuples"]))
    if keys == "identity":
        nodes = list(range(n))
    elif keys == "strings":
        nodes = [f"v{i}" for i in rng.permutation(n)]
    elif keys == "shuffled-ints":
        nodes = [int(x) for x in rng.permutation(np.arange(100, 100 + 3 * n, 3))]
    else:
        nodes = [(int(i), "x") for i in rng.permutation(n)]
    G = KINDS[kind]()
    G.add_nodes_from(nodes)
    integral = draw(st.booleans())
    for _ in range(int(rng.integers(0, 3 * n + 1))):
        u, v = nodes[rng.integers(n)], nodes[rng.integers(n)]
        if rng.random() < 0.2:
            G.add_edge(u, v)  # no attribute: the default weight
        else:
            w = int(rng.integers(0, 10)) if integral else float(rng.uniform(0, 3))
            G.add_edge(u, v, weight=w)
    return G


def nx_distances(G, sources, default=1):
    weight = lambda u, v, d: (min(a.get("weight", default) for a in d.values())
                              if G.is_multigraph() else d.get("weight", default))
    return nx.multi_source_dijkstra_path_length(G, set(sources), weight=weight)


def assert_same(got: dict, expected: dict):
    assert got.keys() == expected.keys()
    for key, value in expected.items():
        assert got[key] == pytest.approx(value, rel=1e-12, abs=1e-12), key


@SETTINGS
@given(G=nx_graphs(), data=st.data())
def test_from_networkx_sssp_matches_networkx(G, data):
    g = wf.Graph.from_networkx(G)
    assert g.n == len(G) and g.directed == G.is_directed()
    nodes = list(G)
    sources = data.draw(st.lists(st.sampled_from(nodes), min_size=1, max_size=4))
    for method in ("dijkstra", "delta-stepping"):
        r = wf.sssp(g, sources=sources, method=method)
        assert_same(g.keyed(r.distances, r.reached), nx_distances(G, sources))
    one = wf.sssp(g, sources[0])
    assert_same(g.keyed(one.distances, one.reached), nx.single_source_dijkstra_path_length(
        G, sources[0], weight=lambda u, v, d: (min(a.get("weight", 1) for a in d.values())
                                               if G.is_multigraph() else d.get("weight", 1))))


@SETTINGS
@given(G=nx_graphs(), data=st.data())
def test_from_networkx_unweighted_bfs_matches_networkx(G, data):
    g = wf.Graph.from_networkx(G, weight=None)
    assert g.weights is None
    source = data.draw(st.sampled_from(list(G)))
    r = wf.bfs(g, source)
    assert g.keyed(r.levels, r.reached) == nx.single_source_shortest_path_length(G, source)
    sources = data.draw(st.lists(st.sampled_from(list(G)), min_size=1, max_size=4))
    many = wf.bfs(g, sources=sources)
    hops = nx.multi_source_dijkstra_path_length(G, set(sources), weight=lambda u, v, d: 1)
    assert g.keyed(many.levels, many.reached) == hops


@SETTINGS
@given(G=nx_graphs(), default=st.sampled_from([1, 5, 0.5]))
def test_edge_attribute_default_is_honoured(G, default):
    g = wf.Graph.from_networkx(G, default=default)
    source = next(iter(G))
    r = wf.sssp(g, source)
    assert_same(g.keyed(r.distances, r.reached), nx_distances(G, [source], default))


@SETTINGS
@given(G=nx_graphs())
def test_to_networkx_round_trip(G):
    g = wf.Graph.from_networkx(G)
    back = g.to_networkx()
    assert list(back.nodes) == list(G.nodes)
    assert back.is_directed() == G.is_directed() and not back.is_multigraph()
    expected = {}
    for u, v, d in G.edges(data=True):
        if u == v:
            continue  # self-loops are never stored
        key = (u, v) if G.is_directed() else frozenset((u, v))
        w = d.get("weight", 1)
        expected[key] = min(expected.get(key, w), w)  # parallel edges: the lightest
    got = {((u, v) if G.is_directed() else frozenset((u, v))): d["weight"] for u, v, d in back.edges(data=True)}
    assert got == expected


def test_none_weights_hide_the_edge_and_ints_stay_ints():
    G = nx.DiGraph()
    G.add_edge("s", "a", weight=None)
    G.add_edge("s", "b", weight=4)
    G.add_edge("b", "a", weight=3)
    g = wf.Graph.from_networkx(G)
    assert g.weights.dtype == np.int64 and g.m == 2
    assert g.keyed(wf.sssp(g, "s").distances) == {"s": 0.0, "a": 7.0, "b": 4.0}


def test_non_numeric_weights_are_a_weight_error():
    G = nx.Graph([(0, 1, {"weight": "heavy"})])
    with pytest.raises(WeightError, match="'weight'.*not real numbers"):
        wf.Graph.from_networkx(G)
    assert wf.Graph.from_networkx(G, weight=None).m == 2  # unweighted still works


def test_node_keys_errors_name_the_key_and_its_position():
    g = wf.Graph.from_networkx(nx.path_graph(["a", "b", "c"]))
    with pytest.raises(VertexError, match="vertex 'z' is not a node"):
        wf.bfs(g, "z")
    with pytest.raises(VertexError, match=r"sources\[1\] = 'z' is not a node"):
        wf.sssp(g, sources=["a", "z"])
    with pytest.raises(VertexError):
        wf.bfs(g, 0)  # ids are not keys on a keyed graph
    r = wf.bfs(g, sources=["c", "a"])
    np.testing.assert_array_equal(r.sources, [2, 0])  # vertex ids: positions in G.nodes
    assert g.keys_of(r.sources) == ["c", "a"]


def test_int_keys_that_are_not_0_to_n_are_keys():
    # 1-based ids: vertex 1 is the first node, not the second.
    G = nx.path_graph([1, 2, 3])
    g = wf.Graph.from_networkx(G)
    assert g.keyed(wf.bfs(g, 1).levels) == {1: 0, 2: 1, 3: 2}
    assert wf.Graph.from_networkx(nx.path_graph(3)).node_keys is None  # 0..n-1: ids are keys


def test_keys_survive_a_move_and_a_relabel():
    G = nx.les_miserables_graph()
    g = wf.Graph.from_networkx(G, relabel="degree")
    assert g.labels is not None
    r = wf.sssp(g, sources=["Valjean", "Javert"])
    assert_same(g.keyed(r.distances, r.reached), nx.multi_source_dijkstra_path_length(G, {"Valjean", "Javert"}))
    back = g.to_networkx()  # in the caller's keys, whatever the internal order
    assert list(back.nodes) == list(G.nodes)
    assert edge_weights(back) == edge_weights(G)


def edge_weights(G) -> dict:
    return {frozenset((u, v)): d["weight"] for u, v, d in G.edges(data=True)}


# -- SciPy ----------------------------------------------------------------------
@SETTINGS
@given(n=st.integers(1, 40), seed=st.integers(0, 2**32 - 1), directed=st.booleans(),
       relabel=st.sampled_from([None, "degree"]))
def test_to_scipy_in_caller_ids_matches_scipy_min_only(n, seed, directed, relabel):
    rng = np.random.default_rng(seed)
    m = int(rng.integers(0, 4 * n))
    src, dst, w = rng.integers(0, n, m), rng.integers(0, n, m), rng.integers(0, 9, m)
    g = wf.Graph.from_edges(src, dst, w, n=n, directed=directed, relabel=relabel)
    matrix = g.to_scipy(ids="caller")
    plain = wf.Graph.from_edges(src, dst, w, n=n, directed=directed).to_scipy()
    assert (matrix != plain).nnz == 0
    sources = rng.integers(0, n, int(rng.integers(1, 4))).tolist()
    expected = csgraph.dijkstra(matrix, directed=directed, indices=sources, min_only=True)
    np.testing.assert_array_equal(wf.sssp(g, sources=sources).distances, expected)


def test_to_scipy_default_stays_internal_and_rejects_other_orders():
    g = wf.Graph.from_edges([0, 0, 1], [1, 2, 2], n=3, relabel="degree")
    internal = g.to_scipy().toarray()
    caller = g.to_scipy(ids="caller").toarray()
    np.testing.assert_array_equal(internal, caller[np.ix_(g.labels, g.labels)])
    with pytest.raises(ValueError, match="'internal' or 'caller'"):
        g.to_scipy(ids="labels")


def test_from_scipy_reads_matrices_as_csgraph_does():
    # Explicit zeros are arcs; repeated COO entries are summed.
    coo = sp.coo_array((np.array([0.0, 2.0, 3.0]), (np.array([0, 1, 1]), np.array([1, 2, 2]))), shape=(3, 3))
    g = wf.Graph.from_scipy(coo)
    expected = csgraph.dijkstra(coo.tocsr(), indices=0)
    np.testing.assert_array_equal(wf.sssp(g, 0).distances, expected)
    np.testing.assert_array_equal(expected, [0.0, 0.0, 5.0])
    assert (wf.Graph.from_scipy(g.to_scipy()).to_scipy() != g.to_scipy()).nnz == 0


# -- CuPy -------------------------------------------------------------------------
def test_from_cupy_refuses_host_data():
    with pytest.raises(TypeError, match="from_edges"):
        wf.Graph.from_cupy(np.array([0, 1]), np.array([1, 2]))
    with pytest.raises(TypeError, match="cupyx.scipy.sparse matrix or CuPy src, dst"):
        wf.Graph.from_cupy(sp.csr_array(np.eye(2)))


@pytest.mark.gpu
def test_from_cupy_sparse_matrix_stays_on_the_gpu_and_matches_scipy():
    import cupy
    import cupyx.scipy.sparse as cusp

    rng = np.random.default_rng(0)
    host = sp.random(300, 300, density=0.02, format="csr", random_state=1)
    host.setdiag(0)
    host.eliminate_zeros()
    g = wf.Graph.from_cupy(cusp.csr_matrix(host))
    assert g.device == "cuda" and g.directed and isinstance(g.indptr, cupy.ndarray)
    sources = rng.choice(300, 5, replace=False).tolist()
    expected = csgraph.dijkstra(host, indices=sources, min_only=True)
    np.testing.assert_allclose(cupy.asnumpy(wf.sssp(g, sources=sources).distances), expected, rtol=1e-12)
    undirected = wf.Graph.from_cupy(cusp.csr_matrix(host), directed=False)
    assert not undirected.directed


@pytest.mark.gpu
def test_from_cupy_edge_arrays_equal_from_edges():
    import cupy

    rng = np.random.default_rng(2)
    src, dst, w = rng.integers(0, 500, 3000), rng.integers(0, 500, 3000), rng.uniform(0, 1, 3000)
    gpu = wf.Graph.from_cupy(cupy.asarray(src), cupy.asarray(dst), cupy.asarray(w), n=500)
    cpu = wf.Graph.from_edges(src, dst, w, n=500)
    assert gpu.device == "cuda" and not gpu.directed
    for name in ("indptr", "indices", "weights"):
        np.testing.assert_array_equal(cupy.asnumpy(getattr(gpu, name)), getattr(cpu, name))
    with pytest.raises(TypeError, match="weights is a numpy"):
        wf.Graph.from_cupy(cupy.asarray(src), cupy.asarray(dst), w)


@pytest.mark.gpu
def test_a_gpu_graph_goes_to_networkx_and_scipy():
    G = nx.les_miserables_graph()
    g = wf.Graph.from_networkx(G).to("cuda")
    assert edge_weights(g.to_networkx()) == edge_weights(G)
    r = wf.sssp(g, sources=["Valjean", "Javert"]).to("cpu")
    assert_same(g.keyed(r.distances, r.reached), nx.multi_source_dijkstra_path_length(G, {"Valjean", "Javert"}))


def test_multigraph_mixing_none_and_numbers_on_parallel_edges_is_refused():
    # NetworkX's min over such parallel edges raises TypeError; wavefront names the cause.
    G = nx.MultiGraph()
    G.add_edge(0, 1, weight=None)
    G.add_edge(0, 1, weight=2)
    with pytest.raises(WeightError, match="some have the weight None and some a number"):
        wf.Graph.from_networkx(G)
    G.remove_edge(0, 1, key=1)  # only None left: the edge is hidden, as NetworkX's searches hide it
    G.add_edge(1, 2, weight=3)
    assert wf.Graph.from_networkx(G).m == 2
