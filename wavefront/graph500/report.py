"""The Graph500 report: the reference's output block, our extras, and JSON.

The block reproduces the v3 reference's ``main`` byte for byte in layout:
``name:`` padded so every value starts in column 33 (a 32-character field),
kernel prefixes ``bfs  `` (two spaces) and ``sssp `` (one space), the
harmonic-mean TEPS value preceded by ``!  ``, and the same order: header;
per-kernel times; nedge (no prefix); per-kernel TEPS; per-kernel validate
times. Values use the reference's C formats: ``%d`` for integers, ``%.11g``
for nedge statistics and ``%g`` (six significant digits) for everything else;
Python's ``g`` formatting gives the same text (``1e-05``, ``2.3623e+09``,
``inf``, ``nan``). Kernels not run are left out. Our extras (backend, device,
methods, seed, version, energy) follow the block in the same layout. An
invalid run prints only the reference's ``No results printed for invalid
run.``.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field

from ..records import GRAPH500_SCHEMA, SCHEMA_VERSION, strict_json
from .energy import EnergyMeasurement
from .stats import STATISTICS, TEPS_STATISTICS, statistics, teps_statistics

FIELD_WIDTH = 32
HARMONIC_MARK = "!  "
PREFIX = {"bfs": "bfs  ", "sssp": "sssp "}
INVALID_RUN = "No results printed for invalid run."


@dataclass
class EnergyRun:
    """A back-to-back re-run of a kernel's searches under an energy meter."""

    measurement: EnergyMeasurement
    times: list
    nedges: list

    @property
    def harmonic_mean_teps(self) -> float:
        return teps_statistics(self.times, self.nedges).harmonic_mean

    @property
    def mteps_per_watt(self) -> float:
        return self.harmonic_mean_teps / self.measurement.average_watts / 1e6

    def as_dict(self) -> dict:
        return {
            **self.measurement.as_dict(),
            "searches": len(self.times),
            "harmonic_mean_TEPS": self.harmonic_mean_teps,
            "MTEPS_per_W": self.mteps_per_watt,
        }


@dataclass
class KernelRun:
    """Everything measured for one kernel (bfs or sssp)."""

    kernel: str
    method: str
    roots: list = field(default_factory=list)
    times: list = field(default_factory=list)
    nedges: list = field(default_factory=list)
    validate_times: list = field(default_factory=list)
    depths: list = field(default_factory=list)
    reached: list = field(default_factory=list)
    trace: list = field(default_factory=list)  # TraceRow dicts of the first timed search
    energy: EnergyRun | None = None
    options: dict = field(default_factory=dict)  # given to every search (e.g. delta)

    def method_label(self) -> str:
        """The method with its options: ``delta-stepping(delta=0.5)``."""
        if not self.options:
            return self.method
        return f"{self.method}({', '.join(f'{k}={v:g}' for k, v in self.options.items())})"

    def time_statistics(self):
        return statistics(self.times)

    def teps_statistics(self):
        return teps_statistics(self.times, self.nedges)

    def validate_statistics(self):
        return statistics(self.validate_times)

    def as_dict(self) -> dict:
        searches = [
            {
                "root": int(r), "seconds": t, "nedge": int(e), "TEPS": e / t if t > 0 else None,
                "validate_seconds": v, "depth": int(d), "reached": int(c),
            }
            for r, t, e, v, d, c in zip(
                self.roots, self.times, self.nedges, self.validate_times, self.depths, self.reached
            )
        ]
        out = {"method": self.method, "searches": searches, "trace": self.trace}
        if self.options:
            out["options"] = dict(self.options)
        if self.times:
            out["time"] = self.time_statistics().as_dict()
            out["nedge"] = statistics(self.nedges).as_dict()
            out["TEPS"] = self.teps_statistics().as_dict()
            out["validate"] = self.validate_statistics().as_dict()
        if self.energy is not None:
            out["energy"] = self.energy.as_dict()
        return out


@dataclass
class ValidationFailure:
    kernel: str
    search: int  # 0-based index among the timed searches
    root: int
    rule: str
    message: str

    def describe(self) -> str:
        return (
            f"validation failed: {self.kernel} search {self.search + 1} (root {self.root}): "
            f"{self.message}"
        )


