"""The numba CSR build (graph/_csr_numba.py) gives the array engine's arrays.

Every array that ``csr_arrays`` returns (indptr, indices, weights, the CSC of
directed graphs, input_degree, labels) is compared in value and dtype, and
num_input_edges by value, against the array-API engine on NumPy, in its
default packed-key path, its lexsort path (``pack_limit=-1``, the path of
graphs with more than 2**31 vertices) and its chunked undirected unweighted
path (small ``lean_chunk``). The numba engine runs with several task counts,
bucket sizes and scratch sizes, so small graphs cover many tasks, many
buckets and the in-place sort of buckets too big for the scratch buffers.

Merged weights are compared with ``np.array_equal``, for which -0.0 == 0.0:
which zero survives a merge of equal weights depends on the order in which
the duplicates are met (NumPy's own ``minimum.reduceat`` is not consistent
about it either), so the engines may differ in the sign of a merged zero.
"""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wavefront.errors import VertexError
from wavefront.graph import _csr

pytest.importorskip("numba")

WEIGHT_DTYPES = (None, np.float32, np.float64, np.int32, np.int64)
# (tasks, bucket_arcs, scratch_arcs): one task with the defaults; many tasks
# and tiny buckets; buckets bigger than the scratch (the in-place sort).
NUMBA_SHAPES = ((1, None, None), (3, 4, 64), (2, 16, 4))
ARRAY_NAMES = (
    "indptr", "indices", "weights", "in_indptr", "in_indices", "in_weights", "input_degree", "labels",
)


def assert_same_arrays(got: dict, want: dict) -> None:
    for name in ARRAY_NAMES:
        a, b = got.get(name), want.get(name)
        assert (a is None) == (b is None), name
        if a is None:
            continue
        assert a.dtype == b.dtype, (name, a.dtype, b.dtype)
        assert np.array_equal(a, b, equal_nan=a.dtype.kind == "f"), name
    assert got["num_input_edges"] == want["num_input_edges"]
    assert got["n"] == want["n"]
    assert bool(got.get("directed", False)) == bool(want.get("directed", False))


def array_engine_variants(src, dst, weights, n, directed, relabel, nan=False):
    """The array engine's results on every path that applies to this graph."""
    common = dict(weights=weights, n=n, directed=directed, relabel=relabel, engine="array")
    yield _csr.csr_arrays(src, dst, **common)
    if not nan:  # the lexsort path merges NaN weights differently (see test_nan_weights_merge...)
        yield _csr.csr_arrays(src, dst, pack_limit=-1, **common)
    if weights is None and not directed:
        yield _csr.csr_arrays(src, dst, lean_chunk=3, **common)


def check_engines_agree(src, dst, weights, n, directed, relabel, nan=False):
    wants = list(array_engine_variants(src, dst, weights, n, directed, relabel, nan))
    for tasks, bucket_arcs, scratch_arcs in NUMBA_SHAPES:
        got = _csr.csr_arrays(
            src, dst, weights=weights, n=n, directed=directed, relabel=relabel, engine="numba",
            tasks=tasks, bucket_arcs=bucket_arcs, scratch_arcs=scratch_arcs,
        )
        for want in wants:
            assert_same_arrays(got, want)


@st.composite
def graphs(draw):
    n = draw(st.integers(1, 40))
    m = draw(st.integers(0, 160))
    ids = st.lists(st.integers(0, n - 1), min_size=m, max_size=m)
    id_dtype = draw(st.sampled_from([np.int32, np.int64]))
    src, dst = (np.array(draw(ids), dtype=id_dtype) for _ in range(2))
    wdtype = draw(st.sampled_from(WEIGHT_DTYPES))
    if wdtype is None:
        weights = None
    elif np.dtype(wdtype).kind == "f":
        finite = st.floats(-1e6, 1e6, width=np.dtype(wdtype).itemsize * 8)
        # Few distinct values, so that duplicate arcs often carry different weights.
        weights = np.array(draw(st.lists(st.sampled_from(draw(st.lists(finite, min_size=1, max_size=4))),
                                         min_size=m, max_size=m)), dtype=wdtype)
    else:
        weights = np.array(draw(st.lists(st.integers(-50, 50), min_size=m, max_size=m)), dtype=wdtype)
    extra = draw(st.integers(0, 3))  # n beyond the largest id: isolated tail vertices
    return src, dst, weights, n + extra


@settings(max_examples=150, deadline=None)
@given(graphs(), st.booleans(), st.sampled_from([None, "degree"]))
def test_numba_engine_equals_array_engine(graph, directed, relabel):
    src, dst, weights, n = graph
    check_engines_agree(src, dst, weights, n, directed, relabel)


FIXED = {
    # (src, dst, weights, n)
    "duplicates with different weights": (
        [0, 1, 0, 0, 2, 1, 2], [1, 0, 1, 1, 0, 2, 1], [5.0, 3.0, 7.0, 4.0, 2.0, 9.0, 1.0], None),
    "self-loops only": ([0, 1, 2], [0, 1, 2], [1.0, 2.0, 3.0], None),
    "self-loops among edges": ([0, 1, 1, 2], [0, 2, 1, 0], [1.0, 2.0, 3.0, 4.0], None),
    "isolated vertices": ([0, 5], [5, 0], [1.0, 2.0], 9),
    "n beyond the largest id": ([0, 1], [1, 2], [1.5, 2.5], 1000),
    "empty graph": ([], [], [], None),
    "empty graph with vertices": ([], [], [], 4),
    "one vertex": ([0], [0], [1.0], None),
}


