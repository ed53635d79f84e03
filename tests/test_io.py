"""Readers and writers: golden files, round trips, the road networks, malformed input."""
import gzip
import os
import pathlib
import time

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import wavefront as wf
from wavefront.errors import GraphFormatError, WeightError
from wavefront.io import read_coordinates, read_graph, write_graph

from conftest import road_file

DATA = pathlib.Path(__file__).parent / "data"


def relabelled_graph():
    """A small directed, weighted, degree-relabelled graph with a duplicate and a self-loop."""
    return wf.from_edges(
        [4, 4, 4, 1, 2, 4, 3], [0, 1, 2, 3, 3, 0, 3],
        weights=np.array([1.5, 2, 3, 4, 0.5, 9, 1], np.float32), n=5, directed=True, relabel="degree",
    )


@pytest.fixture
def wfb_file(tmp_path):
    path = tmp_path / "relabelled.wfb"
    write_graph(relabelled_graph(), path)
    return path


def caller_arcs(g):
    """{(u, v): w} of a graph's stored arcs in caller ids (w None when unweighted)."""
    src = np.repeat(np.arange(g.n), np.diff(g.indptr))
    dst = np.asarray(g.indices, dtype=np.int64)
    if g.labels is not None:
        src, dst = g.labels[src], g.labels[dst]
    w = [None] * g.m if g.weights is None else g.weights.tolist()
    return dict(zip(zip(src.tolist(), dst.tolist()), w))


def undirected(edges):
    arcs = {}
    for (u, v), w in edges.items():
        arcs[(u, v)] = arcs[(v, u)] = w
    return arcs


# -- golden files -------------------------------------------------------------

@pytest.mark.parametrize("name", ["tiny.gr", "tiny.gr.gz"])
def test_dimacs_golden(name):
    g = read_graph(DATA / name)
    assert (g.n, g.m, g.directed, g.weights.dtype) == (5, 5, True, np.int32)
    assert caller_arcs(g) == {(0, 1): 3, (1, 2): 1, (2, 0): 4, (0, 2): 9, (3, 4): 2}
    assert g.num_input_edges == 6  # 7 arc lines less the self-loop
    assert np.array_equal(g.in_indptr, [0, 1, 2, 4, 4, 5])


def test_an_unknown_dimacs_line_names_the_line_kinds(tmp_path):
    gr = tmp_path / "g.gr"
    gr.write_text("p sp 2 1\nx 1 2 3\n")
    with pytest.raises(GraphFormatError, match=r"c \(comment\), p \(problem\) or a \(arc\)") as caught:
        wf.read_graph(gr)
    assert "g.gr:2:" in str(caught.value)  # the file and line
    co = tmp_path / "g.co"
    co.write_text("p aux sp co 1\nx 1 2 3\n")
    with pytest.raises(GraphFormatError, match=r"or v \(vertex\)"):
        wf.io.read_coordinates(co)


def test_dimacs_undirected_and_unweighted():
    g = read_graph(DATA / "tiny.gr", directed=False, weighted=False)
    assert not g.directed and g.weights is None
    assert caller_arcs(g) == undirected({(0, 1): None, (1, 2): None, (0, 2): None, (3, 4): None})


@pytest.mark.parametrize("name", ["tiny.co", "tiny.co.gz"])
def test_coordinates_golden(name):
    xy = read_coordinates(DATA / name)
    assert xy.dtype == np.int64
    assert xy.tolist() == [[0, 0], [10, -5], [20, 0], [30, 12], [-7, 3]]


def test_matrix_market_symmetric_real():
    g = read_graph(DATA / "tiny_symmetric.mtx")
    assert (g.n, g.directed, g.weights.dtype) == (4, False, np.float64)
    assert caller_arcs(g) == undirected({(1, 0): 0.5, (2, 0): 1.25, (3, 2): 2.0})
    as_arcs = read_graph(DATA / "tiny_symmetric.mtx", directed=True)
    assert as_arcs.directed and caller_arcs(as_arcs) == caller_arcs(g)


def test_matrix_market_pattern_general():
    g = read_graph(DATA / "tiny_pattern.mtx")
    assert (g.n, g.m, g.directed, g.weights) == (3, 3, True, None)
    assert caller_arcs(g) == {(0, 1): None, (1, 2): None, (2, 0): None}


@pytest.mark.parametrize("name", ["tiny_integer.mtx", "tiny_integer.mtx.gz"])
def test_matrix_market_integer(name):
    g = read_graph(DATA / name)
    assert g.weights.dtype == np.int32
    assert caller_arcs(g) == {(0, 3): -2, (3, 0): 6, (1, 2): 5}


