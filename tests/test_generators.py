"""Generators: Graph500 Kronecker (spec statistics, counter-based slicing,
bijective scramble, numba == array API), grids, road-like maps, uniform."""
import importlib
import math
import subprocess
import sys

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.sparse import csgraph

import wavefront as wf
from wavefront.generators import grid, kronecker, kronecker_chunks, kronecker_edges, road_like, uniform_random

K = importlib.import_module("wavefront.generators.kronecker")
A, B, C, D = K.INITIATOR


def as_scipy(g):
    return sp.csr_matrix((np.ones(g.m), g.indices, g.indptr), shape=(g.n, g.n))


@pytest.fixture(scope="module")
def unscrambled16():
    """SCALE 16 tuples before the label permutation: 2**20 of them."""
    src, dst, _ = kronecker_edges(16, seed=7, scrambled=False)
    return src, dst


# -- Kronecker: determinism and counter-based slicing ---------------------------

def test_same_seed_same_tuples_other_seed_differs():
    first = kronecker_edges(10, seed=5)
    again = kronecker_edges(10, seed=5)
    other = kronecker_edges(10, seed=6)
    for a, b in zip(first, again):
        assert np.array_equal(a, b)
    assert not np.array_equal(first[0], other[0])
    assert not np.array_equal(first[2], other[2])


@pytest.mark.parametrize("scale,edgefactor", [(1, 1), (5, 3), (9, 16), (12, 16)])
def test_tuple_count_and_dtypes(scale, edgefactor):
    src, dst, w = kronecker_edges(scale, edgefactor)
    assert src.shape == dst.shape == w.shape == (edgefactor << scale,)
    assert src.dtype == dst.dtype == np.int64 and w.dtype == np.float32
    assert src.min() >= 0 and max(src.max(), dst.max()) < 2**scale


def test_chunks_equal_one_shot():
    whole = kronecker_edges(11, 4, seed=3)
    chunks = list(kronecker_chunks(11, 4, seed=3, chunk_edges=1000))
    assert len(chunks) == math.ceil((4 << 11) / 1000)
    for i, full in enumerate(whole):
        assert np.array_equal(np.concatenate([c[i] for c in chunks]), full)


FULL9 = kronecker_edges(9, 16, seed=11)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 16 << 9), st.integers(0, 16 << 9))
def test_any_slice_equals_slice_of_full_list(a, b):
    start, stop = min(a, b), max(a, b)
    part = kronecker_edges(9, 16, seed=11, start=start, stop=stop)
    for got, full in zip(part, FULL9):
        assert np.array_equal(got, full[start:stop])


@pytest.mark.parametrize("first,count,scrambled", [(0, 1 << 16, True), (12345, 70001, True), (999, 65536, False)])
def test_numba_path_is_bit_identical_to_array_api(first, count, scrambled):
    pytest.importorskip("numba")
    p = K.plan(13, 16, seed=21)
    out = {}
    for path in ("numba", "array"):
        arrays = (np.empty(count, np.int64), np.empty(count, np.int64), np.empty(count, np.float32))
        if path == "numba":
            K._fill_numba(p, first, *arrays, scrambled)
        else:
            K._fill_array_api(p, np, first, *arrays, scrambled)
        out[path] = arrays
    for a, b in zip(out["numba"], out["array"]):
        assert a.tobytes() == b.tobytes()


# -- Kronecker: the spec's statistics ------------------------------------------

def z_score(count, total, p):
    return (count - total * p) / math.sqrt(total * p * (1 - p))


def test_top_bits_follow_initiator(unscrambled16):
    src, dst = unscrambled16
    top = 1 << 15
    assert abs(z_score(int(np.count_nonzero(src & top)), src.size, C + D)) < 5
    assert abs(z_score(int(np.count_nonzero(dst & top)), dst.size, B + D)) < 5


def test_quadrant_frequencies_at_every_level(unscrambled16):
    src, dst = unscrambled16
    expected = src.size * np.array([A, B, C, D])
    for bit in range(16):
        quadrant = 2 * ((src >> bit) & 1) + ((dst >> bit) & 1)
        observed = np.bincount(quadrant, minlength=4)
        chi2 = float(((observed - expected) ** 2 / expected).sum())
        assert chi2 < 30, f"level bit {bit}: chi-square {chi2:.1f} (3 dof) for {observed}"


def touch_probability(scale):
    """P(one tuple joins v to another vertex), by popcount of v's unscrambled label."""
    ones = np.arange(scale + 1)
    as_src = (A + B) ** (scale - ones) * (C + D) ** ones
    as_dst = (A + C) ** (scale - ones) * (B + D) ** ones
    loop = A ** (scale - ones) * D**ones
    return as_src + as_dst - 2 * loop


