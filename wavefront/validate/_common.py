"""Pieces shared by the BFS and SSSP validators: input checks, the parent-tree
depth by pointer jumping, the chunked pass over the input tuples, and the
summary a passing validation returns.

Everything is written against the array API common to NumPy and CuPy: the
module of the edge arrays decides where validation runs.
"""
from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from .._xp import array_module, device_of, to_device
from ..errors import ValidationError, VertexError

# Tuples per step of the edge pass. It bounds the temporaries (a few arrays of
# this length per step): on a GPU one step runs at a time; on the CPU one per
# core, on a thread pool (NumPy's gathers and ufuncs release the GIL).
GPU_CHUNK_EDGES = 1 << 24
CPU_CHUNK_EDGES = 1 << 21


@dataclass(frozen=True)
class ValidationSummary:
    """What a passing validation measured.

    ``nedge`` is the validator's own Graph500 TEPS edge count; ``depth`` the
    height of the parent forest (hops); ``max_distance`` the largest finite
    SSSP distance (None for BFS). ``root`` is the search's root, or None for
    a multi-source search; ``roots`` holds every root.
    """

    kernel: str
    root: int | None
    reached: int
    nedge: int
    depth: int
    max_distance: float | None = None
    roots: tuple = ()

    def __post_init__(self):
        if not self.roots and self.root is not None:
            object.__setattr__(self, "roots", (int(self.root),))


def edge_arrays(edges, weighted: bool):
    """Split ``(src, dst[, weights])`` into arrays on one device."""
    if not isinstance(edges, (tuple, list)) or len(edges) not in (2, 3):
        raise TypeError("edges must be a tuple (src, dst) or (src, dst, weights)")
    src, dst = edges[0], edges[1]
    weights = edges[2] if len(edges) == 3 and weighted else None
    xp = array_module(src, dst, weights)
    device = "cuda" if xp is not np else "cpu"
    src, dst = to_device(src, device), to_device(dst, device)
    weights = None if weights is None else to_device(weights, device)
    if src.ndim != 1 or src.shape != dst.shape:
        raise ValueError(f"src and dst must be 1-D and equally long, got {src.shape} and {dst.shape}")
    if weights is not None and weights.shape != src.shape:
        raise ValueError(f"weights has shape {weights.shape} for {src.shape[0]} edges")
    return xp, src, dst, weights


def on_device(array, like):
    """``array`` moved to the device of ``like`` (the edge list's)."""
    return None if array is None else to_device(array, device_of(like))


def check_edge_ids(src, dst, n: int, xp) -> None:
    """Tuple endpoints must index the parent array (CuPy would wrap silently)."""
    if src.size == 0:
        return
    lo = int(xp.minimum(src.min(), dst.min()))
    hi = int(xp.maximum(src.max(), dst.max()))
    if lo < 0 or hi >= n:
        raise VertexError(
            f"the edge list holds vertex ids in [{lo}, {hi}] but the parent array has "
            f"{n} entries: validate against the edge list the graph was built from"
        )


def first_index(mask, xp) -> int:
    return int(xp.argmax(mask))


