"""One rank's share of an undirected graph partitioned 2-D (Graph500 kernel 1, distributed).

:func:`from_edges` is collective: every rank passes its own slice of the
input tuples (any slice; together they are the whole list), and gets its
:class:`DistributedGraph`:

1. self-loops are dropped and each tuple becomes the two arcs ``s -> d`` and
   ``d -> s``;
2. each arc goes to the rank storing its block (:meth:`Partition.block_rank`)
   in all-to-all-v rounds over the world, :data:`CHUNK_TUPLES` tuples a
   round, as local ids in 32-bit words (:mod:`._arcs`): the *edge exchange*,
   part of construction time. A first pass counts the arcs each rank will
   receive, so they land in arrays of their final size;
3. the rank builds its block's CSR (by source, for the top-down step) with
   the parallel numba builder of :mod:`wavefront.graph._csr_numba` (sorted,
   parallel arcs merged), frees the arcs, and builds the CSC (by target, for
   the bottom-up step) from the merged CSR. A diagonal block of a square
   grid is symmetric: its CSC *is* its CSR (the same arrays). In a world of
   one the block is the whole graph, built from the tuples directly (no arcs
   spelled out, no exchange);
4. per-vertex degrees (deduplicated, for the direction policy's ``m_f``) and
   input degrees (tuples, duplicates included, for Graph500's TEPS count) are
   summed over each grid column and handed to the vertices' owners.

With weights (SSSP), each arc carries its tuple's weight through the same
exchange as its bit pattern (no rounding on the way), and parallel arcs keep
the smallest weight, as the single-process builder merges them, so both see
the same weighted graph.

Block indices are local: sources count from the column block's first vertex,
targets from the row block's. Both offset arrays are ``max(n_row, n_col) + 1``
long, so the CPU backend's steps, which look up a discovered target's degree
in ``indptr``, stay in bounds on a non-square grid (the value they read there
is not used).

**Host memory.** The rank keeps its tuples for validation as given (ids as
:func:`id_dtype`, uint32, when they come so: 12 bytes a weighted tuple); its
peak is the CSR build, beside the received arcs (12 bytes each, two per
tuple) and the builder's output at pre-merge size plus 2 bytes an arc, about
56 bytes a tuple of its slice (32 in a world of one); the chunked rounds
keep the exchange's buffers at tens of MB. ``docs/decisions/distributed.md``
has the measurements and :mod:`wavefront.graph500.memory` the model.

:func:`kronecker` generates each rank's slice of the Graph500 tuples with the
counter-based generator (tuple ``e`` depends on ``e`` and the seed alone), so
the graph is the same for any number of ranks.
"""
from __future__ import annotations

import time
from typing import NamedTuple

import numpy as np

from ..errors import VertexError, WeightError, checked_vertex_id
from ..graph import index_dtype
from . import _exchange
from .grid import Partition, ProcessGrid

# Input tuples per round of the edge exchange (and per step of validation):
# the rounds' buffers, about 50 bytes per tuple, stay at tens of MB whatever
# the graph, while the per-round cost (a few collectives and kernel calls)
# stays small against a round's work.
CHUNK_TUPLES = 1 << 20


