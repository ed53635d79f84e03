"""CPU BFS (top-down, bottom-up, hybrid) against scipy.sparse.csgraph."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.sparse import csgraph

import wavefront as wf
from wavefront.backends.cpu import bfs as cpu_bfs
from wavefront.backends.cpu.tuning import CPUBFSTuning
from wavefront.bfs.policy import BOTTOM_UP, TOP_DOWN, GAPPolicy
from wavefront.graph.container import Graph

# (method, options): every method, and the hybrid under every policy.
VARIANTS = [
    ("top-down", {}),
    ("bottom-up", {}),
    ("hybrid", {}),
    ("hybrid", {"policy": "gap"}),
    ("hybrid", {"policy": "seed000"}),
    ("hybrid", {"policy": "top-down"}),
    ("hybrid", {"policy": "bottom-up"}),
    ("hybrid", {"policy": "gap", "alpha": 1.0, "beta": 1.0}),  # switches at almost every level
    ("auto", {}),
]


def oracle_levels(graph, source):
    hops = csgraph.shortest_path(
        graph.to_scipy(), directed=graph.directed, unweighted=True, indices=source
    )
    return np.where(np.isinf(hops), -1, hops).astype(np.int32)


def assert_valid_bfs(graph, source, result, expected_levels):
    np.testing.assert_array_equal(result.levels, expected_levels)
    parents = result.parents
    assert parents.dtype == np.int64 and result.levels.dtype == np.int32
    assert parents[source] == source
    np.testing.assert_array_equal(parents >= 0, expected_levels >= 0)
    children = np.flatnonzero(parents >= 0)
    children = children[children != source]
    assert (result.levels[parents[children]] == result.levels[children] - 1).all()
    assert has_arcs(graph, parents[children], children).all(), "a tree arc is not an edge"


def has_arcs(graph, tails, heads):
    """Whether each ``tails[i] -> heads[i]`` is an arc of the graph's CSR."""
    rows = np.repeat(np.arange(graph.n, dtype=np.int64), np.diff(graph.indptr))
    arcs = rows * graph.n + graph.indices
    return np.isin(tails.astype(np.int64) * graph.n + heads, arcs)


@st.composite
def graphs_and_sources(draw):
    n = draw(st.integers(1, 70))
    m = draw(st.integers(0, 3 * n))
    src = draw(st.lists(st.integers(0, n - 1), min_size=m, max_size=m))
    dst = draw(st.lists(st.integers(0, n - 1), min_size=m, max_size=m))
    directed = draw(st.booleans())
    graph = wf.Graph.from_edges(np.array(src, np.int64), np.array(dst, np.int64), n=n, directed=directed)
    return graph, draw(st.integers(0, n - 1))


@settings(max_examples=60, deadline=None)
@given(graphs_and_sources())
def test_every_method_matches_scipy(case):
    graph, source = case
    expected = oracle_levels(graph, source)
    for method, options in VARIANTS:
        assert_valid_bfs(graph, source, wf.bfs(graph, source, method=method, **options), expected)


@pytest.mark.parametrize("directed", [False, True])
def test_larger_random_graph_every_method(directed):
    rng = np.random.default_rng(7)
    n = 20_000
    src, dst = rng.integers(0, n, 60_000), rng.integers(0, n, 60_000)
    graph = wf.Graph.from_edges(src, dst, n=n, directed=directed)
    expected = oracle_levels(graph, 11)
    for method, options in VARIANTS:
        assert_valid_bfs(graph, 11, wf.bfs(graph, 11, method=method, **options), expected)


def test_isolated_root_and_disconnected_graph():
    graph = wf.Graph.from_edges([0, 1, 3], [1, 2, 4], n=6)
    for method, options in VARIANTS:
        alone = wf.bfs(graph, 5, method=method, **options)
        assert alone.levels.tolist() == [-1, -1, -1, -1, -1, 0]
        assert alone.parents.tolist() == [-1, -1, -1, -1, -1, 5]
        part = wf.bfs(graph, 1, method=method, **options)
        assert part.levels.tolist() == [1, 0, 1, -1, -1, -1]


def test_int64_column_indices():
    small = wf.Graph.from_edges([0, 1, 2, 2, 5], [1, 2, 3, 4, 6], n=8, directed=True)
    wide = Graph(
        small.indptr, small.indices.astype(np.int64), n=small.n, directed=True,
        in_indptr=small.in_indptr, in_indices=small.in_indices.astype(np.int64), check=False,
    )
    expected = oracle_levels(small, 0)
    for method, options in VARIANTS:
        assert_valid_bfs(small, 0, wf.bfs(wide, 0, method=method, **options), expected)