@pytest.mark.parametrize("case", sorted(FIXED))
@pytest.mark.parametrize("wdtype", WEIGHT_DTYPES)
@pytest.mark.parametrize("directed", [False, True])
@pytest.mark.parametrize("relabel", [None, "degree"])
def test_fixed_cases(case, wdtype, directed, relabel):
    src, dst, w, n = FIXED[case]
    src, dst = np.array(src, dtype=np.int64), np.array(dst, dtype=np.int64)
    weights = None if wdtype is None else np.array(w, dtype=wdtype)
    check_engines_agree(src, dst, weights, n, directed, relabel)


def skewed_graph(seed: int, n: int, m: int):
    """Power-law ids (a few hubs with long rows) and weights with duplicates."""
    rng = np.random.default_rng(seed)
    src = np.minimum((rng.pareto(0.8, m) * 2).astype(np.int64), n - 1)
    dst = rng.integers(0, n, m)
    weights = rng.integers(0, 20, m).astype(np.float64)
    return src, dst, weights


@pytest.mark.parametrize("directed", [False, True])
@pytest.mark.parametrize("weighted", [False, True])
def test_hubs_and_many_buckets(directed, weighted):
    """Rows far longer than the insertion-sort cut-off, in buckets that are
    radix sorted (defaults) and in buckets sorted in place (small scratch)."""
    src, dst, weights = skewed_graph(5, 3000, 60_000)
    check_engines_agree(src, dst, weights if weighted else None, 3000, directed, None)
    check_engines_agree(src, dst, weights if weighted else None, 3000, directed, "degree")


def test_nan_weights_merge_like_numpy_minimum():
    # NaN wins a merge, as np.minimum.reduceat does in the array engine's
    # packed path (its lexsort path keeps the smallest number instead).
    src, dst = np.array([0, 0, 1, 2]), np.array([1, 1, 2, 1])
    weights = np.array([np.nan, 1.0, 3.0, 2.0])
    check_engines_agree(src, dst, weights, None, False, None, nan=True)
    check_engines_agree(src, dst, weights, None, True, None, nan=True)


@pytest.mark.parametrize("threads_tasks", [1, 2, 7])
def test_result_does_not_depend_on_tasks(threads_tasks):
    src, dst, weights = skewed_graph(9, 500, 20_000)
    first = _csr.csr_arrays(src, dst, weights, engine="numba", tasks=1)
    again = _csr.csr_arrays(src, dst, weights, engine="numba", tasks=threads_tasks,
                            bucket_arcs=64)
    assert_same_arrays(again, first)


@pytest.mark.parametrize(
    "kwargs, error, text",
    [
        (dict(src=[0, -1], dst=[1, 2]), VertexError, "negative"),
        (dict(src=[0, 5], dst=[1, 2], n=4), VertexError, "out of range"),
        (dict(src=[0, 1], dst=[1]), ValueError, "differ in length"),
        (dict(src=[0.5], dst=[1]), VertexError, "non-integer"),
        (dict(src=[0], dst=[1], weights=[1.0, 2.0]), ValueError, "weights has 2 entries"),
        (dict(src=[0], dst=[1], engine="fast"), ValueError, "engine must be one of"),
    ],
)
def test_numba_engine_rejects_what_the_array_engine_rejects(kwargs, error, text):
    kwargs.setdefault("engine", "numba")
    with pytest.raises(error, match=text):
        _csr.csr_arrays(**kwargs)


def test_numba_engine_keeps_int32_ids_and_strided_inputs():
    rng = np.random.default_rng(3)
    src, dst = rng.integers(0, 50, 400), rng.integers(0, 50, 400)
    weights = rng.random(800)[::2]  # strided
    want = _csr.csr_arrays(src, dst, weights, engine="array")
    got = _csr.csr_arrays(src.astype(np.int32), dst.astype(np.int32), weights, engine="numba")
    assert_same_arrays(got, want)
    mixed = _csr.csr_arrays(src.astype(np.int32), dst, weights, engine="numba")
    assert_same_arrays(mixed, want)


def test_auto_engine_leaves_small_builds_to_numpy():
    code = (
        "import sys, numpy as np\n"
        "from wavefront.graph import from_edges\n"
        "from_edges(np.arange(100), np.arange(1, 101))\n"
        "print('numba' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False"]


def _pairs(cols, weights):
    return sorted(zip(cols.tolist(), weights.tolist()))


@pytest.mark.parametrize(
    "pattern", ["random", "sorted", "reversed", "equal", "organ pipe", "few values"]
)
def test_row_sorts_keep_column_weight_pairs(pattern):
    from wavefront.graph import _csr_numba as K

    rng = np.random.default_rng(11)
    size = 1000
    cols = {
        "random": rng.integers(0, 10**6, size),
        "sorted": np.arange(size),
        "reversed": np.arange(size)[::-1].copy(),
        "equal": np.full(size, 7),
        "organ pipe": np.concatenate([np.arange(size // 2), np.arange(size // 2)[::-1]]),
        "few values": rng.integers(0, 3, size),
    }[pattern].astype(np.int32)
    weights = rng.random(size)
    for sort in ("quick", "heap"):
        c, w = cols.copy(), weights.copy()
        if sort == "quick":
            K._sort_row(c, w, 0, size, np.empty(3 * 64, dtype=np.int64))
        else:
            K._heap_sort(c, w, 0, size)
        assert np.array_equal(c, np.sort(cols)), sort
        assert _pairs(c, w) == _pairs(cols, weights), sort