def test_snap_edge_list():
    g = read_graph(DATA / "tiny.txt")
    assert (g.n, g.m, g.directed, g.weights) == (5, 10, False, None)
    assert caller_arcs(g) == undirected({(0, 1): None, (0, 2): None, (1, 2): None, (2, 3): None, (4, 0): None})
    d = read_graph(DATA / "tiny.txt", directed=True)
    assert d.directed and d.m == 5


@pytest.mark.parametrize("name", ["tiny_weighted.edges", "tiny_weighted.edges.gz"])
def test_weighted_edge_list(name):
    g = read_graph(DATA / name)
    assert g.weights.dtype == np.float64
    assert caller_arcs(g) == undirected({(0, 1): 0.25, (1, 2): 1.5, (2, 0): 3.0, (3, 4): 1e-3})


def test_csv_with_header():
    g = read_graph(DATA / "tiny.csv", directed=True)
    assert caller_arcs(g) == {(0, 1): 4, (1, 2): 2, (2, 3): 8}
    assert g.weights.dtype == np.int32


def test_binary_keeps_everything(wfb_file):
    g = read_graph(wfb_file)
    assert (g.n, g.m, g.directed, g.num_input_edges) == (5, 5, True, 6)
    assert g.labels.tolist() == [4, 1, 2, 0, 3]
    assert g.input_degree.tolist() == [4, 1, 1, 0, 0]
    assert g.weights.dtype == np.float32
    assert caller_arcs(g) == {(4, 1): 2.0, (4, 2): 3.0, (4, 0): 1.5, (1, 3): 4.0, (2, 3): 0.5}
    assert g.in_indices.tolist() == [0, 0, 0, 1, 2]


def test_format_override_and_relabel(tmp_path):
    p = tmp_path / "graph.dat"
    p.write_bytes((DATA / "tiny.gr").read_bytes())
    with pytest.raises(GraphFormatError, match="known suffixes"):
        read_graph(p)
    g = read_graph(p, format="dimacs", relabel="degree")
    assert g.labels is not None
    assert caller_arcs(g) == caller_arcs(read_graph(DATA / "tiny.gr"))


def test_lazy_entry_point_and_co_hint():
    assert wf.read_graph is read_graph
    with pytest.raises(GraphFormatError, match="read_coordinates"):
        read_graph(DATA / "tiny.co")
    with pytest.raises(ValueError, match="unknown format"):
        read_graph(DATA / "tiny.gr", format="graphml")


def test_weighted_option():
    with pytest.raises(GraphFormatError, match="no weights"):
        read_graph(DATA / "tiny.txt", weighted=True)
    assert read_graph(DATA / "tiny_weighted.edges", weighted=False).weights is None


# -- round trips --------------------------------------------------------------

TEXT_SUFFIXES = ["gr", "gr.gz", "mtx", "mtx.gz", "txt", "el.gz", "csv", "tsv"]


@st.composite
def graphs(draw):
    n = draw(st.integers(1, 25))
    k = draw(st.integers(0, 60))
    ids = st.lists(st.integers(0, n - 1), min_size=k, max_size=k)
    src, dst = np.array(draw(ids), np.int64), np.array(draw(ids), np.int64)
    kind = draw(st.sampled_from(["none", "int32", "int64", "float32", "float64"]))
    weights = None
    if kind.startswith("int"):
        weights = np.array(draw(st.lists(st.integers(0, 10**6), min_size=k, max_size=k)), kind)
    elif kind.startswith("float"):
        floats = st.floats(0, 1e6, width=32 if kind == "float32" else 64)
        weights = np.array(draw(st.lists(floats, min_size=k, max_size=k)), kind)
    return wf.from_edges(
        src, dst, weights=weights, n=n, directed=draw(st.booleans()),
        relabel=draw(st.sampled_from([None, "degree"])),
    )


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(g=graphs(), suffix=st.sampled_from(TEXT_SUFFIXES))
def test_text_round_trip(tmp_path, g, suffix):
    path = tmp_path / f"g.{suffix}"
    w = g.weights
    if suffix.startswith("gr") and w is not None and (w != np.round(w)).any():
        with pytest.raises(ValueError, match="integer arc lengths"):
            write_graph(g, path)
        return
    write_graph(g, path)
    back = read_graph(path, directed=g.directed)
    assert (back.n, back.m, back.directed) == (g.n, g.m, g.directed)
    if not suffix.startswith("gr"):  # these formats record the direction
        assert read_graph(path).directed == g.directed
    expected = caller_arcs(g)
    if g.weights is None and suffix.startswith("gr"):
        expected = dict.fromkeys(expected, 1)
    got = caller_arcs(back)
    if g.weights is not None:
        got = {k: float(v) for k, v in got.items()}
        expected = {k: float(v) for k, v in expected.items()}
    assert got == expected


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(g=graphs(), compressed=st.booleans())
def test_binary_round_trip_is_exact(tmp_path, g, compressed):
    path = tmp_path / ("g.wfb.gz" if compressed else "g.wfb")
    write_graph(g, path)
    back = read_graph(path)
    assert (back.n, back.directed, back.num_input_edges) == (g.n, g.directed, g.num_input_edges)
    for name in ("indptr", "indices", "weights", "in_indptr", "in_indices", "in_weights",
                 "input_degree", "labels"):
        a, b = getattr(g, name), getattr(back, name)
        assert (a is None) == (b is None), name
        if a is not None:
            assert a.dtype == b.dtype and np.array_equal(a, b), name


