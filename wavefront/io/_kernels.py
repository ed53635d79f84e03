"""Numba kernels behind the text readers and writers (imported on first use: numba is heavy).

The parser is one kernel for every text format, steered by a
:class:`~wavefront.io._scan.Grammar`'s numbers: which first characters start
comment and data lines, an optional tag token (``a`` in DIMACS), an optional
separator (``,`` in CSV), and how the third field is read. A chunk of text is
cut at line ends into blocks that threads parse side by side; each block
writes its rows from its own slot and stops at its first bad line, whose
byte offset it reports so that Python can explain it. Nothing here raises:
explaining is the slow path's job (:func:`wavefront.io._scan.explain`).

Every chunk handed to :func:`parse` ends with a line break. That break is a
sentinel: the loops inside a line stop at it without checking the chunk's
end, which is most of the parser's speed.

The formatter writes rows of integers (and pre-formatted float text) into a
byte buffer, again block by block in parallel.
"""
from __future__ import annotations

import numba
import numpy as np

# Line classes by first non-blank byte (Grammar.classes).
DATA, COMMENT, BAD = 0, 1, 2
# The third field: absent, any number (integers kept exact), integers only, or
# present but not read (``weighted=False``).
NO_WEIGHT, NUMBER, INTEGER, SKIP = 0, 1, 2, 3
# Columns of the per-block statistics.
ROWS, LINES, BAD_AT, BAD_LINE, MAX_ID, MAX_LINE, FLOATS, SLOW = range(8)
STATS = 8
# Byte kinds in the table that parse() builds: what ends a token.
_BLANK, _BREAK, _SEPARATOR = 1, 2, 4

_NL, _CR = 10, 13
_INT64_MAX = np.iinfo(np.int64).max
# Powers of ten that float64 holds exactly: a decimal with at most 15 digits
# times or over one of them is rounded once, hence correctly (Clinger's fast path).
_EXACT_POWERS = np.array([10.0 ** k for k in range(23)])
_FAST_DIGITS = 15
# A token's byte offset and length packed in one int64 for the slow float path.
TOKEN_LENGTH_BITS = 16

_jit = numba.njit(nogil=True, cache=True)


@_jit
def _byte_kinds(sep):
    kinds = np.zeros(256, dtype=np.uint8)
    for c in (32, 9, 11, 12):
        kinds[c] = _BLANK
    kinds[_NL] = kinds[_CR] = _BREAK
    if sep >= 0:
        kinds[sep] = _SEPARATOR
    return kinds


@_jit
def _digit(c) -> int:
    """The digit's value, or a value above 9 for any other byte."""
    return (np.int64(c) - 48) & 0xFF


@_jit
def _integer(buf, i, kinds):
    """(value, next index, ok) of ``[+-]?[0-9]+`` ending at a blank, separator or line break."""
    negative = False
    c = buf[i]
    if c == 43 or c == 45:
        negative = c == 45
        i += 1
    start = i
    value = 0
    d = _digit(buf[i])
    while d <= 9:
        value = value * 10 + d
        i += 1
        d = _digit(buf[i])
    digits = i - start
    if digits == 0 or kinds[buf[i]] == 0:
        return 0, i, False
    if digits > 18:  # 18 digits never overflow; check longer ones digit by digit
        value = 0
        for k in range(start, i):
            d = _digit(buf[k])
            if value > (_INT64_MAX - d) // 10:
                return 0, i, False
            value = value * 10 + d
    return (-value if negative else value), i, True


@_jit
def _word(buf, i, word) -> bool:
    """Whether ``word`` (lower-case ASCII) starts at ``i``, in any case (stops at the sentinel)."""
    for k in range(word.size):
        if buf[i + k] | 32 != word[k]:
            return False
    return True


_INF = np.frombuffer(b"inf", dtype=np.uint8)
_INFINITY = np.frombuffer(b"infinity", dtype=np.uint8)
_NAN = np.frombuffer(b"nan", dtype=np.uint8)


