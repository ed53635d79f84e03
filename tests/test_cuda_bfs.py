"""CUDA BFS methods against a SciPy oracle (hop distances from csgraph), and
the memory-lean Graph500 build path that lets SCALE 26 fit a GPU.

Every method must reproduce the oracle's levels exactly and return a valid
BFS tree: parents[source] == source, every other reached vertex's parent is
one level closer and an arc parent -> vertex exists, unreached vertices keep
-1. Graphs: random directed / undirected ones with isolated vertices and
several components, a Kronecker graph, the Seattle road network, and a small
graph forced onto the 64-bit vertex-id kernels.
"""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.sparse.csgraph import shortest_path

import wavefront as wf
from wavefront.backends.cuda.bfs_tuning import BFSTuning
from wavefront.bfs.policy import BOTTOM_UP, TOP_DOWN, GAPPolicy, Seed000Policy
from wavefront.graph.container import Graph

from conftest import road_file

gpu = pytest.mark.gpu

METHODS = [
    "vertex-push", "vertex-pull", "edge", "frontier", "frontier-privatized",
    "load-balanced", "bottom-up", "single-block", "hybrid", "auto",
]


def oracle_levels(graph_cpu, source):
    hops = shortest_path(graph_cpu.to_scipy(), unweighted=True, indices=source, directed=True)
    return np.where(np.isinf(hops), -1, hops).astype(np.int64)


def check_result(graph_cpu, result, source):
    levels = result.levels.get()
    parents = result.parents.get()
    assert result.levels.dtype == np.int32 and result.parents.dtype == np.int64
    expected = oracle_levels(graph_cpu, source)
    mismatch = np.flatnonzero(levels != expected)
    assert mismatch.size == 0, f"{result.method}: levels differ at {mismatch[:10]}"
    assert parents[source] == source
    reached = np.flatnonzero((levels > 0))
    assert np.all(parents[levels < 0] == -1)
    p = parents[reached]
    assert np.all(p >= 0), f"{result.method}: reached vertex without a parent"
    assert np.all(levels[p] == levels[reached] - 1), f"{result.method}: parent not one level up"
    rows = np.repeat(np.arange(graph_cpu.n, dtype=np.int64), np.diff(graph_cpu.indptr))
    arcs = rows * graph_cpu.n + graph_cpu.indices
    assert np.all(np.isin(p * graph_cpu.n + reached, arcs)), f"{result.method}: parent is not a neighbour"


def random_graph(rng, n, arcs, directed):
    """Sparse random graph; the top tenth of the ids get no edges (isolated)."""
    hot = int(n * 0.9)
    src = rng.integers(0, hot, arcs)
    dst = rng.integers(0, hot, arcs)
    return Graph.from_edges(src, dst, n=n, directed=directed)


@pytest.fixture(scope="module")
def random_graphs():
    rng = np.random.default_rng(7)
    graphs = []
    for directed in (False, True):
        for n, arcs in ((1, 0), (40, 30), (700, 900), (3000, 12000)):
            g = random_graph(rng, n, arcs, directed)
            graphs.append((g, g.to("cuda")))
    return graphs


@gpu
@pytest.mark.parametrize("method", METHODS)
def test_random_graphs_match_oracle(method, random_graphs):
    rng = np.random.default_rng(11)
    for g, gd in random_graphs:
        sources = {0, g.n - 1} | set(rng.integers(0, g.n, 3).tolist())
        for s in sorted(sources):  # n - 1 is isolated whenever n >= 10
            result = wf.bfs(gd, s, method=method)
            assert result.backend == "cuda"
            check_result(g, result, s)


@pytest.fixture(scope="module")
def kron():
    g = wf.kronecker(13, seed=5, weighted=False)
    return g, g.to("cuda")


@gpu
@pytest.mark.parametrize("method", METHODS)
def test_kronecker_matches_oracle(method, kron):
    g, gd = kron
    degree = np.diff(g.indptr)
    for s in (int(np.argmax(degree)), int(np.flatnonzero(degree == 1)[0])):
        check_result(g, wf.bfs(gd, s, method=method), s)