def test_directed_bottom_up_uses_in_edges():
    # 0 -> 1 -> 2, and 2 -> 0 which a pull along out-edges would misuse.
    graph = wf.Graph.from_edges([0, 1, 2], [1, 2, 0], directed=True)
    for method in ("top-down", "bottom-up", "hybrid"):
        assert wf.bfs(graph, 1, method=method).levels.tolist() == [2, 0, 1]


@pytest.fixture(scope="module")
def kronecker_graph():
    from wavefront.generators import kronecker

    return kronecker(12, edgefactor=16, seed=3, weighted=False)


def _hub(graph):
    return int(np.argmax(np.diff(graph.indptr)))


def test_trace_has_one_row_per_level(kronecker_graph):
    g = kronecker_graph
    source = _hub(g)
    degree = np.diff(g.indptr)
    for method in ("top-down", "bottom-up", "hybrid"):
        result = wf.bfs(g, source, method=method)
        # Levels 1..depth discover vertices; one more level finds none and ends the search.
        assert [row.step for row in result.trace] == list(range(1, result.depth + 2))
        for row in result.trace:
            frontier = result.levels == row.step - 1
            assert row.frontier == int(frontier.sum())
            assert row.kind in (TOP_DOWN, BOTTOM_UP) and row.seconds >= 0
            if row.kind == TOP_DOWN:
                assert row.edges == int(degree[frontier].sum())
            else:
                assert 0 <= row.edges <= g.m
        assert {row.kind for row in result.trace} == (
            {method} if method != "hybrid" else {TOP_DOWN, BOTTOM_UP}
        )


def test_hybrid_examines_fewer_edges_than_either_direction(kronecker_graph):
    g = kronecker_graph
    source = _hub(g)
    hybrid = wf.bfs(g, source, method="hybrid")
    kinds = [row.kind for row in hybrid.trace]
    assert kinds[0] == TOP_DOWN and BOTTOM_UP in kinds
    assert all(row.reason for row in hybrid.trace)
    for single in ("top-down", "bottom-up"):
        assert hybrid.trace.edges < wf.bfs(g, source, method=single).trace.edges


def test_policy_object_and_parameters(kronecker_graph):
    g = kronecker_graph
    source = _hub(g)
    per_level = CPUBFSTuning(fused_edges=0)  # every level asks the policy
    eager = wf.bfs(g, source, method="hybrid", policy=GAPPolicy(alpha=1e9, beta=1e-9), tuning=per_level)
    never = wf.bfs(g, source, method="hybrid", alpha=1e-9, tuning=per_level)  # m_f never exceeds m_u / alpha
    assert eager.trace[0].kind == BOTTOM_UP  # m_f > m_u / alpha already at the root
    assert {row.kind for row in never.trace} == {TOP_DOWN}
    np.testing.assert_array_equal(eager.levels, never.levels)


def test_small_frontiers_run_fused_top_down_whatever_the_policy(kronecker_graph):
    """Levels whose frontier has fewer than ``fused_edges`` out-arcs run
    top-down in the fused kernel, even where the policy says bottom-up; the
    bottom-up method never fuses."""
    g = kronecker_graph
    source = _hub(g)
    degree = np.diff(g.indptr)
    eager = GAPPolicy(alpha=1e9, beta=1e-9)
    for fused_edges in (1, int(degree[source]) + 1, g.m + 1):
        tuning = CPUBFSTuning(fused_edges=fused_edges)
        result = wf.bfs(g, source, method="hybrid", policy=eager, tuning=tuning)
        np.testing.assert_array_equal(result.levels, oracle_levels(g, source))
        rows = list(result.trace)
        for before, row in zip([None, *rows], rows):
            if row.reason.startswith("fused"):
                assert row.kind == TOP_DOWN and row.edges < fused_edges
                assert row.edges == int(degree[result.levels == row.step - 1].sum())
            elif row.kind == TOP_DOWN and row.edges < fused_edges:
                # Only right after a bottom-up level: its frontier is a bitmap, not a queue.
                assert before is not None and before.kind == BOTTOM_UP
        assert result.trace[0].reason.startswith("fused") == (degree[source] < fused_edges)
    bottom_up = wf.bfs(g, source, method="bottom-up", tuning=CPUBFSTuning(fused_edges=g.m + 1))
    assert {row.kind for row in bottom_up.trace} == {BOTTOM_UP}


