"""numba fast path of the Graph500 Kronecker generator (CPU).

The same integer arithmetic as the array-API path in :mod:`.kronecker`, one
tuple per loop iteration instead of one level per array pass, so it is
bit-identical (tests/test_generators.py checks it). Imported only when used.
Every constant is a uint64: numba would turn uint64-with-int64 into float64.
"""
from __future__ import annotations

import numpy as np
from numba import njit, prange

from ._hash import GOLDEN_GAMMA, MIX_MULTIPLIER_1, MIX_MULTIPLIER_2

_GAMMA = np.uint64(GOLDEN_GAMMA)
_M1 = np.uint64(MIX_MULTIPLIER_1)
_M2 = np.uint64(MIX_MULTIPLIER_2)
_LOW32 = np.uint64(0xFFFFFFFF)
_ONE = np.uint64(1)
_UNIT = np.float32(1.0 / (1 << 24))


@njit(cache=True, inline="always")
def _hash(counter, key):
    x = counter * _GAMMA + key
    x = (x ^ (x >> np.uint64(30))) * _M1
    x = (x ^ (x >> np.uint64(27))) * _M2
    return x ^ (x >> np.uint64(31))


@njit(cache=True, inline="always")
def _reverse_bits(v, scale):
    v = ((v >> np.uint64(1)) & np.uint64(0x5555555555555555)) | ((v & np.uint64(0x5555555555555555)) << np.uint64(1))
    v = ((v >> np.uint64(2)) & np.uint64(0x3333333333333333)) | ((v & np.uint64(0x3333333333333333)) << np.uint64(2))
    v = ((v >> np.uint64(4)) & np.uint64(0x0F0F0F0F0F0F0F0F)) | ((v & np.uint64(0x0F0F0F0F0F0F0F0F)) << np.uint64(4))
    v = ((v >> np.uint64(8)) & np.uint64(0x00FF00FF00FF00FF)) | ((v & np.uint64(0x00FF00FF00FF00FF)) << np.uint64(8))
    v = ((v >> np.uint64(16)) & np.uint64(0x0000FFFF0000FFFF)) | ((v & np.uint64(0x0000FFFF0000FFFF)) << np.uint64(16))
    v = (v >> np.uint64(32)) | (v << np.uint64(32))
    return v >> np.uint64(64 - scale)


@njit(cache=True, inline="always")
def _scramble(v, scale, mask, mult1, add1, mult2, add2, shift):
    v = (v * mult1 + add1) & mask
    v ^= v >> shift
    v = _reverse_bits(v, scale)
    v = (v * mult2 + add2) & mask
    return v ^ (v >> shift)


@njit(parallel=True, cache=True)
def fill_tuples(first, scale, draws, key, t_a, t_ab, t_abc, scrambled,
                mult1, add1, mult2, add2, shift, src, dst, weights):
    """Write tuples ``first + i`` for ``i < len(src)`` into the three arrays."""
    mask = (_ONE << np.uint64(scale)) - _ONE
    for i in prange(src.shape[0]):
        base = (first + np.uint64(i)) * draws
        s = np.uint64(0)
        d = np.uint64(0)
        h = np.uint64(0)
        for level in range(scale):
            if level % 2 == 0:
                h = _hash(base + np.uint64(level // 2), key)
                u = h & _LOW32
            else:
                u = h >> np.uint64(32)
            s <<= _ONE
            d <<= _ONE
            if u >= t_ab:  # quadrants C, D
                s |= _ONE
            if (u >= t_a and u < t_ab) or u >= t_abc:  # quadrants B, D
                d |= _ONE
        w = _hash(base + draws - _ONE, key)
        weights[i] = np.float32(w >> np.uint64(40)) * _UNIT
        if scrambled:
            s = _scramble(s, scale, mask, mult1, add1, mult2, add2, shift)
            d = _scramble(d, scale, mask, mult1, add1, mult2, add2, shift)
        src[i] = np.int64(s)
        dst[i] = np.int64(d)
