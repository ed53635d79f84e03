"""wavefront: BFS, SSSP and the Graph500 benchmark, on CPUs and GPUs.

>>> import wavefront as wf
>>> g = wf.Graph.from_edges([0, 1, 2], [1, 2, 3])
>>> wf.bfs(g, 0).levels.tolist()
[0, 1, 2, 3]

Importing wavefront imports neither numba nor CuPy; backends load on first use.
"""
from __future__ import annotations

from . import errors
from .bfs import bfs
from .errors import (
    BackendUnavailableError,
    GPUMemoryError,
    GraphFormatError,
    UnknownMethodError,
    ValidationError,
    VertexError,
    WavefrontError,
    WeightError,
)
from .graph import Graph, from_edges
from .registry import methods, register
from .results import BFSResult, SSSPResult, Trace, path
from .sssp import sssp

__version__ = "0.1.0"

_LAZY = {
    "read_graph": ("wavefront.io", "read_graph"),
    "write_graph": ("wavefront.io", "write_graph"),
    "read_coordinates": ("wavefront.io", "read_coordinates"),
    "kronecker": ("wavefront.generators", "kronecker"),
    "kronecker_edges": ("wavefront.generators", "kronecker_edges"),
    "kronecker_chunks": ("wavefront.generators", "kronecker_chunks"),
    "grid": ("wavefront.generators", "grid"),
    "uniform_random": ("wavefront.generators", "uniform_random"),
    "road_like": ("wavefront.generators", "road_like"),
}


def __getattr__(name):
    if name in _LAZY:
        import importlib

        module, attr = _LAZY[name]
        return getattr(importlib.import_module(module), attr)
    raise AttributeError(f"module 'wavefront' has no attribute {name!r}")


__all__ = [
    "Graph", "from_edges", "bfs", "sssp", "path", "methods", "register",
    "BFSResult", "SSSPResult", "Trace", "errors", "WavefrontError",
    "GraphFormatError", "VertexError", "WeightError", "UnknownMethodError",
    "BackendUnavailableError", "GPUMemoryError", "ValidationError",
    *_LAZY,
]
