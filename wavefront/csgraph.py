"""``scipy.sparse.csgraph``'s shortest paths and BFS on wavefront: change one import.

>>> from wavefront.csgraph import dijkstra   # instead of scipy.sparse.csgraph
>>> dijkstra([[0, 1], [0, 0]], indices=0).tolist()
[0.0, 1.0]

The implementation lives in :mod:`wavefront.interop.csgraph`; this module
only re-exports it under the short name.
"""
from .interop import csgraph as _implementation
from .interop.csgraph import (
    NULL_IDX,
    bellman_ford,
    breadth_first_order,
    breadth_first_tree,
    dijkstra,
    shortest_path,
)

__all__ = list(_implementation.__all__)


def __getattr__(name):
    # NegativeCycleError is SciPy's own class, loaded on first use.
    return getattr(_implementation, name)