class Roots:
    """The roots of a search: its one ``source``, or every one of its ``sources``.

    A multi-source result is a forest: each root is its own parent at level
    or distance 0, and every other reached vertex hangs below one of them.
    ``ids`` is a host int64 array; ``single`` the root when there is one
    (the checks then compare with a scalar, as they always have).
    """

    def __init__(self, ids):
        self.ids = to_device(ids, "cpu") if hasattr(ids, "__cuda_array_interface__") else ids
        self.ids = np.asarray(self.ids).astype(np.int64).ravel()
        if self.ids.size == 0:
            raise ValidationError("root-range", "the result names no root (empty sources)")
        self.single = int(self.ids[0]) if self.ids.size == 1 else None
        self._device = None

    @classmethod
    def of(cls, result) -> Roots:
        """The roots a result records: ``result.sources``, else ``[result.source]``."""
        sources = getattr(result, "sources", None)
        return cls([result.source] if sources is None else sources)

    @classmethod
    def given(cls, roots) -> Roots:
        """``roots`` as a :class:`Roots` (it may be one root id)."""
        return roots if isinstance(roots, Roots) else cls(np.atleast_1d(roots))

    def __len__(self) -> int:
        return int(self.ids.size)

    def on(self, xp):
        """The root ids as an array of ``xp`` (NumPy or CuPy)."""
        if xp is np:
            return self.ids
        if self._device is None:
            self._device = xp.asarray(self.ids)
        return self._device

    def mask(self, n: int, xp):
        """A boolean mask of the roots over ``n`` vertices."""
        out = xp.zeros(n, dtype=bool)
        out[self.on(xp)] = True
        return out

    @property
    def summary(self) -> dict:
        """The ``root``/``roots`` fields of a :class:`ValidationSummary`."""
        return {"root": self.single, "roots": tuple(int(r) for r in self.ids)}

    def name(self) -> str:
        """'root 5', or 'any of the 3 roots' in a message."""
        return f"root {self.single}" if self.single is not None else f"any of the {len(self)} roots"


def check_parents(parents, roots, n: int | None, xp) -> int:
    """Rules on the parent array alone; returns n.

    ``parent-array``: int64 (Graph500 needs >= 48-bit labels), one per vertex.
    ``root-range``, ``parent-range`` (each entry -1 or a vertex),
    ``root-parent`` (every root is its own parent), ``parent-unreached`` (a
    reached vertex's parent is itself reached). ``roots``: a :class:`Roots`
    or one root id.
    """
    roots = Roots.given(roots)
    if parents.ndim != 1:
        raise ValidationError("parent-array", f"the parent array must be 1-D, got shape {parents.shape}")
    if n is None:
        n = int(parents.shape[0])
    if parents.shape[0] != n:
        raise ValidationError(
            "parent-array", f"the parent array has {parents.shape[0]} entries for a graph of {n} vertices"
        )
    if parents.dtype != np.int64:
        raise ValidationError(
            "parent-array", f"parents must be int64 (Graph500 needs 48-bit labels), got {parents.dtype}"
        )
    outside = (roots.ids < 0) | (roots.ids >= n)
    if outside.any():
        i = int(np.argmax(outside))
        which = "root" if roots.single is not None else f"root {i} of the sources,"
        raise ValidationError(
            "root-range", f"{which} {int(roots.ids[i])} is not a vertex of a graph with {n} vertices"
        )
    bad = (parents < -1) | (parents >= n)
    if bool(bad.any()):
        v = first_index(bad, xp)
        raise ValidationError(
            "parent-range", f"parent[{v}] = {int(parents[v])} is neither -1 nor a vertex in [0, {n})"
        )
    if roots.single is not None:
        root = roots.single
        if int(parents[root]) != root:
            raise ValidationError(
                "root-parent", f"the root must be its own parent: parent[{root}] = {int(parents[root])}"
            )
    else:
        ids = roots.on(xp)
        wrong = parents[ids] != ids
        if bool(wrong.any()):
            r = int(ids[first_index(wrong, xp)])
            raise ValidationError(
                "root-parent", f"every source must be its own parent: parent[{r}] = {int(parents[r])}"
            )
    reached = parents >= 0
    orphan = reached & ~reached[xp.maximum(parents, 0)]
    if bool(orphan.any()):
        v = first_index(orphan, xp)
        u = int(parents[v])
        raise ValidationError(
            "parent-unreached",
            f"vertex {v} is reached but its parent {u} is not (parent[{u}] = -1)",
        )
    return n


