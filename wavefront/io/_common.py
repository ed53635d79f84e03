"""Machinery shared by the text readers and all writers.

Text files are parsed without a Python loop over lines: the decompressed bytes
are scanned with NumPy (line breaks, first character and token count of every
line), which is enough to classify lines and check their shape; the numeric
columns of the data lines then go through ``numpy.loadtxt``'s C parser. Only
when that parser rejects something does a slow scan look for the first bad
line, so that every :class:`GraphFormatError` names its line.

Writers go through :func:`atomic_output`: a temporary file in the target's
folder, renamed over the target only once it is complete.
"""
from __future__ import annotations

import contextlib
import gzip
import os
import re
import tempfile
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import GraphFormatError
from ..graph.build import from_edges

GZIP_MAGIC = b"\x1f\x8b"
CHUNK_BYTES = 64 << 20  # per-chunk scratch stays a few hundred MB on huge files
ROWS_PER_WRITE = 1 << 20

# Bytes that separate tokens, as loadtxt splits them (str.isspace on latin-1).
_WHITESPACE = np.array([chr(b).isspace() for b in range(256)])
_ROW_IN_LOADTXT_ERROR = re.compile(r"at row ([0-9]+)")
_INTEGER = re.compile(r"[+-]?[0-9]+\Z")