@gpu
@pytest.mark.parametrize("policy", ["gap", "seed000", GAPPolicy(alpha=5, beta=30), Seed000Policy()])
def test_hybrid_policies_switch_direction_and_stay_correct(policy, kron):
    g, gd = kron
    s = int(np.argmax(np.diff(g.indptr)))
    result = wf.bfs(gd, s, method="hybrid", policy=policy)
    check_result(g, result, s)
    kinds = [row.kind for row in result.trace]
    assert BOTTOM_UP in kinds and kinds[0] == TOP_DOWN, kinds
    assert sum(row.frontier for row in result.trace) == int((result.levels >= 0).sum())


@gpu
def test_hybrid_without_single_block_and_depth_limit(kron):
    g, gd = kron
    s = int(np.argmax(np.diff(g.indptr)))
    check_result(g, wf.bfs(gd, s, method="hybrid", single_block=False), s)
    limited = wf.bfs(gd, s, method="hybrid", depth_limit=1).levels.get()
    expected = oracle_levels(g, s)
    assert np.array_equal(limited, np.where(expected <= 1, expected, -1))


@gpu
@pytest.mark.parametrize("method", METHODS)
def test_depth_limits_past_the_graph_are_none(method, kron):
    """After a small limit (its kernels compiled for int64), a huge or
    infinite one searches the whole graph; NaN and -inf are refused."""
    g, gd = kron
    s = int(np.argmax(np.diff(g.indptr)))
    wf.bfs(gd, s, method=method, depth_limit=1)
    expected = oracle_levels(g, s)
    for limit in (2**63, 10**30, float("inf")):
        assert np.array_equal(wf.bfs(gd, s, method=method, depth_limit=limit).levels.get(), expected)
    for bad in (float("nan"), -float("inf"), 1.5):
        with pytest.raises(ValueError, match="depth_limit"):
            wf.bfs(gd, s, method=method, depth_limit=bad)


@gpu
def test_relabelled_graph_reports_caller_ids(kron):
    g, _ = kron
    src = np.repeat(np.arange(g.n), np.diff(g.indptr))
    relabelled = Graph.from_edges(src, g.indices, n=g.n, relabel="degree").to("cuda")
    s = 17
    result = wf.bfs(relabelled, s, method="hybrid")
    check_result(g, result, s)


@gpu
def test_seattle_road_network():
    g = wf.read_graph(road_file("seattle.gr.gz"), weighted=False)
    gd = g.to("cuda")
    for s in (0, 12345, g.n - 1):
        result = wf.bfs(gd, s, method="hybrid")
        check_result(g, result, s)
        assert result.depth > 100  # a road network: hundreds of levels
        assert any("single block" in row.reason for row in result.trace)
    check_result(g, wf.bfs(gd, 99, method="frontier-privatized"), 99)


@gpu
def test_int64_index_path():
    rng = np.random.default_rng(3)
    for directed in (False, True):
        g = random_graph(rng, 500, 1500, directed)
        wide = Graph(
            g.indptr, g.indices.astype(np.int64), n=g.n, directed=directed,
            in_indptr=g.in_indptr if directed else None,
            in_indices=g.in_indices.astype(np.int64) if directed else None,
            check=False,
        ).to("cuda")
        assert wide.indices.dtype == np.int64
        for method in METHODS:
            check_result(g, wf.bfs(wide, 3, method=method), 3)


@gpu
def test_prepare_then_search(kron):
    from wavefront.backends.cuda.bfs import prepare

    g, _ = kron
    gd = g.to("cuda")
    prepare(gd)
    assert "cuda.bfs" in gd.derived and "cuda.bfs.in_by_degree" in gd.derived
    check_result(g, wf.bfs(gd, 1, method="hybrid"), 1)


@gpu
@pytest.mark.parametrize("method", ["hybrid", "bottom-up"])
@pytest.mark.parametrize("order", ["id", "degree"])
def test_neighbour_orders_give_valid_trees(method, order, random_graphs, kron):
    g, gd = kron
    hub = int(np.argmax(np.diff(g.indptr)))
    check_result(g, wf.bfs(gd, hub, method=method, neighbour_order=order), hub)
    for g, gd in random_graphs:
        check_result(g, wf.bfs(gd, 0, method=method, neighbour_order=order), 0)