def tree_depths(parents, roots, xp):
    """Hops from every reached vertex to its root along ``parents`` (-1 unreached).

    Pointer jumping: ``jump[v]`` is an ancestor ``hops[v]`` steps up; each round
    doubles the reach, so an acyclic forest of n vertices settles within
    ceil(log2 n) + 1 rounds (a root is its own parent, so it stays put). A
    vertex still short of a root after that sits on, or above, a cycle (a
    vertex that is its own parent but no root counts as one): rule
    ``tree-cycle``. ``roots``: a :class:`Roots` or one root id.
    """
    roots = Roots.given(roots)
    n = parents.shape[0]
    reached = parents >= 0
    ids = roots.on(xp)
    if roots.single is not None:
        root = roots.single

        def short_of_root(jump):
            return jump != root
    else:
        root = int(roots.ids[0])
        is_root = roots.mask(n, xp)

        def short_of_root(jump):
            return ~is_root[jump]
    jump = xp.where(reached, parents, root)  # unreached vertices are parked at a root
    hops = reached.astype(np.int64)
    hops[ids] = 0
    for _ in range(max(1, (n - 1).bit_length()) + 1):
        if not bool(short_of_root(jump).any()):
            break
        hops = hops + hops[jump]
        jump = jump[jump]
    stuck = short_of_root(jump)
    if bool(stuck.any()):
        v = first_index(stuck, xp)
        on_cycle = int(jump[v])  # 2**rounds >= n steps up: inside the cycle
        cycle = [on_cycle]
        while len(cycle) <= 8:
            nxt = int(parents[cycle[-1]])
            cycle.append(nxt)
            if nxt == on_cycle:
                break
        shown = " -> ".join(map(str, cycle)) + ("" if cycle[-1] == on_cycle else " -> ...")
        raise ValidationError(
            "tree-cycle",
            f"vertex {v} never reaches {roots.name()} through its parents: the chain enters the cycle {shown}",
        )
    depth = xp.where(reached, hops, -1)
    return depth.astype(np.int32) if n <= 2**31 - 1 else depth


def first_true(mask, xp, offset: int = 0) -> int | None:
    """``offset`` + the first index where ``mask`` holds, or None."""
    if mask.size == 0:
        return None
    i = int(xp.argmax(mask))
    return offset + i if bool(mask[i]) else None


def map_chunks(work, num_edges: int, chunk_edges: int | None, xp) -> list:
    """``work(lo, hi)`` over consecutive spans of the tuple list, results in order."""
    if chunk_edges is None:
        chunk_edges = CPU_CHUNK_EDGES if xp is np else GPU_CHUNK_EDGES
    spans = [(lo, min(lo + chunk_edges, num_edges)) for lo in range(0, num_edges, chunk_edges)]
    workers = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    if xp is not np or len(spans) < 2 or (workers or 1) < 2:
        return [work(lo, hi) for lo, hi in spans]
    with ThreadPoolExecutor(min(workers, len(spans))) as pool:
        return list(pool.map(lambda span: work(*span), spans))


class Violations:
    """The first witness (an edge index, or a vertex for per-vertex rules) of
    each rule broken during the pass over the tuples.

    They are reported after the whole pass, in a fixed priority order, so the
    rule named is the most fundamental one broken wherever it occurs.
    """

    def __init__(self, priority: tuple[str, ...]):
        self.priority = priority
        self.first: dict[str, int] = {}

    def merge(self, found: dict) -> None:
        """Record chunk witnesses (rule -> index or None); call in chunk order."""
        for rule, index in found.items():
            if index is not None and rule not in self.first:
                self.first[rule] = index

    def note(self, rule: str, mask, xp) -> None:
        self.merge({rule: first_true(mask, xp)})

    def raise_first(self, describe) -> None:
        """Raise for the highest-priority rule seen; ``describe(rule, index)`` writes the message."""
        for rule in self.priority:
            if rule in self.first:
                raise ValidationError(rule, describe(rule, self.first[rule]))


def compact_ids(parents, n: int):
    """Parents as int32 when ids fit: halves the bytes each tuple's gather reads."""
    return parents.astype(np.int32) if n <= 2**31 - 1 else parents


def check_edge_count(counted: int, nedge: int | None) -> None:
    """The driver's TEPS edge count must equal the validator's (rule ``edge-count``)."""
    if nedge is not None and int(nedge) != counted:
        raise ValidationError(
            "edge-count",
            f"the TEPS edge count is {int(nedge)} but the validator counts {counted} input "
            "tuples (self-loops excluded, duplicates included) inside the searched component",
        )
