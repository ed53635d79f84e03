"""The contraction hierarchy (wavefront.graph.hierarchy) and the ``hierarchy``
SSSP method (PHAST) on the CPU and, with the ``gpu`` marker, on CUDA: exact
distances against SciPy's Dijkstra, parents validated against the edges."""
import numpy as np
import pytest
import scipy.sparse as sp
from conftest import road_file
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.sparse import csgraph

import wavefront
from wavefront.errors import HierarchyFileError, MethodLimitError
from wavefront.graph.build import from_edges
from wavefront.graph.hierarchy import (
    contract_graph,
    hierarchy_of,
    integer_weights,
    load_hierarchy,
    save_hierarchy,
)
from wavefront.validate.sssp import validate_sssp


def random_graph(seed, n, m, directed, weighted=True, zero_fraction=0.1, top=1000):
    rng = np.random.default_rng(seed)
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    w = None
    if weighted:
        w = rng.integers(0, top, m).astype(np.int64)
        w[rng.random(m) < zero_fraction] = 0
    return from_edges(src, dst, weights=w, n=n, directed=directed), (src, dst, w)


def positive_graph(seed, n, m, directed, top):
    """A random graph with integer weights 1..top (none of weight 0)."""
    _, (src, dst, w) = random_graph(seed, n, m, directed, zero_fraction=0.0, top=top)
    return from_edges(src, dst, weights=w + 1, n=n, directed=directed)


def scipy_distances(g, source):
    w = integer_weights(g).astype(np.float64)
    # SciPy drops explicit zeros of a sparse matrix: a tiny stand-in keeps zero-weight arcs (exact below 2**53 after rounding)
    a = sp.csr_matrix((np.where(w == 0, 1e-300, w), g.indices, g.indptr), shape=(g.n, g.n))
    d = csgraph.dijkstra(a, indices=source)
    return np.where(np.isfinite(d), np.round(d), np.inf)


def check_structure(h, g):
    """Levels strictly grow along every hierarchy arc; lists are by new id."""
    level = np.repeat(np.arange(h.levels), np.diff(h.level_starts))
    assert sorted(h.order.tolist()) == list(range(g.n))
    assert np.array_equal(h.rank[h.order], np.arange(g.n))
    up_to = np.repeat(np.arange(g.n), np.diff(h.up_indptr))
    assert np.all(level[h.up_indices] < level[up_to])
    down_to = np.repeat(np.arange(g.n), np.diff(h.down_indptr))
    assert np.all(level[h.down_indices] > level[down_to])


def check_parents(g, distances, parents, sources):
    """Every reached vertex but a source has a parent joined to it by an arc
    of the graph (the least of parallel ones) that is tight and comes from a
    strictly closer vertex (so the parents form a tree); directed graphs
    too, which Graph500's validator does not read."""
    w = integer_weights(g)
    tail = np.repeat(np.arange(g.n), np.diff(np.asarray(g.indptr)))
    least = {}
    for u, v, x in zip(tail.tolist(), np.asarray(g.indices).tolist(), w.tolist(), strict=True):
        least[u, v] = min(x, least.get((u, v), x))
    dist, parents = np.asarray(distances), np.asarray(parents)
    for v in range(g.n):
        if not np.isfinite(dist[v]):
            assert parents[v] == -1, v
        elif v in sources:
            assert parents[v] == v, v
        else:
            p = int(parents[v])
            assert (p, v) in least and dist[p] + least[p, v] == dist[v] and dist[p] < dist[v], (v, p)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 60), density=st.floats(0.5, 4.0),
       directed=st.booleans())