class DistributedGraph:
    """The block ``A_ij`` of rank ``(i, j)``, the vertices it owns, and its input tuples.

    Attributes: ``grid``, ``part`` (:class:`~.grid.Partition`), ``n``, ``m``
    (stored arcs of the whole graph, an edge counting twice),
    ``num_input_edges`` (tuples without self-loops, whole graph);
    ``indptr``/``indices`` (block CSR by source) and
    ``in_indptr``/``in_indices`` (block CSC by target; the CSR's own arrays
    on a diagonal block of a square grid), local ids, int32 indices;
    ``degree``/``input_degree`` (int64, this rank's piece); ``src``/``dst``
    (this rank's input tuples, global ids in the dtype they were given,
    kept for validation) starting at input tuple ``tuple_offset``;
    ``chunk`` (tuples per round of the exchange and of validation);
    ``timings`` (seconds of the exchange and the local build);
    ``exchange_bytes`` (what this rank sent in the edge exchange). Weighted
    graphs add ``weights`` (aligned with the block CSR), ``in_weights``
    (with the block CSC) and ``input_weights`` (this rank's tuples');
    unweighted ones hold None there.
    """

    def __init__(self, grid: ProcessGrid, part: Partition, **arrays):
        self.grid = grid
        self.part = part
        self.n = part.n
        for name, value in arrays.items():
            setattr(self, name, value)
        self.derived: dict = {}  # search workspaces, built on first use

    @property
    def world(self):
        return self.grid.world

    def source_index(self, source) -> int:
        """``source`` as a vertex id of this graph, or VertexError (a
        ValueError): an integer in [0, n), as the single-process searches
        take it (1.5 is refused, not truncated)."""
        return checked_vertex_id(source, self.n, "source")

    @property
    def first_vertex(self) -> int:
        """Global id of this rank's first owned vertex."""
        return self.grid.rank * self.part.piece

    @property
    def row_offset(self) -> int:
        return self.part.row_block(self.grid.i)[0]

    @property
    def col_offset(self) -> int:
        return self.part.col_block(self.grid.j)[0]

    @property
    def weighted(self) -> bool:
        return self.weights is not None

    @property
    def local_arcs(self) -> int:
        return int(self.indices.shape[0])

    def traversed_edges(self, reached_piece: np.ndarray) -> int:
        """Graph500's TEPS edge count for a search that reached ``reached_piece``
        (this rank's owned vertices; collective): input tuples inside the component."""
        reached_piece = _exchange.on_host(reached_piece)
        local = np.array([int(self.input_degree[reached_piece].sum())], dtype=np.int64)
        return int(self.world.allreduce(local)[0]) // 2

    def __repr__(self) -> str:
        return (
            f"DistributedGraph(n={self.n}, m={self.m}, grid {self.grid.rows}x{self.grid.cols}, "
            f"rank {self.grid.rank}: {self.local_arcs} arcs)"
        )


def _check_ids(world, src, dst, n: int) -> None:
    """Every rank raises the same VertexError if any rank holds an id outside [0, n)."""
    # A rank without tuples takes no part in the extremes.
    lo = int(min(src.min(), dst.min())) if src.size else np.iinfo(np.int64).max
    hi = int(max(src.max(), dst.max())) if src.size else -1
    extremes = world.allreduce(np.array([-lo, hi], dtype=np.int64), op="max")
    lo, hi = -int(extremes[0]), int(extremes[1])
    if hi >= 0 and (lo < 0 or hi >= n):
        raise VertexError(f"the edge tuples hold vertex ids in [{lo}, {hi}], outside [0, {n})")


def _check_weights(world, weights) -> None:
    """Every rank raises the same WeightError if any rank holds a negative,
    NaN or infinite weight."""
    bad = (weights < 0) if weights.dtype.kind != "f" else ~(weights >= 0) | ~np.isfinite(weights)
    mine = int(np.argmax(bad)) if bool(bad.any()) else -1
    witnesses = world.allgather_object(None if mine < 0 else (mine, weights[mine].item()))
    for rank, witness in enumerate(witnesses):
        if witness is not None:
            k, w = witness
            raise WeightError(
                f"edge weights must be finite and non-negative: rank {rank}'s input edge {k} has weight {w}"
            )


def _ids(values, name: str) -> np.ndarray:
    """``values`` as a 1-D integer array, kept as given (no copy) when it is
    already a contiguous 4- or 8-byte integer array: the graph holds the
    tuples for validation, so narrow ids stay narrow. Ids that are not
    integers raise VertexError, as the single-process builder's do."""
    values = np.asarray(values)
    kind = values.dtype.kind
    if kind not in "iubf":
        raise VertexError(f"{name} must hold integer vertex ids, got dtype {values.dtype}")
    if kind == "f" and values.size and not bool(np.all(values == np.floor(values))):
        raise VertexError(f"{name} holds non-integer vertex ids")
    if kind not in "iu" or values.dtype.itemsize not in (4, 8):
        values = values.astype(np.int64)
    return np.ascontiguousarray(values)