@pytest.mark.parametrize("workers", [1, 2])
def test_fused_levels_on_a_long_path_and_grid(workers):
    """Thousands of one- and few-vertex levels in fused batches (more levels
    than one call records), on one thread and on two."""
    import numba

    from wavefront.generators import grid

    previous = numba.get_num_threads()
    numba.set_num_threads(min(workers, numba.config.NUMBA_NUM_THREADS))
    try:
        path = wf.Graph.from_edges(np.arange(9999), np.arange(1, 10_000))
        tuning = CPUBFSTuning(fused_parallel_vertices=0)  # threads even on a small graph
        result = wf.bfs(path, 0, method="hybrid", tuning=tuning)
        assert result.levels.tolist() == list(range(10_000))
        assert len(result.trace) == 10_000
        g = grid(60, 70)
        for source in (0, 2100, 4199):
            result = wf.bfs(g, source, tuning=tuning)
            np.testing.assert_array_equal(result.levels, oracle_levels(g, source))
            assert all(row.reason.startswith("fused") for row in result.trace)
    finally:
        numba.set_num_threads(previous)


@pytest.mark.parametrize("method", ["top-down", "bottom-up", "hybrid"])
def test_depth_limit(method):
    path_graph = wf.Graph.from_edges(np.arange(9), np.arange(1, 10))
    # a limit past the graph is none, however large: after the small ones, whose
    # int64 kernels a huge Python int would overflow
    for limit in (0, 1, 4, 20, 2**63, 10**30, float("inf")):
        result = wf.bfs(path_graph, 0, method=method, depth_limit=limit)
        expected = [i if i <= limit else -1 for i in range(10)]
        assert result.levels.tolist() == expected
        assert (result.parents >= 0).sum() == min(limit, 9) + 1
        assert len(result.trace) <= limit


@pytest.mark.parametrize("bad", [-1, 1.5, "3", float("nan"), -float("inf")])
def test_bad_depth_limit(bad):
    graph = wf.Graph.from_edges([0], [1])
    with pytest.raises((ValueError, TypeError)):
        wf.bfs(graph, 0, method="hybrid", depth_limit=bad)


def test_repeated_searches_reuse_buffers_safely(kronecker_graph):
    g = kronecker_graph
    first = cpu_bfs.hybrid(g, _hub(g))
    other = cpu_bfs.hybrid(g, 0)
    again = cpu_bfs.hybrid(g, _hub(g))
    np.testing.assert_array_equal(first.levels, again.levels)
    np.testing.assert_array_equal(other.levels, oracle_levels(g, 0))


@pytest.mark.parametrize("directed", [False, True])
def test_hubs_larger_than_a_work_block(directed):
    # Frontiers whose edges sit in a few hubs (and, directed, in vertices
    # without out-edges) are split across workers by edge ranges.
    rng = np.random.default_rng(4)
    n = 30_000
    hubs = rng.integers(0, n, 6)
    src = np.concatenate([np.repeat(hubs, 7_000), rng.integers(0, n, 5_000)])
    dst = np.concatenate([rng.integers(0, n, 42_000), rng.integers(0, n, 5_000)])
    graph = wf.Graph.from_edges(src, dst, n=n, directed=directed)
    source = int(hubs[0])
    expected = oracle_levels(graph, source)
    for method in ("top-down", "hybrid"):
        result = wf.bfs(graph, source, method=method)
        assert_valid_bfs(graph, source, result, expected)
        assert result.trace.edges_by_kind().get(TOP_DOWN, 0) > 0


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 700).flatmap(lambda n: st.tuples(st.just(n), st.sets(st.integers(0, n - 1)))))
def test_queue_bitmap_round_trip(case):
    from wavefront.backends.cpu import _bfs_steps as steps

    n, members = case
    queue = np.array(sorted(members), dtype=np.int32)
    bits = np.full((n + 63) // 64, -1, dtype=np.int64)  # stale bits must be cleared
    steps.queue_to_bitmap(queue, queue.size, bits)
    mask = np.unpackbits(bits.view(np.uint8), bitorder="little")[:n].astype(bool)
    np.testing.assert_array_equal(np.flatnonzero(mask), queue)
    out = np.empty(n, dtype=np.int32)
    count = steps.bitmap_to_queue(bits, out, np.zeros(2, np.int64), 2)
    assert count == queue.size
    np.testing.assert_array_equal(np.sort(out[:count]), queue)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**31 - 1), st.integers(1, 400), st.sampled_from([(None, None), (40, None), (None, 5)]))
