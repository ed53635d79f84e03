"""The region split behind the CUDA region SSSP (wavefront.graph.regions), on the CPU."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wavefront.graph.build import from_edges
from wavefront.graph.regions import region_layout, region_order


def grid(k: int):
    ids = np.arange(k * k).reshape(k, k)
    src = np.concatenate([ids[:, :-1].ravel(), ids[:-1].ravel()])
    dst = np.concatenate([ids[:, 1:].ravel(), ids[1:].ravel()])
    return from_edges(src, dst, n=k * k, directed=False)


def check_layout(g, layout, parts):
    n = g.n
    assert sorted(layout.order.tolist()) == list(range(n))  # every vertex once
    assert np.array_equal(layout.rank[layout.order], np.arange(n))
    sizes = np.diff(layout.starts)
    assert layout.regions == min(parts, n) and sizes.max() - sizes.min() <= 1
    assert np.array_equal(layout.region_of, np.repeat(np.arange(layout.regions), sizes))
    # The renumbered graph is the old one: arc j of new vertex i is old arc arc_order[j].
    for i in range(n):
        old = layout.order[i]
        lo, hi = g.indptr[old], g.indptr[old + 1]
        new = slice(layout.indptr[i], layout.indptr[i + 1])
        assert np.array_equal(layout.arc_order[new], np.arange(lo, hi))
        assert np.array_equal(layout.order[layout.indices[new]], g.indices[lo:hi])
    # Boundary: exactly the vertices with an in-arc from another region, grouped by region.
    tails = np.repeat(np.arange(n), np.diff(layout.indptr))
    heads = layout.indices.astype(np.int64)
    crossing = layout.region_of[tails] != layout.region_of[heads]
    assert np.array_equal(layout.boundary, np.unique(heads[crossing]))
    assert layout.cut_arcs() == int(crossing.sum())
    for r in range(layout.regions):
        mine = layout.boundary[layout.boundary_start[r]:layout.boundary_start[r + 1]]
        assert np.all(layout.region_of[mine] == r)


@pytest.mark.parametrize("parts", [1, 2, 3, 7, 16, 64])
def test_grid_layout(parts):
    g = grid(40)
    check_layout(g, region_layout(g.indptr, g.indices, g.n, parts), parts)


@pytest.mark.parametrize("parts", [16, 64])
def test_grid_regions_are_compact(parts):
    """Square pieces of a k x k grid cut 4 k (sqrt(p) - 1) arcs, slabs 2 k (p - 1)
    (1 200 and 5 040 arcs for k = 40, p = 16 and 64). Level-structure cuts run
    diagonally: within 2x of the squares (measured 890 and 1 834)."""
    g = grid(40)
    layout = region_layout(g.indptr, g.indices, g.n, parts)
    assert layout.cut_arcs() <= 2 * 4 * 40 * (np.sqrt(parts) - 1)


def test_disconnected_and_isolated_vertices():
    src = np.array([0, 1, 2, 10, 11, 12, 20])
    dst = np.array([1, 2, 3, 11, 12, 13, 21])
    g = from_edges(src, dst, n=30, directed=True)
    for parts in (1, 4, 30, 100):
        check_layout(g, region_layout(g.indptr, g.indices, g.n, parts), parts)


def test_bad_and_empty_inputs():
    with pytest.raises(ValueError, match="parts"):
        region_order(np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.int32), 0, 0)
    order, starts = region_order(np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.int32), 0, 4)
    assert order.size == 0 and starts.tolist() == [0]


@settings(max_examples=30, deadline=None)
@given(n=st.integers(1, 50), edges=st.lists(st.tuples(st.integers(0, 49), st.integers(0, 49)), max_size=150),
       parts=st.integers(1, 12), directed=st.booleans())
def test_random_graphs(n, edges, parts, directed):
    src = np.array([a % n for a, _ in edges], dtype=np.int64)
    dst = np.array([b % n for _, b in edges], dtype=np.int64)
    g = from_edges(src, dst, n=n, directed=directed)
    check_layout(g, region_layout(g.indptr, g.indices, g.n, parts), parts)
