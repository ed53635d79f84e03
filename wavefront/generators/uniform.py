"""Uniform random (Erdős–Rényi-like) graphs: ``m`` tuples with independent,
uniformly drawn endpoints.

Counter-based like the Kronecker generator (:mod:`._hash`): tuple ``i`` uses
counters ``3i`` (source), ``3i+1`` (target) and ``3i+2`` (weight), so the
graph is a pure function of ``(n, m, seed)`` and the same from NumPy or CuPy.
Endpoints are ``hash mod n`` (bias below ``n / 2**64``); weights are float32
uniforms on the 24-bit grid in [0, 1).
"""
from __future__ import annotations

import numpy as np

from .._xp import check_device
from ._hash import below, check_seed, hash_counters, stream_key, unit_float32

_SALT = 0x554E4946
_DRAWS_PER_TUPLE = 3


def _positive_int(name: str, value, minimum: int) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be at least {minimum}, got {value}")
    return int(value)


def uniform_random(n, m, seed=1, directed=False, weighted=False, device="cpu"):
    """A graph on ``n`` vertices from ``m`` uniformly random edge tuples.

    Self-loops are dropped and repeated tuples merged by the builder (keeping
    the smallest weight), so the graph may hold slightly fewer than ``m``
    edges; ``Graph.num_input_edges`` counts the tuples that were not loops.
    """
    from ..graph.build import from_edges

    n = _positive_int("n", n, 1)
    m = _positive_int("m", m, 0)
    key = stream_key(check_seed(seed), _SALT)
    check_device(device)
    if device == "cuda":
        from ..backends import require_cuda

        require_cuda()
        import cupy as xp
    else:
        xp = np
    base = xp.arange(m, dtype=np.uint64)
    base *= np.uint64(_DRAWS_PER_TUPLE)
    src = below(hash_counters(base.copy(), key), n)
    dst = below(hash_counters(base + np.uint64(1), key), n)
    weights = None
    if weighted:
        weights = unit_float32(hash_counters(base + np.uint64(2), key))
    return from_edges(src, dst, weights, n=n, directed=directed)
