"""The single block on padded rows (``single_block_levels_padded``: L lanes a
frontier vertex, its row padded to W slots, read in one load) and the
per-graph choice between it and the edge-balanced kernel
(``BFSTuning.single_block_balance``).

The padded mode must keep every contract of the edge mode: levels equal to
SciPy's, a valid BFS tree (parents may differ), and the same levels run in
the block, handed back at the same places (edge limit, queue overflow), with
the same trace rows (frontier vertices, edges examined). The CPU tests check
the ``auto`` rule and the tuning's validation; the GPU tests run every mode
on grids, paths, layered trees that overflow the block queue, a road-like
graph and random low-degree graphs.
"""
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_cuda_bfs import check_result

import wavefront as wf
from wavefront.backends.cuda.bfs_tuning import (
    MAX_PADDED_DEGREE,
    BFSTuning,
    SingleBlockBalanceError,
)
from wavefront.errors import WavefrontError
from wavefront.generators import grid, road_like
from wavefront.graph.container import Graph

gpu = pytest.mark.gpu

EDGES = BFSTuning(single_block_balance="edges")
PADDED = BFSTuning(single_block_balance="padded")
MODES = {"edges": EDGES, "padded": PADDED}


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


def test_auto_takes_padded_rows_on_low_degree_graphs_and_edges_elsewhere():
    assert BFSTuning().single_block_balance == "auto"
    auto = BFSTuning()
    grid_degree = max_degree(grid(16, 16))
    kron_degree = max_degree(wf.kronecker(10, seed=5, weighted=False))
    assert grid_degree == 4 and kron_degree > 8
    assert auto.single_block_kernel(grid_degree) == "padded"
    assert auto.single_block_kernel(0) == "padded"  # no arcs: rows of one slot
    assert auto.single_block_kernel(8) == "padded"
    assert auto.single_block_kernel(9) == "edges"
    assert auto.single_block_kernel(kron_degree) == "edges"
    assert auto.with_options(single_block_auto_max_degree=3).single_block_kernel(grid_degree) == "edges"
    assert auto.with_options(single_block_auto_max_degree=0).single_block_kernel(1) == "edges"
    assert auto.with_options(single_block_auto_max_degree=100).single_block_kernel(33) == "edges"  # rows <= 32
    assert EDGES.single_block_kernel(grid_degree) == "edges"
    assert PADDED.single_block_kernel(grid_degree) == "padded"


def test_bad_balance_settings_fail_at_once():
    with pytest.raises(ValueError, match="single_block_balance"):
        BFSTuning(single_block_balance="vertices")  # the thread-a-vertex kernel lost and is gone
    assert BFSTuning().defines("bfs_single_block.cu") == {}  # nothing compiled in
    with pytest.raises(ValueError, match="single_block_auto_max_degree"):
        BFSTuning(single_block_auto_max_degree=-1)


def test_forced_padded_rows_refuse_a_degree_above_32():
    assert PADDED.single_block_kernel(0) == "padded"
    assert PADDED.single_block_kernel(MAX_PADDED_DEGREE) == "padded"
    with pytest.raises(SingleBlockBalanceError, match="out-degree 33") as info:
        PADDED.single_block_kernel(MAX_PADDED_DEGREE + 1)
    assert isinstance(info.value, WavefrontError) and isinstance(info.value, ValueError)


def test_padded_rows_are_as_wide_as_the_largest_degree_and_lanes_cover_the_common_one():
    from wavefront.backends.cuda.device_graph import padded_shape_of

    def shape(counts):
        width_log2, lanes_log2 = padded_shape_of(counts)
        return 1 << width_log2, 1 << lanes_log2

    assert shape([0]) == (1, 1)  # no vertex, or no arcs
    assert shape([5]) == (1, 1)
    assert shape([0, 0, 0, 0, 100]) == (4, 4)  # a grid
    # amsterdam's out-degrees: 99.75 % at most 4, seven at most
    assert shape([0, 3504, 48522, 12089, 3926, 131, 37, 4]) == (8, 4)
    assert shape([0, 98, 0, 0, 0, 2]) == (8, 8)  # 2 % of degree 5: more than the 1 % L may leave out
    assert shape([0, 99, 0, 0, 0, 1]) == (8, 2)  # 1 %: L = 1 would do, but K = W / L <= 4 slots a lane
    assert shape([0, 990] + [0] * 30 + [10]) == (32, 8)


