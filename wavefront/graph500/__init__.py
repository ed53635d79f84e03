"""The Graph500 benchmark: driver, statistics, reference-format report, roots, energy.

``run_graph500(scale, ...)`` (:mod:`.driver`) runs generation, timed
construction, searches from 64 roots with validation, and prints the
reference's statistics block (:mod:`.report`, :mod:`.stats`). The command
line ``wavefront graph500`` is :mod:`.cli`.
"""
from .driver import run_graph500
from .report import Graph500Report, KernelRun, ValidationFailure
from .roots import choose_roots
from .stats import Statistics, TEPSStatistics, statistics, teps_statistics

__all__ = [
    "run_graph500", "Graph500Report", "KernelRun", "ValidationFailure", "choose_roots",
    "Statistics", "TEPSStatistics", "statistics", "teps_statistics",
]