def test_serial_levels_run_as_the_team_kernel_does(seed, n, stops):
    """``serial_top_down`` (one thread, plain stores, after the serial reset)
    against ``fused_top_down`` on one worker: the same levels, parents,
    levels run, returned frontier (size, out-arcs, in the same queue),
    discovery totals and stats rows (less the time stamps), on random
    graphs, with and without an edge or depth stop."""
    from wavefront.backends.cpu import _bfs_fused_levels as fused_levels
    from wavefront.backends.cpu import _bfs_steps as steps

    rng = np.random.default_rng(seed)
    src, dst = rng.integers(0, n, 3 * n), rng.integers(0, n, 3 * n)
    g = Graph.from_edges(src, dst, n=n, directed=bool(seed % 2))
    max_edges, last_level = stops
    max_edges = g.m + 1 if max_edges is None else max_edges
    last_level = np.iinfo(np.int64).max if last_level is None else last_level
    source = int(rng.integers(0, n))
    runs = []
    for serial in (True, False):
        parents, levels = np.empty(n, np.int64), np.empty(n, np.int32)
        reset = steps.reset_search_serial if serial else steps.reset_search
        reset(parents, levels, np.array([source]), g.indptr)
        queue_a, queue_b = np.zeros(n, g.indices.dtype), np.zeros(n, g.indices.dtype)
        queue_a[0] = source
        stats = np.zeros(4096 * fused_levels.LEVEL_STAT_COLUMNS, np.int64)
        degree = int(g.indptr[source + 1] - g.indptr[source])
        if serial:
            returned = fused_levels.serial_top_down(g.indptr, g.indices, parents, levels, 0, queue_a, queue_b, 1,
                                             degree, max_edges, last_level, stats)
        else:
            returned = fused_levels.fused_top_down(g.indptr, g.indices, parents, levels, 0, queue_a, queue_b, 1,
                                            degree, max_edges, last_level,
                                            np.zeros(fused_levels.LEVEL_SHARED_SLOTS, np.int64), stats, 50, 1)
        ran, size = int(returned[0]), int(returned[1])
        frontier = (queue_a if ran % 2 == 0 else queue_b)[:size]
        rows = stats[: ran * fused_levels.LEVEL_STAT_COLUMNS].reshape(ran, -1)[:, :2].copy()
        runs.append(([int(x) for x in returned], sorted(frontier.tolist()), levels.copy(), parents.copy(), rows))
    (returned, frontier, levels, parents, rows), other = runs
    assert (returned, frontier) == other[:2]
    np.testing.assert_array_equal(levels, other[2])
    np.testing.assert_array_equal(parents, other[3])
    np.testing.assert_array_equal(rows, other[4])
    ran, size, edges, found, found_edges, previous = returned
    # The totals are the stats rows': each level's frontier was found by the level before.
    assert found == int(rows[1:, 0].sum()) + size and found_edges == int(rows[1:, 1].sum()) + edges
    assert previous == (int(rows[-1, 0]) if ran else 0)
    assert found == int((levels > 0).sum())
    if stops == (None, None):  # ran to the end: the levels are BFS levels
        expected = oracle_levels(g, source)
        np.testing.assert_array_equal(levels, expected)


def test_fused_levels_form_their_team_from_the_threads_that_run():
    """3 workers asked for, 1 numba thread: the iterations run in turn, the
    first closes the team alone, the others return; the levels are right."""
    import numba

    from wavefront.backends.cpu import _bfs_fused_levels as fused_levels
    from wavefront.generators import grid

    g = grid(30, 40)
    n = g.n
    parents, levels = np.full(n, -1, np.int64), np.full(n, -1, np.int32)
    parents[0], levels[0] = 0, 0
    queue_a, queue_b = np.zeros(n, g.indices.dtype), np.zeros(n, g.indices.dtype)
    previous = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        ran, size, *_ = fused_levels.fused_top_down(
            g.indptr, g.indices, parents, levels, 0, queue_a, queue_b, 1, int(g.indptr[1]), g.m + 1,
            np.iinfo(np.int64).max, np.zeros(fused_levels.LEVEL_SHARED_SLOTS, np.int64),
            np.zeros(4096 * fused_levels.LEVEL_STAT_COLUMNS, np.int64), 50, 3,
        )
    finally:
        numba.set_num_threads(previous)
    assert size == 0 and ran == levels.max() + 1
    np.testing.assert_array_equal(levels, oracle_levels(g, 0))
