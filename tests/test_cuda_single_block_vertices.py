"""The single block's vertex-balanced kernel (``single_block_levels_vertices``)
and the per-graph choice between it and the edge-balanced one
(``BFSTuning.single_block_balance``).

The vertex mode must keep every contract of the edge mode: levels equal to
SciPy's, a valid BFS tree (parents may differ), and the same levels run in
the block, handed back at the same places (edge limit, queue overflow), with
the same trace rows (frontier vertices, edges examined). The CPU tests check
the ``auto`` rule and the tuning's validation; the GPU tests run both modes
on grids, paths, layered trees that overflow the block queue, a road-like
graph and random low-degree graphs.
"""
import re
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_cuda_bfs import check_result

import wavefront as wf
from wavefront.backends.cuda.bfs_tuning import (
    MAX_SINGLE_BLOCK_VERTEX_DEGREE,
    BFSTuning,
    SingleBlockBalanceError,
)
from wavefront.backends.cuda.compile import KERNEL_DIR
from wavefront.errors import WavefrontError
from wavefront.generators import grid, road_like
from wavefront.graph.container import Graph

gpu = pytest.mark.gpu

EDGES = BFSTuning(single_block_balance="edges")
VERTICES = BFSTuning(single_block_balance="vertices")


def max_degree(graph) -> int:
    return int(np.diff(graph.indptr).max()) if graph.m else 0


def layered_tree(branching, directed=True):
    """A tree whose level k + 1 vertices each have ``branching[k]`` children:
    level sizes are the running products of ``branching``."""
    src, dst, first, size = [], [], 0, 1
    for b in branching:
        parents = np.arange(first, first + size)
        children = first + size + np.arange(size * b)
        src.append(np.repeat(parents, b))
        dst.append(children)
        first, size = first + size, size * b
    n = first + size
    return Graph.from_edges(np.concatenate(src), np.concatenate(dst), n=n, directed=directed)


def path(n, directed=False):
    return Graph.from_edges(np.arange(n - 1), np.arange(1, n), n=n, directed=directed)


# -- the auto rule and the tuning, on the CPU -------------------------------------------------


def test_auto_balances_vertices_on_low_degree_graphs_and_edges_elsewhere():
    assert BFSTuning().single_block_balance == "edges"  # the default: the vertex mode lost on roads (H200)
    auto = BFSTuning(single_block_balance="auto")
    grid_degree = max_degree(grid(16, 16))
    kron_degree = max_degree(wf.kronecker(10, seed=5, weighted=False))
    assert grid_degree == 4 and kron_degree > 8
    assert auto.single_block_kernel(grid_degree) == "vertices"
    assert auto.single_block_kernel(0) == "vertices"  # no arcs: nothing to balance
    assert auto.single_block_kernel(8) == "vertices"
    assert auto.single_block_kernel(9) == "edges"
    assert auto.single_block_kernel(kron_degree) == "edges"
    assert auto.with_options(single_block_auto_max_degree=3).single_block_kernel(grid_degree) == "edges"
    assert auto.with_options(single_block_auto_max_degree=0).single_block_kernel(1) == "edges"
    assert auto.with_options(single_block_vertex_degree=5).single_block_kernel(7) == "edges"  # the buffer bounds auto
    assert auto.with_options(single_block_vertex_degree=5).single_block_kernel(5) == "vertices"
    assert EDGES.single_block_kernel(grid_degree) == "edges"
    assert VERTICES.single_block_kernel(grid_degree) == "vertices"


def test_forced_vertex_balance_refuses_a_degree_above_the_buffer():
    with pytest.raises(SingleBlockBalanceError, match="out-degree 9") as info:
        VERTICES.single_block_kernel(9)
    assert isinstance(info.value, WavefrontError) and isinstance(info.value, ValueError)
    wide = BFSTuning(single_block_balance="vertices", single_block_vertex_degree=MAX_SINGLE_BLOCK_VERTEX_DEGREE)
    assert wide.single_block_kernel(MAX_SINGLE_BLOCK_VERTEX_DEGREE) == "vertices"


