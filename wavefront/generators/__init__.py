"""Graph generators: Graph500 Kronecker, 2-D grids, road-like maps, uniform random.

Importing this package loads only NumPy; the Kronecker generator's numba fast
path is compiled on first use.
"""
from __future__ import annotations

from .grid import grid
from .kronecker import kronecker, kronecker_chunks, kronecker_edges
from .road import road_like
from .uniform import uniform_random

__all__ = ["kronecker_edges", "kronecker_chunks", "kronecker", "grid", "road_like", "uniform_random"]
