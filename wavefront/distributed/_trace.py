"""Per-rank trace rows of the distributed searches, and the clock that fills them.

A BFS level (:class:`LevelRecord`) or an SSSP phase (:class:`PhaseRecord`)
splits its seconds into compute (steps, packing, applying), communication
(the collectives) and wait (a barrier before the fold, so a slow rank's
extra work is billed to the others as waiting, not as communication), and
counts the payload bytes each rank handed to and got from the others
(what the algorithm asks to move, see :mod:`.transport`).

Every collective runs inside :meth:`Clock.collective`, which also files its
seconds and bytes under the collective's name in ``collectives`` (``fold``,
``row_allgather``, ``transpose``, ``column_allgather``, ``allreduce``, ...):
the per-collective columns the communication model of
``docs/decisions/distributed.md`` is checked against, level by level.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field


@dataclass(kw_only=True)
class Timing:
    """The seconds and bytes of one level or phase of one rank."""

    compute_seconds: float = 0.0
    comm_seconds: float = 0.0
    wait_seconds: float = 0.0
    bytes_out: int = 0  # payload sent to other ranks (all collectives of the level)
    bytes_in: int = 0
    # collective name -> {"seconds", "bytes_out", "bytes_in", "calls"}
    collectives: dict = field(default_factory=dict)

    @property
    def seconds(self) -> float:
        return self.compute_seconds + self.comm_seconds + self.wait_seconds


@dataclass
class LevelRecord(Timing):
    """One BFS level of one rank (level 0: setting up the root)."""

    level: int
    direction: str
    reason: str
    frontier_vertices: int  # n_f the level started from (global)
    frontier_edges: int  # m_f (global)
    examined: int  # arcs this rank's step examined
    sent: int  # (vertex, parent) pairs this rank sent in the fold
    received: int  # pairs it received as owner
    found: int = 0  # targets this rank's step claimed (before the fold's deduplication)
    discovered: int = 0  # vertices the level added to the tree (global: the next n_f)
    unexplored_edges: int = 0  # m_u the policy saw (global)
    deduplicated: bool = False  # whether the fold picked one sender per target (fig. 8 steps 6-8)


@dataclass
class PhaseRecord(Timing):
    """One SSSP phase of one rank: a light or heavy relaxation of the bucket
    ``bucket`` (``kind`` "light"/"heavy"), the start ("root"), or the
    parents from the final distances ("parents", the last)."""

    phase: int
    kind: str
    bucket: int
    frontier_vertices: int  # vertices whose arcs the phase relaxed (global)
    examined: int = 0  # arcs this rank relaxed
    sent: int = 0  # (vertex, distance) pairs this rank sent to owners
    received: int = 0  # pairs it received as owner
    improved: int = 0  # distances the phase lowered (global)


class Clock:
    """Adds the time of each part of a level to its record."""

    def __init__(self, *transports):
        self.transports = transports

    def start(self, record: Timing) -> None:
        self.record = record
        self.bytes = [(t.bytes_out, t.bytes_in) for t in self.transports]
        self.mark = time.perf_counter()

    def lap(self, phase: str) -> None:
        """Bill the time since the last mark to ``phase`` ("compute" or "wait")."""
        now = time.perf_counter()
        if phase == "compute":
            self.record.compute_seconds += now - self.mark
        else:
            name = f"{phase}_seconds"
            setattr(self.record, name, getattr(self.record, name) + now - self.mark)
        self.mark = now

    def collective(self, name: str, transport) -> _Collective:
        """Time one collective on ``transport`` (``with clock.collective(...)``;
        time before it is compute)."""
        return _Collective(self, name, transport)

    def none(self, name: str) -> None:
        """File ``name`` as a collective that moves nothing here (a one-column
        grid's row and fold), as a call of no time: the trace keeps the same
        columns at every P without two clock reads."""
        _entry(self.record, name)["calls"] += 1

    def stop(self):
        r = self.record
        self.lap("compute")
        for t, (out, into) in zip(self.transports, self.bytes):
            r.bytes_out += t.bytes_out - out
            r.bytes_in += t.bytes_in - into
        return r


def _entry(record: Timing, name: str) -> dict:
    """``record``'s entry for the collective ``name``, made empty on first use."""
    entry = record.collectives.get(name)
    if entry is None:
        entry = record.collectives[name] = {"seconds": 0.0, "bytes_out": 0, "bytes_in": 0, "calls": 0}
    return entry


class _Collective:
    """:meth:`Clock.collective`'s context: a class, not a generator, since a
    distributed GPU search enters one 40-60 times and each generator-based
    entry cost about 2 us of the host's time between two levels."""

    __slots__ = ("clock", "into", "name", "out", "transport")

    def __init__(self, clock: Clock, name: str, transport):
        self.clock, self.name, self.transport = clock, name, transport

    def __enter__(self):
        self.clock.lap("compute")
        self.out, self.into = self.transport.bytes_out, self.transport.bytes_in

    def __exit__(self, *exc) -> bool:
        clock, transport = self.clock, self.transport
        now = time.perf_counter()
        seconds = now - clock.mark
        record = clock.record
        record.comm_seconds += seconds
        entry = _entry(record, self.name)
        entry["seconds"] += seconds
        entry["bytes_out"] += transport.bytes_out - self.out
        entry["bytes_in"] += transport.bytes_in - self.into
        entry["calls"] += 1
        clock.mark = now
        return False


def level_records(rows, last_found: int) -> list:
    """The rank's :class:`LevelRecord` rows of a search a world of one ran as
    the single-GPU search, from its trace rows (:class:`~wavefront.results.TraceRow`)
    and the vertices its last level found: the root's record, then one a level
    with its compute seconds (no collective). A level's ``discovered`` is the
    next level's frontier; m_f and m_u, the policy's inputs that the
    single-GPU trace does not keep, are -1 (not recorded)."""
    rows = list(rows)
    records = [LevelRecord(0, "root", "", 0, 0, 0, 0, 0, discovered=1)]
    for row, following in zip(rows, rows[1:] + [None] if rows else [], strict=True):
        found = int(last_found) if following is None else following.frontier
        records.append(LevelRecord(row.step, row.kind, row.reason, row.frontier, -1, row.edges, 0, 0, found=found,
                                   discovered=found, unexplored_edges=-1, compute_seconds=row.seconds))
    return records


def phase_records(rows) -> list:
    """The rank's :class:`PhaseRecord` rows of an SSSP a world of one ran as
    the single-GPU search: the root's, then one per trace row (a bucket),
    its arcs examined (0 where the row does not count them) and compute
    seconds, no collective."""
    records = [PhaseRecord(0, "root", 0, 1)]
    for phase, row in enumerate(rows, start=1):
        records.append(PhaseRecord(phase, row.kind, row.step, row.frontier, examined=max(int(row.edges), 0),
                                   compute_seconds=row.seconds))
    return records