def _local_inputs(src, dst, weights, chunk):
    """This rank's tuples and weights as the builder takes them; raises
    ValueError (VertexError) for what is malformed here."""
    from ..graph.build import normalize_weights

    src, dst = _ids(src, "src"), _ids(dst, "dst")
    if src.shape != dst.shape or src.ndim != 1:
        raise ValueError(f"src and dst must be 1-D and equally long, got {src.shape} and {dst.shape}")
    if isinstance(chunk, bool) or not isinstance(chunk, (int, np.integer)) or chunk < 1:
        raise ValueError(f"chunk must be a positive number of tuples, got {chunk!r}")
    if weights is not None:
        weights = normalize_weights(np.ascontiguousarray(weights), np)
        if weights.shape != src.shape:
            raise ValueError(f"weights has shape {weights.shape} for {src.shape[0]} edges")
    return src, dst, weights


def _agree_on_inputs(world, problem: Exception | None, dtype: str | None) -> None:
    """Every rank raises the first rank's input problem, if any rank has one,
    and the same ValueError if the ranks disagree on weights (``dtype``: the
    weights' dtype, None without weights; some passing none, or dtypes
    differing): a rank raising alone would leave the others waiting in the
    exchange's collectives for ever."""
    found = world.allgather_object((problem, dtype))
    for rank, (exc, _) in enumerate(found):
        if exc is not None:
            raise type(exc)(str(exc) if world.size == 1 else f"rank {rank}: {exc}")
    dtypes = [dtype for _, dtype in found]
    if None in dtypes and any(dtypes):
        given = [rank for rank, dtype in enumerate(dtypes) if dtype is not None]
        raise ValueError(f"weights must be passed on every rank or on none; only ranks {given} passed them")
    if len(set(dtypes)) > 1:
        raise ValueError(f"every rank must pass weights of one dtype, got {sorted(set(dtypes))}")


def id_dtype(n: int):
    """The narrowest dtype holding vertex ids below ``n``: how the tuples are kept."""
    return np.uint32 if n <= 2**32 else np.int64


