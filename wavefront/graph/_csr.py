"""Edge arrays -> CSR arrays: the work behind :func:`wavefront.graph.build.from_edges`.

Two engines give the same arrays (tests/test_csr_build.py compares them):

* ``"array"``: the code below, written against the array API shared by NumPy
  and CuPy, so it builds a graph on the host or on the GPU (the arrays'
  module decides). On NumPy it runs on one core.
* ``"numba"``: :mod:`._csr_numba`, for NumPy arrays on all cores: arcs
  partitioned into cache-sized buckets of rows, each bucket radix sorted and
  merged in cache, in 2 bytes per arc beyond the graph itself (its docstring
  has the passes and the memory formula). ``engine="auto"`` takes it for
  NumPy inputs of :data:`NUMBA_MIN_TUPLES` tuples or more.

It returns the arrays, not a :class:`~wavefront.graph.container.Graph`, so
that both ``Graph.from_edges`` (in container) and ``build.from_edges`` (which
imports container) can use it without the two modules importing each other.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from .._xp import array_module
from ..errors import VertexError

INT32_LIMIT = 2**31 - 1
RELABEL_CHOICES = (None, "degree")

# Tuples per chunk of the memory-lean path: bounds its temporaries to a few
# chunk-sized arrays beside the packed keys (SCALE 26: 2**30 tuples in 16 chunks).
LEAN_CHUNK = 2**26
ENGINES = ("auto", "numba", "array")
# Below this many tuples "auto" stays on the array engine: loading numba and
# its cached kernels (a few hundred ms once per process) costs more than it saves.
NUMBA_MIN_TUPLES = 1 << 16


def index_dtype(n: int):
    """Column-index dtype for a graph of ``n`` vertices."""
    return np.int32 if n <= INT32_LIMIT else np.int64


def normalize_weights(weights, xp):
    """Weights as float32, float64, int32 or int64 (the dtypes kernels support)."""
    w = xp.asarray(weights)
    kind = w.dtype.kind
    if kind == "b":
        return w.astype(np.int32)
    if kind in "iu":
        if w.dtype.itemsize < 4 or (kind == "u" and w.dtype.itemsize < 4):
            return w.astype(np.int32)
        if w.dtype == np.int32:
            return w
        if kind == "u" and w.size and int(w.max()) > np.iinfo(np.int64).max:
            raise ValueError("unsigned weights above 2**63-1 cannot be represented")
        return w.astype(np.int64)
    if kind == "f":
        return w if w.dtype in (np.float32, np.float64) else w.astype(
            np.float32 if w.dtype.itemsize < 4 else np.float64
        )
    raise ValueError(f"weights must be real numbers, got dtype {w.dtype}")


def _as_vertex_array(a, name, xp, keep_int32: bool = False):
    """Ids as int64 (or int32 arrays kept as they are when ``keep_int32``)."""
    a = xp.asarray(a)
    if a.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {a.shape}")
    if a.dtype.kind == "f":
        if a.size and not bool(xp.all(a == xp.floor(a))):
            raise VertexError(f"{name} holds non-integer vertex ids")
        a = a.astype(np.int64)
    elif a.dtype.kind not in "iub":
        raise VertexError(f"{name} must hold integer vertex ids, got dtype {a.dtype}")
    if keep_int32 and a.dtype == np.int32:
        return a
    return a.astype(np.int64, copy=False)


@lru_cache(maxsize=1)
def _numba_engine():
    """:mod:`._csr_numba`, or None when numba cannot be imported."""
    try:
        from . import _csr_numba
    except ImportError:
        return None
    return _csr_numba


def _choose_engine(engine: str, xp, tuples: int):
    """The numba module when that engine builds this graph, else None."""
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {ENGINES}, got {engine!r}")
    if engine == "array":
        return None
    if engine == "numba":
        if xp is not np:
            raise ValueError("the numba engine builds from NumPy arrays; use engine='array' for CuPy")
        module = _numba_engine()
        if module is None:
            raise ImportError("the numba engine needs numba, which cannot be imported here")
        return module
    if xp is not np or tuples < NUMBA_MIN_TUPLES:
        return None
    return _numba_engine()


def first_bad_weight(src, dst, weights) -> int | None:
    """Position of the first input edge (not a self-loop, which builds drop)
    whose weight is negative, NaN or infinite; None when all are usable.
    ``src`` and ``dst`` None: stored arcs, which hold no self-loop."""
    if weights is None:
        return None
    xp = array_module(src, dst, weights)
    w = xp.asarray(weights)
    if w.dtype.kind not in "fi" or w.size == 0:
        return None
    # Every build asks, so the usual answer costs two reductions and no
    # array as long as the input (NaN fails ``>= 0`` in min, inf shows in max).
    if bool(w.min() >= 0) and bool(w.max() < np.inf):
        return None
    bad = ~(w >= 0)
    if w.dtype.kind == "f":
        bad |= xp.isinf(w)
    if src is not None:
        bad &= xp.asarray(src) != xp.asarray(dst)
    return int(xp.argmax(bad)) if bool(bad.any()) else None


def describe_bad_weight(src, dst, weights) -> str | None:
    """The first unusable input weight, as the caller numbered the edge."""
    k = first_bad_weight(src, dst, weights)
    if k is None:
        return None
    u, v, w = int(src[k]), int(dst[k]), weights[k].item() if hasattr(weights[k], "item") else weights[k]
    return f"input edge ({u}, {v}) at position {k} has weight {w}"


def csr_arrays(
    src,
    dst,
    weights=None,
    n: int | None = None,
    directed: bool = False,
    *,
    relabel: str | None = None,
    engine: str = "auto",
    pack_limit: int = INT32_LIMIT,
    lean_chunk: int = LEAN_CHUNK,
    tasks: int | None = None,
    bucket_arcs: int | None = None,
    scratch_arcs: int | None = None,
) -> dict:
    """The keyword arguments of ``Graph`` for the graph of these edges.

    The edges mean what they mean to :func:`wavefront.graph.build.from_edges`.
    ``engine`` is ``"auto"``, ``"numba"`` or ``"array"`` (see the module
    docstring). ``pack_limit`` (packed int64 keys while ``n <= pack_limit +
    1``, lexsort beyond) and ``lean_chunk`` (see :data:`LEAN_CHUNK`) steer
    the array engine, so that a caller can force its lexsort and chunked
    paths on small graphs. ``tasks`` (default: numba's thread count),
    ``bucket_arcs`` and ``scratch_arcs`` (default: the engine's own) steer
    the numba engine the same way (many tasks and buckets, the in-place sort
    of big buckets). Neither engine's result depends on its parameters.
    """
    if relabel not in RELABEL_CHOICES:
        raise ValueError(f"relabel must be one of {RELABEL_CHOICES}, got {relabel!r}")
    xp = array_module(src, dst, weights)
    src = xp.asarray(src)
    kernels = _choose_engine(engine, xp, int(src.shape[0]) if src.ndim else 1)
    # The numba kernels take int32 ids as they come (no int64 copy of the tuples).
    src = _as_vertex_array(src, "src", xp, keep_int32=kernels is not None)
    dst = _as_vertex_array(dst, "dst", xp, keep_int32=kernels is not None)
    if src.shape != dst.shape:
        raise ValueError(f"src and dst differ in length: {src.shape[0]} vs {dst.shape[0]}")
    if weights is not None:
        weights = normalize_weights(weights, xp)
        if weights.shape != src.shape:
            raise ValueError(
                f"weights has {weights.shape[0] if weights.ndim else 1} entries for {src.shape[0]} edges"
            )
    if kernels is not None:
        if src.dtype != dst.dtype:
            src, dst = src.astype(np.int64), dst.astype(np.int64)
        src, dst = np.ascontiguousarray(src), np.ascontiguousarray(dst)
        weights = None if weights is None else np.ascontiguousarray(weights)
        lo, hi = kernels.vertex_range(src, dst)
    else:
        lo = int(xp.minimum(src.min(), dst.min())) if src.size else 0
        hi = int(xp.maximum(src.max(), dst.max())) if src.size else -1
    if lo < 0:
        raise VertexError(f"negative vertex id {lo} in the edge list")
    if n is None:
        n = hi + 1
    n = int(n)
    if hi >= n:
        raise VertexError(f"vertex id {hi} is out of range for n={n}")

    if kernels is not None:
        sizes = {k: v for k, v in (("bucket_arcs", bucket_arcs), ("scratch_arcs", scratch_arcs))
                 if v is not None}
        return _graph_arrays(n, directed, *kernels.build(
            src, dst, weights, n, directed, relabel, index_dtype(n), tasks=tasks, **sizes
        ))
    if not directed and weights is None and n <= pack_limit + 1:
        return _undirected_unweighted(src, dst, n, relabel, xp, lean_chunk)

    keep = src != dst
    num_input_edges = int(keep.sum())
    if not bool(keep.all()):
        src, dst = src[keep], dst[keep]
        weights = None if weights is None else weights[keep]
    input_degree = xp.bincount(src, minlength=n).astype(np.int64)
    if not directed:
        input_degree += xp.bincount(dst, minlength=n)

    labels = None
    if relabel == "degree":
        # Ties broken by id so NumPy and CuPy (whose argsort is unstable) agree.
        order = xp.lexsort(_stack_keys(xp, [xp.arange(n, dtype=np.int64), -input_degree]))
        new_id = xp.empty(n, dtype=np.int64)
        new_id[order] = xp.arange(n, dtype=np.int64)
        src, dst = new_id[src], new_id[dst]
        input_degree = input_degree[order]
        labels = order.astype(np.int64)

    if directed:
        csr = compress(src, dst, weights, n, pack_limit=pack_limit)
        csc = compress(dst, src, weights, n, pack_limit=pack_limit)
    else:
        rows = xp.concatenate([src, dst])
        cols = xp.concatenate([dst, src])
        both = None if weights is None else xp.concatenate([weights, weights])
        del src, dst
        csr = compress(rows, cols, both, n, pack_limit=pack_limit)
        csc = None
    return _graph_arrays(n, directed, csr, csc, input_degree, num_input_edges, labels)


def _graph_arrays(n, directed, csr, csc, input_degree, num_input_edges, labels) -> dict:
    """The ``Graph`` keyword arguments from each engine's parts: ``csr`` and
    ``csc`` are ``(indptr, indices, weights)``, ``csc`` None when undirected."""
    indptr, indices, w = csr
    in_indptr, in_indices, in_w = (None, None, None) if csc is None else csc
    return dict(
        indptr=indptr,
        indices=indices,
        n=n,
        weights=w,
        directed=directed,
        in_indptr=in_indptr,
        in_indices=in_indices,
        in_weights=in_w,
        input_degree=input_degree,
        num_input_edges=num_input_edges,
        labels=labels,
    )


def compress(rows, cols, weights, n: int, *, pack_limit: int = INT32_LIMIT):
    """Sort arcs by (row, col), merge duplicates (min weight), return CSR arrays."""
    xp = array_module(rows, cols, weights)
    if n <= pack_limit + 1:
        key = rows * n + cols  # < n**2 <= 2**62: no overflow
        if weights is None:
            key = xp.sort(key)
        elif xp is np:
            # A plain key sort plus a segmented min is several times faster
            # than NumPy's lexsort on (weight, key).
            order = np.argsort(key, kind="stable")
            key, weights = key[order], weights[order]
        else:
            order = xp.lexsort(_stack_keys(xp, [weights, key]))
            key, weights = key[order], weights[order]
        first = xp.ones(key.shape[0], dtype=bool)
        if key.size:
            first[1:] = key[1:] != key[:-1]
            if weights is not None:
                weights = (
                    np.minimum.reduceat(weights, np.flatnonzero(first))
                    if xp is np
                    else weights[first]  # lexsort put each group's minimum first
                )
            key = key[first]
        rows, cols = key // n, key % n
    else:
        keys = [cols, rows] if weights is None else [weights, cols, rows]
        order = xp.lexsort(_stack_keys(xp, keys))
        rows, cols = rows[order], cols[order]
        weights = None if weights is None else weights[order]
        first = xp.ones(rows.shape[0], dtype=bool)
        if rows.size:
            first[1:] = (rows[1:] != rows[:-1]) | (cols[1:] != cols[:-1])
        rows, cols = rows[first], cols[first]
        weights = None if weights is None else weights[first]
    counts = xp.bincount(rows, minlength=n)
    indptr = xp.zeros(n + 1, dtype=np.int64)
    xp.cumsum(counts, out=indptr[1:])
    return indptr, cols.astype(index_dtype(n)), weights


def _chunks(total: int, chunk: int):
    return ((lo, min(lo + chunk, total)) for lo in range(0, total, chunk))


def _undirected_unweighted(src, dst, n: int, relabel, xp, chunk: int) -> dict:
    """The Graph500 case (undirected, no weights), built without the
    symmetrized row/column copies of the general path: each arc lives only as
    one packed int64 key ``row * n + col``, written chunk by chunk, sorted in
    place, then unpacked chunk by chunk. Peak memory beyond the caller's
    tuples is about 8 bytes per stored arc for the keys, plus the sort's
    scratch, plus the CSR itself; the result equals the general path's."""
    input_degree = xp.zeros(n, dtype=np.int64)
    kept = 0
    for lo, hi in _chunks(src.shape[0], chunk):
        s, d = src[lo:hi], dst[lo:hi]
        keep = s != d
        s, d = s[keep], d[keep]
        kept += int(s.shape[0])
        input_degree += xp.bincount(s, minlength=n)
        input_degree += xp.bincount(d, minlength=n)

    labels = new_id = None
    if relabel == "degree":
        order = xp.lexsort(_stack_keys(xp, [xp.arange(n, dtype=np.int64), -input_degree]))
        new_id = xp.empty(n, dtype=np.int64)
        new_id[order] = xp.arange(n, dtype=np.int64)
        input_degree = input_degree[order]
        labels = order.astype(np.int64)

    keys = xp.empty(2 * kept, dtype=np.int64)
    pos = 0
    for lo, hi in _chunks(src.shape[0], chunk):
        s, d = src[lo:hi], dst[lo:hi]
        keep = s != d
        s, d = s[keep], d[keep]
        if new_id is not None:
            s, d = new_id[s], new_id[d]
        count = int(s.shape[0])
        keys[pos : pos + count] = s * n + d
        keys[pos + count : pos + 2 * count] = d * n + s
        pos += 2 * count
    keys.sort()

    # Two passes over the sorted keys: count the distinct arcs per row, then
    # unpack their columns into a CSR allocated once at its final size.
    def distinct(lo, hi):
        k = keys[lo:hi]
        first = xp.empty(k.shape[0], dtype=bool)
        first[0] = True if lo == 0 else bool(keys[lo] != keys[lo - 1])
        first[1:] = k[1:] != k[:-1]
        return k[first]

    counts = xp.zeros(n, dtype=np.int64)
    for lo, hi in _chunks(keys.shape[0], chunk):
        counts += xp.bincount(distinct(lo, hi) // n, minlength=n)
    indptr = xp.zeros(n + 1, dtype=np.int64)
    xp.cumsum(counts, out=indptr[1:])
    del counts
    indices = xp.empty(int(indptr[-1]), dtype=index_dtype(n))
    pos = 0
    for lo, hi in _chunks(keys.shape[0], chunk):
        unique = distinct(lo, hi)
        indices[pos : pos + unique.shape[0]] = unique % n
        pos += int(unique.shape[0])
    return dict(
        indptr=indptr,
        indices=indices,
        n=n,
        input_degree=input_degree,
        num_input_edges=kept,
        labels=labels,
    )


def _stack_keys(xp, keys):
    """Keys for ``lexsort`` (last key primary). CuPy wants one int 2-D array,
    so float keys are replaced by their ranks there, which keeps the order."""
    if xp is np:
        return tuple(keys)
    out = []
    for k in keys:
        if k.dtype.kind == "f":
            rank = xp.empty(k.shape[0], dtype=np.int64)
            rank[xp.argsort(k)] = xp.arange(k.shape[0], dtype=np.int64)
            k = rank
        out.append(k.astype(np.int64))
    return xp.stack(out)
