"""Search results and their per-level (per-phase) traces.

Sentinels, the same on every backend:

* ``parents``: int64, ``parents[s] == s`` for every source ``s``, ``-1`` for
  unreached.
* ``levels``: int32 BFS depth, ``-1`` for unreached.
* ``distances``: float (float32 for float32 weights, float64 otherwise),
  ``inf`` for unreached.

Arrays live where the graph lived (NumPy or CuPy); ``.to("cpu")`` moves them.

A result records where its search started: ``sources`` (int64 NumPy array,
always set) holds every seed, and ``source`` is that seed when there is
exactly one, else None (a multi-source search: levels and distances are to
the nearest source).
"""
from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from typing import ClassVar

import numpy as np

from ._xp import array_module, to_device


@dataclass(slots=True)
class TraceRow:
    """One BFS level or SSSP phase.

    ``kind`` is the direction ("top-down", "bottom-up", ...) or mode ("all",
    "frontier", ...) that ran; ``frontier`` the vertices it started from;
    ``edges`` the edges it examined (``-1`` when the step does not count
    them); ``reason`` why the policy chose this step.
    """

    step: int
    kind: str
    frontier: int
    edges: int
    seconds: float
    reason: str = ""


class Trace(list):
    """A list of :class:`TraceRow`, with a table view.

    A driver may :meth:`defer` a batch of rows: they are built on first use
    of the list, so a search that returns hundreds of levels from one GPU
    launch (a road network's BFS) does not spend its time making row objects
    that nobody reads.
    """

    _pending: tuple | list = ()  # deferred batches: callables returning rows

    def add(self, step, kind, frontier, edges, seconds, reason="") -> TraceRow:
        row = TraceRow(int(step), str(kind), int(frontier), int(edges), float(seconds), reason)
        if self._pending:
            self._pending.append(lambda: (row,))  # keeps the order behind deferred rows
        else:
            list.append(self, row)
        return row

    def defer(self, make_rows) -> None:
        """Append the rows that ``make_rows()`` returns, when first needed."""
        if not self._pending:
            self._pending = []
        self._pending.append(make_rows)

    def _materialize(self) -> None:
        pending, self._pending = self._pending, ()
        for make_rows in pending:
            list.extend(self, make_rows())

    @property
    def seconds(self) -> float:
        return sum(r.seconds for r in self)

    @property
    def edges(self) -> int:
        return sum(max(r.edges, 0) for r in self)

    def edges_by_kind(self) -> dict:
        out: dict = {}
        for r in self:
            out[r.kind] = out.get(r.kind, 0) + max(r.edges, 0)
        return out

    def to_records(self) -> np.ndarray:
        """The trace as a NumPy structured array (one record per row)."""
        dtype = [
            ("step", np.int32),
            ("kind", "U24"),
            ("frontier", np.int64),
            ("edges", np.int64),
            ("seconds", np.float64),
            ("reason", "U80"),
        ]
        return np.array([tuple(getattr(r, f.name) for f in fields(r)) for r in self], dtype=dtype)

    def table(self, title: str = "trace"):
        """A ``rich.table.Table`` of the rows (rich is imported here, lazily)."""
        from rich.table import Table

        t = Table(title=title)
        for name, justify in (
            ("step", "right"),
            ("kind", "left"),
            ("frontier", "right"),
            ("edges", "right"),
            ("ms", "right"),
            ("reason", "left"),
        ):
            t.add_column(name, justify=justify)
        for r in self:
            t.add_row(
                str(r.step), r.kind, f"{r.frontier:,}", f"{r.edges:,}" if r.edges >= 0 else "-",
                f"{r.seconds * 1e3:.3f}", r.reason,
            )
        return t


def _materializing(name):
    method = getattr(list, name)

    def wrapper(self, *args, **kwargs):
        if self._pending:
            self._materialize()
        return method(self, *args, **kwargs)

    wrapper.__name__ = name
    wrapper.__doc__ = method.__doc__
    return wrapper


# Every list operation sees the deferred rows.
for _name in ("__len__", "__iter__", "__reversed__", "__getitem__", "__setitem__", "__delitem__",
              "__contains__", "__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__add__",
              "__iadd__", "__mul__", "__rmul__", "__imul__", "__repr__", "__reduce_ex__", "append",
              "extend", "insert", "pop", "remove", "index", "count", "sort", "reverse", "clear", "copy"):
    setattr(Trace, _name, _materializing(_name))
del _name


