"""The chunked numba parser: exact numbers, chunk-size independence, gzip streaming, memory."""
import gzip
import itertools
import math
import tracemalloc

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from wavefront.errors import GraphFormatError
from wavefront.io import parse_arcs, read_graph
from wavefront.io._scan import Grammar, TextSource, kernels, read_rows

TOKENS = [
    "0.1", "1e-7", "1E5", "+1.5", "-2.25", "1.", ".5", "00012.5000", "-0.0", "5e-324", "1e-400",
    "1.7976931348623157e308", "1e500", "0.30000000000000004", "123456789012345678901234567890",
    "inf", "-Infinity", "nan", "NaN", "3.141592653589793", "2.5e+10", "7e22", "7e23", "1e-22",
]


def _same(got, expected) -> bool:
    return (math.isnan(got) and math.isnan(expected)) or (got == expected and
                                                          math.copysign(1, got) == math.copysign(1, expected))


def test_float_weights_match_python(tmp_path):
    rng = np.random.default_rng(7)
    randoms = [repr(float(x)) for x in rng.random(2000) * 10.0 ** rng.integers(-30, 30, 2000)]
    tokens = TOKENS + randoms + [f"{x:.6g}" for x in rng.random(200)]
    path = tmp_path / "w.el"
    path.write_text("".join(f"0 1 {t}\n" for t in tokens))
    for chunk_bytes in (64, 1 << 20):
        weights = parse_arcs(path, chunk_bytes=chunk_bytes).weights
        assert weights.dtype == np.float64
        bad = [t for t, w in zip(tokens, weights.tolist()) if not _same(w, float(t))]
        assert not bad


def test_integer_weights_stay_exact_and_narrow(tmp_path):
    path = tmp_path / "w.el"
    path.write_text("0 1 5\n1 2 -7\n")
    assert parse_arcs(path).weights.dtype == np.int32
    big = 2**62 + 1  # not a float64: must stay an exact int64
    path.write_text(f"0 1 5\n1 2 {big}\n")
    weights = parse_arcs(path, chunk_bytes=8).weights
    assert weights.dtype == np.int64 and weights.tolist() == [5, big]
    path.write_text(f"0 1 5\n1 2 {big}\n2 3 0.5\n")  # a float after int64 chunks: all float64
    weights = parse_arcs(path, chunk_bytes=8).weights
    assert weights.dtype == np.float64 and weights.tolist() == [5.0, float(big), 0.5]


def test_ids_are_int32_unless_they_need_int64(tmp_path):
    arcs = parse_arcs(tmp_path.joinpath("a.el").write_text("0 1\n5 2\n") and tmp_path / "a.el")
    assert arcs.src.dtype == arcs.dst.dtype == np.int32
    path = tmp_path / "wide.el"
    path.write_text("3000000000 1\n2 3\n")
    grammar = Grammar(comment=b"#", shape="{found}", id_name="an id", weight_mode=kernels().NO_WEIGHT)
    with TextSource(path, chunk_bytes=8) as source:
        rows = read_rows(source, grammar)
    assert rows.a.dtype == np.int64 and rows.a.tolist() == [3000000000, 2]
    assert (rows.largest, rows.largest_line) == (3000000000, 1)


LINE_KINDS = st.sampled_from(["edge", "edge", "edge", "comment", "blank", "indented", "tabbed"])


@st.composite
def edge_files(draw):
    """(text, expected (src, dst, weight) rows) with comments, blanks, CRLF and odd spacing."""
    weighted = draw(st.booleans())
    crlf = draw(st.booleans())
    lines, rows = [], []
    for kind in draw(st.lists(LINE_KINDS, min_size=1, max_size=40)):
        if kind == "comment":
            lines.append(draw(st.sampled_from(["# a comment", "% another", "#", "   # indented 1 2"])))
        elif kind == "blank":
            lines.append(draw(st.sampled_from(["", "  ", "\t"])))
        else:
            u, v = draw(st.integers(0, 50)), draw(st.integers(0, 50))
            w = draw(st.integers(-5, 10**9)) if weighted else None
            gap = {"edge": " ", "indented": "  ", "tabbed": "\t"}[kind]
            lead = "  " if kind == "indented" else ""
            lines.append(lead + gap.join(str(x) for x in (u, v, w) if x is not None) + " " * (kind == "tabbed"))
            rows.append((u, v, w))
    end = "\r\n" if crlf else "\n"
    text = end.join(lines) + (end if draw(st.booleans()) else "")
    return text, rows


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=edge_files(), chunk_bytes=st.sampled_from([1, 5, 17, 64, 1 << 20]), gz=st.booleans())
def test_any_chunk_size_gives_the_same_rows(tmp_path, case, chunk_bytes, gz):
    text, rows = case
    path = tmp_path / ("e.el.gz" if gz else "e.el")
    path.write_bytes(gzip.compress(text.encode()) if gz else text.encode())
    if not rows:
        with pytest.raises(GraphFormatError):
            parse_arcs(path, chunk_bytes=chunk_bytes)
        return
    arcs = parse_arcs(path, chunk_bytes=chunk_bytes)
    assert arcs.src.tolist() == [r[0] for r in rows]
    assert arcs.dst.tolist() == [r[1] for r in rows]
    if rows[0][2] is None:
        assert arcs.weights is None
    else:
        assert arcs.weights.tolist() == [r[2] for r in rows]
    assert arcs.n == max(max(r[0], r[1]) for r in rows) + 1


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    bad_at=st.integers(0, 299),
    bad=st.sampled_from(["a 1 x 3", "a 1 2", "a 1 2 3 4", "x 1 2 3", "a 1 2 3\r5", "a 1 999 3", "p sp 2 2"]),
    chunk_bytes=st.sampled_from([3, 50, 1 << 20]),
)
def test_the_first_bad_line_is_named_at_any_chunk_size(tmp_path, bad_at, bad, chunk_bytes):
    lines = ["c header", "p sp 300 300"] + [f"a {i + 1} {(i * 7) % 300 + 1} {i}" for i in range(300)]
    lines[2 + bad_at] = bad
    path = tmp_path / "bad.gr"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(GraphFormatError) as info:
        read_graph(path, chunk_bytes=chunk_bytes)
    assert info.value.line == 3 + bad_at


