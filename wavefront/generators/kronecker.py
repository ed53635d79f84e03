"""Graph500 Kronecker generator (DESIGN.md §2; Graph500 spec 2.0, v3 reference).

* ``N = 2**scale`` vertices, ``M = edgefactor * N`` input tuples; initiator
  ``A, B, C, D = 0.57, 0.19, 0.19, 0.05``; no noise. Self-loops and duplicate
  tuples are generated, as the spec requires; the builder drops/merges them.
* Tuple ``e`` descends ``scale`` levels of the 2x2 initiator. Level ``l``
  (``l = 0`` picks the most significant label bit) compares a 32-bit uniform
  against the fixed thresholds ``round(A*2**32)``, ``round((A+B)*2**32)``,
  ``round((A+B+C)*2**32)``: each quadrant probability is exact to 2**-32.
  Quadrants A, B, C, D are (src bit, dst bit) = (0,0), (0,1), (1,0), (1,1).
* Randomness is counter-based (:mod:`._hash`): tuple ``e`` owns the counters
  ``e*D .. e*D + D-1`` with ``D = ceil(scale/2) + 1``. Counter ``e*D + j``
  gives levels ``2j`` (low 32 bits) and ``2j+1`` (high 32 bits); the last one
  gives the weight, a float32 uniform on the 24-bit grid in [0, 1). Any
  tuple range can be generated alone, and NumPy, CuPy and the numba fast
  path (:mod:`._kronecker_numba`) produce bit-identical tuples.
* Labels are permuted by a seeded bijection of ``[0, 2**scale)``
  (:func:`scramble`): affine map with an odd multiplier, xor-shift,
  bit reversal, affine map, xor-shift; each step is invertible mod 2**scale.
"""
from __future__ import annotations

import math
from functools import lru_cache
from typing import Iterator, NamedTuple

import numpy as np

from .._xp import check_device
from ._hash import MASK64, check_seed, hash_counters, stream_key, unit_float32

INITIATOR = (0.57, 0.19, 0.19, 0.05)
MAX_SCALE = 40
_EDGE_SALT = 0x4B524F4E  # independent streams per use of the seed
_SCRAMBLE_SALT = 0x5343524D
_LOW32 = np.uint64(0xFFFFFFFF)
_S32 = np.uint64(32)
_ONE = np.uint64(1)
# Tuples per vectorized block: bounds the temporaries of the array-API path.
_BLOCK = {"numpy": 1 << 18, "cupy": 1 << 23}
_NUMBA_MIN_TUPLES = 1 << 16  # below this, loading the compiled kernel costs more


def _thresholds() -> tuple[int, int, int]:
    a, b, c, _ = INITIATOR
    return tuple(round(p * 2**32) for p in (a, a + b, a + b + c))


class KroneckerPlan(NamedTuple):
    """Validated parameters and the per-seed constants derived from them."""

    scale: int
    edgefactor: int
    seed: int
    num_vertices: int
    num_tuples: int
    draws_per_tuple: int
    edge_key: int
    multipliers: tuple[int, int]  # odd, so multiplication is a bijection
    offsets: tuple[int, int]
    xorshift: int


def plan(scale, edgefactor=16, seed=1) -> KroneckerPlan:
    """Check the arguments (ValueError says what is wrong) and derive constants."""
    for name, value in (("scale", scale), ("edgefactor", edgefactor)):
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
            raise ValueError(f"{name} must be an integer, got {value!r}")
    scale, edgefactor, seed = int(scale), int(edgefactor), check_seed(seed)
    if not 1 <= scale <= MAX_SCALE:
        raise ValueError(f"scale must lie in 1..{MAX_SCALE} (2**scale vertices), got {scale}")
    if edgefactor < 1:
        raise ValueError(f"edgefactor must be at least 1, got {edgefactor}")
    num_tuples = edgefactor << scale
    draws = math.ceil(scale / 2) + 1
    if num_tuples * draws > MASK64:
        raise ValueError(
            f"edgefactor {edgefactor} at scale {scale} needs more than 2**64 random draws"
        )
    key = stream_key(seed, _SCRAMBLE_SALT)
    mask = (1 << scale) - 1
    return KroneckerPlan(
        scale=scale,
        edgefactor=edgefactor,
        seed=seed,
        num_vertices=1 << scale,
        num_tuples=num_tuples,
        draws_per_tuple=draws,
        edge_key=stream_key(seed, _EDGE_SALT),
        multipliers=(stream_key(key, 1) & mask | 1, stream_key(key, 2) & mask | 1),
        offsets=(stream_key(key, 3) & mask, stream_key(key, 4) & mask),
        xorshift=(scale + 1) // 2,
    )


