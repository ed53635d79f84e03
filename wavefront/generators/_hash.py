"""Counter-based random numbers shared by the generators.

Every random number is a pure function of ``(key, counter)``: the splitmix64
output for position ``counter`` of the stream started at ``key``, i.e. the
Stafford "Mix13" finalizer of ``key + counter * GOLDEN_GAMMA`` (mod 2**64).
Any draw can therefore be computed from its index alone (chunked and
per-rank generation agree), and because only uint64 add, multiply, xor and
shift are used, NumPy, CuPy and numba give bit-identical values.

The array functions work on uint64 NumPy or CuPy arrays alike; the ``*_int``
functions are plain-Python twins for deriving per-seed constants.
"""
from __future__ import annotations

import numpy as np

MASK64 = (1 << 64) - 1
GOLDEN_GAMMA = 0x9E3779B97F4A7C15
MIX_MULTIPLIER_1 = 0xBF58476D1CE4E5B9
MIX_MULTIPLIER_2 = 0x94D049BB133111EB

_GAMMA = np.uint64(GOLDEN_GAMMA)
_M1 = np.uint64(MIX_MULTIPLIER_1)
_M2 = np.uint64(MIX_MULTIPLIER_2)
_S30, _S27, _S31 = np.uint64(30), np.uint64(27), np.uint64(31)
_S40 = np.uint64(40)
# 2**-24: a 24-bit integer times this is an exact float32 in [0, 1).
FLOAT32_UNIT = np.float32(1.0 / (1 << 24))


def check_seed(seed) -> int:
    """The seed as a Python int in [0, 2**64), or a ValueError saying why not."""
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
        raise ValueError(f"seed must be an integer, got {seed!r}")
    seed = int(seed)
    if not 0 <= seed <= MASK64:
        raise ValueError(f"seed must lie in [0, 2**64), got {seed}")
    return seed


def mix64_int(x: int) -> int:
    """Mix13 finalizer on a Python int (the reference for :func:`mix64`)."""
    x &= MASK64
    x = ((x ^ (x >> 30)) * MIX_MULTIPLIER_1) & MASK64
    x = ((x ^ (x >> 27)) * MIX_MULTIPLIER_2) & MASK64
    return x ^ (x >> 31)


def stream_key(seed: int, salt: int) -> int:
    """Key of an independent stream for ``(seed, salt)``; salts name the use."""
    return mix64_int(mix64_int(seed) ^ ((salt * GOLDEN_GAMMA) & MASK64))


def hash_counters(counters, key: int):
    """splitmix64 output at each position in ``counters`` (uint64, consumed in place)."""
    x = counters
    x *= _GAMMA
    x += np.uint64(key)
    x ^= x >> _S30
    x *= _M1
    x ^= x >> _S27
    x *= _M2
    x ^= x >> _S31
    return x


def unit_float32(h):
    """Top 24 bits of each hash as a float32 uniform on the grid k/2**24 in [0, 1)."""
    return (h >> _S40).astype(np.float32) * FLOAT32_UNIT


def below(h, bound: int):
    """``h mod bound`` (int64): uniform in [0, bound) up to a bias below bound/2**64."""
    return (h % np.uint64(bound)).astype(np.int64)
