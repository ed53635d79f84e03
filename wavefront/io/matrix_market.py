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
from ._common import (
    build,
    caller_arcs,
    check_vertex_count,
    compact_integers,
    first_true,
    iter_lines,
    parse_columns,
    read_bytes,
    write_rows,
)

BANNER = "%%MatrixMarket"
FIELDS = {"real": np.float64, "double": np.float64, "integer": np.int64, "pattern": None}
SYMMETRIES = ("general", "symmetric")
_COMMENT = ord("%")
_COUNT = re.compile(r"[0-9]+\Z")


def read_matrix_market(path, *, directed=None, weighted=None, relabel=None, device="cpu"):
    """Read a Matrix Market coordinate file into a Graph (symmetric -> undirected)."""
    data = read_bytes(path)
    if data.isspace() or not data:
        raise GraphFormatError("the file is empty", path)
    weight_dtype, symmetric = _banner(data[: data.find(b"\n")] if b"\n" in data else data, path)
    size = None  # (n, entries, line number)
    rows_parts, cols_parts, weight_parts = [], [], []
    for lines in iter_lines(data, path):
        entries = np.flatnonzero((lines.first != _COMMENT) & (lines.first != 0))
        if size is None and entries.size:
            size = _size_line(lines.select(entries[:1])[0], path, lines.line_of(entries, 0))
            entries = entries[1:]
        if not entries.size:
            continue
        fields = 2 if weight_dtype is None else 3
        bad = first_true(lines.ntok[entries] != fields)
        if bad is not None:
            raise GraphFormatError(
                f"an entry line is 'I J{'' if weight_dtype is None else ' VALUE'}', "
                f"found {int(lines.ntok[entries[bad]])} fields",
                path,
                lines.line_of(entries, bad),
            )
        ij = parse_columns(lines, entries, (0, 1), np.int64, path, "an index")
        bad = first_true(((ij < 1) | (ij > size[0])).any(axis=1))
        if bad is not None:
            raise GraphFormatError(
                f"index outside 1..{size[0]} declared by the size line", path, lines.line_of(entries, bad)
            )
        rows_parts.append(ij[:, 0] - 1)
        cols_parts.append(ij[:, 1] - 1)
        if weight_dtype is not None:
            kind = "an integer" if weight_dtype is np.int64 else "a number"
            weight_parts.append(parse_columns(lines, entries, (2,), weight_dtype, path, kind)[:, 0])
    if size is None:
        raise GraphFormatError("no 'ROWS COLS ENTRIES' size line", path)
    n, expected, size_line = size
    rows = np.concatenate(rows_parts) if rows_parts else np.empty(0, np.int64)
    cols = np.concatenate(cols_parts) if cols_parts else np.empty(0, np.int64)
    if rows.size != expected:
        raise GraphFormatError(
            f"the size line announces {expected} entries but the file holds {rows.size}", path, size_line
        )
    weights = None
    if weight_dtype is not None:
        weights = np.concatenate(weight_parts) if weight_parts else np.empty(0, weight_dtype)
        weights = compact_integers(weights)
    directed = not symmetric if directed is None else directed
    if symmetric and directed:  # the file stores one triangle of both arcs
        rows, cols = np.concatenate([rows, cols]), np.concatenate([cols, rows])
        weights = None if weights is None else np.concatenate([weights, weights])
    return build(
        rows, cols, weights, n,
        directed=directed, weighted=weighted, relabel=relabel, device=device, path=path,
    )


def write_matrix_market(graph, out) -> None:
    """Write a coordinate file: ``symmetric`` (lower triangle) for undirected graphs."""
    src, dst, weights = caller_arcs(graph, each_edge_once=True)
    if not graph.directed:  # lower triangle: row >= column
        src, dst = dst, src
    field = "pattern" if weights is None else ("real" if weights.dtype.kind == "f" else "integer")
    symmetry = "general" if graph.directed else "symmetric"
    out.write(f"{BANNER} matrix coordinate {field} {symmetry}\n% written by wavefront\n")
    out.write(f"{graph.n} {graph.n} {src.size}\n")
    columns = [(src + 1).tolist(), (dst + 1).tolist()]
    if weights is None:
        write_rows(out, "%d %d\n", columns)
    else:
        write_rows(out, "%d %d %r\n", [*columns, weights])


def _banner(first_line: bytes, path):
    words = first_line.decode("latin-1").split()
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
    return FIELDS[field], symmetry == "symmetric"


def _size_line(text: str, path, line: int):
    fields = text.split()
    if len(fields) != 3 or not all(map(_COUNT.match, fields)):
        raise GraphFormatError("the size line must be 'ROWS COLS ENTRIES'", path, line)
    rows, cols, entries = map(int, fields)
    if rows != cols:
        raise GraphFormatError(
            f"an adjacency matrix is square, but the size line says {rows} x {cols}", path, line
        )
    check_vertex_count(rows, path, line)
    return rows, entries, line