def test_multi_member_gzip_and_trailing_garbage(tmp_path):
    path = tmp_path / "two.el.gz"
    path.write_bytes(gzip.compress(b"0 1\n1 2\n") + gzip.compress(b"2 3\n"))
    assert parse_arcs(path).src.tolist() == [0, 1, 2]
    path.write_bytes(gzip.compress(b"0 1\n") + b"garbage")
    with pytest.raises(GraphFormatError, match="gzip"):
        parse_arcs(path)


def test_reading_holds_no_copy_of_the_text(tmp_path):
    """Peak traced memory: the int32 columns plus per-chunk buffers, not the (gunzipped) text."""
    rng = np.random.default_rng(3)
    count = 1_500_000
    u, v, w = rng.integers(0, 10**6, count), rng.integers(0, 10**6, count), rng.integers(1, 10**6, count)
    text = "".join(f"{a} {b} {c}\n" for a, b, c in zip(u.tolist(), v.tolist(), w.tolist())).encode()
    chunk_bytes = 1 << 16
    for name, data in (("m.el", text), ("m.el.gz", gzip.compress(text, 1))):
        path = tmp_path / name
        path.write_bytes(data)
        parse_arcs(path, chunk_bytes=chunk_bytes)  # compile and load the kernels first
        tracemalloc.start()
        arcs = parse_arcs(path, chunk_bytes=chunk_bytes)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        columns = arcs.src.nbytes + arcs.dst.nbytes + arcs.weights.nbytes
        assert arcs.src.size == count and arcs.weights.dtype == np.int32
        assert peak < 1.1 * columns + (3 << 20) + 40 * chunk_bytes < len(text), (name, peak, columns)


# -- the kernels' word-at-a-time pieces -----------------------------------------

@settings(max_examples=60, deadline=None)
@given(st.binary(max_size=300), st.lists(st.integers(0, 300), max_size=6))
def test_count_breaks_counts_every_line_break_at_any_alignment(text, cuts):
    """The 8-bytes-at-a-time count equals a plain count for blocks of any
    length and alignment, including bytes 0x0A +/- 1 and 0x8A, which a
    carry or a missing mask would miscount."""
    from wavefront.io import _kernels

    noisy = bytes(b if i % 5 else (0x0A, 0x0B, 0x09, 0x8A, 0x00)[i % 25 // 5] for i, b in enumerate(text))
    buf = np.frombuffer(b"\x00" * 3 + noisy, dtype=np.uint8)[3:]  # a view not aligned to 8 bytes
    starts = np.array(sorted({0, buf.size, *(min(c, buf.size) for c in cuts)}), dtype=np.int64)
    expected = [buf[lo:hi].tobytes().count(b"\n") for lo, hi in itertools.pairwise(starts)]
    assert _kernels.count_breaks(buf, starts).tolist() == expected


def test_count_breaks_long_block_folds_its_lanes():
    """A block of 10 000 line breaks: each byte lane passes 255 unless folded."""
    from wavefront.io import _kernels

    buf = np.full(10_000 * 8 + 5, 10, dtype=np.uint8)
    assert _kernels.count_breaks(buf, np.array([0, buf.size], dtype=np.int64)).tolist() == [buf.size]


def test_copy_into_casts_and_places_the_values():
    from wavefront.io import _kernels

    src = np.arange(300_000, dtype=np.int64) - 7
    dst = np.zeros(300_010, dtype=np.int32)
    _kernels.copy_into(dst, 5, src)
    assert (dst[5:300_005] == src).all() and not dst[:5].any() and not dst[300_005:].any()
