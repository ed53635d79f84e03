"""Split a graph's vertices into compact regions of near-equal size.

Used by the CUDA region SSSP (kernels/sssp_regions.cu), where each region
lives in one block's shared memory: a shortest path should cross as few
regions as possible, and the arcs between regions should be few. Roads have
coordinates in DIMACS files but not in every graph, so the split uses the
graph alone: recursive level-structure bisection. A part is ordered
breadth-first from a pseudo-peripheral vertex (the last vertex of a
breadth-first search from any vertex; arcs taken both ways), and cut at the
vertex where the wanted share of the part is reached. On a planar, grid-like
graph the cut follows one breadth-first level, a line across the part, so
the pieces come out compact (what coordinate bisection gives, measured in
``benchmarks/road_depth.py``).

:func:`region_order` returns the new order of the vertices (each region a
contiguous range) and the regions' starts; :func:`region_layout` adds the
renumbered graph and each region's boundary (the kernel sizes its inboxes by it).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


def _symmetric(indptr, indices, n: int):
    import scipy.sparse as sp

    a = sp.csr_matrix((np.ones(len(indices), dtype=np.int8), np.asarray(indices, dtype=np.int64),
                       np.asarray(indptr, dtype=np.int64)), shape=(n, n))
    s = (a + a.T).tocsr()
    s.sort_indices()
    return s


def region_order(indptr, indices, n: int, parts: int) -> tuple[np.ndarray, np.ndarray]:
    """(order, starts): ``order[i]`` is the old id of new vertex ``i``;
    region ``r`` is new vertices ``starts[r]:starts[r + 1]``. ``parts``
    regions (at most ``n``), sizes within one of each other; arcs are taken
    both ways. Host arrays in, host arrays out."""
    if parts < 1:
        raise ValueError(f"parts must be >= 1, got {parts!r}")
    parts = max(1, min(int(parts), int(n)))
    if n == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(1, dtype=np.int64)
    from ._regions_numba import bisect

    s = _symmetric(indptr, indices, n)
    return bisect(s.indptr.astype(np.int64), s.indices.astype(np.int64), int(n), parts)


@dataclass(frozen=True)
class RegionLayout:
    """A graph renumbered by regions, on the host.

    ``order[i]``: old id of new vertex ``i``; ``rank[v]``: new id of old
    vertex ``v``; ``starts``: region ``r`` is new ids ``starts[r]:starts[r+1]``;
    ``region_of[i]``: the region of new vertex ``i``; ``arc_order[j]``: the
    old arc position of new arc ``j`` (the renumbered graph's out-lists, in
    their old order); ``indptr``/``indices``: the renumbered CSR;
    ``boundary``: for each region, its vertices (new ids) with an in-arc from
    another region, region by region, ``boundary_start`` delimiting them."""

    order: np.ndarray
    rank: np.ndarray
    starts: np.ndarray
    region_of: np.ndarray
    indptr: np.ndarray
    indices: np.ndarray
    arc_order: np.ndarray
    boundary: np.ndarray
    boundary_start: np.ndarray

    @property
    def regions(self) -> int:
        return len(self.starts) - 1

    def most_vertices(self) -> int:
        return int(np.diff(self.starts).max(initial=0))

    def most_arcs(self) -> int:
        return int(np.diff(self.indptr[self.starts]).max(initial=0))

    def cut_arcs(self) -> int:
        """Arcs whose ends lie in different regions."""
        tails = np.repeat(self.region_of, np.diff(self.indptr))
        return int(np.count_nonzero(tails != self.region_of[self.indices]))


def region_layout(indptr, indices, n: int, parts: int) -> RegionLayout:
    """:func:`region_order`, the graph renumbered by it and each region's
    boundary (host arrays)."""
    indptr = np.asarray(indptr, dtype=np.int64)
    indices = np.asarray(indices)
    order, starts = region_order(indptr, indices, n, parts)
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n, dtype=np.int64)
    degree = np.diff(indptr)[order]
    new_indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(degree, out=new_indptr[1:])
    # New arc j of new vertex i is old arc indptr[order[i]] + (j - new_indptr[i]).
    arc_order = np.repeat(indptr[order] - new_indptr[:-1], degree) + np.arange(new_indptr[-1], dtype=np.int64)
    new_indices = rank[indices[arc_order]].astype(indices.dtype, copy=False)
    region_of = np.repeat(np.arange(len(starts) - 1, dtype=np.int32), np.diff(starts))
    heads = new_indices.astype(np.int64, copy=False)
    crossing = np.repeat(region_of, degree) != region_of[heads]
    boundary = np.unique(heads[crossing])  # sorted by new id, so grouped by region
    boundary_start = np.searchsorted(boundary, starts).astype(np.int64)
    return RegionLayout(order=order, rank=rank, starts=starts, region_of=region_of, indptr=new_indptr,
                        indices=new_indices, arc_order=arc_order, boundary=boundary.astype(indices.dtype),
                        boundary_start=boundary_start)