def test_binary_options_rebuild(wfb_file):
    g = read_graph(wfb_file)
    u = read_graph(wfb_file, directed=False, weighted=False)
    assert not u.directed and u.weights is None
    assert set(caller_arcs(u)) == set(undirected(caller_arcs(g)))


# -- road networks ------------------------------------------------------------

@pytest.mark.parametrize(
    "name, n, arcs", [("seattle", 148463, 346374), ("amsterdam", 68213, 153436)]
)
def test_road_networks(name, n, arcs):
    start = time.perf_counter()
    g = read_graph(road_file(f"{name}.gr.gz"))
    print(f"{name}: {time.perf_counter() - start:.3f} s to read and build")
    assert (g.n, g.num_input_edges, g.directed) == (n, arcs, True)
    assert g.m <= arcs and g.weights.dtype == np.int32 and int(g.weights.min()) >= 1
    # every road is listed in both directions
    assert caller_arcs(g).keys() == {(v, u) for u, v in caller_arcs(g)}
    xy = read_coordinates(road_file(f"{name}.co.gz"))
    assert xy.shape == (n, 2)


# -- malformed input ----------------------------------------------------------

MALFORMED = [
    # (suffix, content, line, message fragment)
    ("gr", "c no header\na 1 2 3\n", 2, "before the 'p sp N M'"),
    ("gr", "p sp 3 1\na 1 2\n", 2, "found 3 fields"),
    ("gr", "p sp 3 2\na 1 2 3\na 1 x 3\n", 3, "'x' is not a vertex id"),
    ("gr", "p sp 3 2\na 1 2 3\na 1 4 3\n", 3, "outside 1..3"),
    ("gr", "p sp 3 1\na 0 2 3\n", 2, "vertex id 0 is outside"),
    ("gr", "p sp 3 1\na 1 2 w\n", 2, "'w' is not a number"),
    ("gr", "p sp 3 2\n\na 1 2 3\n", 1, "announces 2 arcs but the file holds 1"),
    ("gr", "p sp 3 1\nb 1 2 3\n", 2, "DIMACS lines start with"),
    ("gr", "p sp 3 1\np sp 3 1\na 1 2 3\n", 2, "second problem line"),
    ("gr", "p sp three 1\n", 1, "p sp NODES ARCS"),
    ("gr", "p sp 3 1\na 1 2 3\r4\n", 2, "carriage return"),
    ("gr", "p sp 3 1\nab 1 2 3\n", 2, "an arc line"),
    ("gr", "p sp 99999999999999 0\n", 1, "renumber the vertex ids"),
    ("mtx", "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2\n", 3, "found 2 fields"),
    ("mtx", "%%MatrixMarket matrix coordinate real general\n2 3 1\n1 2 1\n", 2, "square"),
    ("mtx", "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n", 1, "dense"),
    ("mtx", "%%MatrixMarket matrix coordinate complex general\n", 1, "field 'complex'"),
    ("mtx", "%%MatrixMarket matrix coordinate real hermitian\n", 1, "symmetry 'hermitian'"),
    ("mtx", "2 2 1\n1 2 1\n", 1, "banner"),
    ("mtx", "%%MatrixMarket matrix coordinate integer general\n%c\n2 2 2\n1 2 1\n2 1 1.5\n", 5,
     "'1.5' is not an integer"),
    ("mtx", "%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 2 -9223372036854775808\n", 3,
     "outside the integers this reader keeps exactly"),
    ("mtx", "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 3\n", 3, "outside 1..2"),
    ("mtx", "%%MatrixMarket matrix coordinate pattern general\n2 2 2\n1 2\n", 2, "announces 2 entries"),
    ("txt", "0 1\n1 2 5\n", 2, "expected 2 fields"),
    ("txt", "# c\n0 1 2 3\n", 2, "found 4 fields"),
    ("txt", "0 1\n1 -2\n", 2, "non-negative"),
    ("txt", "0 1\n\n1 2.5\n", 3, "'2.5' is not a vertex id"),
    ("txt", "0 1 1\n1 2 abc\n", 2, "'abc' is not a number"),
    ("txt", "# only a comment\n", None, "no edges"),
    ("txt", "# wavefront edge list: n=3 undirected\n0 1\n1 3\n", 3, "outside 0..2"),
    ("txt", "0 1\n1 99999999999999\n", 2, "renumber"),
    ("csv", "0,1,2\n1,,2\n", 2, "no empty fields"),
    ("csv", "src,dst\n", None, "no edges"),
    ("csv", "0,1\n1 2\n", 2, "separated by one ','"),
    ("csv", "0,1\n1,2,\n", 2, "no empty fields"),
]