def from_edges(src, dst, n: int, grid: ProcessGrid | None = None, tuple_offset: int = 0,
               weights=None, *, chunk: int = CHUNK_TUPLES) -> DistributedGraph:
    """Build the distributed graph from this rank's tuples ``src[k] -- dst[k]``
    (collective; undirected), weighted by ``weights[k]`` if given (SSSP).
    ``tuple_offset`` is the index of this rank's first tuple in the whole
    input list (validation names edges by it). The graph keeps ``src``,
    ``dst`` and ``weights`` for validation without copying them where they
    are contiguous 4- or 8-byte arrays (pass ``uint32`` ids to keep them
    small); ``chunk`` tuples at a time go through the exchange, so its
    buffers do not grow with the graph."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise ValueError(f"n must be a non-negative integer number of vertices, got {n!r}")
    grid = ProcessGrid() if grid is None else grid
    world = grid.world
    part = Partition.of(n, grid.rows, grid.cols)
    try:
        src, dst, weights = _local_inputs(src, dst, weights, chunk)
        problem = None
    except (ValueError, TypeError) as exc:  # raised on every rank below
        problem = exc
    dtype = None if weights is None else "" if problem is not None else weights.dtype.str
    _agree_on_inputs(world, problem, dtype)
    _check_ids(world, src, dst, n)
    if weights is not None:
        _check_weights(world, weights)

    n_col, n_row = part.col_block_size, part.row_block_size
    span = max(n_col, n_row)
    # A diagonal block of a square grid holds both arcs of each of its edges,
    # so its CSC is its CSR (same rows, same columns, same merged weights).
    symmetric = grid.rows == grid.cols and grid.i == grid.j
    start = time.perf_counter()
    sent_before = world.bytes_out
    if world.size == 1:
        # The block is the whole graph: built from the tuples, as the
        # single-process builder does, without their arcs spelled out.
        exchange, exchange_bytes = 0.0, 0
        start = time.perf_counter()
        csr, _, input_degree, non_loops, _ = _csr_numba().build(
            src, dst, weights, span, False, None, index_dtype(span)
        )
        (indptr, indices, block_weights), input_degree_col = csr, input_degree[:n_col]
        del csr, input_degree
    else:
        sources, targets, arc_weights, non_loops = _exchange_arcs(grid, part, src, dst, weights, int(chunk))
        exchange = time.perf_counter() - start
        exchange_bytes = world.bytes_out - sent_before
        start = time.perf_counter()
        # CSR: rows are the column block's sources, columns the targets
        # shifted by n_col (see _orient). The pre-merge row lengths are the
        # arcs per source: each tuple (s, d) gave s one arc, so these sum to
        # the input degree over the grid column.
        csr, input_degree = _orient(sources, targets, arc_weights, n_col + n_row, with_degree=True)
        del sources, targets, arc_weights  # the arcs: 12 bytes each, the largest thing held
        indptr_all, indices, block_weights = csr
        del csr
        input_degree_col = input_degree[:n_col].copy()
        del input_degree
        indptr = indptr_all[: span + 1].copy()  # rows past n_col are empty
        if not symmetric:
            in_indptr, in_indices, block_in_weights = _transpose(indptr_all, indices, block_weights, n_col, n_row)
        del indptr_all
        indices -= indices.dtype.type(n_col)
        final = index_dtype(span)
        if indices.dtype != final:  # only when n_col + n_row passes int32 but span does not
            indices = indices.astype(final)
            if not symmetric:
                in_indices = in_indices.astype(final)
    if symmetric:
        in_indptr, in_indices, block_in_weights = indptr, indices, block_weights
    local_build = time.perf_counter() - start

    start = time.perf_counter()
    degree_col = np.diff(indptr[: n_col + 1])
    both = grid.col.allreduce(np.concatenate((input_degree_col, degree_col)))
    held = slice(grid.i * part.piece, (grid.i + 1) * part.piece)  # piece j*R + i of column block j
    owned = grid.transpose_back(np.concatenate((both[:n_col][held], both[n_col:][held])))
    totals = world.allreduce(np.array([indices.shape[0], non_loops], dtype=np.int64))
    degrees = time.perf_counter() - start

    return DistributedGraph(
        grid, part,
        m=int(totals[0]), num_input_edges=int(totals[1]),
        indptr=indptr, indices=indices, in_indptr=in_indptr, in_indices=in_indices,
        weights=block_weights, in_weights=block_in_weights, input_weights=weights,
        input_degree=owned[: part.piece].copy(), degree=owned[part.piece :].copy(),
        src=src, dst=dst, tuple_offset=int(tuple_offset), exchange_bytes=int(exchange_bytes), chunk=int(chunk),
        timings={"exchange": exchange, "local_build": local_build, "degrees": degrees},
    )


def _chunks(count: int, chunk: int) -> list[tuple[int, int]]:
    return [(lo, min(lo + chunk, count)) for lo in range(0, count, chunk)]


def _exchange_arcs(grid, part, src, dst, weights, chunk: int):
    """The edge exchange (collective): every non-loop tuple's two arcs to the
    ranks storing them, ``chunk`` tuples per all-to-all-v round. Returns this
    rank's arcs as ``(sources, targets, weights, non_loops)``: sources local
    to the column block, targets local to the row block plus ``n_col`` (see
    :func:`_orient`), in arrays allocated once at their final size (a first
    pass counts the arcs per destination), and this rank's non-loop tuples."""
    from . import _arcs

    world = grid.world
    rows_, cols_ = part.row_block_size, part.col_block_size
    tasks = _arcs.tasks()
    index = np.int32 if cols_ + rows_ <= 2**31 else np.int64
    wide = max(rows_, cols_) > 2**32 or (weights is not None and weights.dtype.itemsize == 8)
    word = np.uint64 if wide else np.uint32
    width = 2 if weights is None else 3
    bits_in = None if weights is None else weights.view(np.uint32 if weights.dtype.itemsize == 4 else np.uint64)
    _compile_first(world, src, dst, bits_in, index, word, weights)
    mine = _chunks(src.shape[0], chunk)
    # Counting first sizes the arc arrays exactly: arrays grown as rounds
    # arrive would hold their spare room too (resize zero-fills it).
    counts = [_arcs.count_arcs(src, dst, lo, hi, rows_, cols_, grid.cols, world.size, tasks) for lo, hi in mine]
    per_dest = sum((c.sum(axis=0) for c in counts), np.zeros(world.size, dtype=np.int64))
    non_loops = int(per_dest.sum()) // 2
    total = int(world.alltoall(per_dest).sum())
    rounds = int(world.allreduce(np.array([len(mine)], dtype=np.int64), op="max")[0])

    sources, targets = np.empty(total, dtype=index), np.empty(total, dtype=index)
    out_weights = None if weights is None else np.empty(total, dtype=weights.dtype)
    bits_out = None if weights is None else out_weights.view(bits_in.dtype)
    at = 0
    for r in range(rounds):
        lo, hi = mine[r] if r < len(mine) else (0, 0)
        table = counts[r] if r < len(mine) else np.zeros((tasks, world.size), dtype=np.int64)
        sending = table.sum(axis=0)
        # Task t's first slot for rank r follows every arc for lower ranks and
        # task t' < t's arcs for rank r.
        cursors = np.cumsum(table, axis=0) - table
        cursors += np.cumsum(sending) - sending
        buffer = np.empty((int(sending.sum()), width), dtype=word)
        _arcs.pack_arcs(src, dst, bits_in, lo, hi, rows_, cols_, grid.cols, cursors, buffer)
        received, _ = world.alltoallv(buffer.reshape(-1), sending * width)
        del buffer
        _arcs.unpack_arcs(received, width, sources, targets, cols_, bits_out, at)
        at += received.shape[0] // width
        del received
    if at != total:
        raise RuntimeError(f"the edge exchange delivered {at} arcs to rank {world.rank}, {total} were announced")
    return sources, targets, out_weights, non_loops


