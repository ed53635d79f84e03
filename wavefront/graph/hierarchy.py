"""A contraction hierarchy of a graph, laid out for level-synchronous sweeps.

Used by the ``hierarchy`` SSSP methods (PHAST: Delling, Goldberg, Nowatzyk and
Werneck, "PHAST: Hardware-accelerated shortest path trees", IPDPS 2011 and
JPDC 2013). The graph is contracted once (:mod:`._hierarchy_numba`); then a
search from ``s`` is two sweeps over the levels:

1. **up**: the distances from ``s`` in the upward graph (arcs towards higher
   vertices), levels ascending, each vertex pulling from its lower
   in-neighbours;
2. **down**: levels descending, each vertex pulling from its higher
   in-neighbours ``d(y) = min(d(y), d(x) + w(x, y))``.

Every shortest path of a contraction hierarchy climbs, then descends, so the
two sweeps give exact distances. No arc joins two vertices of one level, so a
level's vertices are independent: a sweep is a parallel loop a level.

The vertices are renumbered by level (ascending; a level is a contiguous
range of new ids). Integer weights only: a shortcut's weight is a sum, and
float sums in another order than a search's would differ in the last bits.
"""
from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

#: Witness searches settle at most this many vertices when contracting, and
#: this many when only estimating a vertex's importance (RoutingKit's order).
SETTLE_LIMIT = 500
SIMULATE_LIMIT = 100
#: The largest out-degree a graph may have for a hierarchy. Road networks and
#: grids have at most 4-8 (amsterdam and seattle 7); a hub of a skewed graph
#: makes the contraction's last vertices a dense core (Kronecker SCALE 14,
#: out-degrees up to 3 626, did not finish in 10 minutes on 2 cores).
MAX_DEGREE = 32
#: The layout of a saved hierarchy (:func:`save_hierarchy`); a file of another
#: version is refused, never read as this one.
FILE_VERSION = 1
_SAVED_ARRAYS = ("order", "rank", "level_starts", "up_indptr", "up_indices", "up_weights", "down_indptr",
                 "down_indices", "down_weights")


@dataclass(frozen=True)
class Hierarchy:
    """A contracted graph on the host, renumbered by level.

    ``order[i]``: the old id of new vertex ``i``; ``rank[v]``: the new id of
    old vertex ``v``; ``level_starts``: level ``l`` is new ids
    ``level_starts[l]:level_starts[l + 1]``. Pull lists by new id: ``up_*``
    holds, for each vertex, its in-arcs from lower vertices (the up sweep);
    ``down_*`` its in-arcs from higher ones (the down sweep). Weights int64.
    ``shortcuts``: arcs of the two lists that stand for paths of several
    original arcs; ``seconds``: the build's wall time."""

    n: int
    order: np.ndarray
    rank: np.ndarray
    level_starts: np.ndarray
    up_indptr: np.ndarray
    up_indices: np.ndarray
    up_weights: np.ndarray
    down_indptr: np.ndarray
    down_indices: np.ndarray
    down_weights: np.ndarray
    shortcuts: int
    seconds: float

    @property
    def levels(self) -> int:
        return len(self.level_starts) - 1

    @property
    def arcs(self) -> int:
        return len(self.up_indices) + len(self.down_indices)


def _pull_lists(n: int, target, source, weight, rank):
    """CSR by new target id of (new source id, weight)."""
    t, s = rank[target], rank[source]
    by = np.lexsort((s, t))
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(t, minlength=n), out=indptr[1:])
    return indptr, s[by].astype(np.int64), weight[by].astype(np.int64)


def check_integer_weights(graph) -> None:
    """Raise MethodLimitError unless the graph has integer weights or none:
    shortcuts are sums, exact only in integers."""
    if graph.weights is not None and graph.weights.dtype.kind not in "iu":
        from ..errors import MethodLimitError

        raise MethodLimitError(
            f"hierarchy: needs integer weights (shortcuts are sums, exact only in integers), got "
            f"{graph.weights.dtype}; use method='delta-stepping'")


def integer_weights(graph) -> np.ndarray:
    """The graph's weights as host int64 (1 an arc when unweighted). Raises
    ValueError for weights that are not whole numbers."""
    if graph.weights is None:
        return np.ones(graph.m, dtype=np.int64)
    w = np.asarray(graph.weights.get() if hasattr(graph.weights, "get") else graph.weights)
    if w.dtype.kind == "f" and (not np.all(np.isfinite(w)) or not np.array_equal(w, np.round(w))):
        raise ValueError("a contraction hierarchy needs integer weights (shortcut sums must be exact)")
    return w.astype(np.int64)