def test_bad_balance_settings_fail_at_once():
    with pytest.raises(ValueError, match="single_block_balance"):
        BFSTuning(single_block_balance="threads")
    with pytest.raises(ValueError, match="single_block_vertex_degree"):
        BFSTuning(single_block_vertex_degree=0)
    with pytest.raises(ValueError, match="single_block_vertex_degree"):
        BFSTuning(single_block_vertex_degree=MAX_SINGLE_BLOCK_VERTEX_DEGREE + 1)
    with pytest.raises(ValueError, match="single_block_auto_max_degree"):
        BFSTuning(single_block_auto_max_degree=-1)


def test_the_buffer_size_reaches_the_kernel_and_the_default_is_the_kernels_own():
    """BFSTuning renders SB_VERTEX_DEGREE for the single-block file only, and
    its default equals the file's #ifndef default (the build CI compiles)."""
    source = (KERNEL_DIR / "bfs_single_block.cu").read_text()
    default = re.search(r"#ifndef SB_VERTEX_DEGREE\n#define SB_VERTEX_DEGREE (\d+)\n", source)
    assert default is not None
    assert BFSTuning().defines("bfs_single_block.cu") == {"SB_VERTEX_DEGREE": int(default.group(1))}
    assert BFSTuning(single_block_vertex_degree=5).defines("bfs_single_block.cu")["SB_VERTEX_DEGREE"] == 5
    assert "SB_VERTEX_DEGREE" not in BFSTuning().defines("bfs_bottom_up.cu")
    # The kernel's mask holds SB_ITEMS (3 at 32-bit ids) times the degree.
    assert 3 * MAX_SINGLE_BLOCK_VERTEX_DEGREE <= 32


# -- both kernels on the GPU ------------------------------------------------------------------


def trace_rows(result):
    """What both modes must agree on: every level's step, direction, frontier,
    edges and reason (a "[single block]" reason: the level ran in the block)."""
    return [(r.step, r.kind, r.frontier, r.edges, r.reason) for r in result.trace]


def both_modes(graph, source, method="single-block", **options):
    """Edge- and vertex-balanced results (each checked against SciPy) and
    their traces, which must be identical."""
    gd = graph if graph.device == "cuda" else graph.to("cuda")
    host = graph if graph.device != "cuda" else graph.to("cpu")
    results = {}
    for name, tuning in (("edges", EDGES), ("vertices", VERTICES)):
        result = wf.bfs(gd, source, method=method, tuning=tuning.with_options(**options))
        check_result(host, result, source)
        results[name] = result
    assert trace_rows(results["vertices"]) == trace_rows(results["edges"])
    return results["vertices"]


def in_block(result):
    return ["single block" in r.reason for r in result.trace]


