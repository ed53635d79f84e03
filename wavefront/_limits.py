"""Search limits, checked the same way by every backend: a BFS
``depth_limit`` and an SSSP ``cutoff``.

A limit past anything a search can reach is no limit: ``float("inf")``, and
a depth of ``n`` or more (no vertex lies deeper than ``n - 1``), so a huge
value never reaches a kernel's fixed-width integers. This module imports
NumPy only, so backends and entry points can share it without a cycle.
"""
from __future__ import annotations

import math

import numpy as np


def depth_limit_levels(depth_limit, n: int) -> int | None:
    """``depth_limit`` as the deepest level a search on ``n`` vertices may
    reach: None for no limit (None or +inf), else an int of at most ``n``.
    Raises ValueError for a negative, fractional or NaN limit."""
    if depth_limit is None:
        return None
    try:
        if float(depth_limit) == math.inf:
            return None
        whole = int(depth_limit)
    except (TypeError, ValueError, OverflowError):
        whole = None
    if whole is None or whole != depth_limit or whole < 0:
        raise ValueError(f"depth_limit must be a non-negative integer (or None for no limit), got {depth_limit!r}")
    return min(whole, n)


def checked_cutoff(cutoff) -> float | None:
    """``cutoff`` as a float (None: no cutoff); raises ValueError for NaN or a
    negative value."""
    if cutoff is None:
        return None
    value = float(cutoff)
    if math.isnan(value) or value < 0:
        raise ValueError(f"cutoff must be a non-negative number, got {cutoff!r}")
    return value


def integer_cutoff(value: float, infinity: int) -> np.int64:
    """The largest integer distance at most ``value`` (a checked cutoff) that
    stays below ``infinity``, the search's unreached value: ``infinity``
    itself for +inf, and never a value that wraps around in int64."""
    if not math.isfinite(value):
        return np.int64(infinity)
    return np.int64(min(math.floor(value), int(infinity) - 1))
