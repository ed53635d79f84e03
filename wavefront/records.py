"""Search results as JSON records: what ``wavefront bfs --json``, ``wavefront
sssp --json`` and ``wavefront graph500 --json`` write, and ``wavefront plot``
reads.

Every record is a JSON object naming its layout with two keys:

* ``"schema"``: ``"wavefront.search"`` (one BFS or SSSP search) or
  ``"wavefront.graph500"`` (a Graph500 run);
* ``"schema_version"``: an integer, :data:`SCHEMA_VERSION` for the files this
  version writes. A reader refuses a version it does not know rather than
  guess at what changed.

A trace row is an object with the fields of
:class:`wavefront.results.TraceRow`: ``step``, ``kind``, ``frontier``,
``edges`` (-1 where the step does not count them), ``seconds`` and
``reason``. docs/guide/plots.md documents every key of both schemas.

:func:`read_record` checks the keys the figures read and returns a
:class:`Record`: the search traces and TEPS samples in it, in the shapes the
figures take (:class:`SearchTrace`, :class:`TEPSSample`). A file it cannot
use raises :class:`ResultFileError`, naming the file and the key.
"""
from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from pathlib import Path

from .errors import WavefrontError
from .results import TraceRow

SCHEMA_VERSION = 1
SEARCH_SCHEMA = "wavefront.search"
GRAPH500_SCHEMA = "wavefront.graph500"
SCHEMAS = (SEARCH_SCHEMA, GRAPH500_SCHEMA)
KERNELS = ("bfs", "sssp")
TRACE_FIELDS = ("step", "kind", "frontier", "edges", "seconds", "reason")
WRITERS = "`wavefront bfs --json`, `wavefront sssp --json` or `wavefront graph500 --json`"


class ResultFileError(WavefrontError, ValueError):
    """A result file that is not a wavefront JSON record this version can read."""

    def __init__(self, path, message: str):
        self.path = str(path)
        self.reason = message
        super().__init__(f"{path}: {message}")


# -- writing -----------------------------------------------------------------
def strict_json(value):
    """``value`` with nan/inf floats replaced by None (JSON has no such numbers)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: strict_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [strict_json(v) for v in value]
    return value


def dumps(record: dict) -> str:
    """``record`` as strict JSON text (nan and inf become null), ending in a newline."""
    return json.dumps(strict_json(record), indent=2, allow_nan=False) + "\n"


def search_record(kernel: str, result, *, graph: dict, summary: dict, options: dict,
                  device: str, version: str) -> dict:
    """The ``wavefront.search`` record of one search.

    ``graph`` describes the input (``file``, ``vertices``, ``arcs``,
    ``directed``, ``weighted``); ``summary`` holds the numbers the command
    prints (``reached``, ``seconds``, ...); ``options`` the method options
    the user set. The trace is the search's own, one object per row.
    """
    if kernel not in KERNELS:
        raise ValueError(f"kernel must be one of {KERNELS}, got {kernel!r}")
    sources = getattr(result, "sources", None)
    return {
        "schema": SEARCH_SCHEMA,
        "schema_version": SCHEMA_VERSION,
        "kernel": kernel,
        "graph": dict(graph),
        "source": None if result.source is None else int(result.source),
        "sources": [int(result.source)] if sources is None else [int(s) for s in sources],
        "method": result.method,
        "backend": result.backend,
        "device": device,
        "options": dict(options),
        **summary,
        "wavefront_version": version,
        "trace": [asdict(row) for row in result.trace],
    }


# -- reading -----------------------------------------------------------------
@dataclass(frozen=True)
class SearchTrace:
    """One search's trace, as a figure draws it."""

    kernel: str  # "bfs" or "sssp"
    label: str  # the legend entry: method and backend
    context: str  # the title's what-and-where: graph, source, device
    rows: tuple  # TraceRow objects, in the order the search ran them

    @classmethod
    def from_result(cls, result, label: str | None = None, context: str = "") -> SearchTrace:
        """The trace of a :class:`~wavefront.BFSResult` or :class:`~wavefront.SSSPResult`."""
        from .results import BFSResult

        kernel = "bfs" if isinstance(result, BFSResult) else "sssp"
        if label is None:
            label = f"{result.method or kernel} ({result.backend})"
        return cls(kernel, label, context, tuple(result.trace))

    @property
    def seconds(self) -> float:
        return sum(r.seconds for r in self.rows)


