"""Streaming text input for the readers: plain or gzip bytes, a head read line by
line, then the body parsed chunk by chunk by the numba kernel (:mod:`._kernels`).

* :class:`TextSource` reads the file in chunks (``chunk_bytes``, cut at line
  ends) while the previous chunk is being parsed, gunzipping on the way: a
  ``.gz`` file costs its decompression, overlapped with parsing, and never
  exists as a whole decompressed copy.
* :func:`read_rows` parses the body: two integer columns (vertex ids) and an
  optional third (weights), stored in the narrowest dtype that holds them
  (int32 ids and weights unless a value needs int64; float64 once a weight
  is not an integer).
* A bad line stops the parse; :func:`explain` then re-reads that one line
  slowly to say what is wrong with it, and the error names the file and the
  1-based line.
"""
from __future__ import annotations

import contextlib
import os
import re
import zlib
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np

from ..errors import GraphFormatError
from ._progress import Meter

GZIP_MAGIC = b"\x1f\x8b"
CHUNK_BYTES = 16 << 20  # default; per-chunk scratch is a few times this
BLANKS = b" \t\v\f"
_RESERVE = 1 << 20  # room before each chunk for the partial line carried over
_GZIP_INPUT = 1 << 20
_HEAD_BYTES = 1 << 16
_PARALLEL_COPY = 1 << 18  # values; below this NumPy's one-core copy is as quick
_INT32 = np.iinfo(np.int32)
_INT64 = np.iinfo(np.int64)
_INTEGER = re.compile(rb"[+-]?[0-9]+\Z")
_FLOAT = re.compile(
    rb"[+-]?((([0-9]+\.?[0-9]*)|(\.[0-9]+))([eE][+-]?[0-9]+)?|inf|infinity|nan)\Z", re.IGNORECASE
)
_SPLIT = re.compile(rb"[ \t\v\f]+")


def kernels():
    """The numba kernels, imported on first use (numba takes a while to import)."""
    from . import _kernels

    return _kernels


@dataclass(frozen=True)
class Grammar:
    """What the data lines of one format look like, and what to say when one does not.

    ``comment`` and ``other`` list first characters of comment lines and of
    lines that are never data (``other`` maps each to the message that
    explains it; ``data`` then lists the only characters that start data
    lines, None meaning any other). Data lines are ``[TAG] A B [WEIGHT]``,
    separated by blanks or by ``separator`` (blanks allowed around it).
    """

    comment: bytes
    shape: str  # "... found {found} fields"
    id_name: str
    weight_mode: int
    data: bytes | None = None
    other: dict = field(default_factory=dict)
    other_message: str = ""
    tag: bytes | None = None
    separator: bytes | None = None
    weight_name: str = "a number"
    b_name: str | None = None  # the second field's name, when not id_name
    bounds: tuple = (0, _INT64.max, 0, _INT64.max)
    bases: tuple = (0, 0)
    out_of_range: Callable[[int], str] | None = None  # message for a value outside bounds

    @property
    def fields(self) -> int:
        has_weight = self.weight_mode != kernels().NO_WEIGHT
        return (self.tag is not None) + 2 + has_weight

    def classes(self) -> np.ndarray:
        k = kernels()
        table = np.full(256, k.DATA if self.data is None else k.BAD, dtype=np.uint8)
        if self.data is not None:
            table[list(self.data)] = k.DATA
        table[list(self.comment)] = k.COMMENT
        table[list(b"".join(self.other))] = k.BAD
        return table


# -- the source ------------------------------------------------------------------

class _Gunzip:
    """``readinto`` over gzip data (several members allowed), decompressing as asked."""

    def __init__(self, file, path):
        self._file = file
        self._path = path
        self._z = zlib.decompressobj(31)
        self._input = b""

    def readinto(self, view) -> int:
        done = 0
        try:
            while done < len(view):
                if self._z.eof:
                    rest = self._z.unused_data or self._file.read(_GZIP_INPUT)
                    if not rest:
                        break
                    self._z = zlib.decompressobj(31)  # the next gzip member
                    self._input = rest
                elif not self._input:
                    self._input = self._z.unconsumed_tail or self._file.read(_GZIP_INPUT)
                    if not self._input:
                        raise GraphFormatError("corrupt or truncated gzip data (it ends mid-stream)", self._path)
                out = self._z.decompress(self._input, len(view) - done)
                self._input = self._z.unconsumed_tail
                view[done:done + len(out)] = out
                done += len(out)
        except zlib.error as exc:
            raise GraphFormatError(f"corrupt or truncated gzip data ({exc})", self._path) from None
        return done