@gpu
@pytest.mark.parametrize("tuning", [
    BFSTuning(bottom_up_small_unroll=1), BFSTuning(bottom_up_small_unroll=4),
    BFSTuning(bottom_up_large_probe=8), BFSTuning(bottom_up_small_unroll=3, bottom_up_large_probe=16),
])
def test_bottom_up_kernel_constants(tuning, random_graphs, kron):
    """The bottom-up kernels' compile-time constants other than the defaults
    (benchmarks/bfs_tune.py times them), reaching the kernels through the tuning."""
    g, gd = kron
    hub = int(np.argmax(np.diff(g.indptr)))
    check_result(g, wf.bfs(gd, hub, method="bottom-up", tuning=tuning), hub)
    for g, gd in random_graphs:
        check_result(g, wf.bfs(gd, 0, method="bottom-up", tuning=tuning), 0)


@gpu
@pytest.mark.parametrize("order", ["id", "degree"])
def test_packed_first_in_neighbours_change_nothing_but_loads(order, random_graphs, kron):
    """Bottom-up steps reading each candidate's first in-neighbour from the
    packed rows give the very same levels and per-level counts as the
    in_indptr + in_indices probe, on skewed, directed and tiny graphs, and
    bottom-up alone (no racing top-down claims) the very same parents."""
    from wavefront.backends.cuda.device_graph import first_in_rows

    g, gd = kron
    degree = np.diff(g.indptr)
    cases = [(g, gd, int(np.argmax(degree))), (g, gd, int(np.flatnonzero(degree == 1)[0]))]
    cases += [(g, gd, 0) for g, gd in random_graphs]
    for g, gd, s in cases:
        runs = []
        for packed in (True, False):
            for method in ("bottom-up", "hybrid"):
                result = wf.bfs(gd, s, method=method, neighbour_order=order, packed_first_probes=packed)
                check_result(g, result, s)
                runs.append((result.levels.get(), result.parents.get(),
                             [(r.kind, r.frontier, r.edges) for r in result.trace]))
        for with_rows, without in zip(runs[:2], runs[2:]):
            np.testing.assert_array_equal(with_rows[0], without[0])
            assert with_rows[2] == without[2]
        np.testing.assert_array_equal(runs[0][1], runs[2][1])  # bottom-up: parents too
        assert first_in_rows(gd, gd.in_indices) is not None


@gpu
@pytest.mark.parametrize("whole, defer", [(True, True), (True, False), (False, False)])
def test_results_do_not_depend_on_what_the_allocation_held(monkeypatch, whole, defer, random_graphs, kron):
    """The direction-optimizing methods leave the result arrays unfilled at
    the start and complete them later (the first bottom-up level writes every
    entry, or complete_results does at the end), and grid-wide top-down
    steps meanwhile leave their vertices' levels to the next step (the first
    bottom-up level, or record_levels). Result arrays handed out full of
    garbage must still come back exact: searches with and without a
    bottom-up level, a depth limit, directed graphs whose source has no
    in-edges, sizes that are not a multiple of 32, and the fill-first path."""
    import cupy

    tuning = BFSTuning(results_whole_min_bytes=0 if whole else None, defer_top_down_levels=defer)
    real_empty = cupy.empty

    def garbage_empty(shape, dtype=float, *args, **kwargs):
        out = real_empty(shape, dtype, *args, **kwargs)
        out.fill(7 if np.dtype(dtype).kind in "iu" else np.nan)
        return out

    monkeypatch.setattr(cupy, "empty", garbage_empty)
    g, gd = kron
    degree = np.diff(g.indptr)
    hub = int(np.argmax(degree))
    for method, options in (("hybrid", {}), ("hybrid", {"single_block": False}), ("bottom-up", {}),
                            ("load-balanced", {}), ("single-block", {})):
        result = wf.bfs(gd, hub, method=method, tuning=tuning, **options)
        check_result(g, result, hub)
        assert (BOTTOM_UP in [r.kind for r in result.trace]) == (method != "load-balanced" and method != "single-block")
    limited = wf.bfs(gd, hub, method="hybrid", depth_limit=1, tuning=tuning)
    expected = oracle_levels(g, hub)
    np.testing.assert_array_equal(limited.levels.get(), np.where(expected <= 1, expected, -1))
    np.testing.assert_array_equal(limited.parents.get()[expected > 1], -1)
    rng = np.random.default_rng(5)
    for g, gd in random_graphs:
        in_degree = np.diff(g.in_indptr)
        no_in_edges = np.flatnonzero((in_degree == 0) & (np.diff(g.indptr) > 0))
        sources = {0, g.n - 1, int(rng.integers(0, g.n))} | set(no_in_edges[:2].tolist())
        for s in sorted(sources):
            for method, options in (("hybrid", {}), ("hybrid", {"single_block": False}), ("bottom-up", {}),
                                    ("load-balanced", {})):
                check_result(g, wf.bfs(gd, s, method=method, tuning=tuning, **options), s)


