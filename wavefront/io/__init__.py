"""Reading and writing graph files; the format is chosen by suffix, plain or ``.gz``.

* ``dimacs`` -- ``.gr``, DIMACS 9th challenge arcs (:mod:`.dimacs`); directed
  by default.
* ``mtx`` -- ``.mtx`` ``.mm``, Matrix Market coordinate (:mod:`.matrix_market`);
  ``symmetric`` files undirected, ``general`` ones directed.
* ``edgelist`` -- ``.txt .el .edges .tsv .snap``, SNAP-style whitespace edge
  lists (:mod:`.edgelist`); undirected by default.
* ``csv`` -- ``.csv``, comma-separated edge lists (:mod:`.edgelist`);
  undirected by default.
* ``wfb`` -- ``.wfb``, wavefront's exact binary format (:mod:`.binary`); as
  stored.

DIMACS ``.co`` coordinates are read by :func:`read_coordinates`.

Malformed files raise :class:`~wavefront.errors.GraphFormatError` naming the
file and line; nothing is returned half-loaded. Writers write the caller's
vertex ids (``graph.labels``) to a temporary file renamed into place, so a
failed write leaves any existing file untouched.

Reads and writes that take more than a second show a progress bar on stderr
when it is a terminal (``progress=False`` turns it off; a
:class:`ProgressBar` picks the console and the delay). Text is parsed by a
multi-threaded numba parser over chunks of ``chunk_bytes`` (see
``docs/decisions/io.md``).
"""
from __future__ import annotations

from pathlib import Path

from .._xp import check_device
from ..errors import GraphFormatError
from ._common import atomic_output, build
from ._progress import ProgressBar
from ._scan import CHUNK_BYTES
from .binary import read_binary, write_binary
from .dimacs import parse_dimacs, read_coordinates, write_dimacs
from .edgelist import parse_edgelist, write_edgelist
from .matrix_market import parse_matrix_market, write_matrix_market

SUFFIXES = {
    ".gr": "dimacs",
    ".mtx": "mtx",
    ".mm": "mtx",
    ".txt": "edgelist",
    ".el": "edgelist",
    ".edges": "edgelist",
    ".tsv": "edgelist",
    ".snap": "edgelist",
    ".csv": "csv",
    ".wfb": "wfb",
}
FORMATS = ("dimacs", "mtx", "edgelist", "csv", "wfb")


def read_graph(path, *, format=None, directed=None, weighted=None, relabel=None, device="cpu",
               progress=True, chunk_bytes=CHUNK_BYTES):
    """Read a graph file into a :class:`~wavefront.graph.Graph`.

    * ``format``: one of :data:`FORMATS` (or a known suffix without the dot);
      by default taken from the file name, ``.gz`` allowed after any suffix.
    * ``directed``: None keeps each format's default (see the table above);
      False symmetrizes a directed file, True reads an undirected file's edges
      as arcs both ways.
    * ``weighted``: None keeps weights when the file has them, False drops
      them, True requires them.
    * ``relabel="degree"`` renumbers vertices by degree (results still use
      the file's ids); ``device="cuda"`` builds the graph on the GPU.
    * ``progress``: True shows a bar on stderr when it is a terminal and the
      read takes over a second; False never; or a :class:`ProgressBar`.
    * ``chunk_bytes``: text is parsed this many bytes at a time (memory
      beyond the graph's own is a few times this).
    """
    check_device(device)
    kind = _format_of(path, format)
    if kind == "wfb":
        return read_binary(path, directed=directed, weighted=weighted, relabel=relabel, device=device)
    arcs = parse_arcs(path, format=kind, directed=directed, weighted=weighted, progress=progress,
                      chunk_bytes=chunk_bytes)
    graph = build(arcs, weighted=weighted, relabel=relabel, device=device, path=path, progress=progress)
    if graph.weight_problem is not None:
        graph.weight_problem = _weight_problem_in_file(path, kind, arcs) or graph.weight_problem
    return graph