def test_isolated_vertices_and_max_degree_match_expectation():
    scale = 16
    g = kronecker(scale, seed=2)
    tuples = 16 << scale
    q = touch_probability(scale)
    how_many = np.array([math.comb(scale, k) for k in range(scale + 1)], dtype=float)
    p_isolated = np.exp(tuples * np.log1p(-q))
    mean = float((how_many * p_isolated).sum())
    sd = math.sqrt(float((how_many * p_isolated * (1 - p_isolated)).sum()))
    isolated = int(np.count_nonzero(g.input_degree == 0))
    assert 0.25 < mean / g.n < 0.32
    assert abs(isolated - mean) < 6 * sd, (isolated, mean, sd)
    # The hub is the scrambled image of label 0 (all initiator choices "A").
    hub = int(K.scramble(np.zeros(1, np.uint64), K.plan(scale, 16, 2))[0])
    assert int(np.argmax(g.input_degree)) == hub
    expected_hub = tuples * q[0]
    assert abs(int(g.input_degree[hub]) - expected_hub) < 6 * math.sqrt(expected_hub)


def test_weights_are_float32_uniform_in_unit_interval():
    w = kronecker_edges(14, seed=4)[2]
    assert w.dtype == np.float32 and w.min() >= 0 and w.max() < 1
    assert abs(w.mean() - 0.5) < 5 * math.sqrt(1 / 12 / w.size)
    counts = np.bincount((w * 10).astype(int), minlength=10)
    expected = w.size / 10
    assert float(((counts - expected) ** 2 / expected).sum()) < 40  # 9 dof


@pytest.mark.parametrize("seed", [1, 2**64 - 1])
def test_scramble_is_a_bijection(seed):
    for scale in range(1, 21):
        p = K.plan(scale, 1, seed)
        image = K.scramble(np.arange(2**scale, dtype=np.uint64), p)
        assert np.array_equal(np.sort(image), np.arange(2**scale, dtype=np.uint64)), scale
        if scale >= 4:
            assert not np.array_equal(image, np.arange(2**scale, dtype=np.uint64))


def test_kronecker_graph():
    scale = 10
    src, dst, w = kronecker_edges(scale, seed=9)
    g = kronecker(scale, seed=9)
    assert g.n == 2**scale and not g.directed
    assert g.num_input_edges == int(np.count_nonzero(src != dst))
    assert g.weights.dtype == np.float32
    assert kronecker(scale, seed=9, weighted=False).weights is None
    relabelled = kronecker(scale, seed=9, relabel="degree")
    assert relabelled.m == g.m and relabelled.labels is not None


def test_top_level_lazy_export():
    g = wf.kronecker(10)
    assert g.n == 1024 and g.num_input_edges > 0.9 * 16 * 1024


@pytest.mark.parametrize(
    "kwargs",
    [dict(scale=0), dict(scale=41), dict(scale=2.0), dict(scale=True), dict(scale=5, edgefactor=0),
     dict(scale=5, seed=-1), dict(scale=5, seed=1.5), dict(scale=5, start=3, stop=2),
     dict(scale=5, stop=16 * 32 + 1), dict(scale=5, start=-1), dict(scale=5, xp="numpy")],
)
def test_bad_arguments_raise_value_error(kwargs):
    with pytest.raises(ValueError):
        kronecker_edges(**kwargs)


def test_bad_chunk_size():
    with pytest.raises(ValueError, match="chunk_edges"):
        next(kronecker_chunks(5, chunk_edges=0))