def test_which_graphs_defer_the_result_fill():
    """Deferred only where the arrays reach the threshold and a bottom-up step
    can write them whole (packed rows need 32-bit ids); the switches turn it off."""
    from wavefront.backends.cuda.bfs_bottom_up import results_written_whole

    g = random_graph(np.random.default_rng(1), 1000, 3000, False)
    wide = Graph(g.indptr, g.indices.astype(np.int64), n=g.n, check=False)
    at_size = BFSTuning(results_whole_min_bytes=12 * g.n)
    assert results_written_whole(g, at_size)
    assert not results_written_whole(wide, at_size)
    assert not results_written_whole(g, BFSTuning(results_whole_min_bytes=12 * g.n + 1))
    assert not results_written_whole(g, BFSTuning(results_whole_min_bytes=None))
    assert not results_written_whole(g, BFSTuning(results_whole_min_bytes=0, packed_first_probes=False))
    assert not results_written_whole(g, BFSTuning())  # 12 KB of results: filled first


def spoked_star(spokes, seed):
    """Hub 0 joined to `spokes` vertices, each with 0-3 leaves of its own: a
    level whose frontier is every spoke (many frontier-scan chunks)."""
    rng = np.random.default_rng(seed)
    leaves = rng.integers(0, 4, spokes)
    spoke_of_leaf = np.repeat(np.arange(1, spokes + 1), leaves)
    src = np.concatenate([np.zeros(spokes, dtype=np.int64), spoke_of_leaf])
    dst = np.concatenate([np.arange(1, spokes + 1), spokes + 1 + np.arange(spoke_of_leaf.size)])
    return Graph.from_edges(src, dst, n=spokes + 1 + spoke_of_leaf.size)


@gpu
def test_balanced_frontier_scan(random_graphs, kron):
    """The edge-balanced step's frontier offsets in one launch. The star's
    300 K-spoke level has 293 scan chunks, so frontier_scan's last block
    scans the chunk totals in two rounds; directed random graphs put
    zero-degree vertices in frontiers."""
    star = spoked_star(300_000, seed=5)
    for g, gd in [(star, star.to("cuda")), kron, *random_graphs]:
        for s in sorted({0, g.n - 1}):
            check_result(g, wf.bfs(gd, s, method="load-balanced"), s)
    check_result(star, wf.bfs(star.to("cuda"), star.n - 1, method="hybrid", single_block=False), star.n - 1)


@gpu
def test_hybrid_goes_top_down_below_bottom_up_min_edges(kron):
    g, gd = kron
    s = int(np.argmax(np.diff(g.indptr)))
    free = wf.bfs(gd, s, method="hybrid", bottom_up_min_edges=0)
    assert BOTTOM_UP in [row.kind for row in free.trace]
    forced = wf.bfs(gd, s, method="hybrid", bottom_up_min_edges=g.m + 1)
    check_result(g, forced, s)
    assert BOTTOM_UP not in [row.kind for row in forced.trace]
    assert any("m_f <" in row.reason for row in forced.trace)
    with pytest.raises(ValueError, match="bottom_up_min_edges"):
        wf.bfs(gd, s, method="hybrid", bottom_up_min_edges=-1)


