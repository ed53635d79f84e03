"""The R x C process grid and the 2-D partition of the adjacency matrix (seed 000 §2.4, fig. 3).

Ranks are laid out row-major: world rank ``r`` is grid position
``(i, j) = divmod(r, C)``. Rank ``(i, j)`` talks to its grid row (ranks
``(i, *)``, ordered by ``j``) and its grid column (ranks ``(*, j)``, ordered
by ``i``); collectives stay inside one of them, which is what makes the
2-D layout scale (seed 000 §2.4).

Vertices are split into ``P = R * C`` equal *pieces* of ``piece`` vertices
(a multiple of 64, so a piece is whole words of every bitmap):

* rank ``r`` **owns** piece ``r``: its parents, levels and degrees;
* **row block** ``i`` is pieces ``i*C .. i*C + C-1``, the pieces owned by grid
  row ``i``: ``n_pad / R`` consecutive vertices;
* **column block** ``j`` is pieces ``j*R .. j*R + R-1``: ``n_pad / C``
  consecutive vertices;
* the arc ``u -> v`` is stored by rank ``(row block of v, column block of u)``,
  so rank ``(i, j)`` holds the block ``A_ij``: sources in column block ``j``,
  targets in row block ``i`` (:meth:`Partition.block_rank`).

A search level reads the frontier of column block ``j`` (the column's
pieces, allgathered in the grid column) and sends each discovered target to
its owner, a rank of the same grid row (all-to-all-v in the row). The
frontier pieces come out of that step owned in row order (rank ``r`` holds
piece ``r``) but are needed in column order (rank ``(i, j)`` contributes piece
``j*R + i`` to column ``j``'s allgather): the *transpose* of the vector
layout. It is one send and one receive per rank; on a square grid the two
partners are the same, the rank ``(j, i)`` holding the symmetric block, so
the transpose is a pairwise swap (seed 000 §2.4 after [7]; ranks on the
diagonal keep their piece).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .transport import Transport

WORD_BITS = 64


def grid_shape(size: int) -> tuple[int, int]:
    """The most square ``R x C = size`` with ``R <= C`` (1x2, 2x2, 2x4, 4x4, ...)."""
    if size < 1:
        raise ValueError(f"a process grid needs at least one rank, got {size}")
    rows = max(r for r in range(1, math.isqrt(size) + 1) if size % r == 0)
    return rows, size // rows


def gpu_grid_shape(size: int) -> tuple[int, int]:
    """The grid GPU ranks default to: one column, ``size x 1``.

    On one column a rank's row block is its own piece and its column block
    every vertex, so a block step writes the owner's results directly and
    nothing folds (:mod:`.gpu`); a wider grid's bottom-up step also scans,
    in vain, the in-arcs of every vertex whose parent lies in another
    column, and folds what it finds. SCALE 26 on two H100s over NVLink: 2x1
    3.99 ms a search, 1x2 11.20 ms (docs/decisions/distributed.md). The
    price is per-GPU arrays of the whole vertex range (the frontier bitmap,
    the block's out-row index), so past a few GPUs a graph that the most
    square grid holds may not fit one column: the GPUMemoryError then names
    the ``--grid`` to pass (:func:`.memory.grid_needed_for`).
    """
    if size < 1:
        raise ValueError(f"a process grid needs at least one rank, got {size}")
    return size, 1


def cpu_grid_shape(size: int, hosts: int) -> tuple[int, int]:
    """The grid CPU ranks default to: one column (``size x 1``) when every
    rank runs on one host, the most square (:func:`grid_shape`) across hosts.

    On one host the collectives are shared-memory copies and one column wins
    as it does on GPUs (no bottom-up scan of in-arcs whose parent lies in
    another column): 16 cores, SCALE 19, two passes, BFS median 5.6 / 6.6 ms
    on 4x1 against 9.5 / 10.0 on 2x2 and 15.4 / 15.6 on 1x4, 4.7 / 5.0 on 8x1
    against 10.3 / 10.3 on 2x4; SSSP 0.16-0.19 s against 0.18-0.19 and
    0.15 against 0.17 (docs/decisions/distributed.md). Across hosts the 2-D
    layout's smaller collectives (seed 000: they grow with sqrt(P)) are the
    point, so the most square grid stays.
    """
    if size < 1:
        raise ValueError(f"a process grid needs at least one rank, got {size}")
    return (size, 1) if hosts <= 1 else grid_shape(size)


def parse_grid(text: str) -> tuple[int, int]:
    """``"RxC"`` (or ``R*C``, ``R,C``) as two positive integers."""
    for sep in ("x", "X", "*", ","):
        if sep in text:
            left, _, right = text.partition(sep)
            if left.strip().isdigit() and right.strip().isdigit():
                rows, cols = int(left), int(right)
                if rows >= 1 and cols >= 1:
                    return rows, cols
            break
    raise ValueError(f"a process grid is written RxC with positive integers (e.g. 2x2), got {text!r}")


class ProcessGrid:
    """``R x C`` ranks of ``world``, with their row and column sub-groups.

    ``ProcessGrid()`` takes the MPI world of ``mpirun`` (or a world of one
    process without it) and the most square shape; ``ProcessGrid(R, C)``
    asks for a shape, which must multiply to the world's size. With more
    than one rank it also sets numba's thread count to the rank's share of
    its node's cores (:func:`.launch.use_threads`; ``threads`` holds it), as
    every rank would otherwise start a thread per core; ``set_threads=False``
    leaves numba alone.
    """

    def __init__(self, rows: int | None = None, cols: int | None = None, world: Transport | None = None,
                 set_threads: bool = True):
        if world is None:
            from .launch import world as launch_world

            world = launch_world()
        size = world.size
        for name, value in (("rows", rows), ("cols", cols)):  # -1 x -1 would multiply to a world of one
            if value is not None and (isinstance(value, bool) or not isinstance(value, (int, np.integer))
                                      or value < 1):
                raise ValueError(f"a process grid's {name} must be a positive integer, got {value!r}")
        if rows is None and cols is None:
            rows, cols = grid_shape(size)
        elif rows is None:
            rows = size // cols if cols and size % cols == 0 else 0
        elif cols is None:
            cols = size // rows if rows and size % rows == 0 else 0
        if not rows or not cols or rows * cols != size:
            raise ValueError(
                f"a {rows}x{cols} process grid needs {rows * cols if rows and cols else '?'} ranks, "
                f"but the world has {size}; start mpirun with -n R*C or choose R and C that multiply to {size}"
            )
        self.world = world
        self.rows, self.cols = int(rows), int(cols)
        self.rank = world.rank
        self.size = size
        self.i, self.j = divmod(self.rank, self.cols)
        self.row = world.split(color=self.i, key=self.j)
        self.col = world.split(color=self.j, key=self.i)
        self.derived: dict = {}  # per-grid resources built on first use (device transports)
        self.threads = None
        if set_threads and size > 1:
            from .launch import use_threads

            self.threads = use_threads(world)

    # -- the vector transpose ----------------------------------------------
    def column_holder(self, piece: int) -> int:
        """The rank that contributes ``piece`` to its column's allgather."""
        return (piece % self.rows) * self.cols + piece // self.rows

    @property
    def transpose_dest(self) -> int:
        """Where this rank's own piece goes for the column layout."""
        return self.column_holder(self.rank)

    @property
    def transpose_source(self) -> int:
        """Whose piece this rank holds in the column layout: piece ``j*R + i``'s owner."""
        return self.j * self.rows + self.i

    @property
    def symmetric_partner(self) -> int | None:
        """Rank ``(j, i)`` on a square grid (the transpose partner both ways), else None."""
        return self.j * self.cols + self.i if self.rows == self.cols else None

    def transpose(self, owned: np.ndarray) -> np.ndarray:
        """Row layout -> column layout: send this rank's piece, receive piece ``j*R + i``."""
        return self.world.sendrecv(owned, self.transpose_dest, self.transpose_source)

    def transpose_back(self, held: np.ndarray) -> np.ndarray:
        """Column layout -> row layout (the inverse permutation of :meth:`transpose`)."""
        return self.world.sendrecv(held, self.transpose_source, self.transpose_dest)

    def __repr__(self) -> str:
        return f"ProcessGrid({self.rows}x{self.cols}, rank {self.rank} at ({self.i}, {self.j}))"


@dataclass(frozen=True)
class Partition:
    """Which vertices each rank owns and which arcs it stores (see the module docstring)."""

    n: int
    rows: int
    cols: int
    piece: int  # vertices per piece, a multiple of 64

    @classmethod
    def of(cls, n: int, rows: int, cols: int) -> Partition:
        size = rows * cols
        per_rank = -(-max(int(n), 1) // size)
        piece = -(-per_rank // WORD_BITS) * WORD_BITS
        return cls(int(n), int(rows), int(cols), piece)

    @property
    def size(self) -> int:
        return self.rows * self.cols

    @property
    def n_pad(self) -> int:
        """``P * piece >= n``: the vertex range the bitmaps cover (ids >= n never appear)."""
        return self.size * self.piece

    @property
    def row_block_size(self) -> int:
        return self.cols * self.piece

    @property
    def col_block_size(self) -> int:
        return self.rows * self.piece

    def owned(self, rank: int) -> tuple[int, int]:
        """The vertex range ``[lo, hi)`` of piece ``rank`` (may pass ``n`` on the last ranks)."""
        return rank * self.piece, (rank + 1) * self.piece

    def row_block(self, i: int) -> tuple[int, int]:
        return i * self.row_block_size, (i + 1) * self.row_block_size

    def col_block(self, j: int) -> tuple[int, int]:
        return j * self.col_block_size, (j + 1) * self.col_block_size

    def owner(self, v):
        """Owning rank of vertex ids ``v`` (int or NumPy array)."""
        return v // self.piece

    def block_rank(self, u, v):
        """The rank storing the arc ``u -> v`` (ints or NumPy arrays)."""
        return (v // self.row_block_size) * self.cols + u // self.col_block_size