@dataclass
class Graph500Report:
    """A Graph500 run: print it with :meth:`lines`, save it with :meth:`as_dict`."""

    scale: int
    edgefactor: int
    seed: int
    roots: list
    graph_generation: float
    construction_time: float
    backend: str
    backend_reason: str
    device: str
    version: str
    kernels: dict  # kernel name -> KernelRun, in run order
    num_mpi_processes: int = 1
    failure: ValidationFailure | None = None

    @property
    def valid(self) -> bool:
        return self.failure is None

    @property
    def nbfs(self) -> int:
        return len(self.roots)

    def lines(self) -> list[str]:
        """The reference block then our extras; one line per entry, no newlines."""
        if not self.valid:
            return [INVALID_RUN]
        runs = list(self.kernels.values())
        out = [
            field_line("SCALE", f"{self.scale:d}"),
            field_line("edgefactor", f"{self.edgefactor:d}"),
            field_line("NBFS", f"{self.nbfs:d}"),
            field_line("graph_generation", f"{self.graph_generation:g}"),
            field_line("num_mpi_processes", f"{self.num_mpi_processes:d}"),
            field_line("construction_time", f"{self.construction_time:g}"),
        ]
        for run in runs:
            s = run.time_statistics()
            out += [field_line(PREFIX[run.kernel] + f"{k}_time", f"{getattr(s, k):g}") for k in STATISTICS]
        if runs:
            # Every kernel searches the same component from the same roots, and
            # the validator confirmed each count, so the first kernel's counts stand.
            s = statistics(runs[0].nedges)
            out += [field_line(f"{k}_nedge", f"{getattr(s, k):.11g}") for k in STATISTICS]
        for run in runs:
            s = run.teps_statistics()
            for k in TEPS_STATISTICS:
                name = PREFIX[run.kernel] + f"{k}_TEPS"
                value = f"{getattr(s, k):g}"
                out.append(field_line(name, value, mark=HARMONIC_MARK if k == "harmonic_mean" else ""))
        for run in runs:
            s = run.validate_statistics()
            out += [field_line(PREFIX[run.kernel] + f"{k}_validate", f"{getattr(s, k):g}") for k in STATISTICS]
        return out + self.extra_lines()

    def extra_lines(self) -> list[str]:
        out = [
            field_line("backend", self.backend),
            field_line("backend_reason", self.backend_reason),
            field_line("device", self.device),
            field_line("seed", f"{self.seed:d}"),
            field_line("wavefront_version", self.version),
        ]
        for run in self.kernels.values():
            out.append(field_line(PREFIX[run.kernel] + "method", run.method_label()))
        for run in self.kernels.values():
            if run.energy is None:
                continue
            e, p = run.energy, PREFIX[run.kernel]
            out += [
                field_line(p + "energy_seconds", f"{e.measurement.seconds:g}"),
                field_line(p + "energy_joules", f"{e.measurement.joules:g}"),
                field_line(p + "average_watts", f"{e.measurement.average_watts:g}"),
                field_line(p + "energy_harmonic_mean_TEPS", f"{e.harmonic_mean_teps:g}"),
                field_line(p + "MTEPS_per_W", f"{e.mteps_per_watt:g}"),
                field_line(p + "energy_source", e.measurement.source),
            ]
        return out

    def text(self) -> str:
        return "\n".join(self.lines()) + "\n"

    def as_dict(self) -> dict:
        """The run as a ``wavefront.graph500`` record (docs/guide/plots.md)."""
        return {
            "schema": GRAPH500_SCHEMA,
            "schema_version": SCHEMA_VERSION,
            "SCALE": self.scale,
            "edgefactor": self.edgefactor,
            "NBFS": self.nbfs,
            "graph_generation": self.graph_generation,
            "num_mpi_processes": self.num_mpi_processes,
            "construction_time": self.construction_time,
            "seed": self.seed,
            "roots": [int(r) for r in self.roots],
            "backend": self.backend,
            "backend_reason": self.backend_reason,
            "device": self.device,
            "wavefront_version": self.version,
            "valid": self.valid,
            "failure": None if self.failure is None else vars(self.failure),
            "kernels": {name: run.as_dict() for name, run in self.kernels.items()},
        }

    def write_json(self, path) -> None:
        """Write :meth:`as_dict` to ``path`` as strict JSON (nan and inf become
        null), via a temporary file so a failed write leaves no half file."""
        import os
        from pathlib import Path

        path = Path(path)
        partial = path.with_name(f".{path.name}.partial")
        try:
            text = json.dumps(strict_json(self.as_dict()), indent=2, allow_nan=False)
            partial.write_text(text + "\n")
            os.replace(partial, path)
        finally:
            if partial.exists():
                partial.unlink()


def field_line(name: str, value: str, mark: str = "") -> str:
    """``name:`` padded so ``mark + value`` starts at column FIELD_WIDTH + 1."""
    label = f"{name}:"
    width = max(FIELD_WIDTH - len(mark), len(label) + 1)
    return f"{label.ljust(width)}{mark}{value}"
