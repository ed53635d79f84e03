"""Fuzzing the readers: mutated valid files either load or raise GraphFormatError.

Nothing else may escape (no IndexError from a parser, no half-built graph),
and a file that loads must hold a consistent Graph.
"""
import gzip
import io
import pathlib
import tempfile

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import wavefront as wf
from wavefront.errors import GraphFormatError
from wavefront.io import read_coordinates, read_graph
from wavefront.io.binary import write_binary

DATA = pathlib.Path(__file__).parent / "data"


def _binary_seed() -> bytes:
    graph = wf.from_edges([4, 4, 1, 2], [0, 1, 3, 3], weights=np.array([1.5, 2, 4, 0.5]),
                          n=5, directed=True, relabel="degree")
    out = io.BytesIO()
    write_binary(graph, out)
    return out.getvalue()


SEEDS = {
    "gr": (DATA / "tiny.gr").read_bytes(),
    "mtx": (DATA / "tiny_symmetric.mtx").read_bytes(),
    "txt": (DATA / "tiny.txt").read_bytes(),
    "edges": (DATA / "tiny_weighted.edges").read_bytes(),
    "csv": (DATA / "tiny.csv").read_bytes(),
    "wfb": _binary_seed(),
    "co": (DATA / "tiny.co").read_bytes(),
}
# Bytes that matter to the parsers, so mutations reach past the first check.
ALPHABET = b"0123456789 \t\n\r-+.eE,#%acpvsx\x00\xff"


@st.composite
def mutated(draw):
    suffix = draw(st.sampled_from(sorted(SEEDS)))
    data = bytearray(SEEDS[suffix])
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(["replace", "insert", "delete", "truncate", "duplicate"]))
        at = draw(st.integers(0, max(len(data) - 1, 0)))
        if op == "replace" and data:
            data[at] = draw(st.sampled_from(ALPHABET))
        elif op == "insert":
            data[at:at] = draw(st.binary(min_size=1, max_size=6)) if draw(st.booleans()) else bytes(
                draw(st.lists(st.sampled_from(ALPHABET), min_size=1, max_size=6))
            )
        elif op == "delete":
            del data[at:at + draw(st.integers(1, 8))]
        elif op == "truncate":
            del data[at:]
        else:
            line_end = data.find(b"\n", at)
            line_start = data.rfind(b"\n", 0, at) + 1
            if line_end > 0:
                data[line_end + 1:line_end + 1] = data[line_start:line_end + 1]
    return suffix, bytes(data), draw(st.booleans())


def _check_graph(g):
    assert g.indptr[0] == 0 and g.indptr[-1] == g.m
    assert (np.diff(g.indptr) >= 0).all()
    if g.m:
        assert 0 <= g.indices.min() and g.indices.max() < g.n


@settings(max_examples=250, deadline=None)
@given(case=mutated())
def test_mutated_files_load_or_raise_graph_format_error(case):
    suffix, data, compress = case
    with tempfile.TemporaryDirectory() as folder:
        path = pathlib.Path(folder) / (f"fuzz.{suffix}.gz" if compress else f"fuzz.{suffix}")
        path.write_bytes(gzip.compress(data) if compress else data)
        try:
            if suffix == "co":
                xy = read_coordinates(path)
                assert xy.ndim == 2 and xy.shape[1] == 2
            else:
                _check_graph(read_graph(path))
        except GraphFormatError as exc:
            assert str(path) in str(exc)


@settings(max_examples=40, deadline=None)
@given(data=st.binary(max_size=200), suffix=st.sampled_from(["gr", "mtx", "txt", "csv", "wfb"]))
def test_random_bytes_load_or_raise_graph_format_error(data, suffix):
    with tempfile.TemporaryDirectory() as folder:
        path = pathlib.Path(folder) / f"noise.{suffix}"
        path.write_bytes(data)
        try:
            _check_graph(read_graph(path))
        except GraphFormatError:
            pass