def test_the_slots_a_lane_holds_are_an_abi_constant():
    """K = W / L is bounded by abi.PADDED_MAX_SLOTS, which both kernels are
    compiled with (tests/test_abi.py checks their standalone defaults), and
    the widest row is 8 lanes of it; no histogram gives a lane more."""
    from wavefront.backends.cuda import abi
    from wavefront.backends.cuda.device_graph import padded_shape_of

    assert abi.defines("bfs_single_block.cu")["SB_PAD_MAX_SLOTS"] == abi.PADDED_MAX_SLOTS
    assert abi.defines("bfs_grid_levels.cu")["GL_MAX_SLOTS"] == abi.PADDED_MAX_SLOTS
    assert MAX_PADDED_DEGREE == abi.PADDED_MAX_WIDTH == 8 * abi.PADDED_MAX_SLOTS
    for largest in range(MAX_PADDED_DEGREE + 1):
        width_log2, lanes_log2 = padded_shape_of([0, 1000] + [0] * (largest - 1) + [1] if largest > 1 else [1000])
        assert 1 << (width_log2 - lanes_log2) <= abi.PADDED_MAX_SLOTS


# -- both kernels on the GPU ------------------------------------------------------------------


def trace_rows(result):
    """What both modes must agree on: every level's step, direction, frontier,
    edges and reason (a "[single block]" reason: the level ran in the block)."""
    return [(r.step, r.kind, r.frontier, r.edges, r.reason) for r in result.trace]


def every_mode(graph, source, method="single-block", modes=("edges", "padded"), **options):
    """The results of every mode in ``modes`` (each checked against SciPy),
    whose traces must be identical; returns the last."""
    gd = graph if graph.device == "cuda" else graph.to("cuda")
    host = graph if graph.device != "cuda" else graph.to("cpu")
    results = {}
    for name in modes:
        result = wf.bfs(gd, source, method=method, tuning=MODES[name].with_options(**options))
        check_result(host, result, source)
        results[name] = result
    first = trace_rows(results[modes[0]])
    for name in modes[1:]:
        assert trace_rows(results[name]) == first, name
    return results[modes[-1]]


def in_block(result):
    return ["single block" in r.reason for r in result.trace]