def _reverse_bits(v, scale: int):
    """Reverse the low ``scale`` bits of uint64 ``v`` (the rest must be zero)."""
    for shift, pattern in (
        (1, 0x5555555555555555),
        (2, 0x3333333333333333),
        (4, 0x0F0F0F0F0F0F0F0F),
        (8, 0x00FF00FF00FF00FF),
        (16, 0x0000FFFF0000FFFF),
    ):
        s, p = np.uint64(shift), np.uint64(pattern)
        v = ((v >> s) & p) | ((v & p) << s)
    v = (v >> _S32) | (v << _S32)
    return v >> np.uint64(64 - scale)


def scramble(labels, p: KroneckerPlan):
    """The seeded bijection of ``[0, 2**scale)`` applied to uint64 ``labels``."""
    mask = np.uint64(p.num_vertices - 1)
    shift = np.uint64(p.xorshift)
    v = (labels * np.uint64(p.multipliers[0]) + np.uint64(p.offsets[0])) & mask
    v ^= v >> shift
    v = _reverse_bits(v, p.scale)
    v = (v * np.uint64(p.multipliers[1]) + np.uint64(p.offsets[1])) & mask
    v ^= v >> shift
    return v


def _tuples_block(p: KroneckerPlan, xp, first: int, count: int, scrambled: bool):
    """Tuples ``[first, first + count)`` through the array API (NumPy or CuPy)."""
    t_a, t_ab, t_abc = (np.uint64(t) for t in _thresholds())
    base = xp.arange(first, first + count, dtype=np.uint64)
    base *= np.uint64(p.draws_per_tuple)
    src = xp.zeros(count, dtype=np.uint64)
    dst = xp.zeros(count, dtype=np.uint64)
    for level in range(p.scale):
        if level % 2 == 0:
            h = hash_counters(base + np.uint64(level // 2), p.edge_key)
            u = h & _LOW32
        else:
            u = h >> _S32
        src_bit = u >= t_ab  # quadrants C, D
        dst_bit = (u >= t_a) ^ src_bit ^ (u >= t_abc)  # quadrants B, D
        src <<= _ONE
        dst <<= _ONE
        src |= src_bit.astype(np.uint64)
        dst |= dst_bit.astype(np.uint64)
    weights = unit_float32(hash_counters(base + np.uint64(p.draws_per_tuple - 1), p.edge_key))
    if scrambled:
        src, dst = scramble(src, p), scramble(dst, p)
    return src.astype(np.int64), dst.astype(np.int64), weights


@lru_cache(maxsize=1)
def _numba_fill():
    """The compiled CPU kernel, or None when numba cannot be imported."""
    try:
        from ._kronecker_numba import fill_tuples
    except ImportError:
        return None
    return fill_tuples


def _fill_numba(p: KroneckerPlan, first: int, src, dst, weights, scrambled: bool) -> None:
    fill = _numba_fill()
    t_a, t_ab, t_abc = (np.uint64(t) for t in _thresholds())
    fill(
        np.uint64(first), p.scale, np.uint64(p.draws_per_tuple), np.uint64(p.edge_key),
        t_a, t_ab, t_abc, scrambled,
        np.uint64(p.multipliers[0]), np.uint64(p.offsets[0]),
        np.uint64(p.multipliers[1]), np.uint64(p.offsets[1]),
        np.uint64(p.xorshift), src, dst, weights,
    )


def _fill_array_api(p: KroneckerPlan, xp, first: int, src, dst, weights, scrambled: bool) -> None:
    block = _BLOCK[xp.__name__]
    for lo in range(0, src.shape[0], block):
        hi = min(lo + block, src.shape[0])
        src[lo:hi], dst[lo:hi], weights[lo:hi] = _tuples_block(p, xp, first + lo, hi - lo, scrambled)


def _check_range(p: KroneckerPlan, start, stop) -> tuple[int, int]:
    stop = p.num_tuples if stop is None else stop
    for name, value in (("start", start), ("stop", stop)):
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
            raise ValueError(f"{name} must be an integer tuple index, got {value!r}")
    start, stop = int(start), int(stop)
    if not 0 <= start <= stop <= p.num_tuples:
        raise ValueError(
            f"need 0 <= start <= stop <= {p.num_tuples} (edgefactor * 2**scale tuples), "
            f"got start={start}, stop={stop}"
        )
    return start, stop


def kronecker_edges(scale, edgefactor=16, seed=1, xp=np, start=0, stop=None, *, scrambled=True):
    """Graph500 input tuples ``[start, stop)`` as ``(src int64, dst int64, weights float32)``.

    ``xp`` is ``numpy`` or ``cupy``; the arrays are made there, and the tuples
    are the same on either. Any slice equals that slice of the full list.
    ``scrambled=False`` skips the label permutation (for studying the
    initiator's bit statistics; Graph500 runs use the default).
    """
    if getattr(xp, "__name__", None) not in ("numpy", "cupy"):
        raise ValueError(f"xp must be the numpy or the cupy module, got {xp!r}")
    p = plan(scale, edgefactor, seed)
    start, stop = _check_range(p, start, stop)
    count = stop - start
    src = xp.empty(count, dtype=np.int64)
    dst = xp.empty(count, dtype=np.int64)
    weights = xp.empty(count, dtype=np.float32)
    if xp is np and count >= _NUMBA_MIN_TUPLES and _numba_fill() is not None:
        _fill_numba(p, start, src, dst, weights, scrambled)
    else:
        _fill_array_api(p, xp, start, src, dst, weights, scrambled)
    return src, dst, weights


def kronecker_chunks(
    scale, edgefactor=16, seed=1, xp=np, chunk_edges=2**24
) -> Iterator[tuple]:
    """The full tuple list in consecutive chunks of ``chunk_edges`` tuples.

    Chunk ``i`` holds tuples ``[i*chunk_edges, (i+1)*chunk_edges)`` and equals
    that slice of :func:`kronecker_edges`.
    """
    p = plan(scale, edgefactor, seed)
    if isinstance(chunk_edges, bool) or not isinstance(chunk_edges, (int, np.integer)) or chunk_edges < 1:
        raise ValueError(f"chunk_edges must be a positive integer, got {chunk_edges!r}")
    for lo in range(0, p.num_tuples, int(chunk_edges)):
        yield kronecker_edges(
            scale, edgefactor, seed, xp, lo, min(lo + int(chunk_edges), p.num_tuples)
        )


def kronecker(scale, edgefactor=16, seed=1, device="cpu", relabel=None, weighted=True):
    """A Graph500 Kronecker graph (undirected, ``2**scale`` vertices) on ``device``.

    The builder drops self-loops and merges duplicates but remembers the
    input tuples for TEPS; ``weighted`` keeps the float32 SSSP weights.
    """
    from ..graph.build import from_edges

    check_device(device)
    if device == "cuda":
        from ..backends import require_cuda

        require_cuda()
        import cupy as xp
    else:
        xp = np
    p = plan(scale, edgefactor, seed)
    src, dst, weights = kronecker_edges(scale, edgefactor, seed, xp)
    return from_edges(
        src, dst, weights if weighted else None, n=p.num_vertices, relabel=relabel
    )
