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
"""
from __future__ import annotations

from pathlib import Path

from .._xp import check_device
from ..errors import GraphFormatError
from ._common import atomic_output
from .binary import read_binary, write_binary
from .dimacs import read_coordinates, read_dimacs, write_dimacs
from .edgelist import read_edgelist, write_edgelist
from .matrix_market import read_matrix_market, write_matrix_market

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


def read_graph(path, *, format=None, directed=None, weighted=None, relabel=None, device="cpu"):
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
    """
    check_device(device)
    kind = _format_of(path, format)
    options = dict(directed=directed, weighted=weighted, relabel=relabel, device=device)
    if kind == "dimacs":
        return read_dimacs(path, **options)
    if kind == "mtx":
        return read_matrix_market(path, **options)
    if kind == "edgelist":
        return read_edgelist(path, **options)
    if kind == "csv":
        return read_edgelist(path, separator=b",", **options)
    return read_binary(path, **options)


def write_graph(graph, path, format=None) -> None:
    """Write ``graph`` to ``path`` in the format its suffix names (gzip if it ends in ``.gz``)."""
    kind = _format_of(path, format)
    with atomic_output(path, text=kind != "wfb") as out:
        if kind == "dimacs":
            write_dimacs(graph, out)
        elif kind == "mtx":
            write_matrix_market(graph, out)
        elif kind == "edgelist":
            write_edgelist(graph, out)
        elif kind == "csv":
            write_edgelist(graph, out, separator=",")
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


__all__ = ["read_graph", "write_graph", "read_coordinates", "FORMATS", "SUFFIXES"]