def contract_graph(indptr, indices, weights, n: int, *, settle_limit: int = SETTLE_LIMIT,
                   simulate_limit: int = SIMULATE_LIMIT) -> Hierarchy:
    """Contract the graph given as a host CSR (int64 ``weights`` >= 0) into a
    :class:`Hierarchy`. Parallel arcs keep their least weight; loops are dropped.
    Each numba thread keeps a distance array of ``n`` int64 for its witness
    searches (16 threads on 4 M vertices: 512 MB)."""
    from ._hierarchy_numba import contract

    start = time.perf_counter()
    indptr = np.asarray(indptr, dtype=np.int64)
    dst = np.asarray(indices, dtype=np.int64)
    w = np.asarray(weights, dtype=np.int64)
    if w.size and int(w.max()) * max(int(n) - 1, 1) >= 2**62:
        from ..errors import WeightError

        raise WeightError(f"integer weights up to {int(w.max())} could make a shortcut or a distance overflow int64 "
                          f"on {n} vertices; scale the weights down")
    src = np.repeat(np.arange(n, dtype=np.int64), np.diff(indptr))
    keep = src != dst
    src, dst, w = src[keep], dst[keep], w[keep]
    by = np.lexsort((w, dst, src))  # per (src, dst) the least weight first
    src, dst, w = src[by], dst[by], w[by]
    first = np.ones(src.size, dtype=bool)
    first[1:] = (src[1:] != src[:-1]) | (dst[1:] != dst[:-1])
    src, dst, w = src[first], dst[first], w[first]
    if n == 0:
        order, level = np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        up = down = np.zeros((3, 0), dtype=np.int64)
        shortcuts = 0
    else:
        from numba import get_num_threads

        order, level, up, down, shortcuts = contract(int(n), src, dst, w, int(settle_limit), int(simulate_limit),
                                                     get_num_threads())
    # new ids by level, then by contraction order within a level
    position = np.empty(n, dtype=np.int64)
    position[order] = np.arange(n, dtype=np.int64)
    new_order = np.lexsort((position, level))
    rank = np.empty(n, dtype=np.int64)
    rank[new_order] = np.arange(n, dtype=np.int64)
    levels = int(level.max()) + 1 if n else 0
    level_starts = np.zeros(levels + 1, dtype=np.int64)
    np.cumsum(np.bincount(level, minlength=levels), out=level_starts[1:])
    up_indptr, up_indices, up_weights = _pull_lists(n, up[1], up[0], up[2], rank)  # by the higher end
    down_indptr, down_indices, down_weights = _pull_lists(n, down[1], down[0], down[2], rank)  # by the lower end
    return Hierarchy(int(n), new_order, rank, level_starts, up_indptr, up_indices, up_weights, down_indptr,
                     down_indices, down_weights, int(shortcuts), time.perf_counter() - start)


def hierarchy_of(graph) -> Hierarchy:
    """The graph's hierarchy, built on first use and kept in ``graph.derived``.
    Raises MethodLimitError for a graph with an out-degree above :data:`MAX_DEGREE`."""
    found = graph.derived.get("hierarchy")
    if found is None:
        host = graph.to("cpu") if graph.device != "cpu" else graph
        degree = int(np.diff(np.asarray(host.indptr)).max()) if host.n else 0
        if degree > MAX_DEGREE:
            from ..errors import MethodLimitError

            raise MethodLimitError(
                f"hierarchy: for road-shaped graphs (out-degrees up to {MAX_DEGREE}); this graph has a vertex of "
                f"out-degree {degree}, whose contraction would not end in useful time; use method='delta-stepping'")
        found = contract_graph(host.indptr, host.indices, integer_weights(host), host.n)
        graph.derived["hierarchy"] = found
    return found


def graph_fingerprint(graph) -> str:
    """A digest of what a hierarchy is built from: the vertex count, the CSR
    and the integer weights. Two graphs with the same fingerprint have the
    same hierarchies."""
    host = graph.to("cpu") if graph.device != "cpu" else graph
    digest = hashlib.blake2b(digest_size=16)
    digest.update(np.int64(host.n).tobytes())
    for array in (np.asarray(host.indptr, dtype=np.int64), np.asarray(host.indices, dtype=np.int64),
                  integer_weights(host)):
        digest.update(np.ascontiguousarray(array).data)
    return digest.hexdigest()


def save_hierarchy(graph, path, *, overwrite: bool = False) -> Hierarchy:
    """Write the graph's contraction hierarchy to ``path`` (NumPy ``.npz``),
    building it first if the graph has none, so that a later process pays a
    load instead of the build (:func:`load_hierarchy`). The file records the
    graph's fingerprint. An existing ``path`` is refused (FileExistsError)
    unless ``overwrite``; the file appears whole or not at all. Raises
    MethodLimitError for a graph the ``hierarchy`` method refuses (float
    weights, a hub). Returns the hierarchy."""
    from .._files import atomic_output

    path = Path(path)
    if path.exists() and not overwrite:
        raise FileExistsError(f"{path} already exists; pass overwrite=True to replace it")
    check_integer_weights(graph)
    h = hierarchy_of(graph)
    with atomic_output(path) as out:
        np.savez(out, file_version=np.int64(FILE_VERSION), fingerprint=np.array(graph_fingerprint(graph)),
                 n=np.int64(h.n), shortcuts=np.int64(h.shortcuts), seconds=np.float64(h.seconds),
                 **{name: getattr(h, name) for name in _SAVED_ARRAYS})
    return h