@pytest.mark.parametrize("suffix, content, line, fragment", MALFORMED)
def test_malformed_names_the_line(tmp_path, suffix, content, line, fragment):
    path = tmp_path / f"bad.{suffix}"
    path.write_text(content)
    with pytest.raises(GraphFormatError) as info:
        read_graph(path)
    assert info.value.line == line, str(info.value)
    assert fragment in str(info.value)
    assert str(path) in str(info.value)
    gz = tmp_path / f"bad.{suffix}.gz"
    gz.write_bytes(gzip.compress(content.encode()))
    with pytest.raises(GraphFormatError) as info:
        read_graph(gz)
    assert info.value.line == line


@pytest.mark.parametrize("content", [b"", b"  \n\n"])
@pytest.mark.parametrize("suffix", ["gr", "mtx", "txt", "csv"])
def test_empty_files(tmp_path, suffix, content):
    path = tmp_path / f"empty.{suffix}"
    path.write_bytes(content)
    with pytest.raises(GraphFormatError, match="empty"):
        read_graph(path)


def test_truncated_and_corrupt_gzip(tmp_path):
    data = (DATA / "tiny.gr.gz").read_bytes()
    path = tmp_path / "cut.gr.gz"
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(GraphFormatError, match="gzip"):
        read_graph(path)
    path.write_bytes(data[:-8] + bytes(8))  # wrong CRC and length
    with pytest.raises(GraphFormatError, match="gzip"):
        read_graph(path)


@pytest.mark.parametrize("gz", [False, True])
def test_error_deep_in_a_big_file_names_its_line(tmp_path, gz):
    lines = ["p sp 1000 5000"] + [f"a {i % 1000 + 1} {(i * 7) % 1000 + 1} {i}" for i in range(5000)]
    lines[4321] = "a 1 2 three"
    path = tmp_path / ("big.gr.gz" if gz else "big.gr")

    def write(text):
        path.write_bytes(gzip.compress(text.encode()) if gz else text.encode())

    write("\n".join(lines) + "\n")
    with pytest.raises(GraphFormatError) as info:
        read_graph(path, chunk_bytes=4096)  # many chunks
    assert info.value.line == 4322
    lines[4321] = "a 1 2 3"
    write("\n".join(lines) + "\n")
    g = read_graph(path, chunk_bytes=4096)
    assert g.num_input_edges == 5000 - sum(1 for i in range(5000) if i % 1000 == (i * 7) % 1000)


def test_csv_header_only_skipped_once_across_chunks(tmp_path):
    rows = [f"{i},{i + 1},{i % 7}" for i in range(200)]
    path = tmp_path / "many.csv"
    path.write_text("from,to,weight\n" + "\n".join(rows) + "\n")
    g = read_graph(path, directed=True, chunk_bytes=64)
    assert g.num_input_edges == 200
    assert caller_arcs(g) == {(i, i + 1): i % 7 for i in range(200)}


def test_crlf_and_indented_lines(tmp_path):
    text = (DATA / "tiny.gr").read_text()
    lines = ["   " + line if line.startswith("a") else line for line in text.split("\n")]
    path = tmp_path / "crlf.gr"
    path.write_bytes("\r\n".join(lines).encode())
    assert caller_arcs(read_graph(path)) == caller_arcs(read_graph(DATA / "tiny.gr"))