@gpu
@pytest.mark.parametrize("method", ["single-block", "hybrid"])
@pytest.mark.parametrize("shape", [(1, 1), (1, 300), (2, 50), (17, 33), (64, 64), (300, 7)])
def test_grids_match_scipy_in_both_modes(method, shape):
    g = grid(*shape)
    for source in sorted({0, g.n // 2, g.n - 1}):
        result = both_modes(g, source, method)
        if g.n > 1:
            assert all(in_block(result))  # no grid level needs the host


@gpu
@pytest.mark.parametrize("directed", [False, True])
def test_paths_match_scipy_in_both_modes(directed):
    g = path(2000, directed)
    for source in (0, 999, 1999):
        result = both_modes(g, source)
        assert result.depth == (1999 - source if directed else max(source, 1999 - source))


@gpu
def test_road_like_graph_matches_scipy_and_passes_the_validator():
    from wavefront.validate import validate_bfs

    g = road_like(20_000, seed=3)
    assert max_degree(g) <= 8
    src = np.repeat(np.arange(g.n, dtype=np.int64), np.diff(g.indptr))
    for source in (0, 7777, g.n - 1):
        result = both_modes(g, source, method="hybrid")
        host = SimpleNamespace(source=source, parents=result.parents.get(), levels=result.levels.get())
        validate_bfs((src, g.indices), host, n=g.n)
        assert result.depth > 20 and all(in_block(result))


@gpu
def test_auto_picks_vertices_on_a_grid_and_edges_on_kronecker():
    """``auto`` (not the default) by the cached maximum out-degree."""
    from wavefront.backends.cuda.bfs_steps import single_block_balance

    gd = grid(32, 32).to("cuda")
    kd = wf.kronecker(12, seed=5, weighted=False).to("cuda")
    auto = BFSTuning(single_block_balance="auto")
    assert single_block_balance(gd, auto) == "vertices"
    assert gd.derived["cuda.max_out_degree"] == 4  # cached once per graph
    assert single_block_balance(kd, auto) == "edges"
    assert kd.derived["cuda.max_out_degree"] == max_degree(kd.to("cpu"))
    assert single_block_balance(kd, EDGES) == "edges"
    with pytest.raises(SingleBlockBalanceError):
        wf.bfs(kd, 0, method="single-block", tuning=VERTICES)


@gpu
@pytest.mark.parametrize("directed", [True, False])
def test_block_queue_overflow_into_the_global_queue(directed):
    """Level sizes 1, 4, ..., 1024, then 3072 (the queue's capacity exactly:
    it stays, three items per thread), 3072, then 6144: more than the block
    queue holds, so the winners past 3072 go straight to the global queue and
    the block returns; the next level (too big) runs grid-wide."""
    g = layered_tree([4, 4, 4, 4, 4, 3, 1, 2, 1, 1], directed)
    assert max_degree(g) <= 5
    result = both_modes(g, 0)
    sizes = [r.frontier for r in result.trace]
    assert sizes[:9] == [1, 4, 16, 64, 256, 1024, 3072, 3072, 6144]
    blocked = in_block(result)
    assert all(blocked[:8]) and not blocked[8]  # the 6144-vertex level came back to the host
    both_modes(g, 0, method="hybrid")


@gpu
def test_edge_limit_hands_levels_back_exactly_as_the_edge_mode_does():
    """A 2 x 50 grid from a corner has frontiers of two vertices with up to
    6 out-edges: 2 * max degree = 8 exceeds a limit of 7, so the vertex kernel
    counts the level's edges exactly (its extra barrier) and keeps it; a limit
    of 5 sends the same levels back to the host in both modes."""
    g = grid(2, 50)
    kept = both_modes(g, 0, single_block_edges=7)
    assert all(in_block(kept))
    handed = both_modes(g, 0, single_block_edges=5)
    assert not all(in_block(handed)) and any(in_block(handed))
    for limit in (0, 1, 3, 12, 40):
        both_modes(grid(24, 24), 5, single_block_edges=limit)
        both_modes(grid(24, 24), 5, method="hybrid", single_block_edges=limit)


@gpu
def test_int64_vertex_ids():
    """The 64-bit instantiation (two items per thread, a 2048-vertex queue)."""
    for g in (grid(40, 40), layered_tree([4, 4, 4, 4, 4, 2, 1, 2], directed=True)):
        wide = Graph(g.indptr, g.indices.astype(np.int64), n=g.n, directed=g.directed,
                     in_indptr=g.in_indptr if g.directed else None,
                     in_indices=g.in_indices.astype(np.int64) if g.directed else None, check=False).to("cuda")
        assert wide.indices.dtype == np.int64
        for source in (0, g.n // 3):
            edges = wf.bfs(wide, source, method="single-block", tuning=EDGES)
            vertices = wf.bfs(wide, source, method="single-block", tuning=VERTICES)
            check_result(g, vertices, source)
            assert trace_rows(vertices) == trace_rows(edges)


@st.composite
def low_degree_graphs(draw):
    """Random graphs of out-degree <= 8: directed ones with 0..8 random arcs
    per vertex, undirected ones as a random subset of the union of four
    random permutations (each vertex ends up in at most 8 arcs)."""
    n = draw(st.integers(1, 600))
    directed = draw(st.booleans())
    seed = draw(st.integers(0, 2**32 - 1))
    keep = draw(st.floats(0.2, 1.0))
    rng = np.random.default_rng(seed)
    if directed:
        degree = rng.integers(0, 9, n)
        src = np.repeat(np.arange(n), degree)
        dst = rng.integers(0, n, src.size)
    else:
        src = np.tile(np.arange(n), 4)
        dst = np.concatenate([rng.permutation(n) for _ in range(4)])
    mask = rng.random(src.size) < keep
    g = Graph.from_edges(src[mask], dst[mask], n=n, directed=directed)
    return g, int(rng.integers(0, n))


@gpu
@settings(max_examples=40, deadline=None)
@given(low_degree_graphs(), st.sampled_from(["single-block", "hybrid"]))
def test_random_low_degree_graphs(case, method):
    g, source = case
    assert max_degree(g) <= 8
    both_modes(g, source, method)
