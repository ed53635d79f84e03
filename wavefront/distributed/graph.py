"""One rank's share of an undirected graph partitioned 2-D (Graph500 kernel 1, distributed).

:func:`from_edges` is collective: every rank passes its own slice of the
input tuples (any slice; together they are the whole list), and gets its
:class:`DistributedGraph`:

1. self-loops are dropped and each tuple becomes the two arcs ``s -> d`` and
   ``d -> s``;
2. each arc goes to the rank storing its block (:meth:`Partition.block_rank`)
   in one all-to-all-v over the world: the *edge exchange*, part of
   construction time;
3. the rank sorts and deduplicates its block twice, by source (CSR, for the
   top-down step) and by target (CSC, for the bottom-up step), with the
   single-process builder's :func:`~wavefront.graph.build.compress`;
4. per-vertex degrees (deduplicated, for the direction policy's ``m_f``) and
   input degrees (tuples, duplicates included, for Graph500's TEPS count) are
   summed over each grid column and handed to the vertices' owners.

With weights (SSSP), each arc carries its tuple's weight through the same
exchange as its bit pattern (:func:`._exchange.to_bits`: no rounding on the
way), and parallel arcs keep the smallest weight, as the single-process
builder merges them, so both see the same weighted graph.

Block indices are local: sources count from the column block's first vertex,
targets from the row block's. Both offset arrays are ``max(n_row, n_col) + 1``
long, so the CPU backend's steps, which look up a discovered target's degree
in ``indptr``, stay in bounds on a non-square grid (the value they read there
is not used).

:func:`kronecker` generates each rank's slice of the Graph500 tuples with the
counter-based generator (tuple ``e`` depends on ``e`` and the seed alone), so
the graph is the same for any number of ranks.
"""
from __future__ import annotations

import time
from typing import NamedTuple

import numpy as np

from ..errors import VertexError, WeightError
from . import _exchange
from .grid import Partition, ProcessGrid