@_jit
def _decimal_digits(buf, i, mantissa, significant, exponent, fraction):
    """Add a run of digits to (mantissa, significant digits, decimal exponent); (next index, ...).

    Up to 18 significant digits are kept (more cannot be exact anyway): a
    dropped digit before the point scales the exponent up, a kept one after
    it scales it down.
    """
    d = _digit(buf[i])
    while d <= 9:
        if significant < 18:
            mantissa = mantissa * 10 + d
            significant += 1 if mantissa else 0
            exponent -= 1 if fraction else 0
        else:
            significant += 1
            exponent += 0 if fraction else 1
        i += 1
        d = _digit(buf[i])
    return i, mantissa, significant, exponent


@_jit
def _number(buf, i, kinds):
    """Parse Python's float syntax (no underscores) or an integer.

    Returns (next index, ok, is_integer, integer value, float value, slow):
    ``slow`` marks a valid float this fast path cannot round correctly
    (more than 15 digits, a large exponent, inf or nan); its value is left
    to a correctly rounding parser.
    """
    value, j, ok = _integer(buf, i, kinds)
    if ok:  # the common case, an integer weight
        return j, True, True, value, float(value), False
    negative = False
    if buf[i] == 43 or buf[i] == 45:
        negative = buf[i] == 45
        i += 1
    letter = buf[i] | 32
    if letter == 105 or letter == 110:  # inf, infinity, nan
        for word in (_INFINITY, _INF, _NAN):
            if _word(buf, i, word) and kinds[buf[i + word.size]] != 0:
                return i + word.size, True, False, 0, 0.0, True
        return i, False, False, 0, 0.0, False
    is_integer = True
    start = i
    i, mantissa, significant, exponent = _decimal_digits(buf, i, 0, 0, 0, False)
    digits = i - start
    if buf[i] == 46:  # '.'
        is_integer = False
        start = i + 1
        i, mantissa, significant, exponent = _decimal_digits(buf, start, mantissa, significant, exponent, True)
        digits += i - start
    if digits == 0:
        return i, False, False, 0, 0.0, False
    if buf[i] | 32 == 101:  # 'e'
        is_integer = False
        i += 1
        minus = False
        if buf[i] == 43 or buf[i] == 45:
            minus = buf[i] == 45
            i += 1
        e = 0
        start = i
        d = _digit(buf[i])
        while d <= 9:
            if e < 100000:
                e = e * 10 + d
            i += 1
            d = _digit(buf[i])
        if i == start:
            return i, False, False, 0, 0.0, False
        exponent += -e if minus else e
    if kinds[buf[i]] == 0:
        return i, False, False, 0, 0.0, False
    if is_integer:  # beyond int64: a float, to be parsed exactly
        return i, True, False, 0, 0.0, True
    if significant <= _FAST_DIGITS and -22 <= exponent <= 22:
        f = float(mantissa)
        f = f * _EXACT_POWERS[exponent] if exponent >= 0 else f / _EXACT_POWERS[-exponent]
        return i, True, False, 0, -f if negative else f, False
    return i, True, False, 0, 0.0, True


@_jit
def _gap(buf, i, kinds, sep):
    """Step over the space between two fields; (next index, ok)."""
    j = i
    while kinds[buf[j]] == _BLANK:
        j += 1
    if sep >= 0:
        if buf[j] != sep:
            return j, False
        j += 1
        while kinds[buf[j]] == _BLANK:
            j += 1
        return j, True
    return j, j > i


@_jit
def _line_end(buf, i, kinds):
    """Step over trailing blanks and a CR before the line break; (index of the break, ok)."""
    while kinds[buf[i]] == _BLANK:
        i += 1
    if buf[i] == _CR and buf[i + 1] == _NL:
        i += 1
    return i, buf[i] == _NL


