"""Adapters that let code written for other graph libraries run on wavefront.

* :mod:`wavefront.interop.csgraph` -- ``scipy.sparse.csgraph``'s shortest
  paths and breadth-first search (also importable as ``wavefront.csgraph``).
* :mod:`wavefront.interop.networkx` -- the NetworkX backend ``"wavefront"``.

Nothing is imported here: each adapter loads its own dependencies on use.
"""