def test_cpu_parents_form_a_tree_of_tight_arcs(seed, n, density, directed):
    """Positive weights, directed graphs too (which validate_sssp does not
    read): every parent is joined to its child by a tight arc from a
    strictly closer vertex, with one source or several."""
    g = positive_graph(seed, n, int(n * density) + 1, directed, top=20)
    for sources in ([0], [n // 2, n - 1] if n > 1 else [0]):
        r = wavefront.sssp(g, sources=sources, method="hierarchy")
        np.testing.assert_array_equal(r.distances, np.minimum.reduce([scipy_distances(g, s) for s in sources]))
        check_parents(g, r.distances, r.parents, set(sources))


def test_zero_weight_plateaus_keep_a_tree():
    """Vertices joined by arcs of weight 0 share a distance: their parents
    still form a tree of tight arcs that reaches the source."""
    src, dst = [0, 1, 2, 1, 3], [1, 2, 1, 3, 4]
    g = from_edges(src, dst, weights=np.array([2, 0, 0, 1, 1], dtype=np.int64), n=5, directed=False)
    r = wavefront.sssp(g, 0, method="hierarchy")
    np.testing.assert_array_equal(r.distances, scipy_distances(g, 0))
    check_parents_loose(g, r)


def check_parents_loose(g, r):
    """As :func:`check_parents`, letting a parent sit at its child's distance
    (zero-weight arcs), and checking instead that following the parents
    from any vertex reaches the source."""
    w = integer_weights(g)
    tail = np.repeat(np.arange(g.n), np.diff(np.asarray(g.indptr)))
    d = np.asarray(r.distances)
    tight = {(u, v) for u, v, x in zip(tail.tolist(), np.asarray(g.indices).tolist(), w.tolist(), strict=True)
             if d[u] + x == d[v]}
    for v in range(g.n):
        seen, x = set(), v
        while r.parents[x] != x:
            assert x not in seen and (int(r.parents[x]), x) in tight
            seen.add(x)
            x = int(r.parents[x])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 60), density=st.floats(0.5, 4.0),
       directed=st.booleans(), weighted=st.booleans())
