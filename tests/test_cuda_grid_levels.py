"""The grid-levels kernel (``kernels/bfs_grid_levels.cu``): top-down levels too
big for the single block, run in one persistent grid launch for as long as
the hybrid's rules keep them there.

The kernel must run exactly the levels the per-level loop would run in its
place: the CPU tests check that :meth:`CUDAHybridPolicy.grid_levels_rule`
(the numbers the kernel compares) agrees with :meth:`CUDAHybridPolicy.choose`
on random states, and the tuning's validation; the GPU tests check levels
against SciPy and trace rows (level, direction, frontier, edges) against the
same search with the kernel off, on grids, road-like graphs, paths, random
low-degree graphs, both policies, narrow single blocks that hand levels back
and forth, depth limits, several sources and 64-bit ids.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_cuda_bfs import check_result, oracle_levels

import wavefront as wf
from wavefront.backends.cuda.bfs_tuning import BFSTuning
from wavefront.bfs.policy import (
    TOP_DOWN,
    CUDAHybridPolicy,
    FixedPolicy,
    GAPPolicy,
    LevelState,
    Seed000Policy,
    TopDownBound,
)
from wavefront.generators import grid, road_like
from wavefront.graph.container import Graph

gpu = pytest.mark.gpu

ON = BFSTuning()
OFF = BFSTuning(grid_levels=False)


# -- the rule the kernel follows, on the CPU ------------------------------------------------


def kernel_rule(rule, n_f: int, m_f: int, m_u: int) -> bool:
    """gl_next_runs of kernels/bfs_grid_levels.cu, line for line."""
    if n_f == 0:
        return False
    if n_f <= rule.block_vertices and m_f <= rule.block_edges:
        return False
    if m_f < rule.min_edges or m_f <= rule.edges:
        return True
    return rule.unexplored_alpha > 0 and m_f <= m_u / rule.unexplored_alpha


@settings(max_examples=400, deadline=None)
@given(name=st.sampled_from(["gap", "seed000"]), alpha=st.floats(0.5, 60), n=st.integers(1, 10**7),
       m=st.integers(0, 10**8), block_vertices=st.sampled_from([0, 3072, 2048]),
       block_edges=st.integers(0, 2**20), keep=st.one_of(st.none(), st.integers(0, 2**20)),
       min_edges=st.integers(0, 10**5), n_f=st.integers(1, 10**6), m_f=st.integers(0, 10**7),
       m_u=st.integers(0, 10**8))
def test_the_kernels_rule_is_the_policys_choice(name, alpha, n, m, block_vertices, block_edges, keep, min_edges,
                                                n_f, m_f, m_u):
    base = GAPPolicy(alpha=alpha) if name == "gap" else Seed000Policy(alpha=alpha)
    policy = CUDAHybridPolicy(base, single_block_vertices=block_vertices, single_block_edges=block_edges,
                              bottom_up_min_edges=min_edges, stay_margin=0, bottom_up_ahead=True,
                              grid_levels=True, grid_levels_keep_edges=keep)
    state = LevelState(level=5, n=n, m=m, frontier_vertices=n_f, frontier_edges=m_f, unexplored_edges=m_u,
                       previous_frontier_vertices=7, direction=TOP_DOWN)
    decision = policy.choose(state)
    rule = policy.grid_levels_rule(n, m)
    runs = kernel_rule(rule, n_f, m_f, m_u)
    if runs:  # the kernel runs only levels the policy sends top-down
        assert decision.direction == TOP_DOWN
    elif not (n_f <= block_vertices and m_f <= block_edges):
        # It hands back a level outside the single block only when the policy sends it bottom-up.
        assert decision.direction != TOP_DOWN
    if keep is None or keep >= block_edges:  # no band: exactly the host's choice
        assert decision.grid_levels == runs
    if decision.grid_levels:
        assert decision.direction == TOP_DOWN and not decision.single_block


def test_seed000_bound_is_exact_at_the_threshold():
    policy = Seed000Policy(alpha=10.0)
    bound = policy.top_down_bound(100, 1234)
    assert bound == TopDownBound(edges=123)
    for m_f in (122, 123, 124):
        state = LevelState(2, 100, 1234, 5, m_f, 0, 1, TOP_DOWN)
        assert (policy.choose(state)[0] == TOP_DOWN) == (m_f <= bound.edges)


def test_policies_without_a_bound_never_ask_for_the_kernel():
    assert FixedPolicy("bottom-up").top_down_bound(10, 10) is None
    assert FixedPolicy(TOP_DOWN).top_down_bound(10, 10).edges >= 2**62
    off = CUDAHybridPolicy(GAPPolicy(), single_block_vertices=3072, single_block_edges=16384)
    state = LevelState(4, 10**6, 10**7, 5000, 15000, 9 * 10**6, 4000, TOP_DOWN)
    assert not off.choose(state).grid_levels  # grid_levels defaults to off
    on = CUDAHybridPolicy(GAPPolicy(), single_block_vertices=3072, single_block_edges=16384, grid_levels=True)
    assert on.choose(state).grid_levels
    root = LevelState(1, 10**6, 10**7, 1, None, None, 0, TOP_DOWN)
    assert not on.choose(root).grid_levels  # the root's degree is not known yet
    with pytest.raises(ValueError, match="no top-down bound"):
        CUDAHybridPolicy(FixedPolicy("bottom-up"), grid_levels=True).grid_levels_rule(10, 10)


def test_tuning_fields_are_checked():
    assert ON.defines("bfs_grid_levels.cu") == {}  # nothing compiled in: the rows' shape is an argument
    for bad in ({"grid_levels_max_degree": 0}, {"grid_levels_max_degree": 33}, {"grid_levels_blocks": 0},
                {"grid_levels_block_edges": -1}, {"grid_levels_block_edges": 2**20 + 1},
                {"grid_levels_keep_edges": -1}):
        with pytest.raises(ValueError, match=next(iter(bad))):
            BFSTuning(**bad)


def test_the_block_edge_limit_follows_the_kernel():
    """Graphs the kernel takes get ``grid_levels_block_edges`` as the single
    block's limit; others (and the kernel switched off) keep ``single_block_edges``."""
    from wavefront.backends.cuda.bfs import _rules
    from wavefront.bfs.policy import make_policy

    base, tuning = make_policy("gap"), BFSTuning(single_block_edges=9000, grid_levels_block_edges=700)
    assert _rules(base, tuning, 100, False, False, None, True).single_block_edges == 700
    assert _rules(base, tuning, 100, False, False, None, False).single_block_edges == 9000
    assert _rules(base, tuning, 100, False, False, None, True).grid_levels
    banded = tuning.with_options(grid_levels_keep_edges=300)
    assert _rules(base, banded, 100, False, False, None, True).grid_levels_rule(100, 1000).block_edges == 300
    wide = tuning.with_options(grid_levels_keep_edges=5000)  # a band beyond the block's limit is the limit
    assert _rules(base, wide, 100, False, False, None, True).grid_levels_rule(100, 1000).block_edges == 700
    assert _rules(base, banded, 100, False, False, None, False).grid_levels_keep_edges is None