@gpu
def test_hybrid_stays_bottom_up_while_few_edges_are_unexplored(kron):
    """GAP's switch back to top-down (n_f < n / beta) is overridden while the
    unexplored edges are fewer than the frontier's (the sweep's own cost set
    to nothing here): same levels, fewer top-down levels, and off when asked."""
    g, gd = kron
    degree = np.diff(g.indptr)
    for s in (int(np.argmax(degree)), int(np.flatnonzero(degree == 1)[0])):
        # bottom_up_ahead would run the level after the last bottom-up one
        # bottom-up too, whatever this rule says.
        options = dict(method="hybrid", single_block=False, bottom_up_min_edges=0, bottom_up_ahead=False,
                       stay_bottom_up_ratio=1 << 40)
        stays = wf.bfs(gd, s, **options)
        check_result(g, stays, s)
        kept = [row for row in stays.trace if "stays bottom-up" in row.reason]
        assert kept and all(row.kind == BOTTOM_UP for row in kept), [r.reason for r in stays.trace]
        leaves = wf.bfs(gd, s, stay_bottom_up=False, **options)
        check_result(g, leaves, s)
        assert not any("stays bottom-up" in row.reason for row in leaves.trace)
        top_down = [sum(row.kind == TOP_DOWN for row in r.trace) for r in (stays, leaves)]
        assert top_down[0] < top_down[1], top_down


@gpu
def test_bottom_up_levels_queued_ahead(kron, random_graphs):
    """A bottom-up level the policy picks queues the next one at once; the
    queued one runs even where the policy then says top-down (the reason
    says so), with the same levels as without queuing ahead; a depth limit
    stops it; a search on another stream right after one that returned with
    a step still queued gets its own correct result."""
    import cupy

    g, gd = kron
    degree = np.diff(g.indptr)
    for s in (int(np.argmax(degree)), int(np.flatnonzero(degree == 1)[0])):
        options = dict(method="hybrid", stay_bottom_up=False)
        ahead = wf.bfs(gd, s, **options)
        check_result(g, ahead, s)
        queued = [row for row in ahead.trace if "already queued" in row.reason]
        assert queued and all(row.kind == BOTTOM_UP for row in queued), [r.reason for r in ahead.trace]
        assert sum(row.frontier for row in ahead.trace) == int((ahead.levels >= 0).sum())
        plain = wf.bfs(gd, s, bottom_up_ahead=False, **options)
        assert not any("already queued" in row.reason for row in plain.trace)
        assert bool((plain.levels == ahead.levels).all())
        assert len(plain.trace) == len(ahead.trace)
    for limit in (1, 2, 3):
        limited = wf.bfs(gd, s, method="bottom-up", depth_limit=limit).levels.get()
        expected = oracle_levels(g, s)
        assert np.array_equal(limited, np.where(expected <= limit, expected, -1)), limit
    graph, device_graph = random_graphs[-1]
    first = wf.bfs(device_graph, 0, method="bottom-up")  # ends with an empty level queued
    with cupy.cuda.Stream(non_blocking=True):
        second = wf.bfs(device_graph, 1, method="bottom-up")
    cupy.cuda.Device().synchronize()
    check_result(graph, first, 0)
    check_result(graph, second, 1)


@gpu
@pytest.mark.parametrize("directed", [False, True])
@pytest.mark.parametrize("chunk_arcs", [5, 1 << 26])
def test_degree_ordered_rows(directed, chunk_arcs):
    """Each CSC row of the copy is a permutation of the graph's row, by
    non-increasing out-degree; sort rounds of a few arcs split no row; the
    graph's own arrays are untouched."""
    from wavefront.backends.cuda import device_graph

    g = random_graph(np.random.default_rng(5), 300, 2500, directed)
    gd = g.to("cuda")
    before = gd.in_indices.copy()
    ordered = device_graph.degree_ordered_in_indices(gd, chunk_arcs).get()
    assert gd.derived["cuda.bfs.in_by_degree"] is not gd.in_indices
    assert np.array_equal(gd.in_indices.get(), before.get())
    out_degree = np.diff(g.indptr)
    changed = 0
    for v in range(g.n):
        a, b = g.in_indptr[v], g.in_indptr[v + 1]
        assert np.array_equal(np.sort(ordered[a:b]), np.sort(g.in_indices[a:b]))
        assert np.all(np.diff(out_degree[ordered[a:b]]) <= 0), v
        changed += not np.array_equal(ordered[a:b], g.in_indices[a:b])
    assert changed > 0  # the id order is not already by degree


