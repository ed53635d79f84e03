"""DIMACS 9th Implementation Challenge shortest-path files: ``.gr`` arcs and ``.co`` coordinates.

``.gr``: comment lines ``c ...``, one problem line ``p sp N M`` before any arc,
then exactly ``M`` arc lines ``a U V W`` with 1-based ids in ``1..N`` and
integer lengths (this reader also accepts real lengths, and a length past
int64 is read as one: float64, rounded to 53 bits). The file describes a
*directed* graph, so it is read as one by default; road networks list every
road in both directions, so ``directed=False`` gives the same arcs merged
into undirected edges. Integer lengths load as int32 when they all fit,
else int64.

``.co``: ``p aux sp co N`` then ``v ID X Y`` for every vertex (integer
coordinates), read by :func:`read_coordinates` for plots.
"""
from __future__ import annotations

import re

import numpy as np

from ..errors import GraphFormatError, OutputFormatError
from ._common import Arcs, arc_pieces, check_vertex_count, write_rows
from ._progress import Meter
from ._scan import CHUNK_BYTES, Grammar, kernels, open_text, read_rows

_COUNT = re.compile(rb"[0-9]+\Z")


def parse_dimacs(path, *, directed=None, weighted=None, progress=True, chunk_bytes=CHUNK_BYTES) -> Arcs:
    """Parse a DIMACS ``.gr`` file (plain or gzip); directed by default."""
    k = kernels()
    with open_text(path, chunk_bytes=chunk_bytes, progress=progress) as source:
        n, m, header_line = _head(source, path, b"a", b"p sp N M", "arc", _problem_line)
        grammar = _grammar(b"a", "arc", "an arc line is 'a SOURCE TARGET LENGTH'", n,
                           k.SKIP if weighted is False else k.NUMBER, "a vertex id", "a number")
        rows = read_rows(source, grammar)
    if rows.a.size != m:
        raise GraphFormatError(
            f"the problem line announces {m} arcs but the file holds {rows.a.size}", path, header_line
        )
    return Arcs(rows.a, rows.b, rows.weights, n, True if directed is None else directed)


def read_coordinates(path, *, progress=True, chunk_bytes=CHUNK_BYTES) -> np.ndarray:
    """Vertex coordinates from a DIMACS ``.co`` file: an (N, 2) int64 array, row = id - 1."""
    k = kernels()
    with open_text(path, chunk_bytes=chunk_bytes, progress=progress) as source:
        n, header_line = _head(source, path, b"v", b"p aux sp co N", "vertex", _coordinate_header)
        grammar = _grammar(b"v", "vertex", "a vertex line is 'v ID X Y'", n, k.INTEGER,
                           "an integer", "an integer", coordinates=True)
        rows = read_rows(source, grammar, id_dtype=np.int64)
    ids = rows.a
    seen = np.bincount(ids, minlength=n)
    if ids.size != n or (seen != 1).any():
        missing = np.flatnonzero(seen == 0)
        what = f"vertex {missing[0] + 1} has no coordinates" if missing.size else "a vertex is listed twice"
        raise GraphFormatError(
            f"{what}: the problem line announces {n} vertices, each listed once", path, header_line
        )
    coordinates = np.zeros((n, 2), dtype=np.int64)
    coordinates[ids, 0] = rows.b
    coordinates[ids, 1] = rows.weights
    return coordinates


def write_dimacs(graph, out, progress=True) -> None:
    """Write ``p sp N M`` and one ``a`` line per arc (both directions of an undirected edge).

    Unweighted graphs get length 1; real lengths must be whole numbers.
    """
    w = graph.to("cpu").weights
    if w is not None and w.dtype.kind == "f" and not np.all(np.isfinite(w) & (w == np.round(w))):
        raise OutputFormatError(
            "DIMACS .gr stores integer arc lengths but this graph has fractional "
            "weights; write Matrix Market (.mtx) or an edge list (.txt) instead"
        )
    out.write(f"c written by wavefront\np sp {graph.n} {graph.m}\n".encode())
    pieces = (
        (src, dst, None if weights is None else weights.astype(np.int64))
        for src, dst, weights in arc_pieces(graph, each_edge_once=False)
    )
    with Meter("writing", 0, progress=progress) as meter:
        write_rows(out, pieces, graph.m, prefix=b"a ", shift=1, unit_weights=True, meter=meter)


def _head(source, path, tag: bytes, problem: bytes, what: str, parse_problem):
    """Read comments up to the problem line and parse it; no data line may come before it."""
    expected = f"c (comment), p (problem) or {tag.decode()} ({what})"
    for text, number, _ in source.nonblank_lines():
        first = text[:1]
        if first == b"c":
            continue
        if first == b"p":
            return parse_problem(text, path, number)
        if first == tag:
            raise GraphFormatError(
                f"{what} line before the '{problem.decode()}' problem line", path, number
            )
        raise GraphFormatError(f"unexpected line: DIMACS lines start with {expected}", path, number)
    raise GraphFormatError(f"no '{problem.decode()}' problem line", path)


def _grammar(tag: bytes, what: str, shape: str, n: int, weight_mode: int, id_name: str,
             weight_name: str, coordinates: bool = False) -> Grammar:
    unbounded = np.iinfo(np.int64)
    return Grammar(
        comment=b"c",
        data=tag,
        other={b"p": "a second problem line"},
        other_message=f"unexpected line: DIMACS lines start with c (comment), p (problem) or {tag.decode()} ({what})",
        tag=tag,
        shape=shape + ", found {found} fields",
        id_name=id_name,
        b_name="an integer" if coordinates else None,
        weight_mode=weight_mode,
        weight_name=weight_name,
        bounds=(1, n, unbounded.min + 1, unbounded.max) if coordinates else (1, n, 1, n),
        bases=(1, 0) if coordinates else (1, 1),
        out_of_range=lambda value: f"vertex id {value} is outside 1..{n} declared by the problem line",
    )


def _problem_line(text: bytes, path, line: int):
    fields = text.split()
    if len(fields) != 4 or fields[:2] != [b"p", b"sp"] or not all(map(_COUNT.match, fields[2:])):
        raise GraphFormatError("the problem line must be 'p sp NODES ARCS'", path, line)
    n, m = int(fields[2]), int(fields[3])
    check_vertex_count(n, path, line)
    return n, m, line


def _coordinate_header(text: bytes, path, line: int):
    fields = text.split()
    if len(fields) != 5 or fields[:4] != [b"p", b"aux", b"sp", b"co"] or not _COUNT.match(fields[4]):
        raise GraphFormatError("the problem line must be 'p aux sp co NODES'", path, line)
    n = int(fields[4])
    check_vertex_count(n, path, line)
    return n, line