@gpu
@pytest.mark.parametrize("method", ["single-block", "hybrid"])
@pytest.mark.parametrize("shape", [(1, 1), (1, 300), (2, 50), (17, 33), (64, 64), (300, 7)])
def test_grids_match_scipy_in_every_mode(method, shape):
    g = grid(*shape)
    for source in sorted({0, g.n // 2, g.n - 1}):
        result = every_mode(g, source, method)
        if g.n > 1:
            assert all(in_block(result))  # no grid level needs the host


@gpu
@pytest.mark.parametrize("directed", [False, True])
def test_paths_match_scipy_in_every_mode(directed):
    g = path(2000, directed)
    for source in (0, 999, 1999):
        result = every_mode(g, source)
        assert result.depth == (1999 - source if directed else max(source, 1999 - source))


@gpu
def test_road_like_graph_matches_scipy_and_passes_the_validator():
    from wavefront.validate import validate_bfs

    g = road_like(20_000, seed=3)
    assert max_degree(g) <= 8
    src = np.repeat(np.arange(g.n, dtype=np.int64), np.diff(g.indptr))
    for source in (0, 7777, g.n - 1):
        result = every_mode(g, source, method="hybrid")
        host = SimpleNamespace(source=source, parents=result.parents.get(), levels=result.levels.get())
        validate_bfs((src, g.indices), host, n=g.n)
        assert result.depth > 20 and all(in_block(result))


@gpu
@pytest.mark.parametrize("wide", [False, True])
def test_padded_rows_hold_each_row_with_its_degrees_then_minus_one(wide):
    from wavefront.backends.cuda.abi import padded_degree_shift
    from wavefront.backends.cuda.device_graph import padded_rows, padded_shape

    g = road_like(3000, seed=2)
    if wide:
        g = Graph(g.indptr, g.indices.astype(np.int64), n=g.n, directed=g.directed, check=False)
    gd = g.to("cuda")
    rows = padded_rows(gd).get().reshape(g.n, -1)
    width_log2, lanes_log2 = padded_shape(gd)
    assert rows.shape[1] == 1 << width_log2 == 1 << (max_degree(g) - 1).bit_length()
    lanes, slots = 1 << lanes_log2, 1 << (width_log2 - lanes_log2)
    shift = padded_degree_shift(wide)
    degrees = np.diff(g.indptr)
    for v in range(g.n):
        row = g.indices[g.indptr[v]:g.indptr[v + 1]]
        # lane l's slots hold neighbours l, l + L, ...: transposed, the row in order (each id with its
        # out-degree above it), then -1
        by_neighbour = rows[v].reshape(lanes, slots).T.ravel()
        entries = by_neighbour[:row.size].astype(np.int64)
        assert np.array_equal(entries & ((1 << shift) - 1), row) and np.array_equal(entries >> shift, degrees[row])
        assert (by_neighbour[row.size:] == -1).all()
    assert padded_rows(gd) is padded_rows(gd)  # built once per graph


def test_padded_rows_take_ids_that_leave_room_for_the_degree():
    """32-bit ids below 2**25, 64-bit ones below 2**56, rows of at most 32
    slots: other graphs run the kernels that read the CSR."""
    from wavefront.backends.cuda.abi import padded_degree_shift
    from wavefront.backends.cuda.device_graph import padded_rows_take

    assert padded_degree_shift(False) == 25 and padded_degree_shift(True) == 56
    assert (32 << 25) < 2**31  # the widest degree stays clear of the sign bit
    small = SimpleNamespace(n=1 << 25, indices=np.zeros(1, dtype=np.int32), derived={"cuda.max_out_degree": 32})
    assert padded_rows_take(small)
    assert not padded_rows_take(SimpleNamespace(n=(1 << 25) + 1, indices=small.indices, derived=small.derived))
    assert padded_rows_take(SimpleNamespace(n=(1 << 25) + 1, indices=np.zeros(1, dtype=np.int64),
                                            derived=small.derived))
    assert not padded_rows_take(SimpleNamespace(n=100, indices=small.indices, derived={"cuda.max_out_degree": 33}))


def _kernel_parameters(filename, name):
    """The parameter names of ``extern "C" __global__ void name(...)`` in kernels/<filename>."""
    import re

    from wavefront.backends.cuda.compile import KERNEL_DIR

    source = (KERNEL_DIR / filename).read_text()
    match = re.search(r"\b" + name + r"\(([^)]*)\)\s*\{", source)
    return [re.findall(r"(\w+)\s*$", p.strip())[0] for p in match.group(1).split(",")]


@pytest.mark.parametrize("balance", ["edges", "padded"])
def test_single_block_launches_pass_each_kernel_parameter_in_its_place(balance):
    """The launcher's argument tuples follow the kernels' parameter lists
    (kernels/bfs_single_block.cu, bfs_convert.cu: logged_visits), checked by
    name against the source with recording stand-ins for the kernels."""
    from wavefront.backends.cuda.bfs_single_block import SingleBlockPlan, single_block

    launches = []

    def recorder(name):
        return lambda grid, block, args, shared_mem=0: launches.append((name, args, shared_mem))

    buffers = {k: object() for k in ("queue_in", "queue_out", "visited", "counters", "level_stats", "indptr",
                                     "rows", "log", "record", "levels", "parents")}
    ws = SimpleNamespace(**{k: buffers[k] for k in ("queue_in", "queue_out", "visited", "counters", "level_stats")})
    padded = balance == "padded"
    kernel = "single_block_levels_padded" if padded else "single_block_levels"
    plan = SingleBlockPlan(kernel=recorder(kernel), shared_words=40, rows=(np.int64(40), buffers["indptr"],
                           buffers["rows"]), last=(np.int32(7), np.int32(3), np.int32(2)) if padded else (),
                           log=(buffers["log"], buffers["record"]) if padded else None,
                           visits=recorder("logged_visits") if padded else None, visits_blocks=264 if padded else 0)
    tuning = BFSTuning(single_block_balance=balance)
    graph = SimpleNamespace(derived={("cuda.bfs.single_block_plan", tuning): plan})
    single_block(graph, ws, tuning, count=5, level=3, max_level=90, levels=buffers["levels"],
                 parents=buffers["parents"], edge_limit=3072, frontier_edges=11)
    expected = {"frontier": buffers["queue_in"], "count": 5, "first_level": 3, "max_level": 90, "edge_limit": 3072,
                "shared_words": 40, "indptr": buffers["indptr"], "indices": buffers["rows"],
                "padded": buffers["rows"], "log": buffers["log"], "record": buffers["record"],
                "levels": buffers["levels"], "parents": buffers["parents"], "visited": buffers["visited"],
                "next": buffers["queue_out"], "counters": buffers["counters"], "level_stats": buffers["level_stats"],
                "max_degree": 7, "width_log2": 3, "lanes_log2": 2, "frontier_edges": 11}
    names = [name for name, _, _ in launches]
    assert names == ([kernel, "logged_visits"] if padded else [kernel])
    for name, args, _ in launches:
        file = "bfs_convert.cu" if name == "logged_visits" else "bfs_single_block.cu"
        params = _kernel_parameters(file, name)
        assert len(args) == len(params), name
        for param, arg in zip(params, args):
            want = expected[param]
            assert arg is want if not isinstance(want, int) else arg == want, (name, param)
    assert launches[0][2] == 4 * 40  # the visited bitmap's words in shared memory


def test_padded_asked_for_on_ids_too_wide_for_the_degrees_is_refused():
    """``single_block_balance="padded"`` on a graph whose 32-bit ids reach
    2**25 raises SingleBlockBalanceError naming the way out; ``auto`` takes
    the edge kernel there (nothing is built: the rule is decided first)."""
    from wavefront.backends.cuda.bfs_single_block import single_block_balance

    big = SimpleNamespace(n=(1 << 25) + 1, indices=np.zeros(1, dtype=np.int32), derived={"cuda.max_out_degree": 4})
    with pytest.raises(SingleBlockBalanceError, match="2\\*\\*25.*'auto' or 'edges'"):
        single_block_balance(big, PADDED)
    assert single_block_balance(big, BFSTuning()) == "edges"
    assert single_block_balance(big, EDGES) == "edges"
    assert PADDED.single_block_kernel(4, ids_fit=True) == "padded"
    assert BFSTuning().single_block_kernel(4, ids_fit=False) == "edges"


@gpu
@pytest.mark.parametrize("degree", [1, 2, 12, 16, 20, 32])
@pytest.mark.parametrize("skewed", [False, True])
def test_padded_rows_of_every_shape(degree, skewed):
    """Rows of 1 to 32 slots against the edge mode: out-degrees uniform in
    [0, degree] (L lanes a vertex cover the row), or 1-2 with 0.5 % of the
    vertices at ``degree`` (K = W / L slots a lane, the rounds past the first
    only in warps that hold such a vertex)."""
    from wavefront.backends.cuda.device_graph import padded_shape

    rng = np.random.default_rng(degree)
    n = 3000
    if skewed:
        count = rng.integers(1, min(degree, 2) + 1, n)
        count[rng.random(n) < 0.005] = degree
    else:
        count = rng.integers(0, degree + 1, n)
    count[0] = degree
    src = np.repeat(np.arange(n), count)
    g = Graph.from_edges(src, rng.integers(0, n, src.size), n=n, directed=True)
    assert max_degree(g) <= degree
    gd = g.to("cuda")
    width_log2, lanes_log2 = padded_shape(gd)
    if skewed and degree >= 12:
        assert width_log2 - lanes_log2 == 2  # four slots a lane
    for source in (0, 1, n // 2):
        every_mode(gd, source)
        every_mode(gd, source, method="hybrid")


@gpu
def test_auto_picks_padded_rows_on_a_grid_and_edges_on_kronecker():
    """``auto`` (the default) by the cached maximum out-degree."""
    from wavefront.backends.cuda.bfs_single_block import single_block_balance

    gd = grid(32, 32).to("cuda")
    kd = wf.kronecker(12, seed=5, weighted=False).to("cuda")
    auto = BFSTuning(single_block_balance="auto")
    assert single_block_balance(gd, auto) == "padded"
    assert gd.derived["cuda.max_out_degree"] == 4  # cached once per graph
    assert single_block_balance(kd, auto) == "edges"
    assert kd.derived["cuda.max_out_degree"] == max_degree(kd.to("cpu"))
    assert single_block_balance(kd, EDGES) == "edges"
    with pytest.raises(SingleBlockBalanceError):
        wf.bfs(kd, 0, method="single-block", tuning=PADDED)


@gpu
@pytest.mark.parametrize("directed", [True, False])
def test_block_queue_overflow_into_the_global_queue(directed):
    """Level sizes 1, 4, ..., 1024, then 3072 (the queue's capacity exactly:
    it stays, three items per thread), 3072, then 6144: more than the block
    queue holds, so the winners past 3072 go straight to the global queue and
    the block returns; the next level (too big) runs grid-wide."""
    g = layered_tree([4, 4, 4, 4, 4, 3, 1, 2, 1, 1], directed)
    assert max_degree(g) <= 5
    result = every_mode(g, 0)
    sizes = [r.frontier for r in result.trace]
    assert sizes[:9] == [1, 4, 16, 64, 256, 1024, 3072, 3072, 6144]
    blocked = in_block(result)
    assert all(blocked[:8]) and not blocked[8]  # the 6144-vertex level came back to the host
    every_mode(g, 0, method="hybrid")


@gpu
def test_edge_limit_hands_levels_back_exactly_as_the_edge_mode_does():
    """A 2 x 50 grid from a corner has frontiers of two vertices with up to
    6 out-edges: 2 * max degree = 8 exceeds a limit of 7, so the padded kernel
    counts the level's edges exactly (its extra barrier) and keeps it; a limit
    of 5 sends the same levels back to the host in both modes."""
    g = grid(2, 50)
    kept = every_mode(g, 0, single_block_edges=7)
    assert all(in_block(kept))
    handed = every_mode(g, 0, single_block_edges=5)
    assert not all(in_block(handed)) and any(in_block(handed))
    for limit in (0, 1, 3, 12, 40):
        every_mode(grid(24, 24), 5, single_block_edges=limit)
        every_mode(grid(24, 24), 5, method="hybrid", single_block_edges=limit)


@gpu
def test_levels_of_one_to_many_passes():
    """The padded kernel runs a level of one to three passes of the block
    through an instance holding just those passes, and wider ones through
    the SB_PAD_CHUNK-pass instance: frontiers of 1 to 24 passes (the first
    tree: L = 8 lanes a vertex, 128 vertices a pass, levels of 256, 1024 and
    3072; the second: 256 a pass, levels of 729 (three passes) and 1458), with the edge
    count taken first (low edge limits) and on a road-like graph, all as the
    edge kernel runs them."""
    every_mode(layered_tree([4, 4, 4, 4, 4, 3, 1, 2, 1, 1], directed=False), 0)
    every_mode(layered_tree([3, 3, 3, 3, 3, 3, 2, 1, 1]), 0, method="hybrid")
    for limit in (5, 7, 40, 300):
        every_mode(grid(24, 24), 5, single_block_edges=limit)
    g = road_like(20_000, seed=5)
    for source in (0, g.n // 2):
        assert all(in_block(every_mode(g, source, method="hybrid")))


@gpu
def test_the_visited_bitmap_in_global_memory_gives_the_shared_bitmaps_levels():
    """``shared_visited_bytes`` caps the bitmap the block keeps in shared
    memory: 0 sends every claim to the global bitmap, None (the default)
    takes what the GPU allows the kernel. Both must run the same levels with
    the same trace rows, in both kernels. The graphs alternate the caps on
    one kernel object: a plan made under the default must still launch after
    one made under 0 (the cap once set the kernel's own limit)."""
    from wavefront.backends.cuda import bfs_single_block, bfs_steps
    from wavefront.backends.cuda.device import dynamic_shared_limit

    for g, source in ((road_like(20_000, seed=9), 17), (grid(40, 60), 0), (path(3000), 1500)):
        gd = g.to("cuda")
        shared = {name: every_mode(g, source, "hybrid", modes=(name,)) for name in MODES}
        for name, tuning in MODES.items():
            global_only = every_mode(g, source, "hybrid", modes=(name,), shared_visited_bytes=0)
            assert trace_rows(global_only) == trace_rows(shared[name]), name
            ws = bfs_steps.workspace(gd)
            assert bfs_single_block._plan(gd, ws, tuning.with_options(shared_visited_bytes=0)).shared_words == 0
            plan = bfs_single_block._plan(gd, ws, tuning)
            assert plan.shared_words == ws.words  # a small bitmap always fits
            assert 4 * ws.words <= dynamic_shared_limit(plan.kernel)


@gpu
def test_the_padded_block_logs_each_find_once_with_its_level_and_parent():
    """The padded kernel writes no result itself: it logs each vertex it finds
    (common.cuh's discovery log) and logged_visits writes them after it. One
    launch's log holds every vertex the search reached but the root, once,
    with its level offset from the launch's first level and a parent one
    level up; the counter says how many."""
    from wavefront.backends.cuda.abi import CNT_LOGGED, LOG_LEVEL_BITS
    from wavefront.backends.cuda.device_graph import discovery_log

    g = road_like(5_000, seed=3)
    gd = g.to("cuda")
    result = wf.bfs(gd, 7, method="single-block", tuning=PADDED)
    check_result(g, result, 7)
    assert all(in_block(result))  # one launch from level 1
    levels = result.levels.get()
    logged = int(gd.derived["cuda.bfs"].host_counters[CNT_LOGGED])
    assert logged == int((levels > 0).sum()) > 1000
    log, record = (a.get()[:logged] for a in discovery_log(gd))
    assert np.array_equal(np.sort(log), np.flatnonzero(levels > 0))
    np.testing.assert_array_equal(levels[log], 1 + (record & ((1 << LOG_LEVEL_BITS) - 1)).astype(np.int64))
    parents = (record >> np.uint64(LOG_LEVEL_BITS)).astype(np.int64)
    np.testing.assert_array_equal(levels[parents], levels[log] - 1)
    np.testing.assert_array_equal(result.parents.get()[log], parents)


@gpu
def test_int64_vertex_ids():
    """The 64-bit instantiation (two items per thread, a 2048-vertex queue;
    padded rows of 64-bit ids)."""
    for g in (grid(40, 40), layered_tree([4, 4, 4, 4, 4, 2, 1, 2], directed=True)):
        wide = Graph(g.indptr, g.indices.astype(np.int64), n=g.n, directed=g.directed,
                     in_indptr=g.in_indptr if g.directed else None,
                     in_indices=g.in_indices.astype(np.int64) if g.directed else None, check=False).to("cuda")
        assert wide.indices.dtype == np.int64
        for source in (0, g.n // 3):
            edges = wf.bfs(wide, source, method="single-block", tuning=EDGES)
            padded = wf.bfs(wide, source, method="single-block", tuning=PADDED)
            check_result(g, padded, source)
            assert trace_rows(padded) == trace_rows(edges)


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
    every_mode(g, source, method)


@gpu
def test_padded_rows_that_do_not_fit_fall_back_to_the_csr_kernels(monkeypatch):
    """auto takes the edge-balanced block and the per-level loop where the
    padded rows would not fit; a forced "padded" raises GPUMemoryError."""
    from wavefront.backends.cuda import device_graph
    from wavefront.backends.cuda.bfs_single_block import single_block_balance
    from wavefront.errors import GPUMemoryError

    real = device_graph.check_fits

    def no_room_for_rows(what, needed_bytes):
        text = what() if callable(what) else what
        if "padded rows" in text:
            raise GPUMemoryError(text, needed_bytes, 0)
        real(what, needed_bytes)

    monkeypatch.setattr(device_graph, "check_fits", no_room_for_rows)
    g = grid(300, 40)
    gd = g.to("cuda")
    assert single_block_balance(gd, BFSTuning()) == "edges"
    result = wf.bfs(gd, 7, method="hybrid")
    check_result(g, result, 7)
    assert not any("[grid levels]" in r.reason for r in result.trace)
    with pytest.raises(GPUMemoryError, match="padded rows"):
        wf.bfs(gd, 7, method="single-block", tuning=PADDED)
    monkeypatch.undo()
    assert single_block_balance(gd, BFSTuning()) == "padded"  # built once there is room
    assert any("[grid levels]" in r.reason for r in wf.bfs(gd, 7, method="hybrid", tuning=BFSTuning(
        single_block=False)).trace)
