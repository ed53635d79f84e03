"""How the CPU backend's fused delta-stepping stores a distance (and its
parent) in one word: :func:`decode`, :func:`encode`, :func:`overflows` and
:func:`unpack`, numba overloads chosen by the type of a ``codec`` marker
(:mod:`._sssp_fused` runs the search; docs/decisions/cpu-roads.md)."""
from __future__ import annotations

import numpy as np
from numba import types
from numba.extending import overload

from ._atomics import float32_bits, float32_from_bits

# Distances live in ``words``, read and written through a codec chosen by
# the type of the ``codec`` marker argument (numba compiles one kernel per
# codec):
#
# * ``np.uint32`` marker, uint64 words: an integer distance below 2**32 - 1
#   in the high half, the parent's id in the low half. One compare-and-swap
#   sets both, so the parent is always the vertex that gave the distance:
#   no parent pass. A candidate that does not fit raises the OVERFLOW flag
#   and the driver reruns with the plain int64 codec.
# * ``np.float32`` marker, uint64 words: the float32 distance's bits in the
#   high half (non-negative floats order like their bits), the parent low.
# * any other marker (the dtype of ``words``): the distance alone (float64,
#   or int64 after an overflow); parents come from the tight-arc pass.

_LOW32 = np.uint64(0xFFFFFFFF)
_SHIFT = np.uint64(32)
_UNREACHED = np.uint64(0xFFFFFFFFFFFFFFFF)  # a packed integer word with no distance and no parent
PACKED_INT_LIMIT = 0xFFFFFFFF  # packed integer distances stay below this (it marks "unreached")


def decode(codec, word):
    """The distance stored in ``word`` (numba only)."""


def encode(codec, distance, parent):
    """The word storing ``distance`` reached from ``parent`` (numba only)."""


def overflows(codec, distance, old):
    """Whether ``distance`` would improve the word ``old`` but cannot be stored (numba only)."""


def unpack(codec, words, distances, parents, infinity, fill):
    """Split packed ``words`` into distances (``infinity`` where
    unreached) and parents (-1), and set them back to ``fill`` for the next
    search (a line just read costs little more to write, where a separate
    fill pass would read it again); nothing for unpacked codecs (numba only)."""


def _packed_int(codec):
    return isinstance(codec, types.Integer) and codec.bitwidth == 32 and not codec.signed


def _packed_float32(codec):
    return codec == types.float32


@overload(decode, jit_options={"cache": True})
def _decode(codec, word):
    if _packed_int(codec):
        return lambda codec, word: np.int64(word >> _SHIFT)
    if _packed_float32(codec):
        return lambda codec, word: float32_from_bits(np.uint32(word >> _SHIFT))
    return lambda codec, word: word


@overload(encode, jit_options={"cache": True})
def _encode(codec, distance, parent):
    if _packed_int(codec):
        return lambda codec, distance, parent: (np.uint64(distance) << _SHIFT) | np.uint64(parent)
    if _packed_float32(codec):
        return lambda codec, distance, parent: (
            (np.uint64(float32_bits(distance)) << _SHIFT) | np.uint64(parent)
        )
    return lambda codec, distance, parent: distance


@overload(overflows, jit_options={"cache": True})
def _overflows(codec, distance, old):
    if _packed_int(codec):
        return lambda codec, distance, old: distance >= PACKED_INT_LIMIT and old == _UNREACHED
    return lambda codec, distance, old: False


@overload(unpack, jit_options={"cache": True})
def _unpack(codec, words, distances, parents, infinity, fill):
    if not (_packed_int(codec) or _packed_float32(codec)):
        return lambda codec, words, distances, parents, infinity, fill: None

    def split(codec, words, distances, parents, infinity, fill):
        # Over whole arrays (the caller slices): from 0, the indices are
        # provably non-negative and the loop needs no wraparound selects.
        for v in range(words.shape[0]):
            word = words[v]
            words[v] = fill
            # Selects, not branches (2.4x faster: reached and unreached
            # vertices interleave unpredictably). No parent means unreached:
            # ids stay below 2**32 - 1.
            parent = word & _LOW32
            reached = parent != _LOW32
            distances[v] = decode(codec, word) if reached else infinity
            parents[v] = np.int64(parent) if reached else np.int64(-1)

    return split