def read_bytes(path) -> bytes:
    """The file's bytes, gunzipped when it is gzip data (whatever its suffix)."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] != GZIP_MAGIC:
        return data
    try:
        return gzip.decompress(data)
    except (OSError, EOFError, zlib.error) as exc:
        raise GraphFormatError(f"corrupt or truncated gzip data ({exc})", path) from None


@dataclass
class Lines:
    """One chunk of a text file, described line by line.

    ``number`` holds 1-based line numbers in the file; ``first`` the first
    non-blank character of each line (0 for a blank line); ``tag_alone``
    whether that character is a token by itself; ``ntok`` the token count;
    ``nsep`` the separator count when fields are separated by a character
    (CSV), which is then read as whitespace.
    """

    text: str
    number: np.ndarray
    first: np.ndarray
    tag_alone: np.ndarray
    ntok: np.ndarray
    nsep: np.ndarray | None = None
    _split: list | None = None

    def select(self, rows) -> list:
        """The text of the given lines (indices into this chunk)."""
        if self._split is None:
            self._split = self.text.split("\n")
            if self.text.endswith("\n"):
                self._split.pop()
        if len(rows) and rows[-1] - rows[0] + 1 == len(rows):  # one run of lines
            return self._split[rows[0]:rows[-1] + 1]
        return [self._split[i] for i in rows.tolist()]

    def line_of(self, rows, k: int) -> int:
        return int(self.number[rows[k]])


def iter_lines(data: bytes, path, separator: bytes | None = None):
    """Yield :class:`Lines` for consecutive chunks of ``data`` (split at line ends)."""
    start, line_offset, size = 0, 0, len(data)
    while start < size:
        stop = data.find(b"\n", min(start + CHUNK_BYTES, size) - 1)
        stop = size if stop < 0 else stop + 1
        chunk = data[start:stop]
        lines = _scan(chunk, line_offset, path, separator)
        line_offset += len(lines.number)
        start = stop
        yield lines


def _scan(chunk: bytes, line_offset: int, path, separator: bytes | None) -> Lines:
    buf = np.frombuffer(chunk, dtype=np.uint8)
    breaks = np.flatnonzero(buf == 10)
    starts = np.concatenate(([0], breaks + 1))
    ends = np.concatenate((breaks, [buf.size]))  # exclusive
    if starts[-1] == buf.size:  # the chunk ends with a line break
        starts, ends = starts[:-1], ends[:-1]
    number = np.arange(line_offset + 1, line_offset + 1 + starts.size, dtype=np.int64)
    nsep = None
    if separator is not None:
        nsep = _per_line(buf == ord(separator), starts)
        chunk = chunk.replace(separator, b" ")
        buf = np.frombuffer(chunk, dtype=np.uint8)
    stray_cr = np.flatnonzero(buf[:-1] == 13)
    stray_cr = stray_cr[buf[stray_cr + 1] != 10]
    if stray_cr.size:
        line = int(number[np.searchsorted(starts, stray_cr[0], side="right") - 1])
        raise GraphFormatError("carriage return inside a line", path, line)
    space = _whitespace(buf)
    token_start = ~space
    token_start[1:] &= space[:-1]
    ntok = _per_line(token_start, starts)
    # Step over leading blanks; a vectorized loop as long as the longest indent.
    first_pos = starts.copy()
    pending = np.flatnonzero(space[starts]) if starts.size else starts
    while pending.size:
        first_pos[pending] += 1
        pending = pending[first_pos[pending] < ends[pending]]
        pending = pending[space[first_pos[pending]]]
    has = first_pos < ends
    first = np.where(has, buf[np.minimum(first_pos, max(buf.size - 1, 0))] if buf.size else 0, 0)
    after = first_pos + 1
    tag_alone = has & ((after >= ends) | space[np.minimum(after, max(buf.size - 1, 0))])
    return Lines(chunk.decode("latin-1"), number, first.astype(np.uint8), tag_alone, ntok, nsep)


def _whitespace(buf: np.ndarray) -> np.ndarray:
    if (buf >= 128).any():  # latin-1 NEL and NBSP are whitespace too
        return _WHITESPACE[buf]
    return (buf <= 32) & ((buf >= 28) | ((buf >= 9) & (buf <= 13)))  # faster than the table


def _per_line(mask: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """How many set bytes of ``mask`` fall in each line (a chunk has < 2**31 bytes)."""
    if not starts.size:
        return np.zeros(0, dtype=np.int32)
    return np.add.reduceat(mask.view(np.uint8), starts, dtype=np.int32)


def parse_columns(lines: Lines, rows, columns, dtype, path, what: str) -> np.ndarray:
    """Parse ``columns`` of the selected lines as ``dtype`` (2-D result).

    Raises GraphFormatError naming the first line that does not parse.
    """
    if len(rows) == 0:
        return np.empty((0, len(columns)), dtype=dtype)
    text = lines.select(rows)
    try:
        return np.loadtxt(text, dtype=dtype, usecols=columns, comments=None, ndmin=2)
    except ValueError as exc:
        line, token = _first_bad(text, columns, dtype, str(exc))
        where = None if line is None else lines.line_of(rows, line)
        detail = f"{token!r} is not {what}" if token is not None else str(exc)
        raise GraphFormatError(detail, path, where) from None


def _first_bad(text, columns, dtype, message):
    found = _ROW_IN_LOADTXT_ERROR.search(message)
    candidates = [int(found.group(1))] if found else range(len(text))
    for i in candidates:
        fields = text[i].split()
        for c in columns:
            token = fields[c] if c < len(fields) else ""
            if not _parses(token, dtype):
                return i, token
    return (int(found.group(1)), None) if found else (None, None)


def _parses(token: str, dtype) -> bool:
    if np.dtype(dtype).kind in "iu":
        return bool(_INTEGER.match(token)) and -(2**63) <= int(token) < 2**63
    try:
        float(token)
    except ValueError:
        return False
    return "_" not in token


def parse_arcs(lines: Lines, rows, id_columns, weight_column, path):
    """Vertex-id columns (int64, 2-D) and the weight column of the selected lines.

    Weights are integers when every entry is one, else floats. One loadtxt
    pass reads everything in the common all-integer case.
    """
    if weight_column is None:
        return parse_columns(lines, rows, id_columns, np.int64, path, "a vertex id"), None
    try:
        both = parse_columns(lines, rows, (*id_columns, weight_column), np.int64, path, "")
        return both[:, :-1], both[:, -1]
    except GraphFormatError:
        ids = parse_columns(lines, rows, id_columns, np.int64, path, "a vertex id")
        weights = parse_columns(lines, rows, (weight_column,), np.float64, path, "a number")
        return ids, weights[:, 0]


def merge_weight_chunks(parts) -> np.ndarray:
    """Concatenate per-chunk weights; integers stay integers only if all chunks were."""
    if any(p.dtype.kind == "f" for p in parts):
        parts = [p.astype(np.float64) for p in parts]
    return compact_integers(np.concatenate(parts))


def compact_integers(weights: np.ndarray) -> np.ndarray:
    """int64 weights that fit int32 become int32 (half the memory and bandwidth)."""
    if weights.dtype == np.int64 and weights.size:
        info = np.iinfo(np.int32)
        if info.min <= int(weights.min()) and int(weights.max()) <= info.max:
            return weights.astype(np.int32)
    return weights


def first_true(mask) -> int | None:
    hits = np.flatnonzero(mask)
    return int(hits[0]) if hits.size else None


def check_vertex_count(n: int, path, line: int | None) -> None:
    """Refuse vertex counts whose arrays could not fit in this machine's memory."""
    try:
        memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):  # pragma: no cover - non-POSIX
        memory = 1 << 40
    needed = 24 * n  # indptr, input degrees and one per-vertex result array
    if needed > memory:
        raise GraphFormatError(
            f"{n} vertices would need {needed / 2**30:.1f} GiB for per-vertex arrays "
            f"alone, more than this machine's {memory / 2**30:.1f} GiB; "
            "renumber the vertex ids densely",
            path,
            line,
        )


