"""2-D grid graphs: ``rows x cols`` vertices, each joined to its 4 neighbours.

Vertex ``(r, c)`` has id ``r * cols + c``. Optional random weights are
counter-based (:mod:`._hash`), one draw per edge tuple, so a grid is a pure
function of its arguments. A directed grid has arcs both ways, each with its
own weight (an asymmetric test case for directed SSSP).
"""
from __future__ import annotations

import numpy as np

from .._xp import check_device
from ._hash import below, check_seed, hash_counters, stream_key, unit_float32

WEIGHT_CHOICES = (None, "uniform", "integer")
_SALT = 0x47524944


def _check_size(name: str, value) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    if value < 1:
        raise ValueError(f"{name} must be at least 1, got {value}")
    return int(value)


def grid(rows, cols, weights=None, seed=1, directed=False, max_weight=100, device="cpu"):
    """A 4-neighbour grid graph.

    ``weights``: None (unweighted), ``"uniform"`` (float32 uniform in [0, 1))
    or ``"integer"`` (int64 uniform in ``[1, max_weight]``).
    Undirected: ``m = 2 * (rows*(cols-1) + (rows-1)*cols)`` stored arcs; a
    directed grid stores the same number of arcs.
    """
    from ..graph.build import from_edges

    rows, cols = _check_size("rows", rows), _check_size("cols", cols)
    if weights not in WEIGHT_CHOICES:
        raise ValueError(f"weights must be one of {WEIGHT_CHOICES}, got {weights!r}")
    max_weight = _check_size("max_weight", max_weight)
    check_device(device)
    ids = np.arange(rows * cols, dtype=np.int64).reshape(rows, cols)
    src = np.concatenate([ids[:, :-1].ravel(), ids[:-1, :].ravel()])
    dst = np.concatenate([ids[:, 1:].ravel(), ids[1:, :].ravel()])
    if directed:
        src, dst = np.concatenate([src, dst]), np.concatenate([dst, src])
    w = None
    if weights is not None:
        h = hash_counters(np.arange(src.shape[0], dtype=np.uint64), stream_key(check_seed(seed), _SALT))
        w = unit_float32(h) if weights == "uniform" else below(h, max_weight) + 1
    return from_edges(src, dst, w, n=rows * cols, directed=directed).to(device)