@pytest.mark.parametrize("cut", [10, 100, 500, -1])
def test_binary_truncation_detected(tmp_path, wfb_file, cut):
    data = wfb_file.read_bytes()
    path = tmp_path / "cut.wfb"
    path.write_bytes(data[:cut])
    with pytest.raises(GraphFormatError):
        read_graph(path)


def test_binary_corruption_detected(tmp_path, wfb_file):
    data = bytearray(wfb_file.read_bytes())
    data[-20] ^= 0xFF
    path = tmp_path / "flip.wfb"
    path.write_bytes(bytes(data))
    with pytest.raises(GraphFormatError, match="checksum"):
        read_graph(path)


def test_binary_in_arcs_that_disagree_with_the_out_arcs_are_refused(tmp_path, monkeypatch):
    # A file whose arrays all pass their checksums and CSR checks, but whose
    # in-arc half (another tool's, or an edit) is not the out-arcs reversed.
    from wavefront.io import binary

    g = wf.from_edges([0, 1, 2, 0], [1, 2, 0, 2], weights=np.array([1.0, 2.0, 3.0, 4.0]), directed=True)
    write_graph(g, tmp_path / "good.wfb")
    assert caller_arcs(read_graph(tmp_path / "good.wfb")) == caller_arcs(g)
    real = binary._arrays
    edits = {"moved": lambda a: {**a, "in_indices": np.roll(a["in_indices"], 1)},
             "reweighted": lambda a: {**a, "in_weights": a["in_weights"][::-1].copy()}}
    for name, edit in edits.items():
        monkeypatch.setattr(binary, "_arrays", lambda graph, edit=edit: edit(real(graph)))
        write_graph(g, tmp_path / f"{name}.wfb")
        monkeypatch.undo()
        with pytest.raises(GraphFormatError, match=f"{name}.wfb.*not the out-arcs reversed"):
            read_graph(tmp_path / f"{name}.wfb")


def test_a_binary_files_unusable_weight_is_reported_with_the_file(tmp_path):
    g = wf.from_edges([0, 1], [1, 2], weights=np.array([1.0, np.nan]))
    path = tmp_path / "nan.wfb"
    write_graph(g, path)
    with pytest.raises(WeightError, match=r"nan\.wfb: arc \(1, 2\) has weight nan"):
        wf.sssp(read_graph(path), 0)


# -- writers ------------------------------------------------------------------

def test_failed_write_keeps_the_old_file(tmp_path):
    path = tmp_path / "keep.gr"
    path.write_text("precious\n")
    fractional = wf.from_edges([0], [1], weights=np.array([0.5]))
    with pytest.raises(ValueError, match="integer arc lengths"):
        write_graph(fractional, path)
    assert path.read_text() == "precious\n"
    assert os.listdir(tmp_path) == ["keep.gr"]


def test_written_files_are_readable_by_others(tmp_path):
    g = read_graph(DATA / "tiny.gr")
    write_graph(g, tmp_path / "out.mtx")
    import scipy.io

    m = scipy.io.mmread(tmp_path / "out.mtx")
    assert m.shape == (5, 5) and m.nnz == 5
    assert m.tocsr()[0, 1] == 3
    write_graph(g, tmp_path / "out.gr.gz")
    text = gzip.decompress((tmp_path / "out.gr.gz").read_bytes()).decode()
    assert "p sp 5 5\n" in text and "a 1 2 3\n" in text
    assert oct((tmp_path / "out.mtx").stat().st_mode & 0o777) != oct(0o600)


def test_undirected_writes_each_edge_once(tmp_path):
    g = read_graph(DATA / "tiny.txt")
    write_graph(g, tmp_path / "out.txt")
    lines = (tmp_path / "out.txt").read_text().splitlines()
    assert lines[0] == "# wavefront edge list: n=5 undirected"
    assert sorted(lines[1:]) == ["0 1", "0 2", "0 4", "1 2", "2 3"]


@pytest.mark.gpu
def test_read_onto_and_write_from_the_gpu(tmp_path):
    g = read_graph(DATA / "tiny.gr", device="cuda")
    assert g.device == "cuda"
    assert caller_arcs(g.to("cpu")) == caller_arcs(read_graph(DATA / "tiny.gr"))
    write_graph(g, tmp_path / "back.wfb")
    assert caller_arcs(read_graph(tmp_path / "back.wfb")) == caller_arcs(g.to("cpu"))
