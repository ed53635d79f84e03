"""The distributed validator's per-search kernels that replaced NumPy on one
core give what the NumPy code gave (hypothesis):

* a chunk's tree-edge children, grouped by owner and marked there
  (:func:`count_children`, :func:`pack_children`, :func:`mark_children`),
  against concatenating the tasks' stretches, a stable sort by owner (the
  NumPy grouping they replaced, kept here as the reference) and NumPy's scatter, for 1-4 ranks and 1-64 tasks, BFS
  children and SSSP ones (``~v`` for a confirmed ``v``);
* the endpoint values an owner sends (``_exchange._Route.answers``) against
  ``array[local]``, in every dtype a validation sends;
* the tuples remapped to endpoint positions once per graph
  (``_exchange.EndpointLookup.remapped``) against the distinct endpoints'
  ranks by ``np.unique``.
"""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from wavefront.distributed import _exchange, validate
from wavefront.distributed import _validate_kernels as kernels
from wavefront.distributed.grid import Partition
from wavefront.distributed.transport import SelfTransport


def _group_by_owner(dest, size, values):
    """``values`` grouped by ``dest`` in ``[0, size)``, order kept within a
    group, and the count per group: the NumPy grouping the kernels replaced."""
    order = np.argsort(dest, kind="stable")
    return values[order].astype(np.int64), np.bincount(dest, minlength=size).astype(np.int64)


def _numpy_marks(children, ranks, piece, confirming):
    """The NumPy code the kernels replaced: what each rank receives (global
    ids, grouped by owner, stable) and the flags it sets."""
    vertices = np.where(children >= 0, children, ~children)
    packed, counts = _group_by_owner(vertices // piece, ranks, children)
    bounds = np.concatenate([[0], np.cumsum(counts)])
    received, flags = [], []
    for r in range(ranks):
        marked = packed[bounds[r]:bounds[r + 1]]
        received.append(marked)
        adjacent = np.zeros(piece, dtype=bool)
        confirmed = np.zeros(piece, dtype=bool)
        local = np.where(marked >= 0, marked, ~marked) - r * piece
        adjacent[local] = True
        if confirming:
            confirmed[local[marked < 0]] = True
        flags.append((adjacent, confirmed))
    return received, flags


@settings(max_examples=80, deadline=None)
@given(
    ranks=st.integers(1, 4),
    piece=st.integers(1, 300),
    lengths=st.lists(st.integers(0, 60), min_size=1, max_size=64),
    confirming=st.booleans(),
    local_dtype=st.sampled_from([np.int32, np.int64]),
    seed=st.integers(0, 2**32 - 1),
)
def test_children_marks_match_numpy(ranks, piece, lengths, confirming, local_dtype, seed):
    rng = np.random.default_rng(seed)
    tasks = len(lengths)
    sent = np.array(lengths, dtype=np.int64)
    # Each task's stretch has room for twice what it wrote, as a tuple kernel's does.
    starts = np.concatenate([[0], np.cumsum(2 * sent)[:-1]]).astype(np.int64)
    out = np.full(max(1, int(2 * sent.sum())), -(2**40), dtype=np.int64)  # garbage outside the stretches
    for t in range(tasks):
        v = rng.integers(0, ranks * piece, lengths[t])
        if confirming:
            v = np.where(rng.random(lengths[t]) < 0.5, ~v, v)
        out[starts[t]:starts[t] + sent[t]] = v
    children = np.concatenate([out[a:a + c] for a, c in zip(starts, sent, strict=True)])
    want_received, want_flags = _numpy_marks(children, ranks, piece, confirming)

    table = np.zeros((tasks, ranks), dtype=np.int64)
    kernels.count_children(out, starts, sent, piece, table)
    cursors, per_owner = validate._cursors(table)
    local = np.empty(int(per_owner.sum()), dtype=local_dtype)
    kernels.pack_children(out, starts, sent, piece, cursors, local)
    bounds = np.concatenate([[0], np.cumsum(per_owner)])
    for r in range(ranks):
        got = local[bounds[r]:bounds[r + 1]].astype(np.int64)
        # Local ids carry the ~ mark; as global ids they are what NumPy sent, in its order.
        assert np.array_equal(np.where(got >= 0, got + r * piece, ~(~got + r * piece)), want_received[r])
        adjacent = np.zeros(piece, dtype=bool)
        confirmed = np.zeros(piece, dtype=bool)
        kernels.mark_children(local[bounds[r]:bounds[r + 1]], adjacent, confirmed if confirming else adjacent)
        assert np.array_equal(adjacent, want_flags[r][0])
        assert np.array_equal(confirmed, want_flags[r][1])


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(1, 5000),
    asked=st.integers(0, 3000),
    dtype=st.sampled_from([np.int64, np.int32, np.float32, np.float64]),
    seed=st.integers(0, 2**32 - 1),
)
def test_route_answers_match_numpy_indexing(n, asked, dtype, seed):
    rng = np.random.default_rng(seed)
    unique = np.unique(rng.integers(0, n, asked))
    values = (rng.standard_normal(n) * 1e6).astype(dtype)
    route = _exchange._Route(SelfTransport(), Partition.of(n, 1, 1), unique)
    (got,) = route.answers(values)
    assert got.dtype == values.dtype
    assert np.array_equal(got, values[route.local])


class _TwoRanksAlone(SelfTransport):
    """Rank 0 of two whose peer asks for nothing: what a routed lookup needs
    to be built in one process (each all-to-all-v returns what rank 0 kept)."""

    def __init__(self):
        super().__init__()
        self.size = 2

    def alltoallv(self, send, counts):
        return np.asarray(send)[: int(counts[0])], np.array([int(counts[0]), 0], dtype=np.int64)


@settings(max_examples=30, deadline=None)
@given(
    n=st.integers(2, 5000),
    tuples=st.integers(0, 4000),
    ids=st.sampled_from([np.uint32, np.int64]),
    seed=st.integers(0, 2**32 - 1),
)
def test_remapped_tuples_are_each_endpoints_place_among_the_distinct_ones(n, tuples, ids, seed):
    rng = np.random.default_rng(seed)
    src, dst = (rng.integers(0, n, tuples).astype(ids) for _ in range(2))
    look = _exchange.EndpointLookup(_TwoRanksAlone(), Partition.of(n, 1, 2), src, dst)
    distinct = np.unique(np.concatenate([src, dst]).astype(np.int64))
    for array, remapped in zip((src, dst), look.remapped, strict=True):
        assert remapped.dtype == np.int32 and remapped.shape == array.shape
        assert np.array_equal(remapped, np.searchsorted(distinct, array.astype(np.int64)))
    for k in range(min(tuples, 50)):
        assert look.at(k) == tuple(int(np.searchsorted(distinct, int(a[k]))) for a in (src, dst))