class TextSource:
    """A text file read as a head of lines (:meth:`next_line`), then a body of chunks.

    Use as a context manager. ``meter`` (a :class:`._progress.Meter`) is told
    how far into the file (its compressed bytes for gzip) the reading is.
    """

    def __init__(self, path, *, chunk_bytes: int = CHUNK_BYTES, meter=None):
        if chunk_bytes < 1:
            raise ValueError(f"chunk_bytes must be positive, got {chunk_bytes}")
        self.path = path
        self.chunk_bytes = chunk_bytes
        self._meter = meter
        self._file = open(path, "rb")
        self.size = os.fstat(self._file.fileno()).st_size
        self.gzipped = self._file.read(2) == GZIP_MAGIC
        self._file.seek(0)
        self._raw = _Gunzip(self._file, path) if self.gzipped else self._file
        self._text = np.empty(0, dtype=np.uint8)  # the head's window on the file
        self._pos = 0
        self._eof = False
        self._text_read = 0
        self._body = None
        self.line = 1  # number of the line at the reading position

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self._body is not None:
            self._body.close()  # waits for a read in flight before the file closes
        self._file.close()

    def _read(self, buffer: np.ndarray) -> int:
        count = self._raw.readinto(memoryview(buffer))
        self._text_read += count
        if self._meter is not None:
            self._meter.update(self._file.tell())
        return count

    def text_bytes(self) -> int:
        """The size of the text: exact for plain files, estimated from the ratio so far for gzip."""
        if not self.gzipped:
            return self.size
        return int(self._text_read * self.size / max(self._file.tell(), 1))

    def next_line(self) -> bytes | None:
        """The next line without its line break (None at the end of the file)."""
        k = kernels()
        while True:
            stop = k.find_byte(self._text, self._pos, 10)
            if stop >= 0 or self._eof:
                break
            # the head is usually a few lines: read a little, doubling while it lasts
            more = np.empty(min(max(_HEAD_BYTES, self._text.size), self.chunk_bytes), dtype=np.uint8)
            count = self._read(more)
            self._eof = count == 0
            self._text = np.concatenate([self._text[self._pos:], more[:count]])
            self._pos = 0
        if stop < 0:
            if self._pos >= self._text.size:
                return None
            stop = self._text.size
        line = self._text[self._pos:stop].tobytes()
        self._pos = stop + 1
        self.line += 1
        if line.endswith(b"\r"):
            line = line[:-1]
        if b"\r" in line:
            raise GraphFormatError("carriage return inside a line", self.path, self.line - 1)
        return line

    def nonblank_lines(self):
        """Yield (text without surrounding blanks, line number, line) for each non-blank line.

        Raises GraphFormatError if the file has no such line at all.
        """
        seen = False
        while (line := self.next_line()) is not None:
            text = line.strip(BLANKS)
            if text:
                seen = True
                yield text, self.line - 1, line
        if not seen:
            raise GraphFormatError("the file is empty", self.path)

    def unread(self, line: bytes) -> None:
        """Step back over the line just returned by :meth:`next_line`."""
        self.line -= 1
        self._pos = max(self._pos - len(line) - 1, 0)
        while self._pos > 0 and self._text[self._pos - 1] != 10:  # a CR stripped off
            self._pos -= 1

    def chunks(self, pieces: int):
        """Yield the rest of the file as ``(text, block starts)``.

        ``text`` is a uint8 array ending with a line break (one is added after
        a last line that lacks it), cut into ``pieces`` blocks at line starts.
        Each is valid until the next one is asked for: a thread reads,
        gunzips and cuts the next chunk meanwhile.
        """
        self._body = self._chunks(pieces)
        return self._body

    def _chunks(self, pieces: int):
        buffers = [np.empty(_RESERVE + self.chunk_bytes, dtype=np.uint8) for _ in range(2)]
        carry = self._text[self._pos:]
        with ThreadPoolExecutor(1, thread_name_prefix="wavefront-read") as pool:
            which = 0
            pending = pool.submit(self._prepare, buffers[which], carry, pieces)
            while True:
                body, starts, carry = pending.result()
                which = 1 - which
                if carry is not None:
                    # reads into the other buffer while this body is parsed; the
                    # carry (a view into this one) is copied out first
                    pending = pool.submit(self._prepare, buffers[which], carry, pieces)
                if body is not None:
                    yield body, starts
                if carry is None:
                    return

    def _prepare(self, buffer: np.ndarray, carry: np.ndarray, pieces: int):
        """(text, block starts, the partial line left, or None at the end of the file)."""
        k = kernels()
        count = 0 if self._eof else self._read(buffer[_RESERVE:])
        if count == 0:
            self._eof = True
            if not carry.size:
                return None, None, None
            text = carry if carry[-1] == 10 else np.concatenate([carry, np.array([10], dtype=np.uint8)])
            rest = None
        else:
            if carry.size <= _RESERVE:
                buffer[_RESERVE - carry.size:_RESERVE] = carry
                text = buffer[_RESERVE - carry.size:_RESERVE + count]
            else:
                text = np.concatenate([carry, buffer[_RESERVE:_RESERVE + count]])
            cut = k.rfind_byte(text, 10) + 1
            if not cut:  # a line longer than the chunk: keep it whole for the next read
                return None, None, text.copy()
            text, rest = text[:cut], text[cut:]
        # the line breaks are counted by the parse's threads (read_rows): in this
        # one thread they made the reader the slowest step on many cores
        return text, k.block_starts(text, pieces), rest


