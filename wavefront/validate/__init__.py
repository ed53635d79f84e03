"""Graph500 validators for BFS and SSSP results (DESIGN.md §2).

``validate_bfs(edges, result, n=..., nedge=...)`` and
``validate_sssp(edges, result, n=..., nedge=...)`` check a search against the
input edge tuples on whichever device the tuples live (NumPy or CuPy) and
raise :class:`~wavefront.errors.ValidationError` whose ``rule`` names the
broken rule; ``wavefront.validate.bfs`` and ``.sssp`` list the rules.
"""
from ._common import ValidationSummary
from .bfs import validate_bfs
from .sssp import validate_sssp

__all__ = ["ValidationSummary", "validate_bfs", "validate_sssp"]
