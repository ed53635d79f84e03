"""Edge lists: SNAP-style whitespace text (``.txt .el .edges .tsv .snap``) and CSV (``.csv``).

One edge per line, ``U V`` or ``U V WEIGHT``, with 0-based vertex ids used as
they are (so ``n`` is the largest id + 1). Every data line has the same number
of fields. Lines starting with ``#`` or ``%`` are comments, blank lines are
skipped. Edge lists are read as undirected graphs by default (as NetworkX
does); pass ``directed=True`` for directed ones. Integer weights load as
int32 when they fit (else int64), anything else numeric as float64.

CSV separates fields by commas (no empty fields); a first line whose first
field is not a number is a column header and is skipped.

Files written by wavefront start with ``# wavefront edge list: n=N directed``
(or ``undirected``): the reader takes ``n`` (isolated vertices survive a
round trip) and the default direction from it.
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
    parse_arcs,
    read_bytes,
    write_rows,
)

COMMENT_CHARS = (ord("#"), ord("%"))
HEADER = "# wavefront edge list: n={n} {kind}"
_HEADER = re.compile(r"#\s*wavefront edge list:\s*n=([0-9]+)\s+(directed|undirected)\s*\Z")
_NUMBER = re.compile(r"\s*[+-]?(\d|\.\d)")


def read_edgelist(path, *, directed=None, weighted=None, relabel=None, device="cpu", separator=None):
    """Read a whitespace (``separator=None``) or CSV (``separator=b","``) edge list."""
    data = read_bytes(path)
    if data.isspace() or not data:
        raise GraphFormatError("the file is empty", path)
    declared = None  # (n, directed, line) from a wavefront header comment
    fields = None  # 2 or 3, set by the first edge line
    seen_data = False  # past the first non-comment line (CSV: maybe a header)
    largest = (-1, None)  # (id, line)
    sources, targets, weights = [], [], []
    for lines in iter_lines(data, path, separator):
        comment = np.isin(lines.first, COMMENT_CHARS)
        rows = np.flatnonzero(~comment & (lines.first != 0))
        if not seen_data and declared is None:
            before = np.flatnonzero(comment[: rows[0]] if rows.size else comment)
            declared = _declaration(lines, before, path)
        if rows.size and not seen_data:
            seen_data = True
            if separator is not None and not _NUMBER.match(lines.select(rows[:1])[0]):
                rows = rows[1:]  # CSV column header
        if not rows.size:
            continue
        if fields is None:
            fields = int(lines.ntok[rows[0]])
            if fields not in (2, 3):
                raise GraphFormatError(
                    f"an edge line is 'SOURCE TARGET [WEIGHT]', found {fields} fields",
                    path,
                    lines.line_of(rows, 0),
                )
        _check_fields(lines, rows, fields, separator, path)
        use_weights = fields == 3 and weighted is not False
        ids, arc_weights = parse_arcs(lines, rows, (0, 1), 2 if use_weights else None, path)
        bad = first_true((ids < 0).any(axis=1))
        if bad is not None:
            raise GraphFormatError("vertex ids must be non-negative", path, lines.line_of(rows, bad))
        if ids.size:
            top = int(np.argmax(ids.max(axis=1)))
            if ids[top].max() > largest[0]:
                largest = (int(ids[top].max()), lines.line_of(rows, top))
        sources.append(ids[:, 0])
        targets.append(ids[:, 1])
        if use_weights:
            weights.append(arc_weights)
    if not sources and declared is None:
        raise GraphFormatError("the file holds no edges", path)
    if declared is not None:
        n = declared[0]
        if largest[0] >= n:
            raise GraphFormatError(
                f"vertex id {largest[0]} is outside 0..{n - 1} declared on line {declared[2]}",
                path,
                largest[1],
            )
    else:
        n = largest[0] + 1
        check_vertex_count(n, path, largest[1])
    if directed is None:
        directed = declared[1] if declared is not None else False
    src = np.concatenate(sources) if sources else np.empty(0, np.int64)
    dst = np.concatenate(targets) if targets else np.empty(0, np.int64)
    w = merge_weight_chunks(weights) if weights else None
    return build(
        src, dst, w, n,
        directed=directed, weighted=weighted, relabel=relabel, device=device, path=path,
    )


def write_edgelist(graph, out, separator: str = " ") -> None:
    """One line per arc (per edge for undirected graphs, smaller id first)."""
    src, dst, weights = caller_arcs(graph, each_edge_once=True)
    out.write(HEADER.format(n=graph.n, kind="directed" if graph.directed else "undirected") + "\n")
    columns = [src.tolist(), dst.tolist()]
    if weights is None:
        write_rows(out, f"%d{separator}%d\n", columns)
    else:
        write_rows(out, f"%d{separator}%d{separator}%r\n", [*columns, weights])


def _declaration(lines, comment_rows, path):
    for row in comment_rows.tolist():
        text = lines.select(np.array([row]))[0].strip()
        if "wavefront" not in text:
            continue
        found = _HEADER.match(text)
        if found is None:
            continue
        n = int(found.group(1))
        line = int(lines.number[row])
        check_vertex_count(n, path, line)
        return n, found.group(2) == "directed", line
    return None


def _check_fields(lines, rows, fields: int, separator, path) -> None:
    counts = lines.ntok[rows]
    if separator is not None:
        bad = first_true(lines.nsep[rows] != counts - 1)
        if bad is not None:
            raise GraphFormatError(
                f"fields must be separated by one '{separator.decode()}' each (no empty fields)",
                path,
                lines.line_of(rows, bad),
            )
    bad = first_true(counts != fields)
    if bad is not None:
        raise GraphFormatError(
            f"expected {fields} fields like the first edge line, found {int(counts[bad])}",
            path,
            lines.line_of(rows, bad),
        )