class DistributedGraph:
    """The block ``A_ij`` of rank ``(i, j)``, the vertices it owns, and its input tuples.

    Attributes: ``grid``, ``part`` (:class:`~.grid.Partition`), ``n``, ``m``
    (stored arcs of the whole graph, an edge counting twice),
    ``num_input_edges`` (tuples without self-loops, whole graph);
    ``indptr``/``indices`` (block CSR by source) and
    ``in_indptr``/``in_indices`` (block CSC by target), local ids, int32
    indices; ``degree``/``input_degree`` (int64, this rank's piece);
    ``src``/``dst`` (this rank's input tuples, global ids, kept for
    validation) starting at input tuple ``tuple_offset``; ``timings``
    (seconds of the exchange and the local build); ``exchange_bytes`` (what
    this rank sent in the edge exchange). Weighted graphs add ``weights``
    (aligned with the block CSR), ``in_weights`` (with the block CSC) and
    ``input_weights`` (this rank's tuples'); unweighted ones hold None there.
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
    lo = int(min(src.min(), dst.min())) if src.size else 0
    hi = int(max(src.max(), dst.max())) if src.size else 0
    extremes = world.allreduce(np.array([-lo, hi], dtype=np.int64), op="max")
    lo, hi = -int(extremes[0]), int(extremes[1])
    if lo < 0 or hi >= n:
        raise VertexError(f"the edge tuples hold vertex ids in [{lo}, {hi}], outside [0, {n})")


def _check_weights(world, src, weights):
    """The weights as a kernel dtype; every rank raises the same WeightError
    if any rank holds a negative, NaN or infinite one."""
    from ..graph.build import normalize_weights

    weights = normalize_weights(np.ascontiguousarray(weights), np)
    if weights.shape != src.shape:
        raise ValueError(f"weights has shape {weights.shape} for {src.shape[0]} edges")
    bad = (weights < 0) if weights.dtype.kind != "f" else ~(weights >= 0) | ~np.isfinite(weights)
    mine = int(np.argmax(bad)) if bool(bad.any()) else -1
    witnesses = world.allgather_object(None if mine < 0 else (mine, weights[mine].item()))
    for rank, witness in enumerate(witnesses):
        if witness is not None:
            k, w = witness
            raise WeightError(
                f"edge weights must be finite and non-negative: rank {rank}'s input edge {k} has weight {w}"
            )
    dtypes = world.allgather_object(weights.dtype.str)
    if len(set(dtypes)) > 1:
        raise ValueError(f"every rank must pass weights of one dtype, got {sorted(set(dtypes))}")
    return weights


def from_edges(src, dst, n: int, grid: ProcessGrid | None = None, tuple_offset: int = 0,
               weights=None) -> DistributedGraph:
    """Build the distributed graph from this rank's tuples ``src[k] -- dst[k]``
    (collective; undirected), weighted by ``weights[k]`` if given (SSSP).
    ``tuple_offset`` is the index of this rank's first tuple in the whole
    input list (validation names edges by it)."""
    from ..graph.build import compress

    grid = ProcessGrid() if grid is None else grid
    world = grid.world
    part = Partition.of(n, grid.rows, grid.cols)
    src = np.ascontiguousarray(src, dtype=np.int64)
    dst = np.ascontiguousarray(dst, dtype=np.int64)
    if src.shape != dst.shape or src.ndim != 1:
        raise ValueError(f"src and dst must be 1-D and equally long, got {src.shape} and {dst.shape}")
    _check_ids(world, src, dst, n)
    if weights is not None:
        weights = _check_weights(world, src, weights)

    start = time.perf_counter()
    sent_before = world.bytes_out
    keep = src != dst
    u = np.concatenate((src[keep], dst[keep]))
    v = np.concatenate((dst[keep], src[keep]))
    columns = (u, v)
    if weights is not None:
        bits = _exchange.to_bits(weights[keep])
        columns = (u, v, np.concatenate((bits, bits)))
        del bits
    buffer, counts = _exchange.pack(part.block_rank(u, v), world.size, *columns)
    del u, v, columns
    received, _ = world.alltoallv(buffer, counts)
    del buffer
    exchange = time.perf_counter() - start
    exchange_bytes = world.bytes_out - sent_before

    start = time.perf_counter()
    width = 2 if weights is None else 3
    parts = _exchange.unpack(received, width)
    col_lo, row_lo = part.col_block(grid.j)[0], part.row_block(grid.i)[0]
    u_local, v_local = parts[0] - col_lo, parts[1] - row_lo
    w_local = None if weights is None else _exchange.from_bits(parts[2], weights.dtype)
    del received, parts
    n_col, n_row = part.col_block_size, part.row_block_size
    span = max(n_col, n_row)
    # Arcs per source before deduplication: each tuple (s, d) gave s one arc,
    # so these sum to the input degree over the grid column.
    input_degree_col = np.bincount(u_local, minlength=n_col)[:n_col].astype(np.int64)
    indptr, indices, block_weights = compress(u_local, v_local, w_local, span)
    in_indptr, in_indices, block_in_weights = compress(v_local, u_local, w_local, span)
    del u_local, v_local, w_local
    local_build = time.perf_counter() - start

    start = time.perf_counter()
    degree_col = np.diff(indptr[: n_col + 1])
    both = grid.col.allreduce(np.concatenate((input_degree_col, degree_col)))
    held = slice(grid.i * part.piece, (grid.i + 1) * part.piece)  # piece j*R + i of column block j
    owned = grid.transpose_back(np.concatenate((both[:n_col][held], both[n_col:][held])))
    totals = world.allreduce(np.array([indices.shape[0], int(keep.sum())], dtype=np.int64))
    degrees = time.perf_counter() - start

    return DistributedGraph(
        grid, part,
        m=int(totals[0]), num_input_edges=int(totals[1]),
        indptr=indptr, indices=indices, in_indptr=in_indptr, in_indices=in_indices,
        weights=block_weights, in_weights=block_in_weights, input_weights=weights,
        input_degree=owned[: part.piece].copy(), degree=owned[part.piece :].copy(),
        src=src, dst=dst, tuple_offset=int(tuple_offset), exchange_bytes=int(exchange_bytes),
        timings={"exchange": exchange, "local_build": local_build, "degrees": degrees},
    )


def tuple_range(num_tuples: int, rank: int, size: int) -> tuple[int, int]:
    """This rank's slice ``[lo, hi)`` of ``num_tuples`` input tuples."""
    return num_tuples * rank // size, num_tuples * (rank + 1) // size


class EdgeSlice(NamedTuple):
    """One rank's input tuples: ``src``, ``dst``, the index of its first tuple,
    and their float32 weights (None when not asked for)."""

    src: np.ndarray
    dst: np.ndarray
    first: int
    weights: np.ndarray | None


def kronecker_slice(scale: int, edgefactor: int = 16, seed: int = 1, grid: ProcessGrid | None = None,
                    weighted: bool = False) -> EdgeSlice:
    """This rank's slice of the Graph500 tuples (with their SSSP weights if ``weighted``)."""
    from ..generators.kronecker import kronecker_edges, plan

    grid = ProcessGrid() if grid is None else grid
    lo, hi = tuple_range(plan(scale, edgefactor, seed).num_tuples, grid.rank, grid.size)
    src, dst, weights = kronecker_edges(scale, edgefactor, seed, np, lo, hi)
    return EdgeSlice(src, dst, lo, weights if weighted else None)


def kronecker(
    scale: int, edgefactor: int = 16, seed: int = 1, grid: ProcessGrid | None = None, weighted: bool = False
) -> DistributedGraph:
    """The Graph500 Kronecker graph, each rank generating its own tuples
    (collective); ``weighted`` keeps the tuples' float32 SSSP weights."""
    grid = ProcessGrid() if grid is None else grid
    edges = kronecker_slice(scale, edgefactor, seed, grid, weighted)
    return from_edges(edges.src, edges.dst, 1 << scale, grid, tuple_offset=edges.first, weights=edges.weights)