def load_hierarchy(graph, path) -> Hierarchy:
    """Read a hierarchy that :func:`save_hierarchy` wrote for this graph and
    keep it in ``graph.derived``, as a build would (``hierarchy`` and
    ``auto`` searches then use it). Raises HierarchyFileError, naming the
    file, for a file that is not such a hierarchy, is damaged, or was saved
    for a graph with other arcs or weights."""
    import zipfile

    from ..errors import HierarchyFileError

    check_integer_weights(graph)
    path = Path(path)
    try:
        with np.load(path, allow_pickle=False) as saved:
            contents = {name: saved[name] for name in saved.files}
    except FileNotFoundError:
        raise
    except (OSError, ValueError, zipfile.BadZipFile, EOFError) as exc:
        raise HierarchyFileError(f"not a readable hierarchy file ({exc})", path) from exc
    missing = [name for name in ("file_version", "fingerprint", "n", "shortcuts", "seconds", *_SAVED_ARRAYS)
               if name not in contents]
    if missing:
        raise HierarchyFileError(f"not a saved contraction hierarchy (no {', '.join(missing)})", path)
    try:
        version, n, shortcuts, seconds = (kind(contents[name].item()) for kind, name in (
            (int, "file_version"), (int, "n"), (int, "shortcuts"), (float, "seconds")))
    except (TypeError, ValueError) as exc:  # not one number each: an array, a string
        raise HierarchyFileError(f"damaged hierarchy file: its header is not four numbers ({exc})", path) from exc
    if version != FILE_VERSION:
        raise HierarchyFileError(f"a hierarchy file of version {version}; this wavefront reads version "
                                 f"{FILE_VERSION}: build it again with save_hierarchy", path)
    fingerprint = str(contents["fingerprint"])
    arrays = {name: contents[name] for name in _SAVED_ARRAYS}
    mine = graph_fingerprint(graph)
    if n != graph.n or fingerprint != mine:
        raise HierarchyFileError(
            f"saved for another graph ({n} vertices, fingerprint {fingerprint}); this graph has {graph.n} vertices "
            f"and fingerprint {mine}: its arcs or weights differ, so its distances would be wrong; build and save "
            "this graph's hierarchy", path)
    _check_saved(arrays, n, path)
    h = Hierarchy(n, arrays["order"], arrays["rank"], arrays["level_starts"], arrays["up_indptr"],
                  arrays["up_indices"], arrays["up_weights"], arrays["down_indptr"], arrays["down_indices"],
                  arrays["down_weights"], shortcuts, seconds)
    graph.derived["hierarchy"] = h
    return h


def _check_saved(arrays: dict, n: int, path) -> None:
    """The saved arrays' shapes and ranges, so a damaged file fails here and
    not as a wrong distance."""
    from ..errors import HierarchyFileError

    def bad(what: str):
        raise HierarchyFileError(f"damaged hierarchy file: {what}", path)

    for name in _SAVED_ARRAYS:
        if arrays[name].dtype != np.int64 or arrays[name].ndim != 1:
            bad(f"{name} is {arrays[name].dtype} of {arrays[name].ndim} dimensions, not a vector of int64")
    order, rank, starts = arrays["order"], arrays["rank"], arrays["level_starts"]
    if order.size != n or rank.size != n or not np.array_equal(np.sort(order), np.arange(n)):
        bad("order is not a permutation of the vertices")
    if not np.array_equal(rank[order], np.arange(n)):
        bad("rank is not the inverse of order")
    if starts.size < 1 or starts[0] != 0 or starts[-1] != n or np.any(np.diff(starts) < 0):
        bad("level_starts do not split the vertices into levels")
    level = np.repeat(np.arange(starts.size - 1), np.diff(starts))
    for side in ("up", "down"):
        indptr, indices, weights = (arrays[f"{side}_{part}"] for part in ("indptr", "indices", "weights"))
        if indptr.size != n + 1 or indptr[0] != 0 or np.any(np.diff(indptr) < 0) or indptr[-1] != indices.size:
            bad(f"{side}_indptr does not index {side}_indices")
        if weights.size != indices.size or (indices.size and (indices.min() < 0 or indices.max() >= n)):
            bad(f"{side} arcs out of range")
        if weights.size and weights.min() < 0:
            bad(f"negative {side} weights")
        # a sweep pulls from other levels only: up from lower ones, down from higher ones
        head = level[np.repeat(np.arange(n), np.diff(indptr))]
        if np.any(level[indices] >= head if side == "up" else level[indices] <= head):
            bad(f"a {side} arc that does not go {'up' if side == 'up' else 'down'} a level")
