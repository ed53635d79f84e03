"""DIMACS 9th Implementation Challenge shortest-path files: ``.gr`` arcs and ``.co`` coordinates.

``.gr``: comment lines ``c ...``, one problem line ``p sp N M`` before any arc,
then exactly ``M`` arc lines ``a U V W`` with 1-based ids in ``1..N`` and
integer lengths (this reader also accepts real lengths). The file describes a
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

from ..errors import GraphFormatError
from ._common import (
    build,
    caller_arcs,
    check_vertex_count,
    first_true,
    iter_lines,
    merge_weight_chunks,
    parse_columns,
    parse_arcs,
    read_bytes,
    write_rows,
)

_C, _P, _A, _V = (ord(c) for c in "cpav")
_COUNT = re.compile(r"[0-9]+\Z")


def read_dimacs(path, *, directed=None, weighted=None, relabel=None, device="cpu"):
    """Read a DIMACS ``.gr`` file (plain or gzip) into a Graph; directed by default."""
    header = None  # (n, m, line number)
    sources, targets, weights = [], [], []
    for lines in iter_lines(_nonempty(path), path):
        kind = lines.first
        _reject_other_lines(lines, (0, _C, _P, _A), path, "c (comment), p (problem) or a (arc)")
        arcs = np.flatnonzero(kind == _A)
        for row in np.flatnonzero(kind == _P).tolist():
            if header is not None:
                raise GraphFormatError("a second problem line", path, int(lines.number[row]))
            if arcs.size and arcs[0] < row:
                raise GraphFormatError(
                    "arc line before the 'p sp N M' problem line", path, lines.line_of(arcs, 0)
                )
            header = _problem_line(lines.select(np.array([row]))[0], "sp", path, int(lines.number[row]))
        if not arcs.size:
            continue
        if header is None:
            raise GraphFormatError(
                "arc line before the 'p sp N M' problem line", path, lines.line_of(arcs, 0)
            )
        _check_shape(lines, arcs, 4, path, "an arc line is 'a SOURCE TARGET LENGTH'")
        ids, arc_weights = parse_arcs(lines, arcs, (1, 2), 3, path)
        _check_ids(ids, header[0], lines, arcs, path, "the problem line")
        sources.append(ids[:, 0] - 1)
        targets.append(ids[:, 1] - 1)
        weights.append(arc_weights)
    if header is None:
        raise GraphFormatError("no 'p sp N M' problem line", path)
    n, m, header_line = header
    found = sum(s.size for s in sources)
    if found != m:
        raise GraphFormatError(
            f"the problem line announces {m} arcs but the file holds {found}", path, header_line
        )
    src = np.concatenate(sources) if sources else np.empty(0, np.int64)
    dst = np.concatenate(targets) if targets else np.empty(0, np.int64)
    w = merge_weight_chunks(weights) if weights else np.empty(0, np.int32)
    return build(
        src, dst, w, n,
        directed=True if directed is None else directed,
        weighted=weighted, relabel=relabel, device=device, path=path,
    )


def read_coordinates(path) -> np.ndarray:
    """Vertex coordinates from a DIMACS ``.co`` file: an (N, 2) int64 array, row = id - 1."""
    header = None
    ids, xy = [], []
    for lines in iter_lines(_nonempty(path), path):
        kind = lines.first
        _reject_other_lines(lines, (0, _C, _P, _V), path, "c (comment), p (problem) or v (vertex)")
        for row in np.flatnonzero(kind == _P).tolist():
            if header is not None:
                raise GraphFormatError("a second problem line", path, int(lines.number[row]))
            header = _coordinate_header(lines.select(np.array([row]))[0], path, int(lines.number[row]))
        rows = np.flatnonzero(kind == _V)
        if not rows.size:
            continue
        if header is None:
            raise GraphFormatError(
                "vertex line before the 'p aux sp co N' problem line", path, lines.line_of(rows, 0)
            )
        _check_shape(lines, rows, 4, path, "a vertex line is 'v ID X Y'")
        values = parse_columns(lines, rows, (1, 2, 3), np.int64, path, "an integer")
        _check_ids(values[:, :1], header[0], lines, rows, path, "the problem line")
        ids.append(values[:, 0] - 1)
        xy.append(values[:, 1:])
    if header is None:
        raise GraphFormatError("no 'p aux sp co N' problem line", path)
    n, header_line = header
    ids = np.concatenate(ids) if ids else np.empty(0, np.int64)
    seen = np.bincount(ids, minlength=n)
    if ids.size != n or (seen != 1).any():
        missing = first_true(seen == 0)
        what = f"vertex {missing + 1} has no coordinates" if missing is not None else "a vertex is listed twice"
        raise GraphFormatError(
            f"{what}: the problem line announces {n} vertices, each listed once", path, header_line
        )
    coordinates = np.zeros((n, 2), dtype=np.int64)
    if xy:
        coordinates[ids] = np.concatenate(xy)
    return coordinates


def write_dimacs(graph, out) -> None:
    """Write ``p sp N M`` and one ``a`` line per arc (both directions of an undirected edge).

    Unweighted graphs get length 1; real lengths must be whole numbers.
    """
    src, dst, weights = caller_arcs(graph, each_edge_once=False)
    if weights is None:
        weights = np.ones(src.size, dtype=np.int64)
    elif weights.dtype.kind == "f":
        if not np.all(np.isfinite(weights) & (weights == np.round(weights))):
            raise ValueError(
                "DIMACS .gr stores integer arc lengths but this graph has fractional "
                "weights; write Matrix Market (.mtx) or an edge list (.txt) instead"
            )
        weights = weights.astype(np.int64)
    out.write(f"c written by wavefront\np sp {graph.n} {src.size}\n")
    write_rows(out, "a %d %d %d\n", [(src + 1).tolist(), (dst + 1).tolist(), weights])


def _nonempty(path) -> bytes:
    data = read_bytes(path)
    if data.isspace() or not data:
        raise GraphFormatError("the file is empty", path)
    return data


def _reject_other_lines(lines, allowed_first_chars, path, expected: str) -> None:
    bad = first_true(~np.isin(lines.first, allowed_first_chars))
    if bad is not None:
        raise GraphFormatError(
            f"unexpected line: DIMACS lines start with {expected}", path, int(lines.number[bad])
        )


def _check_shape(lines, rows, fields: int, path, expected: str) -> None:
    bad = first_true(~lines.tag_alone[rows] | (lines.ntok[rows] != fields))
    if bad is not None:
        raise GraphFormatError(
            f"{expected}, found {int(lines.ntok[rows[bad]])} fields", path, lines.line_of(rows, bad)
        )


def _check_ids(ids, n: int, lines, rows, path, source: str) -> None:
    bad_row = first_true(((ids < 1) | (ids > n)).any(axis=1))
    if bad_row is not None:
        value = ids[bad_row][(ids[bad_row] < 1) | (ids[bad_row] > n)][0]
        raise GraphFormatError(
            f"vertex id {int(value)} is outside 1..{n} declared by {source}",
            path,
            lines.line_of(rows, bad_row),
        )


def _problem_line(text: str, kind: str, path, line: int):
    fields = text.split()
    if len(fields) != 4 or fields[:2] != ["p", kind] or not all(map(_COUNT.match, fields[2:])):
        raise GraphFormatError(f"the problem line must be 'p {kind} NODES ARCS'", path, line)
    n, m = int(fields[2]), int(fields[3])
    check_vertex_count(n, path, line)
    return n, m, line


def _coordinate_header(text: str, path, line: int):
    fields = text.split()
    if len(fields) != 5 or fields[:4] != ["p", "aux", "sp", "co"] or not _COUNT.match(fields[4]):
        raise GraphFormatError("the problem line must be 'p aux sp co NODES'", path, line)
    n = int(fields[4])
    check_vertex_count(n, path, line)
    return n, line