@_jit
def _parse_block(buf, i, end, row, classes, kinds, tag, sep, weight_mode, bounds, bases,
                 out_a, out_b, out_wi, out_wf, out_slow, stats):
    rows = lines = floats = slow = 0
    top = np.int64(-1)
    top_line = -1
    bad = -1
    bad_line = -1
    token = 0
    is_int = is_slow = False
    a = b = wi = np.int64(0)
    wf = 0.0
    while i < end:
        line_start = i
        while kinds[buf[i]] == _BLANK:
            i += 1
        c = buf[i]
        if c == _NL:
            lines += 1
            i += 1
            continue
        if c == _CR and buf[i + 1] == _NL:
            i += 1
            continue
        kind = classes[c]
        if kind == COMMENT:
            while buf[i] != _NL:
                if buf[i] == _CR and buf[i + 1] != _NL:
                    bad = line_start
                    break
                i += 1
            if bad >= 0:
                break
            continue
        if kind != DATA:
            bad = line_start
            break
        ok = True
        if tag >= 0:
            ok = c == tag and kinds[buf[i + 1]] != 0
            if ok:
                i, ok = _gap(buf, i + 1, kinds, -1)
        if ok:
            a, i, ok = _integer(buf, i, kinds)
        if ok:
            i, ok = _gap(buf, i, kinds, sep)
        if ok:
            b, i, ok = _integer(buf, i, kinds)
        if ok and weight_mode == SKIP:
            i, ok = _gap(buf, i, kinds, sep)
            while ok and kinds[buf[i]] == 0:
                i += 1
        elif ok and weight_mode != NO_WEIGHT:
            i, ok = _gap(buf, i, kinds, sep)
            if ok:
                token = i
                i, ok, is_int, wi, wf, is_slow = _number(buf, i, kinds)
                if ok and weight_mode == INTEGER and not is_int:
                    ok = False
                if ok and is_slow and i - token >= (1 << TOKEN_LENGTH_BITS) - 1:
                    ok = False  # no number is that long: refuse rather than truncate
        if ok:
            i, ok = _line_end(buf, i, kinds)
        if ok:
            ok = bounds[0] <= a <= bounds[1] and bounds[2] <= b <= bounds[3]
        if not ok:
            bad = line_start
            break
        out_a[row] = a - bases[0]
        out_b[row] = b - bases[1]
        if weight_mode == NUMBER or weight_mode == INTEGER:
            if is_slow:
                if buf[token] == 43:  # '+': the slow parser gets the token without it
                    token += 1
                out_wi[row] = (token << TOKEN_LENGTH_BITS) | (i - token)
                out_wf[row] = 0.0
                slow += 1
            else:
                out_wi[row] = wi
                out_wf[row] = wf
            out_slow[row] = is_slow
            floats += 0 if is_int else 1
        larger = a if a > b else b
        if larger > top:
            top = larger
            top_line = lines
        row += 1
        rows += 1
    if bad >= 0:
        bad_line = lines
    stats[ROWS] = rows
    stats[LINES] = lines
    stats[BAD_AT] = bad
    stats[BAD_LINE] = bad_line
    stats[MAX_ID] = top
    stats[MAX_LINE] = top_line
    stats[FLOATS] = floats
    stats[SLOW] = slow


@numba.njit(nogil=True, cache=True, parallel=True)
def parse(buf, starts, slots, classes, tag, sep, weight_mode, bounds, bases,
          out_a, out_b, out_wi, out_wf, out_slow, stats):
    """Parse the blocks ``buf[starts[k]:starts[k + 1]]`` into rows from ``slots[k]`` on.

    ``buf`` ends with a line break. ``bounds`` = (lo_a, hi_a, lo_b, hi_b)
    bound the two integer fields as written; ``bases`` are subtracted from
    them before they are stored.
    """
    kinds = _byte_kinds(sep)
    for k in numba.prange(starts.size - 1):
        _parse_block(buf, starts[k], starts[k + 1], slots[k], classes, kinds, tag, sep, weight_mode,
                     bounds, bases, out_a, out_b, out_wi, out_wf, out_slow, stats[k])


_LOW7 = np.uint64(0x7F7F7F7F7F7F7F7F)
_NL_BYTES = np.uint64(0x0A0A0A0A0A0A0A0A)
_EVEN_BYTES = np.uint64(0x00FF00FF00FF00FF)
_SHORT_ONES = np.uint64(0x0001000100010001)


@_jit
def _sum_byte_lanes(lanes):
    """The sum of a word's eight byte lanes (each <= 255): pairs into 16-bit lanes, then one multiply."""
    pairs = (lanes & _EVEN_BYTES) + ((lanes >> np.uint64(8)) & _EVEN_BYTES)
    return (pairs * _SHORT_ONES) >> np.uint64(48)


