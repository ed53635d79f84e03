"""numba kernel of the CPU half of a cooperative bottom-up level (:mod:`.cooperation`).

The CPU half's parents cross to the GPU as one value per found vertex in row
order; the device recovers the rows from the next-frontier bitmap it is sent
anyway. Sending (row, parent) pairs instead would double the bytes of the
largest levels' copy. Imported only when a cooperative search runs.
"""
from __future__ import annotations

import numpy as np
from numba import njit, prange

from ..backends.cpu._atomics import popcount, trailing_zeros

CHUNK = 1024  # bitmap words per task: the prefix over tasks stays a short serial loop


@njit(parallel=True, cache=True)
def compact_found(bits, parents, out):
    """``out[k]`` = ``parents[v]`` of the k-th set bit ``v`` of ``bits`` (int64
    words, bit ``v & 63`` of word ``v >> 6``), in increasing ``v``; returns how
    many. Two passes over word chunks: popcounts, then a prefix and the writes."""
    words = bits.shape[0]
    chunks = (words + CHUNK - 1) // CHUNK
    starts = np.zeros(chunks + 1, dtype=np.int64)
    for c in prange(chunks):
        count = 0
        for w in range(c * CHUNK, min((c + 1) * CHUNK, words)):
            count += popcount(bits[w])
        starts[c + 1] = count
    for c in range(chunks):
        starts[c + 1] += starts[c]
    for c in prange(chunks):
        k = starts[c]
        for w in range(c * CHUNK, min((c + 1) * CHUNK, words)):
            word = bits[w]
            while word != 0:
                out[k] = parents[w * 64 + trailing_zeros(word)]
                k += 1
                word &= word - 1
    return starts[chunks]
