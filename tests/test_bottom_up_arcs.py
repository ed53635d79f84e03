"""benchmarks/bottom_up_arcs.py (a bottom-up level's early exits) and road_depth.py (a tree's hops), by hand."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np

from wavefront.graph.build import from_edges

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("bottom_up_arcs", ROOT / "benchmarks" / "bottom_up_arcs.py")
bua = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bua)


def test_examined_stops_at_the_first_neighbour_on_the_level_before():
    # 0-1, 0-2, 1-3, 2-3, 3-4; from 0 the levels are 0, 1, 1, 2, 3
    graph = from_edges(np.array([0, 0, 1, 2, 3]), np.array([1, 2, 3, 3, 4]), n=5)
    indptr, indices = np.asarray(graph.indptr), np.asarray(graph.indices)
    level = np.array([0, 1, 1, 2, 3])
    degree = np.diff(indptr)
    unvisited = np.array([3, 4])  # at level 2
    # vertex 3 probes 1 first (degree 2 before 4's 1) and stops: 1 arc; vertex 4's only neighbour is on level 2: 1
    assert bua.examined(indptr, indices, unvisited, lambda arcs: -degree[arcs], level, 2) == 2
    # 4 probed first: 3 takes 2 arcs
    assert bua.examined(indptr, indices, unvisited, lambda arcs: -(arcs == 4).astype(int), level, 2) == 3
    # at level 3 only vertex 4 is unvisited, and its neighbour 3 is on level 2: 1 arc
    assert bua.examined(indptr, indices, np.array([4]), lambda arcs: np.zeros(arcs.size), level, 3) == 1
    # a vertex with no neighbour on the level before probes its whole row
    assert bua.examined(indptr, indices, np.array([3]), lambda arcs: np.zeros(arcs.size), level, 4) == 3


def test_the_block_order_is_the_global_order_on_a_small_kronecker_graph():
    rows = bua.probe_orders(12, 2, seed=3)
    assert len(rows) == 2
    for _, _, by_global, by_block, unordered in rows:
        assert by_global > 0 and abs(by_block / by_global - 1) < 0.05 and unordered >= by_global * 0.98


def test_road_depth_counts_hops_and_region_crossings_of_a_shortest_path_tree():
    import pytest

    spec = importlib.util.spec_from_file_location("road_depth", ROOT / "benchmarks" / "road_depth.py")
    road_depth = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(road_depth)
    # root 0; 1 and 2 hang off 0; 3 off 2 across a zero-weight arc (same distance as 2), 4 off 3; 5 unreached
    parents = np.array([0, 0, 0, 2, 3, -1])
    distances = np.array([0.0, 1.0, 2.0, 2.0, 5.0, np.inf])
    assert road_depth.tree_paths(parents, distances) == (3, 0)
    # regions {0, 1, 2}, {3}, {4, 5}: the path 0-2-3-4 crosses twice
    assert road_depth.tree_paths(parents, distances, np.array([0, 0, 0, 1, 2, 2])) == (3, 2)
    # 1 listed before its parent 2 at the same distance still gets its depth
    assert road_depth.tree_paths(np.array([0, 2, 0]), np.array([0.0, 1.0, 1.0])) == (2, 0)
    with pytest.raises(ValueError, match="cycle"):
        road_depth.tree_paths(np.array([0, 2, 1]), np.array([0.0, 1.0, 1.0]))


def test_coordinate_regions_cut_at_medians_down_to_the_size():
    spec = importlib.util.spec_from_file_location("road_depth", ROOT / "benchmarks" / "road_depth.py")
    road_depth = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(road_depth)
    xy = np.array([[x, y] for x in range(4) for y in range(4)], dtype=float)  # a 4 x 4 grid of points
    region = road_depth.coordinate_regions(xy, 4)
    assert sorted(np.bincount(region).tolist()) == [4, 4, 4, 4]
    for r in range(4):  # each region is a 2 x 2 quadrant: cut at x = 2, then at y = 2
        points = xy[region == r]
        assert np.ptp(points[:, 0]) == 1 and np.ptp(points[:, 1]) == 1
    assert (road_depth.coordinate_regions(xy, 16) == 0).all()


def test_the_region_synchronous_search_finds_dijkstra_s_distances():
    import wavefront

    spec = importlib.util.spec_from_file_location("road_depth", ROOT / "benchmarks" / "road_depth.py")
    road_depth = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(road_depth)
    rng = np.random.default_rng(4)
    side = 12  # a 12 x 12 grid graph, integer weights
    ids = np.arange(side * side).reshape(side, side)
    src = np.concatenate([ids[:, :-1].ravel(), ids[:-1, :].ravel()])
    dst = np.concatenate([ids[:, 1:].ravel(), ids[1:, :].ravel()])
    graph = from_edges(src, dst, rng.integers(1, 20, src.size).astype(np.float64), n=side * side)
    indptr, indices = np.asarray(graph.indptr), np.asarray(graph.indices)
    weights = np.asarray(graph.weights, dtype=np.float64)
    xy = np.array([[i // side, i % side] for i in range(side * side)], dtype=float)
    expected = np.asarray(wavefront.sssp(graph, 5, method="dijkstra").distances, dtype=np.float64)
    parents = np.asarray(wavefront.sssp(graph, 5, method="dijkstra").parents)
    for size in (9, 36, side * side):
        region = road_depth.coordinate_regions(xy, size)
        dist, rounds, iterations, relaxed = road_depth.region_rounds(indptr, indices, weights, region, 5)
        assert np.array_equal(dist, expected)
        crossings = road_depth.tree_paths(parents, expected, region)[1]
        assert rounds >= crossings + 1 and iterations >= rounds and relaxed >= graph.m / 2
    assert road_depth.region_rounds(indptr, indices, weights, np.zeros(side * side, dtype=np.int64), 5)[1] == 1