def test_a_multi_level_launch_is_taken_back_into_the_search(monkeypatch):
    """The bookkeeping after the single block or the grid levels (on the CPU,
    the read-back faked): frontier, m_f, m_u, previous frontier, trace rows,
    queues swapped; a single block that ran nothing returns the degree only."""
    from types import SimpleNamespace

    from wavefront.backends.cuda import bfs_search, bfs_steps
    from wavefront.backends.cuda.abi import CNT_LEVELS_RUN, CNT_NEXT_COUNT, CNT_NEXT_DEGREE, CNT_SLOTS

    swaps = []
    search = object.__new__(bfs_search.BFSSearch)
    search.graph = SimpleNamespace(m=1000)
    search.ws = SimpleNamespace(swap_queues=lambda: swaps.append(1))
    search.trace = bfs_search.Trace()
    search.count, search.degree, search.unexplored, search.previous_count = 40, 90, 800, 7
    search.direction = "bottom-up"

    def read_back(counters, start, rows):
        c = np.zeros(CNT_SLOTS, dtype=np.uint64)
        for slot, value in counters.items():
            c[slot] = value
        monkeypatch.setattr(bfs_steps, "read_kernel_levels", lambda ws: (c, start, np.array(rows, dtype=np.int64)))

    # Two levels from level 5: frontiers 40 (90 edges) then 55 (120 edges); 60 vertices (150 edges) come back.
    read_back({CNT_LEVELS_RUN: 2, CNT_NEXT_COUNT: 60, CNT_NEXT_DEGREE: 150}, 1000, [[40, 90, 3000], [55, 120, 7000]])
    assert search._take_kernel_levels(5, "why", "[grid levels]") == 2
    assert (search.count, search.degree, search.unexplored, search.previous_count) == (60, 150, 800 - 120 - 150, 55)
    assert search.direction == TOP_DOWN and swaps == [1]
    rows = list(search.trace)
    assert [(r.step, r.frontier, r.edges, r.reason) for r in rows] == [
        (5, 40, 90, "why [grid levels]"), (6, 55, 120, "[grid levels]")]
    assert [r.seconds for r in rows] == pytest.approx([2e-6, 4e-6])
    # A single block whose first level was too big: nothing run, the degree back, m_u from it at the root.
    search.unexplored = None
    read_back({CNT_LEVELS_RUN: 0, CNT_NEXT_COUNT: 60, CNT_NEXT_DEGREE: 333}, 0, [])
    assert search._take_kernel_levels(8, "why", "[single block]") == 0
    assert (search.count, search.degree, search.unexplored, search.previous_count) == (60, 333, 1000 - 333, 55)
    assert len(list(search.trace)) == 2 and swaps == [1, 1]


