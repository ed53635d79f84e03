"""Graph container and builders (edges -> CSR/CSC), on the host or the GPU."""
from .build import from_edges
from .container import Graph, index_dtype

__all__ = ["Graph", "from_edges", "index_dtype"]