@numba.njit(nogil=True, cache=True, parallel=True)
def count_breaks(buf, starts):
    """Line breaks in each block (an upper bound on its rows), blocks side by side.

    Eight bytes at a time (SWAR): a byte of ``x = word ^ 0x0A..`` is zero
    exactly at a line break, and ``~(((x & 0x7F..) + 0x7F..) | x | 0x7F..)``
    sets that byte's top bit and no other (no carries cross bytes). The
    flags are summed per byte lane and folded every 255 words, before a lane
    can pass 255. 0.11 ns a byte on one core against 0.41
    for the byte loop, which made the reader thread the slowest step on 16
    cores (docs/decisions/io.md).
    """
    counts = np.zeros(starts.size - 1, dtype=np.int64)
    for k in numba.prange(starts.size - 1):
        lo, hi = starts[k], starts[k + 1]
        first, last = min((lo + 7) // 8 * 8, hi), max(hi // 8 * 8, lo)
        total = 0
        if first >= last:
            for i in range(lo, hi):
                total += buf[i] == _NL
        else:
            for i in range(lo, first):
                total += buf[i] == _NL
            words = buf[first:last].view(np.uint64)
            lanes = np.uint64(0)
            for j in range(words.size):
                x = words[j] ^ _NL_BYTES
                lanes += ~(((x & _LOW7) + _LOW7) | x | _LOW7) >> np.uint64(7)
                if j % 255 == 254:
                    total += _sum_byte_lanes(lanes)
                    lanes = np.uint64(0)
            total += _sum_byte_lanes(lanes)
            for i in range(last, hi):
                total += buf[i] == _NL
        counts[k] = total
    return counts


@numba.njit(nogil=True, cache=True, parallel=True)
def copy_into(dst, offset, src):
    """``dst[offset:offset + src.size] = src`` (with the dtype cast) on all threads.

    The caller checked that every value fits ``dst``'s dtype. NumPy's copy
    runs on one core: appending 20 M rows to three columns took 0.13 s of a
    0.6 s parse on 16 cores.
    """
    pieces = max(1, min(src.size >> 16, 256))
    for p in numba.prange(pieces):
        for i in range(src.size * p // pieces, src.size * (p + 1) // pieces):
            dst[offset + i] = src[i]


@_jit
def block_starts(buf, pieces):
    """About ``pieces`` block boundaries of ``buf``, each just after a line break."""
    size = buf.size
    starts = np.zeros(pieces + 1, dtype=np.int64)
    for k in range(1, pieces):
        i = max(size * k // pieces, starts[k - 1])
        while i < size and buf[i - 1] != _NL:
            i += 1
        starts[k] = i
    starts[pieces] = size
    return starts


@_jit
def gather_tokens(buf, packed):
    """Arrow string-array buffers (int32 offsets, bytes) of packed (offset, length) tokens."""
    mask = (1 << TOKEN_LENGTH_BITS) - 1
    offsets = np.zeros(packed.size + 1, dtype=np.int32)
    for k in range(packed.size):
        offsets[k + 1] = offsets[k] + (packed[k] & mask)
    data = np.empty(offsets[-1], dtype=np.uint8)
    for k in range(packed.size):
        start = packed[k] >> TOKEN_LENGTH_BITS
        data[offsets[k]:offsets[k + 1]] = buf[start:start + (packed[k] & mask)]
    return offsets, data


# -- formatting ------------------------------------------------------------------

@_jit
def _int_bytes(v) -> int:
    n = 2 if v < 0 else 1
    v = -v if v < 0 else v
    while v >= 10:
        v //= 10
        n += 1
    return n


@_jit
def _put_int(out, pos, v):
    if v < 0:
        out[pos] = 45
        pos += 1
        v = -v
    n = _int_bytes(v)
    for k in range(n - 1, -1, -1):
        out[pos + k] = 48 + v % 10
        v //= 10
    return pos + n


@_jit
def _looks_integral(text, lo, hi) -> bool:
    """Whether a formatted float reads back as an integer ("3", "-0"): it then gets ".0"."""
    for k in range(lo, hi):
        if not (48 <= text[k] <= 57 or text[k] == 45):
            return False
    return True


@_jit
def _row_bytes(prefix, a, b, shift, w, text_offsets, text, r, weight_mode) -> int:
    size = prefix.size + _int_bytes(a[r] + shift) + 1 + _int_bytes(b[r] + shift) + 1
    if weight_mode == INTEGER:
        size += 1 + _int_bytes(w[r])
    elif weight_mode == NUMBER:
        lo, hi = text_offsets[r], text_offsets[r + 1]
        size += 1 + hi - lo + (2 if _looks_integral(text, lo, hi) else 0)
    return size


@numba.njit(nogil=True, cache=True, parallel=True)
def format_rows(prefix, a, b, shift, w, text_offsets, text, weight_mode, sep, pieces):
    """``PREFIX A+shift SEP B+shift [SEP W]\\n`` for every row, as one byte array.

    ``weight_mode``: NO_WEIGHT, INTEGER (``w`` holds integers) or NUMBER
    (``text`` holds each row's weight already formatted, Arrow-style offsets;
    an integral one gets ".0" so that it reads back as a float).
    """
    rows = a.size
    sizes = np.zeros(pieces + 1, dtype=np.int64)
    bounds = np.zeros(pieces + 1, dtype=np.int64)
    for k in range(pieces + 1):
        bounds[k] = rows * k // pieces
    for k in numba.prange(pieces):
        total = 0
        for r in range(bounds[k], bounds[k + 1]):
            total += _row_bytes(prefix, a, b, shift, w, text_offsets, text, r, weight_mode)
        sizes[k + 1] = total
    for k in range(pieces):
        sizes[k + 1] += sizes[k]
    out = np.empty(sizes[pieces], dtype=np.uint8)
    for k in numba.prange(pieces):
        pos = sizes[k]
        for r in range(bounds[k], bounds[k + 1]):
            for c in range(prefix.size):
                out[pos + c] = prefix[c]
            pos = _put_int(out, pos + prefix.size, a[r] + shift)
            out[pos] = sep
            pos = _put_int(out, pos + 1, b[r] + shift)
            if weight_mode == INTEGER:
                out[pos] = sep
                pos = _put_int(out, pos + 1, w[r])
            elif weight_mode == NUMBER:
                out[pos] = sep
                lo, hi = text_offsets[r], text_offsets[r + 1]
                out[pos + 1:pos + 1 + hi - lo] = text[lo:hi]
                pos += 1 + hi - lo
                if _looks_integral(text, lo, hi):
                    out[pos] = 46
                    out[pos + 1] = 48
                    pos += 2
            out[pos] = 10
            pos += 1
    return out


@_jit
def find_byte(buf, start, byte) -> int:
    """The index of the first ``byte`` in ``buf[start:]``, or -1."""
    for i in range(start, buf.size):
        if buf[i] == byte:
            return i
    return -1


@_jit
def rfind_byte(buf, byte) -> int:
    """The index of the last ``byte`` in ``buf``, or -1."""
    for i in range(buf.size - 1, -1, -1):
        if buf[i] == byte:
            return i
    return -1


_GOLDEN, _MIX1, _MIX2 = np.uint64(0x9E3779B97F4A7C15), np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB)


@numba.njit(nogil=True, cache=True, parallel=True)
def arc_multiset_hash(indptr, indices, weight_bits, transposed):
    """An order-free hash of a CSR's arcs (row u, column v, and the weight's
    bits where ``weight_bits`` is not empty): the sum of a 64-bit mix of each
    arc. ``transposed``: the rows are targets, as in a directed graph's
    in-arc CSR, so both CSRs of one graph give the same sum (a binary file's
    check that its two halves agree, without sorting either)."""
    total = np.uint64(0)
    weighted = weight_bits.size > 0
    for u in numba.prange(indptr.size - 1):
        part = np.uint64(0)
        for e in range(indptr[u], indptr[u + 1]):
            v = np.uint64(indices[e])
            source, target = (v, np.uint64(u)) if transposed else (np.uint64(u), v)
            x = source * _GOLDEN + target
            if weighted:
                x ^= np.uint64(weight_bits[e]) * _MIX1
            x ^= x >> np.uint64(30)
            x *= _MIX1
            x ^= x >> np.uint64(27)
            x *= _MIX2
            x ^= x >> np.uint64(31)
            part += x
        total += part
    return total