# -- the kernel on the GPU ------------------------------------------------------------------


def trace_rows(result):
    return [(r.step, r.kind, r.frontier, r.edges) for r in result.trace]


def grid_kernel_levels(result) -> int:
    return sum("[grid levels]" in r.reason for r in result.trace)


def on_and_off(graph, source, min_grid_levels=1, **options):
    """The hybrid with the kernel on and off, the single block taking the same
    frontiers in both (``grid_levels_block_edges`` out-edges): both checked
    against SciPy, the same trace rows; returns the search with the kernel on."""
    gd = graph.to("cuda")
    where = {"source": source} if np.ndim(source) == 0 else {"sources": source}
    tuning = ON.with_options(**options)
    on = wf.bfs(gd, method="hybrid", tuning=tuning, **where)
    off = wf.bfs(gd, method="hybrid", tuning=OFF.with_options(
        **options, single_block_edges=tuning.grid_levels_block_edges), **where)
    if np.ndim(source) == 0:
        check_result(graph, on, source)
        check_result(graph, off, source)
    assert np.array_equal(on.levels.get(), off.levels.get())
    assert trace_rows(on) == trace_rows(off)
    assert grid_kernel_levels(off) == 0
    assert grid_kernel_levels(on) >= min_grid_levels
    return on


@gpu
@pytest.mark.parametrize("shape", [(64, 64), (300, 40), (7, 500)])
def test_grids_without_the_single_block(shape):
    g = grid(*shape)
    for source in (0, g.n // 2 + 3, g.n - 1):
        result = on_and_off(g, source, single_block=False)
        # Every top-down level runs in the kernel (the root's too: its degree
        # is read first without the single block); late levels may go bottom-up.
        assert all("[grid levels]" in r.reason for r in result.trace if r.kind == "top-down")


@gpu
@pytest.mark.parametrize("edges", [8, 64, 300])
def test_levels_go_back_and_forth_between_the_block_and_the_grid(edges):
    """A narrow single block (``grid_levels_block_edges``) hands levels to the
    grid kernel and takes them back several times in one search."""
    g = grid(80, 80)
    result = on_and_off(g, 37, grid_levels_block_edges=edges)
    on_and_off(g, 37, grid_levels_block_edges=edges, grid_levels_keep_edges=edges // 4)
    kinds = ["grid" if "[grid levels]" in r.reason else "block" if "[single block]" in r.reason else r.kind
             for r in result.trace]
    assert "block" in kinds and "grid" in kinds
    assert set(kinds) <= {"block", "grid", "bottom-up"}  # no top-down level runs alone
    switches = sum(a != b for a, b in zip(kinds, kinds[1:], strict=False))
    assert switches >= 2


@gpu
def test_road_like_graph_with_both_policies_and_bottom_up_switches():
    g = road_like(60_000, seed=3)
    assert int(np.diff(g.indptr).max()) <= 8
    on_and_off(g, 11, min_grid_levels=0)  # its frontiers may all fit the single block
    for options in ({"single_block": False}, {"grid_levels_block_edges": 512}):
        on_and_off(g, 11, **options)
    # Policies that go bottom-up in the middle of the search: the kernel hands
    # those levels back at exactly the same place.
    gd = g.to("cuda")
    for policy, alpha in (("gap", 3000.0), ("seed000", 2000.0), ("seed000", 10.0)):
        on = wf.bfs(gd, 11, method="hybrid", policy=policy, alpha=alpha, tuning=ON.with_options(single_block=False))
        off = wf.bfs(gd, 11, method="hybrid", policy=policy, alpha=alpha, tuning=OFF.with_options(single_block=False))
        # (no single block: the block limits do not enter)
        check_result(g, on, 11)
        assert trace_rows(on) == trace_rows(off)
    both = 0
    for alpha in (30.0, 100.0, 300.0, 1000.0, 3000.0):
        switched = wf.bfs(gd, 11, method="hybrid", policy="gap", alpha=alpha,
                          tuning=ON.with_options(single_block=False, bottom_up_min_edges_ratio=0))
        check_result(g, switched, 11)
        both += any(r.kind == "bottom-up" for r in switched.trace) and grid_kernel_levels(switched) > 0
    assert both  # some search went bottom-up and came back to the kernel


@gpu
def test_depth_limits_stop_inside_the_kernel():
    g = grid(60, 60)
    gd = g.to("cuda")
    expected = oracle_levels(g, 0)
    for limit in (1, 2, 5, 40, 117, 118, 500):
        result = wf.bfs(gd, 0, method="hybrid", depth_limit=limit, tuning=ON.with_options(single_block=False))
        want = np.where(expected <= limit, expected, -1)
        assert np.array_equal(result.levels.get(), want), limit
        assert result.trace[-1].step <= limit


@gpu
def test_several_sources_and_block_counts():
    g = road_like(30_000, seed=5)
    sources = np.array([0, 999, 20_000, 29_999])
    on_and_off(g, sources, single_block=False)
    for blocks in (1, 7, 10_000):  # 10 000: capped at one per SM
        on_and_off(g, 17, single_block=False, grid_levels_blocks=blocks)


@gpu
def test_paths_directed_and_not():
    for directed in (False, True):
        g = Graph.from_edges(np.arange(4999), np.arange(1, 5000), n=5000, directed=directed)
        result = on_and_off(g, 2500, single_block=False)
        assert result.depth == (2499 if directed else 2500)


@gpu
def test_degree_above_the_bound_keeps_the_per_level_loop():
    g = grid(50, 50)
    src = np.concatenate([np.repeat(np.arange(g.n), np.diff(g.indptr)), np.zeros(9, dtype=np.int64)])
    dst = np.concatenate([g.indices, np.arange(100, 109)])
    hub = Graph.from_edges(src, dst, n=g.n)  # vertex 0 now has out-degree 11
    gd = hub.to("cuda")
    plain = wf.bfs(gd, 5, method="hybrid", tuning=ON.with_options(single_block=False))
    check_result(hub, plain, 5)
    assert grid_kernel_levels(plain) == 0
    on_and_off(hub, 5, single_block=False, grid_levels_max_degree=16)


@gpu
def test_rows_of_several_slots_a_lane():
    """Out-degrees 1-2 with 0.5 % of the vertices at 8: the padded rows have 8
    slots, read by 2 lanes of 4 (padded_shape), in the kernel and out."""
    from wavefront.backends.cuda.device_graph import padded_shape

    rng = np.random.default_rng(4)
    n = 20_000
    count = rng.integers(1, 3, n)
    count[rng.random(n) < 0.005] = 8
    src = np.repeat(np.arange(n), count)
    g = Graph.from_edges(src, rng.integers(0, n, src.size), n=n, directed=True)
    assert padded_shape(g.to("cuda")) == (3, 1)
    for source in (0, 17):
        on_and_off(g, source, min_grid_levels=0, single_block=False)
        on_and_off(g, source, min_grid_levels=0)


@gpu
def test_int64_vertex_ids():
    g = grid(70, 45)
    wide = Graph(g.indptr, g.indices.astype(np.int64), n=g.n, directed=False, check=False)
    assert wide.to("cuda").indices.dtype == np.int64
    on_and_off(wide, 100, single_block=False)
    on_and_off(wide, 100, grid_levels_block_edges=40)


@st.composite
def low_degree_graphs(draw):
    """Random graphs of out-degree <= 8 (directed: 0..8 random arcs a
    vertex; undirected: a random part of four random permutations)."""
    n = draw(st.integers(2, 3000))
    directed = draw(st.booleans())
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    keep = draw(st.floats(0.2, 1.0))
    if directed:
        src = np.repeat(np.arange(n), rng.integers(0, 9, n))
        dst = rng.integers(0, n, src.size)
    else:
        src = np.tile(np.arange(n), 4)
        dst = np.concatenate([rng.permutation(n) for _ in range(4)])
    mask = rng.random(src.size) < keep
    return Graph.from_edges(src[mask], dst[mask], n=n, directed=directed), int(rng.integers(0, n))


@gpu
@settings(max_examples=40, deadline=None)
@given(case=low_degree_graphs(), edges=st.sampled_from([0, 16, 2048]))
def test_random_low_degree_graphs(case, edges):
    g, source = case
    on_and_off(g, source, min_grid_levels=0, grid_levels_block_edges=edges)
    on_and_off(g, source, min_grid_levels=0, grid_levels_block_edges=edges, grid_levels_keep_edges=edges // 3)
    on_and_off(g, source, min_grid_levels=0, single_block=False)


def test_launch_arguments_follow_the_kernel_parameters():
    """GridLevelsArgs names the grid-levels kernel's parameters in order
    (``next_queue`` for ``next``), so a parameter added or dropped on one
    side only fails here, on the CPU."""
    from test_cuda_single_block_padded import _kernel_parameters

    from wavefront.backends.cuda.bfs_grid_levels import GridLevelsArgs

    fields = ["next" if f == "next_queue" else f for f in GridLevelsArgs._fields]
    assert fields == _kernel_parameters("bfs_grid_levels.cu", "grid_levels")
