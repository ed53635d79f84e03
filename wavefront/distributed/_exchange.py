"""All-to-all-v patterns shared by construction, search and validation.

* :func:`pack` groups rows of int64 columns by destination rank into one
  buffer (one all-to-all-v moves every column at once); :func:`unpack`
  splits a received buffer back into columns.
* :class:`Lookup` / :func:`fetch` read owned per-vertex arrays at arbitrary
  vertex ids: the ids go to their owners, the values come back (two
  all-to-all-v calls over the world, each id asked once; a kept
  :class:`Lookup` repeats only the second). :class:`EndpointLookup` does the
  same for a rank's tuple endpoints, chunk by chunk, in 4 bytes per vertex
  instead of 16 per tuple.
* :func:`to_bits` / :func:`from_bits` carry weights and distances (float32,
  float64, int32, int64) in those int64 columns as their exact bit patterns,
  so a float crosses ranks unrounded.
"""
from __future__ import annotations

import numpy as np

from .grid import Partition
from .transport import Transport


def on_host(values):
    """``values`` as a NumPy array (a GPU search's CuPy results are copied)."""
    return values if isinstance(values, np.ndarray) else values.get()


def to_bits(values: np.ndarray) -> np.ndarray:
    """``values`` (float32/64, int32/64) as int64 holding their bit patterns
    (4-byte types zero-extended; :func:`from_bits` inverts it exactly)."""
    values = np.ascontiguousarray(values)
    if values.dtype.itemsize == 4:
        return values.view(np.uint32).astype(np.int64)
    if values.dtype.itemsize == 8:
        return values.view(np.int64)
    raise TypeError(f"cannot carry {values.dtype} values as bits")


def from_bits(bits: np.ndarray, dtype) -> np.ndarray:
    """The ``dtype`` values whose patterns :func:`to_bits` put in ``bits``."""
    dtype = np.dtype(dtype)
    bits = np.ascontiguousarray(bits, dtype=np.int64)
    if dtype.itemsize == 4:
        return bits.astype(np.uint32).view(dtype)
    return bits.view(dtype)


def unpack(buffer: np.ndarray, width: int) -> tuple[np.ndarray, ...]:
    """The ``width`` columns of a buffer made by :func:`pack` (strided views)."""
    rows = buffer.reshape(-1, width)
    return tuple(rows[:, c] for c in range(width))


class _Route:
    """Asking the owners for the values of sorted unique global ``ids`` (collective)."""

    def __init__(self, world: Transport, part: Partition, unique: np.ndarray):
        # Sorted ids are grouped by owner already: owners hold consecutive ranges.
        bounds = np.searchsorted(unique, np.arange(world.size + 1, dtype=np.int64) * part.piece)
        asked, self.asked_counts = world.alltoallv(unique, np.diff(bounds))
        self.world = world
        local = np.int32 if part.piece < 2**31 else np.int64
        self.local = (asked - world.rank * part.piece).astype(local)

    def answers(self, *owned) -> tuple[np.ndarray, ...]:
        """``array[unique]`` for each array in ``owned`` (this rank's piece of
        a per-vertex array, one per rank), in its dtype: one all-to-all-v per
        array, so nothing wider than the values is sent or held. The values
        asked for (about a piece's worth an array, every search) are
        gathered on all the rank's numba threads: NumPy's ``array[local]``
        on one core took 0.9 s a search at SCALE 28's sizes here."""
        from . import _validate_kernels as kernels

        out = []
        for array in owned:
            got = np.empty(self.local.shape[0], dtype=array.dtype)
            kernels.gather(np.ascontiguousarray(array), self.local, got)
            out.append(self.world.alltoallv(got, self.asked_counts)[0])
        return tuple(out)


class Lookup:
    """Reads of owned per-vertex arrays at a fixed set of global vertex ids.

    Routing the ids (sorting, deduplicating, telling each owner which of its
    vertices are wanted) is done once, here; :meth:`values` then costs one
    all-to-all-v per call. Collective over ``world``. It keeps an int64 index
    per id: for as many ids as vertices (a piece's parents), not for a rank's
    tuple endpoints (:class:`EndpointLookup`).
    """

    def __init__(self, world: Transport, part: Partition, ids: np.ndarray):
        unique, inverse = np.unique(np.asarray(ids, dtype=np.int64), return_inverse=True)
        self.route = _Route(world, part, unique)
        self.inverse = inverse.reshape(-1)

    def values(self, *owned) -> tuple[np.ndarray, ...]:
        """``array[ids]`` for each array in ``owned`` (this rank's piece of a
        per-vertex array, one per rank), in its dtype."""
        return tuple(got[self.inverse] for got in self.route.answers(*owned))


class EndpointLookup:
    """Reads of owned per-vertex arrays at a rank's tuple endpoints, which
    outnumber the vertices (16 per vertex on average, both ends).

    :meth:`values` fetches each distinct endpoint's values once (one
    all-to-all-v); ``remapped`` holds each array of ``ids`` as their places
    in those arrays (int32 where they fit, 8 bytes a tuple), made once from
    a map of a position per vertex that is then dropped. In a world of one
    the owned arrays are the graph's, read at the ids themselves: nothing is
    routed or kept, and ``remapped`` is the ids. Collective over ``world``.

    Which vertices the ids touch, and the map, are found on all the rank's
    numba threads (:func:`._validate_kernels.mark_seen`): in NumPy on one
    core, one cache miss an endpoint, they took about a minute at SCALE 28
    (2**32 endpoints a rank on two ranks).
    """

    def __init__(self, world: Transport, part: Partition, *ids):
        self.route = None
        self.remapped = ids
        if world.size == 1:
            return
        from . import _validate_kernels as kernels

        seen = np.zeros(part.n_pad, dtype=bool)
        for array in ids:
            kernels.mark_seen(array, seen)
        counts = np.empty(kernels.tasks(), dtype=np.int64)
        kernels.count_seen(seen, counts)
        total = int(counts.sum())
        unique = np.empty(total, dtype=np.int64)
        position = np.empty(part.n_pad, dtype=np.int32 if total < 2**31 else np.int64)
        kernels.place_seen(seen, np.cumsum(counts) - counts, position, unique)
        del seen
        self.route = _Route(world, part, unique)
        # Each id's position, once per graph (4 bytes an endpoint, 8 a tuple:
        # the host model's DISTRIBUTED_* terms count them), so a search reads
        # its records without a second dependent miss through the map; the
        # map itself (4 bytes a vertex of the graph) is then dropped.
        self.remapped = tuple(_remap(kernels, position, array) for array in ids)

    def values(self, *owned) -> tuple[np.ndarray, ...]:
        """Each array of ``owned`` (this rank's piece of a per-vertex array)
        at the distinct endpoints, in its dtype: read with :meth:`index`."""
        return owned if self.route is None else self.route.answers(*owned)

    def at(self, k: int) -> tuple[int, int]:
        """Where tuple ``k``'s two endpoints' values are in :meth:`values`' arrays."""
        return int(self.remapped[0][k]), int(self.remapped[1][k])


def _remap(kernels, position: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """``position[ids]`` on every numba thread."""
    out = np.empty(ids.shape[0], dtype=position.dtype)
    kernels.gather(position, ids, out)
    return out


def fetch(world: Transport, part: Partition, ids: np.ndarray, *owned) -> tuple[np.ndarray, ...]:
    """``array[ids]`` for each array in ``owned``, for any global ``ids`` in
    ``[0, n_pad)``, read once (see :class:`Lookup`). Collective over ``world``."""
    return Lookup(world, part, ids).values(*owned)