def test_cpu_hierarchy_matches_scipy(seed, n, density, directed, weighted):
    g, edges = random_graph(seed, n, int(n * density) + 1, directed, weighted)
    h = hierarchy_of(g)
    check_structure(h, g)
    for source in {0, n // 2, n - 1}:
        r = wavefront.sssp(g, source, method="hierarchy")
        np.testing.assert_array_equal(r.distances, scipy_distances(g, source))
        if not directed:  # Graph500's rules read the edges both ways
            validate_sssp(edges if weighted else edges[:2], r, n=n)


def test_the_hierarchy_does_not_depend_on_the_threads():
    """The witness searches run on the threads and every list the round
    changes takes its ops on one thread, in the serial order: one thread and
    two build the same hierarchy, array for array."""
    import numba

    g = wavefront.road_like(3000, seed=5)
    built = []
    before = numba.get_num_threads()
    try:
        for threads in (1, min(2, numba.config.NUMBA_NUM_THREADS)):
            numba.set_num_threads(threads)
            built.append(contract_graph(np.asarray(g.indptr), g.indices, integer_weights(g), g.n))
    finally:
        numba.set_num_threads(before)
    one, two = built
    assert one.shortcuts == two.shortcuts > 0 and one.levels == two.levels
    for name in ("order", "level_starts", "up_indptr", "up_indices", "up_weights", "down_indptr", "down_indices",
                 "down_weights"):
        np.testing.assert_array_equal(getattr(one, name), getattr(two, name), err_msg=name)


SAVED = ("order", "rank", "level_starts", "up_indptr", "up_indices", "up_weights", "down_indptr", "down_indices",
         "down_weights")


def test_a_saved_hierarchy_serves_a_later_copy_of_the_graph(tmp_path):
    """Saved once, loaded into a graph built again from the same arcs: the
    same arrays, ``auto`` runs it, and the distances are SciPy's."""
    path = tmp_path / "road.hierarchy.npz"
    built = save_hierarchy(wavefront.road_like(2000, seed=3), path)
    again = wavefront.road_like(2000, seed=3)
    loaded = load_hierarchy(again, path)
    for name in SAVED:
        np.testing.assert_array_equal(getattr(loaded, name), getattr(built, name), err_msg=name)
    assert (loaded.levels, loaded.arcs, loaded.shortcuts) == (built.levels, built.arcs, built.shortcuts)
    r = wavefront.sssp(again, 17)
    assert r.method == "hierarchy"
    np.testing.assert_array_equal(r.distances, scipy_distances(again, 17))


def test_saving_never_replaces_a_file_unless_asked(tmp_path):
    g = wavefront.road_like(500, seed=1)
    path = tmp_path / "mine.npz"
    path.write_bytes(b"the user's own file")
    with pytest.raises(FileExistsError, match="overwrite=True"):
        save_hierarchy(g, path)
    assert path.read_bytes() == b"the user's own file"
    save_hierarchy(g, path, overwrite=True)
    assert load_hierarchy(wavefront.road_like(500, seed=1), path).n == 500


def test_a_hierarchy_of_another_graph_is_refused(tmp_path):
    """One weight changed is another graph: its hierarchy would give wrong
    distances, so loading it raises, naming the file, and keeps nothing."""
    g = wavefront.road_like(500, seed=1)
    path = tmp_path / "h.npz"
    save_hierarchy(g, path)
    same = wavefront.road_like(500, seed=1)
    weights = same.weights.copy()
    weights[0] += 1
    other = wavefront.Graph(same.indptr, same.indices, n=same.n, weights=weights)
    with pytest.raises(HierarchyFileError, match="saved for another graph") as caught:
        load_hierarchy(other, path)
    assert str(path) in str(caught.value)
    assert "hierarchy" not in other.derived
    with pytest.raises(HierarchyFileError, match="another graph"):
        load_hierarchy(wavefront.road_like(501, seed=1), path)


def test_damaged_or_foreign_files_are_refused(tmp_path):
    g = wavefront.road_like(500, seed=1)
    good = tmp_path / "h.npz"
    save_hierarchy(g, good)
    text = tmp_path / "text.npz"
    text.write_text("not a zip")
    with pytest.raises(HierarchyFileError, match="not a readable hierarchy file"):
        load_hierarchy(g, text)
    foreign = tmp_path / "foreign.npz"
    np.savez(foreign, parents=np.zeros(3))
    with pytest.raises(HierarchyFileError, match="not a saved contraction hierarchy"):
        load_hierarchy(g, foreign)
    with np.load(good) as saved:
        contents = dict(saved)
    for name, damage, message in [("order", lambda a: np.where(a == 0, 1, a), "permutation"),
                                  ("up_indices", lambda a: a + g.n, "out of range"),
                                  ("down_weights", lambda a: -a - 1, "negative"),
                                  ("up_indices", np.flip, "does not go up a level"),
                                  ("file_version", lambda a: a + 1, "version"),
                                  ("n", lambda a: np.array([500, 500]), "header is not four numbers"),
                                  ("shortcuts", lambda a: np.array("many"), "header is not four numbers")]:
        damaged = tmp_path / f"damaged_{name}.npz"
        np.savez(damaged, **{**contents, name: damage(contents[name])})
        with pytest.raises(HierarchyFileError, match=message):
            load_hierarchy(g, damaged)
    with pytest.raises(FileNotFoundError):
        load_hierarchy(g, tmp_path / "missing.npz")


def test_limited_witness_searches_keep_distances_exact():
    """A witness search cut short adds shortcuts it might have spared, never
    misses one: settle limits of 0 and 1 give the same distances."""
    g, _ = random_graph(3, 300, 1200, True)
    for limit in (0, 1):
        h = contract_graph(g.indptr, g.indices, integer_weights(g), g.n, settle_limit=limit, simulate_limit=limit)
        g.derived["hierarchy"] = h
        check_structure(h, g)
        for source in (0, 150):
            r = wavefront.sssp(g, source, method="hierarchy")
            np.testing.assert_array_equal(r.distances, scipy_distances(g, source))


def test_road_network_many_sources_and_cutoff():
    g = wavefront.read_graph(road_file("amsterdam.gr.gz"), progress=False)
    edges = (np.repeat(np.arange(g.n), np.diff(g.indptr)), g.indices, g.weights)
    for source in (0, 31000):
        r = wavefront.sssp(g, source, method="hierarchy")
        np.testing.assert_array_equal(r.distances, scipy_distances(g, source))
        validate_sssp(edges, r, n=g.n)
    many = wavefront.sssp(g, sources=[10, 20000, 60000], method="hierarchy")
    expected = np.minimum.reduce([scipy_distances(g, s) for s in (10, 20000, 60000)])
    np.testing.assert_array_equal(many.distances, expected)
    validate_sssp(edges, many, n=g.n)
    near = wavefront.sssp(g, 0, method="hierarchy", cutoff=5000)
    full = scipy_distances(g, 0)
    np.testing.assert_array_equal(near.distances, np.where(full <= 5000, full, np.inf))


def test_auto_runs_the_hierarchy_once_it_is_built():
    g, _ = random_graph(5, 200, 800, False)
    assert wavefront.sssp(g, 0).method != "hierarchy"
    wavefront.sssp(g, 0, method="hierarchy")
    assert wavefront.sssp(g, 0).method == "hierarchy"
    assert wavefront.sssp(g, 0, delta=5.0).method != "hierarchy"  # a delta-stepping option: not the hierarchy


def test_weights_that_could_overflow_are_refused():
    from wavefront.errors import WeightError

    g = from_edges([0, 1], [1, 2], weights=np.array([2**61, 2**61], dtype=np.int64))
    with pytest.raises(WeightError, match="overflow int64"):
        wavefront.sssp(g, 0, method="hierarchy")


def test_skewed_graphs_are_refused_before_the_build():
    """A hub would make the contraction's core dense; the refusal names the degree."""
    hub = from_edges(np.zeros(40, dtype=np.int64), np.arange(1, 41), weights=np.ones(40, dtype=np.int64))
    with pytest.raises(MethodLimitError, match="out-degree 40"):
        wavefront.sssp(hub, 0, method="hierarchy")
    assert "hierarchy" not in hub.derived


def test_float_weights_are_refused():
    g = from_edges([0, 1], [1, 2], weights=np.array([0.5, 1.5]))
    with pytest.raises(MethodLimitError, match="integer weights"):
        wavefront.sssp(g, 0, method="hierarchy")


@pytest.mark.gpu
@pytest.mark.parametrize("directed", [False, True])
@pytest.mark.parametrize("dtype", [np.int32, np.int64, None], ids=["int32", "int64", "unweighted"])
def test_cuda_hierarchy_matches_scipy(directed, dtype):
    g, edges = random_graph(11, 3000, 9000, directed, dtype is not None)
    if dtype is not None:
        g = from_edges(edges[0], edges[1], weights=edges[2].astype(dtype), n=g.n, directed=directed)
    gg = g.to("cuda")
    for source in (0, 1500, 2999):
        r = wavefront.sssp(gg, source, method="hierarchy")
        assert r.backend == "cuda" and r.method == "hierarchy"
        np.testing.assert_array_equal(r.distances.get(), scipy_distances(g, source))
        if not directed:
            validate_sssp(edges if dtype is not None else edges[:2], r, n=g.n)


@pytest.mark.gpu
def test_cuda_hierarchy_on_roads_many_sources_and_cutoff():
    for name in ("amsterdam.gr.gz", "seattle.gr.gz"):
        g = wavefront.read_graph(road_file(name), progress=False)
        edges = (np.repeat(np.arange(g.n), np.diff(g.indptr)), g.indices, g.weights)
        gg = g.to("cuda")
        for source in (0, g.n // 2, g.n - 1):
            r = wavefront.sssp(gg, source, method="hierarchy")
            np.testing.assert_array_equal(r.distances.get(), scipy_distances(g, source))
            validate_sssp(edges, r, n=g.n)
            assert "levels" in r.trace[0].reason
        seeds = [10, g.n // 3, g.n - 5]
        many = wavefront.sssp(gg, sources=seeds, method="hierarchy")
        np.testing.assert_array_equal(many.distances.get(),
                                      np.minimum.reduce([scipy_distances(g, s) for s in seeds]))
        near = wavefront.sssp(gg, 0, method="hierarchy", cutoff=5000)
        full = scipy_distances(g, 0)
        np.testing.assert_array_equal(near.distances.get(), np.where(full <= 5000, full, np.inf))
        assert wavefront.sssp(gg, 0).method == "hierarchy"  # auto, once built


@pytest.mark.gpu
@pytest.mark.parametrize("directed", [False, True])
def test_cuda_parents_form_a_tree_of_tight_arcs(directed):
    """Directed graphs too: every parent is joined to its child by a tight
    arc from a strictly closer vertex; beyond a cutoff, no parent."""
    g = positive_graph(12, 3000, 9000, directed, top=50)
    gg = g.to("cuda")
    for sources in ([0], [5, 1500, 2999]):
        r = wavefront.sssp(gg, sources=sources, method="hierarchy")
        dist = r.distances.get()
        np.testing.assert_array_equal(dist, np.minimum.reduce([scipy_distances(g, s) for s in sources]))
        check_parents(g, dist, r.parents.get(), set(sources))
    near = wavefront.sssp(gg, 0, method="hierarchy", cutoff=60)
    full = scipy_distances(g, 0)
    np.testing.assert_array_equal(near.distances.get(), np.where(full <= 60, full, np.inf))
    assert np.array_equal(near.parents.get() == -1, full > 60)


def test_the_resident_top_is_the_highest_narrow_ids_that_fit():
    """The CUDA sweeps keep the top of the narrow levels in block 0's shared
    memory: the highest ids that fit (24 bytes each, 16 more for the row
    starts' ends), never below the narrow levels."""
    from wavefront.backends.cuda.sssp_phast import (
        narrow_from,
        resident_bytes,
        resident_from,
    )

    starts = np.array([0, 5000, 8000, 8600, 8700, 8705])  # levels 2.. hold at most 1 024 ids
    narrow = narrow_from(starts, 1024)
    assert narrow == 2
    assert resident_from(starts, narrow, 0) == resident_from(starts, narrow, 39) == 8705  # none
    assert resident_from(starts, narrow, 24 * 50 + 16) == 8655
    assert resident_from(starts, narrow, 10**6) == 8000  # the whole narrow part, no more
    assert resident_bytes(8705, 8000) == 24 * 705 + 16 <= 10**6
    assert resident_from(np.array([0, 2000, 4000]), narrow_from(np.array([0, 2000, 4000]), 1024), 10**6) == 4000


@pytest.mark.gpu
@pytest.mark.parametrize("shared", [None, 0, 24 * 300 + 16], ids=["all", "none", "part"])
def test_cuda_sweeps_with_the_narrow_top_in_shared_memory(shared):
    """The narrow levels' top in shared memory (all that fits, none, or a
    part of the narrow levels): the same distances as SciPy's, one source
    and several, on a road network and on a directed random graph."""
    from wavefront.backends.cuda.sssp_tuning import SSSPTuning

    tuning = SSSPTuning(phast_resident_bytes=shared)
    road = wavefront.read_graph(road_file("amsterdam.gr.gz"), progress=False)
    for g in (road, positive_graph(21, 3000, 9000, True, top=50)):
        gg = g.to("cuda")
        for sources in ([0], [7, g.n // 2, g.n - 1]):
            r = wavefront.sssp(gg, sources=sources, method="hierarchy", tuning=tuning)
            np.testing.assert_array_equal(r.distances.get(),
                                          np.minimum.reduce([scipy_distances(g, s) for s in sources]))
        if shared == 0:
            assert " top 0 vertices in shared memory" in r.trace[0].reason
        elif g is road:
            assert " top 0 vertices" not in r.trace[0].reason


@pytest.mark.gpu
def test_cuda_search_from_a_loaded_hierarchy(tmp_path):
    """A hierarchy saved from the CPU graph serves its CUDA copy; loading one
    again replaces the GPU's copy of the arrays (the workspace is remade)."""
    from wavefront.backends.cuda.sssp_phast import PhastWorkspace

    g = wavefront.road_like(3000, seed=4)
    path = tmp_path / "h.npz"
    save_hierarchy(g, path)
    gg = g.to("cuda")
    first = load_hierarchy(gg, path)
    r = wavefront.sssp(gg, 7)
    assert (r.backend, r.method) == ("cuda", "hierarchy")
    np.testing.assert_array_equal(r.distances.get(), scipy_distances(g, 7))
    ws = PhastWorkspace.for_graph(gg, gg.indices.dtype)
    assert ws.hierarchy is first
    second = load_hierarchy(gg, path)
    assert PhastWorkspace.for_graph(gg, gg.indices.dtype).hierarchy is second
    np.testing.assert_array_equal(wavefront.sssp(gg, 7, method="hierarchy").distances.get(), scipy_distances(g, 7))


@pytest.mark.gpu
def test_a_built_hierarchy_travels_with_the_graph_to_the_gpu_and_back():
    """Graph.to carries the hierarchy: the CUDA copy's auto searches it at
    once (no second build), and a hierarchy built on the GPU's copy comes back."""
    g = wavefront.road_like(3000, seed=6)
    wavefront.sssp(g, 0, method="hierarchy")
    built = g.derived["hierarchy"]
    gg = g.to("cuda")
    assert gg.derived["hierarchy"] is built
    r = wavefront.sssp(gg, 11)
    assert (r.backend, r.method) == ("cuda", "hierarchy")
    np.testing.assert_array_equal(r.distances.get(), scipy_distances(g, 11))
    fresh = wavefront.road_like(2000, seed=7).to("cuda")
    wavefront.sssp(fresh, 0, method="hierarchy")
    back = fresh.to("cpu")
    assert back.derived == {"hierarchy": fresh.derived["hierarchy"]}  # nothing of the GPU's comes back
    assert wavefront.sssp(back, 5).method == "hierarchy"


@pytest.mark.gpu
def test_cuda_hierarchy_refuses_float_weights():
    g = from_edges([0, 1], [1, 2], weights=np.array([0.5, 1.5], dtype=np.float32)).to("cuda")
    with pytest.raises(MethodLimitError, match="integer weights"):
        wavefront.sssp(g, 0, method="hierarchy")


def test_cpu_auto_keeps_delta_stepping_past_the_hierarchy_size_rule():
    """On the CPU the sweeps lose to delta-stepping past a few hundred
    thousand vertices (CPUSSSPTuning.phast_auto_max_vertices): ``auto``
    then keeps delta-stepping even with the hierarchy built."""
    from wavefront.backends.cpu.tuning import CPUSSSPTuning

    g, _ = random_graph(5, 200, 800, False)
    wavefront.sssp(g, 0, method="hierarchy")
    assert wavefront.sssp(g, 0, tuning=CPUSSSPTuning(phast_auto_max_vertices=100)).method != "hierarchy"
    assert wavefront.sssp(g, 0, tuning=CPUSSSPTuning(phast_auto_max_vertices=200)).method == "hierarchy"