@dataclass
class _Result:
    source: int | None
    parents: object
    trace: Trace = field(default_factory=Trace)
    method: str = ""
    backend: str = "cpu"
    seconds: float = float("nan")
    sources: np.ndarray | None = None

    _array_fields: ClassVar[tuple] = ("parents",)

    def __post_init__(self):
        # A backend method hands back the seeds it was given: one id, or the
        # array of a multi-source search (wavefront._sources).
        if self.sources is None and isinstance(self.source, int):  # one seed: no array checks
            self.sources = np.array((self.source,), dtype=np.int64)
            return
        if self.source is not None and np.ndim(self.source) > 0:
            self.sources = to_device(self.source, "cpu").astype(np.int64).ravel()
            self.source = None
        elif self.sources is None and self.source is not None:
            self.sources = np.array([self.source], dtype=np.int64)
        if self.sources is not None:
            self.sources = np.asarray(self.sources, dtype=np.int64).ravel()
            if self.source is None and self.sources.size == 1:
                self.source = int(self.sources[0])

    @property
    def reached(self):
        return self.parents >= 0

    @property
    def num_reached(self) -> int:
        return int(self.reached.sum())

    def to(self, device: str):
        """A copy with every array on ``device`` ("cpu" or "cuda")."""
        moved = {name: to_device(getattr(self, name), device) for name in self._array_fields}
        return replace(self, **moved)

    @property
    def xp(self):
        return array_module(self.parents)


@dataclass
class BFSResult(_Result):
    """Breadth-first search from ``sources``: ``parents``, ``levels``, ``trace``."""

    levels: object = None
    _array_fields: ClassVar[tuple] = ("parents", "levels")

    @property
    def depth(self) -> int:
        """The largest level reached (0 when only the source is)."""
        return int(self.levels.max())


@dataclass
class SSSPResult(_Result):
    """Shortest paths from ``sources``: ``distances``, ``parents``, ``trace``."""

    distances: object = None
    _array_fields: ClassVar[tuple] = ("parents", "distances")


def path(result: _Result, target) -> np.ndarray:
    """Vertices from the search's source (the nearest one, for several) to
    ``target`` along ``result.parents``.

    Raises :class:`~wavefront.errors.VertexError` when ``target`` is out of
    range and ``ValueError`` when it was not reached.
    """
    from .errors import VertexError, vertex_range

    parents = to_device(result.parents, "cpu")
    n = parents.shape[0]
    t = int(target)
    if not 0 <= t < n:
        raise VertexError(f"target {t} is out of range: the graph has {vertex_range(n)}")
    if parents[t] < 0:
        start = f"source {result.source}" if result.source is not None else "any of the sources"
        raise ValueError(f"vertex {t} is not reachable from {start}")
    out = [t]
    while parents[out[-1]] != out[-1]:  # a source is its own parent
        out.append(int(parents[out[-1]]))
        if len(out) > n:
            raise ValueError("the parent array has a cycle; the result is corrupt")
    return np.array(out[::-1], dtype=np.int64)


def to_caller_ids(graph, result: _Result, source) -> _Result:
    """Translate a result computed in a relabelled graph's internal ids back
    to the caller's ids (a no-op on the arrays when the graph was not
    relabelled). ``source`` is the caller's source id, or the array of the
    caller's ids for a multi-source search."""
    if graph.labels is None and isinstance(source, int):  # one seed, no relabelling: nothing to translate
        if result.source != source or result.sources is None:
            result.source, result.sources = source, np.array((source,), dtype=np.int64)
        return result
    sources = np.atleast_1d(np.asarray(source, dtype=np.int64))
    start = {"source": int(sources[0]) if sources.size == 1 else None, "sources": sources}
    if graph.labels is None:
        # The backend's ids are the caller's; the result is fresh, so it is
        # relabelled in place (the arrays are not copied either way).
        result.source, result.sources = start["source"], start["sources"]
        return result
    xp = array_module(result.parents)
    labels = graph.labels
    changes = {}
    internal = result.parents
    # No boolean-mask indexing: it forces a device sync and two extra passes
    # on CuPy; unreached entries gather labels[0] and are then masked out.
    mapped = xp.where(internal >= 0, labels[xp.maximum(internal, 0)], -1)
    parents = xp.empty_like(internal)
    parents[labels] = mapped
    changes["parents"] = parents
    for name in result._array_fields:
        if name != "parents":
            values = getattr(result, name)
            out = xp.empty_like(values)
            out[labels] = values
            changes[name] = out
    return replace(result, **start, **changes)
