"""Search roots, per the Graph500 spec (DESIGN.md §2).

Roots are distinct vertices with degree >= 1 not counting self-loops (a
vertex whose only tuples are self-loops is isolated), drawn pseudo-randomly
from the benchmark seed, so a seed fixes the roots. A graph with fewer
eligible vertices than requested gets all of them, in random order.
"""
from __future__ import annotations

import numpy as np

from .._xp import array_module, to_numpy

# Keeps the root stream independent of the generator's streams for one seed.
ROOT_STREAM = 0x524F4F54
CHUNK_EDGES = 1 << 24  # bounds the temporaries on a GPU at large SCALE


def eligible_vertices(src, dst, n: int) -> np.ndarray:
    """Sorted ids (NumPy int64) of vertices touched by a non-self-loop tuple."""
    xp = array_module(src, dst)
    touched = xp.zeros(int(n), dtype=bool)
    for lo in range(0, src.shape[0], CHUNK_EDGES):
        s, d = src[lo : lo + CHUNK_EDGES], dst[lo : lo + CHUNK_EDGES]
        proper = s != d
        touched[s[proper]] = True
        touched[d[proper]] = True
    return to_numpy(xp.flatnonzero(touched)).astype(np.int64)


def choose_roots(src, dst, n: int, count: int = 64, seed: int = 1) -> np.ndarray:
    """``count`` distinct eligible roots (fewer if fewer exist), NumPy int64.

    Deterministic for ``seed``; ``src``/``dst`` are the input tuples (NumPy or
    CuPy arrays).
    """
    if count < 1:
        raise ValueError(f"the number of roots must be at least 1, got {count}")
    candidates = eligible_vertices(src, dst, n)
    rng = np.random.default_rng([int(seed), ROOT_STREAM])
    take = min(int(count), candidates.shape[0])
    return rng.choice(candidates, size=take, replace=False, shuffle=True).astype(np.int64)