@dataclass(frozen=True)
class TEPSSample:
    """The TEPS of every search of one Graph500 kernel run."""

    kernel: str
    label: str
    context: str
    teps: tuple  # per search, in the order they ran
    statistics: dict  # the run's own TEPS statistics (min, ..., harmonic_mean)


@dataclass(frozen=True)
class Record:
    """A checked result file: its traces and TEPS samples."""

    path: Path
    schema: str
    data: dict
    traces: tuple = field(default=())
    teps: tuple = field(default=())


def read_record(path) -> Record:
    """Load and check a JSON record written by a ``--json`` option."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ResultFileError(path, "no such file") from None
    except IsADirectoryError:
        raise ResultFileError(path, "is a directory, not a JSON result file") from None
    except UnicodeDecodeError:
        raise ResultFileError(path, f"not a text file; expected JSON written by {WRITERS}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ResultFileError(
            path, f"not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}); "
            f"expected a file written by {WRITERS}"
        ) from None
    return parse_record(data, path)


def parse_record(data, path="<record>") -> Record:
    """Check a loaded record (``path`` names it in errors) and return its contents."""
    check = _Checker(path)
    check.kind(data, dict, "the top level")
    schema = data.get("schema")
    if schema is None:
        raise ResultFileError(
            path, f"no \"schema\" key, so not a wavefront result record; write one with {WRITERS}"
        )
    if schema not in SCHEMAS:
        raise ResultFileError(
            path, f"unknown schema {schema!r}; this version reads {', '.join(map(repr, SCHEMAS))}"
        )
    version = data.get("schema_version")
    if type(version) is not int:
        raise ResultFileError(path, f"\"schema_version\" must be an integer, got {version!r}")
    if version != SCHEMA_VERSION:
        newer = "a newer" if version > SCHEMA_VERSION else "an older"
        raise ResultFileError(
            path, f"{schema} schema version {version} was written by {newer} wavefront; "
            f"this one reads version {SCHEMA_VERSION} (rerun the command that wrote it)"
        )
    if schema == SEARCH_SCHEMA:
        return _search(data, path, check)
    return _graph500(data, path, check)


def _search(data: dict, path, check: _Checker) -> Record:
    kernel = check.field(data, "kernel", str)
    if kernel not in KERNELS:
        raise ResultFileError(path, f"\"kernel\" must be one of {KERNELS}, got {kernel!r}")
    method = check.field(data, "method", str)
    backend = check.field(data, "backend", str)
    graph = check.field(data, "graph", dict)
    sources = check.field(data, "sources", list)
    where = [Path(str(graph.get("file", ""))).name or "a graph"]
    where.append(f"source {sources[0]}" if len(sources) == 1 else f"{len(sources)} sources")
    if data.get("device"):
        where.append(str(data["device"]))
    trace = SearchTrace(kernel, f"{method} ({backend})", ", ".join(where),
                        check.trace(data.get("trace"), "trace"))
    return Record(path=Path(path), schema=SEARCH_SCHEMA, data=data, traces=(trace,))


def _graph500(data: dict, path, check: _Checker) -> Record:
    if data.get("valid") is not True:
        raise ResultFileError(
            path, "the run failed validation; Graph500 reports no statistics for an invalid run"
        )
    scale = check.field(data, "SCALE", int)
    kernels = check.field(data, "kernels", dict)
    if not kernels:
        raise ResultFileError(path, "\"kernels\" is empty: the run searched nothing")
    context = f"Graph500 SCALE {scale}"
    if data.get("device"):
        context += f", {data['device']}"
    traces, samples = [], []
    for kernel, run in kernels.items():
        key = f"kernels.{kernel}"
        if kernel not in KERNELS:
            raise ResultFileError(path, f"{key}: unknown kernel; expected one of {KERNELS}")
        check.kind(run, dict, key)
        method = check.field(run, "method", str, key)
        label = f"{kernel} {method} ({data.get('backend', '?')})"
        searches = check.field(run, "searches", list, key)
        teps = []
        for i, search in enumerate(searches):
            check.kind(search, dict, f"{key}.searches[{i}]")
            value = search.get("TEPS")
            if value is not None:  # a search too fast to time has no TEPS
                teps.append(check.number(value, f"{key}.searches[{i}].TEPS"))
        statistics = check.field(run, "TEPS", dict, key)
        if "harmonic_mean" not in statistics:
            raise ResultFileError(path, f"{key}.TEPS has no \"harmonic_mean\"")
        samples.append(TEPSSample(kernel, label, context, tuple(teps), statistics))
        rows = run.get("trace")
        if rows and "rank" in rows[0]:
            rows = _levels_over_ranks(rows, path, key)
        root = f", root {searches[0]['root']}" if searches and "root" in searches[0] else ""
        traces.append(SearchTrace(kernel, label, context + root, check.trace(rows, f"{key}.trace")))
    return Record(path=Path(path), schema=GRAPH500_SCHEMA, data=data, traces=tuple(traces),
                  teps=tuple(samples))


def _levels_over_ranks(rows: list, path, key: str) -> list:
    """A distributed run's per-rank records as one row per BFS level (``level``,
    ``direction``) or SSSP phase (``phase``, ``kind``): the kind and frontier
    every rank shares, the arcs all ranks examined, and the slowest rank's
    time (the step ends when it does). BFS level 0 and the SSSP "root" record
    set up the search and are not steps of it."""
    steps: dict = {}
    try:
        for r in rows:
            step = r["level"] if "level" in r else r["phase"]
            kind = r["direction"] if "direction" in r else r["kind"]
            if ("level" in r and step == 0) or kind == "root":
                continue
            seconds = r["compute_seconds"] + r["comm_seconds"] + r["wait_seconds"]
            row = steps.get(step)
            if row is None:
                steps[step] = {
                    "step": step, "kind": kind, "frontier": r["frontier_vertices"],
                    "edges": r["examined"], "seconds": seconds, "reason": r.get("reason", ""),
                }
            else:
                row["edges"] += r["examined"]
                row["seconds"] = max(row["seconds"], seconds)
    except (KeyError, TypeError) as exc:
        raise ResultFileError(path, f"{key}.trace: a per-rank row lacks {exc}") from None
    return [steps[step] for step in sorted(steps)]


class _Checker:
    """Type checks that name the file and the key that failed."""

    def __init__(self, path):
        self.path = path

    def kind(self, value, expected: type, key: str):
        if not isinstance(value, expected) or isinstance(value, bool) and expected is not bool:
            raise ResultFileError(
                self.path, f"{key} must be a JSON {_JSON_NAMES[expected]}, got {_json_name(value)}"
            )
        return value

    def field(self, obj: dict, name: str, expected: type, parent: str = ""):
        key = f"{parent}.{name}" if parent else name
        if name not in obj:
            raise ResultFileError(self.path, f"no \"{key}\" key")
        return self.kind(obj[name], expected, f"\"{key}\"")

    def number(self, value, key: str) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ResultFileError(self.path, f"{key} must be a number, got {_json_name(value)}")
        return float(value)

    def trace(self, rows, key: str) -> tuple:
        self.kind(rows, list, f"\"{key}\"")
        out = []
        for i, row in enumerate(rows):
            where = f"{key}[{i}]"
            self.kind(row, dict, where)
            missing = [name for name in TRACE_FIELDS if name not in row]
            if missing:
                raise ResultFileError(self.path, f"{where} has no {', '.join(missing)}")
            for name in ("step", "frontier", "edges"):
                self.kind(row[name], int, f"{where}.{name}")
            for name in ("kind", "reason"):
                self.kind(row[name], str, f"{where}.{name}")
            seconds = self.number(row["seconds"], f"{where}.seconds")
            out.append(TraceRow(row["step"], row["kind"], row["frontier"], row["edges"], seconds,
                                row["reason"]))
        return tuple(out)


_JSON_NAMES = {dict: "object", list: "array", str: "string", int: "integer", bool: "boolean"}


def _json_name(value) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    for kind, name in _JSON_NAMES.items():
        if isinstance(value, kind):
            return f"an {name}" if name[0] in "aeiou" else f"a {name}"
    return "a number" if isinstance(value, float) else type(value).__name__