# First characters of the lines that are not data, per text format (the
# Matrix Market size line, the first non-comment line, is skipped as well).
_NOT_DATA = {"dimacs": ("c", "p"), "mtx": ("%",), "edgelist": ("#", "%"), "csv": ("#", "%")}


def _weight_problem_in_file(path, kind: str, arcs) -> str | None:
    """``FILE:LINE: weight W ...: "the line"`` for the first unusable weight of a
    file just read (found again by a slow scan: an error path only)."""
    from ..graph._csr import first_bad_weight
    from ._scan import TextSource

    k = first_bad_weight(arcs.src, arcs.dst, arcs.weights)
    if k is None or kind not in _NOT_DATA:
        return None
    row, size_line = 0, kind == "mtx"
    with TextSource(path) as source:
        for number, raw in enumerate(iter(source.next_line, None), start=1):
            text = raw.decode("latin-1").strip()
            if not text or text.startswith(_NOT_DATA[kind]):
                continue
            if size_line:
                size_line = False
                continue
            if row == k:
                weight = arcs.weights[k].item()
                what = "NaN" if weight != weight else "infinite" if abs(weight) == float("inf") else "negative"
                return f"{path}:{number}: weight {weight} is {what}: {text!r}"
            row += 1
    return None


def parse_arcs(path, *, format=None, directed=None, weighted=None, progress=True,
               chunk_bytes=CHUNK_BYTES):
    """The arcs of a text graph file, parsed but not built into a Graph (see :func:`read_graph`)."""
    kind = _format_of(path, format)
    options = dict(directed=directed, weighted=weighted, progress=progress, chunk_bytes=chunk_bytes)
    if kind == "dimacs":
        return parse_dimacs(path, **options)
    if kind == "mtx":
        return parse_matrix_market(path, **options)
    if kind == "csv":
        return parse_edgelist(path, separator=b",", **options)
    if kind == "edgelist":
        return parse_edgelist(path, **options)
    raise ValueError(f"{kind} files hold a built graph, not text arcs: use read_graph")


def write_graph(graph, path, format=None, *, progress=True) -> None:
    """Write ``graph`` to ``path`` in the format its suffix names (gzip if it ends in ``.gz``).

    ``progress`` as for :func:`read_graph`.
    """
    kind = _format_of(path, format)
    with atomic_output(path) as out:
        if kind == "dimacs":
            write_dimacs(graph, out, progress=progress)
        elif kind == "mtx":
            write_matrix_market(graph, out, progress=progress)
        elif kind == "edgelist":
            write_edgelist(graph, out, progress=progress)
        elif kind == "csv":
            write_edgelist(graph, out, separator=",", progress=progress)
        else:
            write_binary(graph, out)


def _format_of(path, format) -> str:
    if format is not None:
        name = str(format).lower().lstrip(".")
        if name in FORMATS:
            return name
        if f".{name}" in SUFFIXES:
            return SUFFIXES[f".{name}"]
        raise ValueError(f"unknown format {format!r}; choose one of {', '.join(FORMATS)}")
    name = Path(path).name.lower()
    if name.endswith(".gz"):
        name = name[:-3]
    suffix = Path(name).suffix
    if suffix in SUFFIXES:
        return SUFFIXES[suffix]
    if suffix == ".co":
        raise GraphFormatError(
            "a DIMACS .co file holds coordinates, not a graph: use wavefront.io.read_coordinates",
            path,
        )
    known = " ".join(sorted(SUFFIXES))
    raise GraphFormatError(
        f"unknown file suffix {suffix or '(none)'!r}; known suffixes (optionally + .gz): {known}; "
        "or pass format= one of " + ", ".join(FORMATS),
        path,
    )


__all__ = ["read_graph", "write_graph", "parse_arcs", "read_coordinates", "ProgressBar", "FORMATS", "SUFFIXES"]
