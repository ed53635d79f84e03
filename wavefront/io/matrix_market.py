"""Matrix Market coordinate files (``.mtx``): an adjacency matrix, entry (i, j) = arc i -> j.

Supported banners: ``%%MatrixMarket matrix coordinate {real|double|integer|pattern}
{general|symmetric}``. ``symmetric`` files store one triangle and are read as
undirected graphs by default; ``general`` files as directed. ``pattern``
files have no weights; ``integer`` weights load as int32 when they fit, else
int64; ``real`` as float64. Comment lines start with ``%``; the first other
line is ``ROWS COLS ENTRIES`` (rows must equal columns), then exactly
``ENTRIES`` lines ``I J [VALUE]`` with 1-based indices.
"""
from __future__ import annotations

import re

import numpy as np

from ..errors import GraphFormatError
from ._common import Arcs, arc_pieces, check_vertex_count, write_rows
from ._progress import Meter
from ._scan import CHUNK_BYTES, Grammar, kernels, open_text, read_rows

BANNER = "%%MatrixMarket"
FIELDS = ("real", "double", "integer", "pattern")
SYMMETRIES = ("general", "symmetric")
_COUNT = re.compile(r"[0-9]+\Z")


def parse_matrix_market(path, *, directed=None, weighted=None, progress=True,
                        chunk_bytes=CHUNK_BYTES) -> Arcs:
    """Parse a Matrix Market coordinate file (symmetric -> undirected)."""
    k = kernels()
    with open_text(path, chunk_bytes=chunk_bytes, progress=progress) as source:
        lines = source.nonblank_lines()
        field, symmetric = _banner(*next(lines)[:2], path)
        n, expected, size_line = _size_line(lines, path)
        if field == "pattern":
            mode = k.NO_WEIGHT
        elif weighted is False:
            mode = k.SKIP
        else:
            mode = k.INTEGER if field == "integer" else k.NUMBER
        grammar = Grammar(
            comment=b"%",
            shape=f"an entry line is 'I J{'' if field == 'pattern' else ' VALUE'}', found {{found}} fields",
            id_name="an index",
            weight_mode=mode,
            weight_name="an integer" if field == "integer" else "a number",
            bounds=(1, n, 1, n),
            bases=(1, 1),
            out_of_range=lambda value: f"index outside 1..{n} declared by the size line",
        )
        rows = read_rows(source, grammar, float_weights=field in ("real", "double"))
    if rows.a.size != expected:
        raise GraphFormatError(
            f"the size line announces {expected} entries but the file holds {rows.a.size}", path, size_line
        )
    src, dst, weights = rows.a, rows.b, rows.weights
    directed = not symmetric if directed is None else directed
    if symmetric and directed:  # the file stores one triangle of both arcs
        src, dst = np.concatenate([src, dst]), np.concatenate([dst, src])
        weights = None if weights is None else np.concatenate([weights, weights])
    return Arcs(src, dst, weights, n, directed)


def write_matrix_market(graph, out, progress=True) -> None:
    """Write a coordinate file: ``symmetric`` (lower triangle) for undirected graphs."""
    weights = graph.weights
    field = "pattern" if weights is None else ("real" if weights.dtype.kind == "f" else "integer")
    symmetry = "general" if graph.directed else "symmetric"
    rows = graph.m if graph.directed else graph.m // 2
    out.write(f"{BANNER} matrix coordinate {field} {symmetry}\n% written by wavefront\n".encode())
    out.write(f"{graph.n} {graph.n} {rows}\n".encode())
    pieces = arc_pieces(graph, each_edge_once=True)
    if not graph.directed:  # lower triangle: row >= column
        pieces = ((dst, src, w) for src, dst, w in pieces)
    with Meter("writing", 0, progress=progress) as meter:
        write_rows(out, pieces, rows, shift=1, meter=meter)


def _banner(line: bytes, number: int, path):
    words = line.decode("latin-1").split() if number == 1 else []  # the banner is the first line
    if not words or words[0].lower() != BANNER.lower():
        raise GraphFormatError(f"the first line must be the '{BANNER} ...' banner", path, 1)
    words = [w.lower() for w in words]
    if len(words) != 5 or words[1] != "matrix":
        raise GraphFormatError(
            f"the banner must be '{BANNER} matrix coordinate FIELD SYMMETRY'", path, 1
        )
    layout, field, symmetry = words[2:]
    if layout != "coordinate":
        raise GraphFormatError(
            f"'{layout}' (dense) matrices are not graphs; only 'coordinate' files are read", path, 1
        )
    if field not in FIELDS:
        raise GraphFormatError(
            f"field '{field}' is not supported; use one of {', '.join(FIELDS)}", path, 1
        )
    if symmetry not in SYMMETRIES:
        raise GraphFormatError(
            f"symmetry '{symmetry}' is not supported; use one of {', '.join(SYMMETRIES)}", path, 1
        )
    return field, symmetry == "symmetric"


def _size_line(lines, path):
    for text, number, _ in lines:
        if text[:1] != b"%":
            break
    else:
        raise GraphFormatError("no 'ROWS COLS ENTRIES' size line", path)
    fields = text.decode("latin-1").split()
    if len(fields) != 3 or not all(map(_COUNT.match, fields)):
        raise GraphFormatError("the size line must be 'ROWS COLS ENTRIES'", path, number)
    rows, cols, entries = map(int, fields)
    if rows != cols:
        raise GraphFormatError(
            f"an adjacency matrix is square, but the size line says {rows} x {cols}", path, number
        )
    check_vertex_count(rows, path, number)
    return rows, entries, number