def _compile_first(world, src, dst, bits, index, word, weights) -> None:
    """The exchange's and the block build's kernels for these dtypes, run on
    empty arrays by rank 0 first, then by the others (collective): ranks
    compiling one ``cache=True`` kernel at once race on numba's cache files
    (numba issue #4807); after rank 0, the others load what it wrote. A
    world of one never runs them (its block is built from the tuples), so the
    Graph500 warm-up's solo run on rank 0 does not compile them."""
    from . import _arcs

    def run():
        empty = np.zeros(0, dtype=index)
        no_weights = None if weights is None else np.zeros(0, dtype=weights.dtype)
        no_bits = None if bits is None else np.zeros(0, dtype=bits.dtype)
        table = np.zeros((_arcs.tasks(), world.size), dtype=np.int64)
        _arcs.count_arcs(src[:0], dst[:0], 0, 0, 1, 1, 1, world.size, table.shape[0])
        _arcs.pack_arcs(src[:0], dst[:0], bits, 0, 0, 1, 1, 1, table, np.zeros((0, 3), dtype=word))
        _arcs.unpack_arcs(np.zeros(0, dtype=word), 3, empty, empty.copy(), 0, no_bits, 0)
        (indptr, shifted, merged), _ = _orient(empty, empty.copy(), no_weights, 2, with_degree=True)
        _transpose(indptr, shifted, merged, 1, 1)

    if world.rank == 0:
        run()
    world.barrier()
    if world.rank != 0:
        run()


def _csr_numba():
    from ..graph import _csr_numba as builder

    return builder