def build(src, dst, weights, n, *, directed, weighted, relabel, device, path):
    """The Graph for parsed arcs, honouring the reader options common to all formats."""
    if weighted is False:
        weights = None
    elif weighted and weights is None:
        raise GraphFormatError("weighted=True, but the file has no weights", path)
    if device != "cpu":
        from .._xp import to_device

        src, dst = to_device(src, device), to_device(dst, device)
        weights = to_device(weights, device)
    return from_edges(src, dst, weights=weights, n=n, directed=directed, relabel=relabel)


def caller_arcs(graph, *, each_edge_once: bool):
    """(src, dst, weights) of the graph's arcs in the caller's ids, on the CPU.

    ``each_edge_once`` keeps one arc per undirected edge (the smaller id
    first); directed graphs always give every arc.
    """
    g = graph.to("cpu")
    src = np.repeat(np.arange(g.n, dtype=np.int64), np.diff(g.indptr))
    dst = g.indices.astype(np.int64)
    weights = g.weights
    if g.labels is not None:
        src, dst = g.labels[src], g.labels[dst]
    if each_edge_once and not g.directed:
        keep = src < dst
        src, dst = src[keep], dst[keep]
        weights = None if weights is None else weights[keep]
    return src, dst, weights


def format_weights(weights: np.ndarray) -> list:
    """Weights as Python numbers whose text form reads back to the same value."""
    if weights.dtype.kind == "f":
        return weights.astype(np.float64).tolist()  # repr of a float64 round-trips
    return weights.tolist()


def write_rows(out, template: str, columns) -> None:
    """Write ``template % row`` for every row of the given equal-length columns."""
    total = len(columns[0]) if columns else 0
    for lo in range(0, total, ROWS_PER_WRITE):
        part = [c[lo:lo + ROWS_PER_WRITE] for c in columns]
        part = [format_weights(c) if isinstance(c, np.ndarray) else c for c in part]
        out.write("".join(template % row for row in zip(*part)))


@contextlib.contextmanager
def atomic_output(path, *, text: bool):
    """A file object for ``path`` that appears there only if the block succeeds.

    Writes go to a temporary file in the same folder (gzip-compressed when the
    name ends in ``.gz``), renamed over ``path`` at the end; on any error the
    temporary file is removed and an existing ``path`` is left untouched.
    """
    path = Path(path)
    folder = path.parent if str(path.parent) else Path(".")
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as raw:
            if path.name.endswith(".gz"):
                stream = gzip.GzipFile(filename="", mode="wb", fileobj=raw, compresslevel=6, mtime=0)
            else:
                stream = contextlib.nullcontext(raw)
            with stream as sink:
                yield _TextSink(sink) if text else sink
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


class _TextSink:
    """ASCII text onto a binary stream (which stays open)."""

    def __init__(self, raw):
        self._raw = raw

    def write(self, s: str) -> None:
        self._raw.write(s.encode("ascii"))


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
