"""Search roots, per the Graph500 spec (DESIGN.md §2).

Roots are distinct vertices with degree >= 1 not counting self-loops (a
vertex whose only tuples are self-loops is isolated), drawn pseudo-randomly
from the benchmark seed, so a seed fixes the roots. A graph with fewer
eligible vertices than requested gets all of them, in random order.
"""
from __future__ import annotations

import numpy as np

from .._xp import array_module, to_numpy
from ..errors import VertexError

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


def check_count_and_seed(count, seed) -> tuple[int, int]:
    """``count`` (an integer >= 1) and ``seed`` (the generator's: an integer
    in [0, 2**64)) as ints, or a ValueError saying which is wrong."""
    from ..generators._hash import check_seed

    if isinstance(count, (bool, np.bool_)) or not isinstance(count, (int, np.integer)) or count < 1:
        raise ValueError(f"the number of roots must be an integer of at least 1, got {count!r}")
    return int(count), check_seed(seed)


def choose_roots(src, dst, n: int, count: int = 64, seed: int = 1) -> np.ndarray:
    """``count`` distinct eligible roots (fewer if fewer exist), NumPy int64.

    Deterministic for ``seed``; ``src``/``dst`` are the input tuples (NumPy or
    CuPy arrays).
    """
    count, seed = check_count_and_seed(count, seed)
    candidates = eligible_vertices(src, dst, n)
    rng = np.random.default_rng([seed, ROOT_STREAM])
    take = min(int(count), candidates.shape[0])
    return rng.choice(candidates, size=take, replace=False, shuffle=True).astype(np.int64)


class NoRootError(VertexError):
    """The generated graph has no vertex a non-self-loop tuple touches: no root to search from."""


def require_roots(roots: np.ndarray, scale: int, edgefactor: int, seed: int) -> np.ndarray:
    """``roots``, or NoRootError when there are none (every tuple a self-loop)."""
    if len(roots) == 0:
        raise NoRootError(
            f"the SCALE {scale} graph of edgefactor {edgefactor} and seed {seed} has no edges but "
            "self-loops, so no vertex to search from; choose another seed, or a larger SCALE or edgefactor"
        )
    return roots
