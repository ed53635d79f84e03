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

import numpy as np

from ..errors import VertexError
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
    (seconds of the exchange and the local build).
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
    def local_arcs(self) -> int:
        return int(self.indices.shape[0])

    def traversed_edges(self, reached_piece: np.ndarray) -> int:
        """Graph500's TEPS edge count for a search that reached ``reached_piece``
        (this rank's owned vertices; collective): input tuples inside the component."""
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


def from_edges(src, dst, n: int, grid: ProcessGrid | None = None, tuple_offset: int = 0) -> DistributedGraph:
    """Build the distributed graph from this rank's tuples ``src[k] -- dst[k]``
    (collective; undirected, unweighted). ``tuple_offset`` is the index of this
    rank's first tuple in the whole input list (validation names edges by it)."""
    from ..graph.build import compress

    grid = ProcessGrid() if grid is None else grid
    world = grid.world
    part = Partition.of(n, grid.rows, grid.cols)
    src = np.ascontiguousarray(src, dtype=np.int64)
    dst = np.ascontiguousarray(dst, dtype=np.int64)
    if src.shape != dst.shape or src.ndim != 1:
        raise ValueError(f"src and dst must be 1-D and equally long, got {src.shape} and {dst.shape}")
    _check_ids(world, src, dst, n)

    start = time.perf_counter()
    keep = src != dst
    u = np.concatenate((src[keep], dst[keep]))
    v = np.concatenate((dst[keep], src[keep]))
    buffer, counts = _exchange.pack(part.block_rank(u, v), world.size, u, v)
    del u, v
    received, _ = world.alltoallv(buffer, counts)
    del buffer
    exchange = time.perf_counter() - start

    start = time.perf_counter()
    ru, rv = _exchange.unpack(received, 2)
    col_lo, row_lo = part.col_block(grid.j)[0], part.row_block(grid.i)[0]
    u_local, v_local = ru - col_lo, rv - row_lo
    del received, ru, rv
    n_col, n_row = part.col_block_size, part.row_block_size
    span = max(n_col, n_row)
    # Arcs per source before deduplication: each tuple (s, d) gave s one arc,
    # so these sum to the input degree over the grid column.
    input_degree_col = np.bincount(u_local, minlength=n_col)[:n_col].astype(np.int64)
    indptr, indices, _ = compress(u_local, v_local, None, span)
    in_indptr, in_indices, _ = compress(v_local, u_local, None, span)
    del u_local, v_local
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
        input_degree=owned[: part.piece].copy(), degree=owned[part.piece :].copy(),
        src=src, dst=dst, tuple_offset=int(tuple_offset),
        timings={"exchange": exchange, "local_build": local_build, "degrees": degrees},
    )


def tuple_range(num_tuples: int, rank: int, size: int) -> tuple[int, int]:
    """This rank's slice ``[lo, hi)`` of ``num_tuples`` input tuples."""
    return num_tuples * rank // size, num_tuples * (rank + 1) // size


def kronecker_slice(scale: int, edgefactor: int = 16, seed: int = 1, grid: ProcessGrid | None = None):
    """This rank's slice of the Graph500 tuples: ``(src, dst, first tuple index)``."""
    from ..generators.kronecker import kronecker_edges, plan

    grid = ProcessGrid() if grid is None else grid
    lo, hi = tuple_range(plan(scale, edgefactor, seed).num_tuples, grid.rank, grid.size)
    src, dst, _weights = kronecker_edges(scale, edgefactor, seed, np, lo, hi)
    return src, dst, lo


def kronecker(
    scale: int, edgefactor: int = 16, seed: int = 1, grid: ProcessGrid | None = None
) -> DistributedGraph:
    """The Graph500 Kronecker graph, each rank generating its own tuples (collective)."""
    grid = ProcessGrid() if grid is None else grid
    src, dst, first = kronecker_slice(scale, edgefactor, seed, grid)
    return from_edges(src, dst, 1 << scale, grid, tuple_offset=first)