@gpu
def test_degree_order_that_does_not_fit_falls_back_to_id_order(monkeypatch, kron):
    from wavefront.backends.cuda import memory
    from wavefront.backends.cuda.bfs import prepare

    g, _ = kron
    gd = g.to("cuda")
    prepare(gd, neighbour_order="id")
    assert "cuda.bfs.in_by_degree" not in gd.derived
    # Room for the search's results, not for the sorted copy (4 bytes per arc and scratch).
    room = memory.SAFETY_BYTES + 12 * gd.n + 2 * gd.m  # a fake device's free memory (read, not rebound)
    monkeypatch.setattr(memory, "pool_free_bytes", lambda: 0)
    monkeypatch.setattr(memory, "free_bytes", lambda: room)
    hub = int(np.argmax(np.diff(g.indptr)))
    check_result(g, wf.bfs(gd, hub, method="hybrid", neighbour_order="degree"), hub)
    assert "cuda.bfs.in_by_degree" not in gd.derived


@gpu
def test_unknown_neighbour_order_raises(kron):
    _, gd = kron
    with pytest.raises(ValueError, match="neighbour_order"):
        wf.bfs(gd, 0, method="hybrid", neighbour_order="random")


@gpu
def test_gpu_memory_error_before_allocating(monkeypatch, kron):
    from wavefront.backends.cuda import memory

    g, _ = kron
    gd = g.to("cuda")
    monkeypatch.setattr(memory, "pool_free_bytes", lambda: 0)
    monkeypatch.setattr(memory, "free_bytes", lambda: 1024)
    with pytest.raises(wf.GPUMemoryError) as info:
        wf.bfs(gd, 0, method="hybrid")
    assert "needs" in str(info.value) and "free" in str(info.value)
    assert info.value.free_bytes == 1024 and info.value.needed_bytes > 1024
    assert "cuda.bfs" not in gd.derived


@gpu
def test_bad_source_raises():
    gd = Graph.from_edges([0, 1], [1, 2]).to("cuda")
    with pytest.raises(wf.VertexError):
        wf.bfs(gd, 3, method="hybrid")


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(1, 40),
    edges=st.lists(st.tuples(st.integers(0, 39), st.integers(0, 39)), max_size=120),
    chunk=st.integers(1, 50),
    relabel=st.sampled_from([None, "degree"]),
)
def test_lean_undirected_build_equals_general_path(n, edges, chunk, relabel):
    """The chunked packed-key builder (no weights) must equal the general
    path (here forced by unit weights), chunk boundaries and duplicates included."""
    from wavefront.graph import _csr, build

    src = np.array([min(a, n - 1) for a, _ in edges], dtype=np.int64)
    dst = np.array([min(b, n - 1) for _, b in edges], dtype=np.int64)
    lean = Graph(**_csr.csr_arrays(src, dst, n=n, relabel=relabel, lean_chunk=chunk))
    general = build.from_edges(src, dst, weights=np.ones(src.size), n=n, relabel=relabel)
    assert np.array_equal(lean.indptr, general.indptr)
    assert np.array_equal(lean.indices, general.indices) and lean.indices.dtype == general.indices.dtype
    assert np.array_equal(lean.input_degree, general.input_degree)
    assert lean.num_input_edges == general.num_input_edges
    assert (lean.labels is None) == (general.labels is None)
    if lean.labels is not None:
        assert np.array_equal(lean.labels, general.labels)


@gpu
def test_result_arrays_raise_gpu_memory_error_when_cupy_runs_out(monkeypatch):
    """memory.allocate: no driver query when the arrays fit; CuPy's
    OutOfMemoryError becomes GPUMemoryError with the figures."""
    import cupy

    from wavefront.backends.cuda import memory

    def no_query():
        raise AssertionError("allocate queried free memory for arrays that fit")

    monkeypatch.setattr(memory, "free_bytes", no_query)
    monkeypatch.setattr(memory, "pool_free_bytes", lambda: 0)
    assert memory.allocate("two arrays", 16, lambda: (cupy.empty(2), cupy.empty(2)))[0].size == 2

    def out_of_memory():
        raise cupy.cuda.memory.OutOfMemoryError(10**12, 1024, 2048)

    monkeypatch.setattr(memory, "free_bytes", lambda: 1024)
    with pytest.raises(wf.GPUMemoryError, match="the result arrays") as info:
        memory.allocate(lambda: "the result arrays", 10**12, out_of_memory)
    assert info.value.free_bytes == 1024 and info.value.needed_bytes > 10**12