@contextlib.contextmanager
def open_text(path, *, chunk_bytes: int = CHUNK_BYTES, progress=True):
    """A :class:`TextSource` for ``path`` with a progress bar over its bytes."""
    with (
        Meter(f"reading {os.path.basename(path)}", os.path.getsize(path), progress=progress) as meter,
        TextSource(path, chunk_bytes=chunk_bytes, meter=meter) as source,
    ):
        yield source


# -- the body --------------------------------------------------------------------

class _Column:
    """A growing 1-D array whose dtype widens when a value needs it."""

    def __init__(self, dtype):
        self.data = np.empty(0, dtype=dtype)
        self.size = 0

    def reserve(self, capacity: int) -> None:
        if self.size == 0:  # np.empty leaves pages untouched until written
            self.data = np.empty(capacity, dtype=self.data.dtype)
        elif capacity > self.data.size:
            # resize reallocates in place where it can (large arrays are remapped, not copied)
            self.data.resize(capacity, refcheck=False)

    def widen(self, dtype) -> None:
        if np.dtype(dtype) != self.data.dtype:
            self.data = self.data[: self.size].astype(dtype)

    def append(self, values: np.ndarray) -> None:
        end = self.size + values.size
        if end > self.data.size:
            self.reserve(max(end, self.data.size + self.data.size // 2))
        if values.size >= _PARALLEL_COPY:
            kernels().copy_into(self.data, self.size, values)
        else:
            self.data[self.size:end] = values
        self.size = end

    def finish(self) -> np.ndarray:
        self.data.resize(self.size, refcheck=False)
        return self.data


@dataclass
class Rows:
    """The parsed body: columns ``a`` and ``b`` (bases subtracted), ``weights`` or None."""

    a: np.ndarray
    b: np.ndarray
    weights: np.ndarray | None
    largest: int  # the largest value in a or b as written (-1 without rows)
    largest_line: int | None


def read_rows(source: TextSource, grammar: Grammar, *, float_weights: bool = False,
              id_dtype=np.int32) -> Rows:
    """Parse the rest of ``source`` as data, comment and blank lines of ``grammar``.

    Raises GraphFormatError naming the first bad line. ``float_weights``
    stores weights as float64 even when all are integers; ids are stored as
    ``id_dtype`` (int32 widens to int64 when a value needs it).
    """
    k = kernels()
    import numba

    threads = numba.get_num_threads()
    # gunzipping is one thread's work and the slower step: leave it a core, or it
    # stalls whenever the parse holds them all
    parse_threads = max(threads - 1, 1) if source.gzipped else threads
    pieces = 4 * threads  # a few blocks per thread, handed out one at a time (below)
    classes = grammar.classes()
    tag = -1 if grammar.tag is None else grammar.tag[0]
    sep = -1 if grammar.separator is None else grammar.separator[0]
    bounds = np.array(grammar.bounds, dtype=np.int64)
    bases = np.array(grammar.bases, dtype=np.int64)
    weighted = grammar.weight_mode in (k.NUMBER, k.INTEGER)
    a, b = _Column(id_dtype), _Column(id_dtype)
    w = _Column(np.float64 if float_weights else np.int32) if weighted else None
    scratch = _Scratch()
    line = source.line
    largest, largest_line = -1, None
    for chunk, starts in source.chunks(pieces):
        stats = np.zeros((pieces, k.STATS), dtype=np.int64)
        # blocks handed out one at a time: a core busy elsewhere (the reader thread,
        # another process) then delays one block, not a thread's whole share
        numba.set_num_threads(parse_threads)
        try:
            with numba.parallel_chunksize(1):
                counts = k.count_breaks(chunk, starts)
                slots = np.zeros(pieces, dtype=np.int64)
                np.cumsum(counts[:-1], out=slots[1:])
                out = scratch.get(int(counts.sum()), weighted)
                k.parse(chunk, starts, slots, classes, tag, sep, grammar.weight_mode, bounds, bases,
                        out.a, out.b, out.wi, out.wf, out.slow, stats)
        finally:
            numba.set_num_threads(threads)
        lines_before = np.concatenate([[0], np.cumsum(stats[:, k.LINES])])
        bad = np.flatnonzero(stats[:, k.BAD_AT] >= 0)
        if bad.size:
            first = int(bad[0])
            at = int(stats[first, k.BAD_AT])
            stop = k.find_byte(chunk, at, 10)
            text = chunk[at:stop if stop >= 0 else chunk.size].tobytes()
            number = line + int(lines_before[first] + stats[first, k.BAD_LINE])
            raise GraphFormatError(explain(text, grammar), source.path, number)
        rows = _compact(out, slots, stats[:, k.ROWS], weighted)
        top = int(np.argmax(stats[:, k.MAX_ID]))
        if stats[top, k.MAX_ID] > largest:
            largest = int(stats[top, k.MAX_ID])
            largest_line = line + int(lines_before[top] + stats[top, k.MAX_LINE])
        if a.data.size == 0:  # a capacity for the whole file, guessed from this chunk
            guess = int(rows * source.text_bytes() / chunk.size * 1.02) + 1024
            for column in (a, b, w):
                if column is not None:
                    column.reserve(guess)
        if largest - min(grammar.bases) > _INT32.max:
            a.widen(np.int64)
            b.widen(np.int64)
        a.append(out.a[:rows])
        b.append(out.b[:rows])
        if weighted:
            _append_weights(w, out, rows, stats, chunk, source.path)
        line += int(lines_before[-1])
    return Rows(a.finish(), b.finish(), None if w is None else w.finish(), largest, largest_line)


@dataclass
class _Buffers:
    a: np.ndarray
    b: np.ndarray
    wi: np.ndarray
    wf: np.ndarray
    slow: np.ndarray


class _Scratch:
    """Per-chunk output arrays, kept from chunk to chunk and grown when a chunk needs more."""

    def __init__(self):
        self._buffers = None

    def get(self, rows: int, weighted: bool) -> _Buffers:
        current = self._buffers
        if current is None or current.a.size < rows:
            rows += rows // 8  # chunks differ a little in rows: grow rarely
            w = rows if weighted else 0
            current = self._buffers = _Buffers(
                np.empty(rows, np.int64), np.empty(rows, np.int64),
                np.empty(w, np.int64), np.empty(w, np.float64), np.empty(w, np.uint8),
            )
        return current


def _compact(out: _Buffers, slots, rows, weighted: bool) -> int:
    """Move each block's rows down so that the chunk's rows are contiguous; their count."""
    pos = 0
    for slot, count in zip(slots.tolist(), rows.tolist()):
        if slot != pos and count:
            arrays = (out.a, out.b, out.wi, out.wf, out.slow) if weighted else (out.a, out.b)
            for array in arrays:
                array[pos:pos + count] = array[slot:slot + count].copy()
        pos += count
    return pos


def _append_weights(column: _Column, out: _Buffers, rows: int, stats, chunk, path) -> None:
    k = kernels()
    floats = int(stats[:, k.FLOATS].sum())
    if int(stats[:, k.SLOW].sum()):
        slow = np.flatnonzero(out.slow[:rows])
        out.wf[slow] = _parse_floats(chunk, out.wi[slow], path)
    if floats or column.data.dtype.kind == "f":
        column.widen(np.float64)
        column.append(out.wf[:rows])
        return
    values = out.wi[:rows]
    if rows and column.data.dtype == np.int32 and (
        int(values.min()) < _INT32.min or int(values.max()) > _INT32.max
    ):
        column.widen(np.int64)
    column.append(values)


def _parse_floats(chunk, packed, path) -> np.ndarray:
    """Correctly rounded float64 values of the tokens the fast path left (Arrow's parser)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    offsets, data = kernels().gather_tokens(chunk, packed)
    strings = pa.StringArray.from_buffers(packed.size, pa.py_buffer(offsets), pa.py_buffer(data))
    try:
        return pc.cast(strings, pa.float64()).to_numpy(zero_copy_only=False)
    except pa.ArrowInvalid:  # the kernel checked Python's syntax; Python's parser is the judge
        return np.array([float(s) for s in strings.to_pylist()], dtype=np.float64)


# -- the slow path: what is wrong with one line -------------------------------------

def explain(line: bytes, grammar: Grammar) -> str:
    """Why ``line`` (without its break) is not a valid line of ``grammar``."""
    if line.endswith(b"\r"):
        line = line[:-1]
    if b"\r" in line:
        return "carriage return inside a line"
    text = line.strip(BLANKS)
    first = text[:1]
    if first in grammar.other:
        return grammar.other[first]
    if grammar.data is not None and first not in (grammar.data[i:i + 1] for i in range(len(grammar.data))):
        return grammar.other_message
    if grammar.separator is not None:
        fields = [f.strip(BLANKS) for f in text.split(grammar.separator)]
        if any(not f or _SPLIT.search(f) for f in fields):
            sep = grammar.separator.decode()
            return f"fields must be separated by one '{sep}' each (no empty fields)"
    else:
        fields = _SPLIT.split(text)
    if len(fields) != grammar.fields or (grammar.tag is not None and fields[0] != grammar.tag):
        return grammar.shape.format(found=len(fields))
    if grammar.tag is not None:
        fields = fields[1:]
    names = (grammar.id_name, grammar.b_name or grammar.id_name)
    values = []
    for token, name in zip(fields, names):
        if not _INTEGER.match(token) or not _INT64.min < int(token) <= _INT64.max:
            return f"{token.decode('latin-1')!r} is not {name}"
        values.append(int(token))
    k = kernels()
    if len(fields) == 3 and grammar.weight_mode in (k.NUMBER, k.INTEGER):
        token = fields[2]
        integer = grammar.weight_mode == k.INTEGER
        if not (_INTEGER if integer else _FLOAT).match(token):
            return f"{token.decode('latin-1')!r} is not {grammar.weight_name}"
        if integer and not _INT64.min < int(token) <= _INT64.max:
            # the parser keeps a magnitude in int64, so -2**63 is out too
            return (f"{token.decode('latin-1')!r} is outside the integers this reader keeps exactly "
                    f"({-_INT64.max}..{_INT64.max})")
    lo_a, hi_a, lo_b, hi_b = grammar.bounds
    for value, lo, hi in zip(values, (lo_a, lo_b), (hi_a, hi_b)):
        if not lo <= value <= hi and grammar.out_of_range is not None:
            return grammar.out_of_range(value)
    return "malformed line"
