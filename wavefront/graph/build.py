"""Builders: edge arrays -> :class:`Graph` (Graph500 kernel 1).

Written against the array API shared by NumPy and CuPy, so the same code
builds a graph on the host or on the GPU: the arrays' module decides. The
array work is in :mod:`wavefront.graph._csr`, below the container, so that
``Graph.from_edges`` can use it without importing this module.
"""
from __future__ import annotations

from . import _csr
from ._csr import RELABEL_CHOICES, normalize_weights
from .container import Graph

__all__ = ["from_edges", "compress", "normalize_weights", "RELABEL_CHOICES"]

INT32_LIMIT = _csr.INT32_LIMIT


def from_edges(
    src,
    dst,
    weights=None,
    n: int | None = None,
    directed: bool = False,
    *,
    relabel: str | None = None,
) -> Graph:
    """Build a CSR graph from edge arrays (NumPy or CuPy; the result lives there).

    * ``src[i] -> dst[i]`` is one input edge tuple, with ``weights[i]`` if given.
    * ``n`` defaults to ``max(src, dst) + 1``; ids must lie in ``[0, n)``.
    * Undirected graphs (the default) are symmetrized. Self-loops are dropped
      and parallel arcs merged keeping the smallest weight; the input tuple
      counts that Graph500 needs for TEPS are remembered first.
    * ``relabel="degree"`` renumbers vertices by decreasing degree (seed 002);
      ``Graph.labels`` keeps the map back and results use the caller's ids.
    """
    graph = Graph(**_csr.csr_arrays(src, dst, weights, n, directed, relabel=relabel))
    graph.weight_problem = _csr.describe_bad_weight(src, dst, weights)
    return graph


def compress(rows, cols, weights, n: int):
    """Sort arcs by (row, col), merge duplicates (min weight), return CSR arrays."""
    return _csr.compress(rows, cols, weights, n)