def _orient(rows, cols, weights, n: int, with_degree: bool = False):
    """``((indptr, indices, weights), degree)``: the arcs ``rows[k] -> cols[k]``
    sorted by (row, column), parallel arcs merged to the smallest weight, by
    the parallel numba CSR builder, one orientation (:mod:`wavefront.graph._csr_numba`);
    ``degree`` the pre-merge row lengths (None unless ``with_degree``).

    The builder drops arcs whose row equals their column, which in a block's
    local ids would be arcs between different vertices. So the block is
    built over ``n_col + n_row`` ids, sources in ``[0, n_col)`` and targets in
    ``[n_col, n_col + n_row)``: no arc meets itself, the CSR's rows past
    ``n_col`` and the CSC's rows before it are empty."""
    degree = np.empty(n, dtype=np.int64) if with_degree else None
    return _csr_numba().compress_arcs(rows, cols, weights, n, degree), degree


def _transpose(indptr_all, shifted, weights, n_col: int, n_row: int):
    """The block CSC ``(in_indptr, in_indices, in_weights)`` from its merged
    CSR over the joined ids (targets ``shifted`` by ``n_col``), whose arc
    arrays are all that is left of the arcs: each arc again, its row (the
    source) spelled out (4 bytes an arc for the build); none merges twice."""
    rows = np.repeat(np.arange(n_col, dtype=shifted.dtype), np.diff(indptr_all[: n_col + 1]))
    (in_indptr_all, in_indices, in_weights), _ = _orient(shifted, rows, weights, n_col + n_row)
    del rows
    in_indptr = np.empty(max(n_col, n_row) + 1, dtype=np.int64)
    in_indptr[: n_row + 1] = in_indptr_all[n_col:]  # target rows start at n_col; none before
    in_indptr[n_row + 1 :] = in_indptr_all[-1]
    return in_indptr, in_indices, in_weights


def tuple_range(num_tuples: int, rank: int, size: int) -> tuple[int, int]:
    """This rank's slice ``[lo, hi)`` of ``num_tuples`` input tuples."""
    return num_tuples * rank // size, num_tuples * (rank + 1) // size


class EdgeSlice(NamedTuple):
    """One rank's input tuples: ``src``, ``dst`` (global ids, uint32 while
    ``n <= 2**32``, else int64), the index of its first tuple, and their
    float32 weights (None when not asked for)."""

    src: np.ndarray
    dst: np.ndarray
    first: int
    weights: np.ndarray | None


def kronecker_slice(scale: int, edgefactor: int = 16, seed: int = 1, grid: ProcessGrid | None = None,
                    weighted: bool = False, *, chunk: int = CHUNK_TUPLES) -> EdgeSlice:
    """This rank's slice of the Graph500 tuples (with their SSSP weights if
    ``weighted``), generated ``chunk`` tuples at a time into arrays of
    :func:`id_dtype`: 8 bytes a tuple (12 weighted) where the generator's
    int64 pair takes 16."""
    from ..generators.kronecker import kronecker_edges, plan

    grid = ProcessGrid() if grid is None else grid
    lo, hi = tuple_range(plan(scale, edgefactor, seed).num_tuples, grid.rank, grid.size)
    ids = id_dtype(1 << scale)
    src, dst = np.empty(hi - lo, dtype=ids), np.empty(hi - lo, dtype=ids)
    weights = np.empty(hi - lo, dtype=np.float32) if weighted else None
    for a, b in _chunks(hi - lo, int(chunk)):
        s, d, w = kronecker_edges(scale, edgefactor, seed, np, lo + a, lo + b)
        src[a:b], dst[a:b] = s, d
        if weighted:
            weights[a:b] = w
    return EdgeSlice(src, dst, lo, weights)


def kronecker(
    scale: int, edgefactor: int = 16, seed: int = 1, grid: ProcessGrid | None = None, weighted: bool = False
) -> DistributedGraph:
    """The Graph500 Kronecker graph, each rank generating its own tuples
    (collective); ``weighted`` keeps the tuples' float32 SSSP weights."""
    grid = ProcessGrid() if grid is None else grid
    edges = kronecker_slice(scale, edgefactor, seed, grid, weighted)
    return from_edges(edges.src, edges.dst, 1 << scale, grid, tuple_offset=edges.first, weights=edges.weights)