def test_importing_generators_loads_neither_numba_nor_cupy():
    code = (
        "import sys, wavefront, wavefront.generators; "
        "wavefront.kronecker_edges(4); wavefront.generators.grid(2, 2); "
        "assert 'numba' not in sys.modules and 'cupy' not in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.gpu
def test_cupy_tuples_equal_numpy_tuples():
    import cupy

    for start, stop in [(0, None), (777, 70_000)]:
        host = kronecker_edges(14, seed=3, start=start, stop=stop)
        device = kronecker_edges(14, seed=3, xp=cupy, start=start, stop=stop)
        for h, d in zip(host, device):
            assert h.tobytes() == cupy.asnumpy(d).tobytes()
    on_gpu, on_cpu = kronecker(12, device="cuda"), kronecker(12)
    assert on_gpu.device == "cuda"
    for name in ("indptr", "indices", "weights", "input_degree"):
        assert np.array_equal(cupy.asnumpy(getattr(on_gpu, name)), getattr(on_cpu, name)), name
    a, b = uniform_random(1000, 9000, weighted=True), uniform_random(1000, 9000, weighted=True, device="cuda")
    assert np.array_equal(cupy.asnumpy(b.indices), a.indices)
    assert np.array_equal(cupy.asnumpy(b.weights), a.weights)


# -- grid ---------------------------------------------------------------------

@pytest.mark.parametrize("rows,cols", [(1, 1), (1, 7), (5, 1), (6, 9)])
def test_grid_size_and_manhattan_levels(rows, cols):
    g = grid(rows, cols)
    assert g.n == rows * cols
    assert g.m == 2 * (rows * (cols - 1) + (rows - 1) * cols)
    source = (rows // 2) * cols + cols // 3
    hops = csgraph.shortest_path(as_scipy(g), indices=source, unweighted=True)
    r, c = np.divmod(np.arange(g.n), cols)
    assert np.array_equal(hops, np.abs(r - source // cols) + np.abs(c - source % cols))


def test_grid_weights():
    uniform = grid(8, 8, weights="uniform", seed=3)
    assert uniform.weights.dtype == np.float32
    assert uniform.weights.min() >= 0 and uniform.weights.max() < 1
    integer = grid(8, 8, weights="integer", max_weight=5, seed=3)
    assert integer.weights.dtype == np.int64
    assert set(np.unique(integer.weights)) == {1, 2, 3, 4, 5}
    dense = as_scipy(integer).toarray()
    dense[as_scipy(integer).nonzero()] = integer.weights
    assert np.array_equal(dense, dense.T)  # undirected: one weight per edge
    assert np.array_equal(grid(8, 8, weights="integer", seed=3).weights,
                          grid(8, 8, weights="integer", seed=3).weights)


def test_directed_grid_has_both_arcs_with_own_weights():
    g = grid(4, 5, weights="integer", max_weight=10**6, directed=True)
    assert g.directed and g.m == 2 * (4 * 4 + 3 * 5)
    dense = np.zeros((g.n, g.n), dtype=np.int64)
    rows = np.repeat(np.arange(g.n), np.diff(g.indptr))
    dense[rows, g.indices] = g.weights
    assert np.array_equal(dense > 0, (dense > 0).T)
    assert not np.array_equal(dense, dense.T)


def test_grid_bad_arguments():
    for kwargs in (dict(rows=0, cols=3), dict(rows=2, cols=2, weights="gaussian"), dict(rows=2.5, cols=2)):
        with pytest.raises(ValueError):
            grid(**kwargs)


# -- road_like ----------------------------------------------------------------

@pytest.fixture(scope="module")
def road():
    return road_like(100_000, seed=1, return_coordinates=True)


def test_road_degree_and_planar_lattice_edges(road):
    g, xy = road
    assert g.n == 100_000 and xy.shape == (g.n, 2)
    assert 2.5 <= g.m / g.n <= 3.5
    assert abs(g.m / g.n - 3.2) < 0.05
    rows = np.repeat(np.arange(g.n), np.diff(g.indptr))
    step = np.abs(g.indices - rows)
    cols = math.ceil(g.n / (math.isqrt(g.n - 1) + 1))
    assert set(np.unique(step)) == {1, cols}  # lattice neighbours only: planar
    # Each vertex stays within its jitter box, so the drawing has no crossings.
    r, c = np.divmod(np.arange(g.n), cols)
    assert np.abs(xy[:, 0] - c).max() < 0.5 and np.abs(xy[:, 1] - r).max() < 0.5


def test_road_weights_are_heavy_tailed_integers_like_kanto(road):
    w = road[0].weights
    assert w.dtype == np.int64 and w.min() >= 1
    assert abs(w.mean() / 83_666 - 1) < 0.05
    assert abs(w.std() / 184_384 - 1) < 0.15
    assert np.median(w) < 0.5 * w.mean()  # right-skewed


def test_road_connected_with_high_hop_depth(road):
    g = road[0]
    count, _ = csgraph.connected_components(as_scipy(g), directed=False)
    assert count == 1
    hops = csgraph.shortest_path(as_scipy(g), indices=0, unweighted=True)
    assert hops.max() > math.sqrt(g.n)  # >> log n: a map, not a small world


def test_road_deterministic_and_arguments():
    a, b = road_like(500, seed=4), road_like(500, seed=4)
    assert np.array_equal(a.indices, b.indices) and np.array_equal(a.weights, b.weights)
    assert not np.array_equal(a.weights, road_like(500, seed=5).weights)
    assert road_like(2).m == 2
    for kwargs in (dict(n=1), dict(n=100, mean_degree=4.5), dict(n=100, mean_degree=1.0),
                   dict(n=100, jitter=0.5), dict(n=100, std_weight=0)):
        with pytest.raises(ValueError):
            road_like(**kwargs)


# -- uniform_random -----------------------------------------------------------

def test_uniform_random():
    n, m = 2000, 30_000
    g = uniform_random(n, m, seed=8, weighted=True)
    again = uniform_random(n, m, seed=8, weighted=True)
    assert g.n == n and np.array_equal(g.indices, again.indices)
    assert np.array_equal(g.weights, again.weights)
    assert not np.array_equal(g.indices, uniform_random(n, m, seed=9).indices)
    loops_expected = m / n
    assert abs(g.num_input_edges - (m - loops_expected)) < 6 * math.sqrt(loops_expected)
    degree = g.input_degree
    assert abs(degree.mean() - 2 * g.num_input_edges / n) < 1e-9
    assert 0.5 * 2 * m / n < np.median(degree) < 1.5 * 2 * m / n
    assert g.weights.dtype == np.float32 and g.weights.max() < 1
    directed = uniform_random(n, m, seed=8, directed=True)
    assert directed.directed and directed.m <= m
    with pytest.raises(ValueError):
        uniform_random(0, 10)
