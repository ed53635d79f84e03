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
from ._common import Arcs, arc_pieces, check_vertex_count, write_rows
from ._progress import Meter
from ._scan import CHUNK_BYTES, Grammar, kernels, open_text, read_rows

COMMENT_CHARS = b"#%"
HEADER = "# wavefront edge list: n={n} {kind}"
_HEADER = re.compile(r"#\s*wavefront edge list:\s*n=([0-9]+)\s+(directed|undirected)\s*\Z")
_NUMBER = re.compile(rb"\s*[+-]?(\d|\.\d)")


def parse_edgelist(path, *, directed=None, weighted=None, separator=None, progress=True,
                   chunk_bytes=CHUNK_BYTES) -> Arcs:
    """Parse a whitespace (``separator=None``) or CSV (``separator=b","``) edge list."""
    with open_text(path, chunk_bytes=chunk_bytes, progress=progress) as source:
        declared, fields = _head(source, separator, path)
        if fields is None:
            if declared is None:
                raise GraphFormatError("the file holds no edges", path)
            rows = None
        else:
            rows = read_rows(source, _grammar(fields, declared, separator, weighted))
    if declared is not None:
        n = declared[0]
    else:
        n = rows.largest + 1
        check_vertex_count(n, path, rows.largest_line)
    if directed is None:
        directed = declared[1] if declared is not None else False
    if rows is None:
        return Arcs(np.empty(0, np.int32), np.empty(0, np.int32), None, n, directed)
    return Arcs(rows.a, rows.b, rows.weights, n, directed)


def write_edgelist(graph, out, separator: str = " ", progress=True) -> None:
    """One line per arc (per edge for undirected graphs, smaller id first)."""
    out.write((HEADER.format(n=graph.n, kind="directed" if graph.directed else "undirected") + "\n").encode())
    rows = graph.m if graph.directed else graph.m // 2
    with Meter("writing", 0, progress=progress) as meter:
        write_rows(out, arc_pieces(graph, each_edge_once=True), rows,
                   separator=separator.encode(), meter=meter)


def _head(source, separator, path):
    """Read comments up to the first edge line: (declared (n, directed, line) or None, fields or None)."""
    declared = None
    maybe_header = separator is not None
    for text, number, line in source.nonblank_lines():
        if text[:1] in (b"#", b"%"):
            if declared is None:
                declared = _declaration(text, path, number)
            continue
        if maybe_header and not _NUMBER.match(text):
            maybe_header = False  # a CSV column header, skipped once
            continue
        tokens = text.replace(separator, b" ").split() if separator is not None else text.split()
        if len(tokens) not in (2, 3):
            raise GraphFormatError(
                f"an edge line is 'SOURCE TARGET [WEIGHT]', found {len(tokens)} fields", path, number
            )
        source.unread(line)
        return declared, len(tokens)
    return declared, None


def _grammar(fields: int, declared, separator, weighted) -> Grammar:
    k = kernels()
    if fields == 2:
        mode = k.NO_WEIGHT
    else:
        mode = k.SKIP if weighted is False else k.NUMBER
    top = np.iinfo(np.int64).max if declared is None else declared[0] - 1

    def out_of_range(value: int) -> str:
        if value < 0:
            return "vertex ids must be non-negative"
        return f"vertex id {value} is outside 0..{top} declared on line {declared[2]}"

    return Grammar(
        comment=COMMENT_CHARS,
        shape=f"expected {fields} fields like the first edge line, found {{found}}",
        id_name="a vertex id",
        weight_mode=mode,
        separator=separator,
        bounds=(0, top, 0, top),
        out_of_range=out_of_range,
    )


def _declaration(text: bytes, path, line: int):
    if b"wavefront" not in text:
        return None
    found = _HEADER.match(text.decode("latin-1"))
    if found is None:
        return None
    n = int(found.group(1))
    check_vertex_count(n, path, line)
    return n, found.group(2) == "directed", line
