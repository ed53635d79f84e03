"""The ``wavefront`` command line, end to end: every subcommand, exit status and output format."""
import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse import csgraph

import wavefront
from wavefront import cli
from wavefront.backends import cuda_status

from conftest import road_file

# A directed DIMACS graph (1-based in the file, 0-based on the command line):
# 0 -> 1 -> 2 -> 3 plus a long arc 0 -> 2 and a vertex 4 nobody reaches.
SMALL_GR = "c small test graph\np sp 5 5\na 1 2 5\na 2 3 1\na 1 3 9\na 3 4 2\na 5 1 7\n"
SMALL_ARCS = [(0, 1, 5), (1, 2, 1), (0, 2, 9), (2, 3, 2), (4, 0, 7)]


def run(argv, capsys):
    """main(argv) in this process: (status, stdout, stderr)."""
    status = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def fields(stdout: str) -> dict:
    """The ``key: value`` lines of a summary (the trace table has none)."""
    out = {}
    for line in stdout.splitlines():
        key, sep, value = line.partition(": ")
        if sep and key not in out and " " not in key:
            out[key] = value
    return out


def subprocess_cli(*argv, **kwargs):
    return subprocess.run(
        [sys.executable, "-m", "wavefront", *map(str, argv)],
        capture_output=True, text=True, timeout=300, **kwargs,
    )


@pytest.fixture
def small_gr(tmp_path):
    path = tmp_path / "small.gr"
    path.write_text(SMALL_GR)
    return path


def small_matrix(directed=True):
    src, dst, w = (np.array(c) for c in zip(*SMALL_ARCS))
    a = sp.csr_array((w.astype(float), (src, dst)), shape=(5, 5))
    return a if directed else a.maximum(a.T)


def read_dimacs_arcs(path):
    """An independent DIMACS parse (0-based ids), the oracle for the road network."""
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rt") as f:
        n = 0
        arcs = []
        for line in f:
            if line.startswith("p "):
                n = int(line.split()[2])
            elif line.startswith("a "):
                arcs.append(line.split()[1:4])
    a = np.array(arcs, dtype=np.int64)
    return n, a[:, 0] - 1, a[:, 1] - 1, a[:, 2]


# -- top level -----------------------------------------------------------------
def test_version_via_python_m():
    done = subprocess_cli("--version")
    assert done.returncode == 0
    assert done.stdout.strip() == f"wavefront {wavefront.__version__}"


def test_help_imports_nothing_heavy():
    code = (
        "import sys\n"
        "from wavefront.cli import main\n"
        "for argv in (['--help'], ['bfs', '--help'], ['graph500', '--help']):\n"
        "    assert main(argv) == 0\n"
        "heavy = sorted(m for m in ('numba', 'cupy', 'scipy', 'rich') if m in sys.modules)\n"
        "print('HEAVY', heavy)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "HEAVY []" in done.stdout
    assert "--scale" in done.stdout  # graph500's own arguments are wired in


def test_no_command_is_a_usage_error(capsys):
    status, out, err = run([], capsys)
    assert status == 2
    assert "usage: wavefront" in err


def test_argparse_errors_exit_2(capsys, small_gr):
    assert run(["bfs", small_gr], capsys)[0] == 2  # --source missing
    assert run(["bfs", small_gr, "--source", "0", "--alpha", "-1"], capsys)[0] == 2
    status, _, err = run(["bfs", small_gr, "--source", "0", "--format", "xls"], capsys)
    assert status == 2 and "unknown format 'xls'" in err


def test_methods_lists_the_registry(capsys):
    status, out, _ = run(["methods"], capsys)
    assert status == 0
    for kernel in ("bfs", "sssp"):
        assert f"  cpu: {', '.join(wavefront.methods(kernel, 'cpu'))}" in out
    ok, reason = cuda_status()
    assert f"cuda: {'available' if ok else 'unavailable'} ({reason})" in out


# -- bfs -----------------------------------------------------------------------
def test_bfs_small_dimacs(capsys, small_gr):
    status, out, err = run(["bfs", small_gr, "--source", "0", "--backend", "cpu"], capsys)
    assert status == 0, err
    f = fields(out)
    assert (f["source"], f["vertices"], f["reached"], f["depth"]) == ("0", "5", "4", "2")
    assert f["backend"] == "cpu" and f["method"] == "hybrid"
    assert "bfs on cpu (requested)" in err


def test_bfs_undirected_reaches_the_in_arc(capsys, small_gr):
    status, out, _ = run(["bfs", small_gr, "--source", "0", "--undirected"], capsys)
    assert status == 0
    assert fields(out)["reached"] == "5"


@pytest.mark.parametrize("source", [0, 148462])
def test_bfs_seattle_against_scipy(capsys, tmp_path, source):
    path = road_file("seattle.gr.gz")
    n, src, dst, _ = read_dimacs_arcs(path)
    hops = csgraph.shortest_path(
        sp.csr_array((np.ones(src.size), (src, dst)), shape=(n, n)),
        directed=False, unweighted=True, indices=source,
    )
    reached = np.isfinite(hops)
    table = tmp_path / "levels.tsv"  # several write chunks
    status, out, err = run(
        ["bfs", path, "--source", source, "--undirected", "--output", table], capsys
    )
    assert status == 0, err
    f = fields(out)
    assert int(f["vertices"]) == n
    assert int(f["reached"]) == int(reached.sum())
    assert int(f["depth"]) == int(hops[reached].max())
    levels = np.loadtxt(table, delimiter="\t", skiprows=1, dtype=np.int64)[:, 1]
    np.testing.assert_array_equal(levels, np.where(reached, hops, -1))


def test_bfs_trace_table(capsys, small_gr):
    status, out, _ = run(["bfs", small_gr, "--source", "0", "--trace"], capsys)
    assert status == 0
    assert "bfs from 0" in out
    rows = [line for line in out.splitlines() if line.startswith("│")]
    assert len(rows) >= int(fields(out)["depth"])
    assert any("top-down" in row or "bottom-up" in row for row in rows)


def test_bfs_options_reach_the_method(capsys, small_gr):
    cpu = ["--backend", "cpu"]
    status, out, _ = run(["bfs", small_gr, "--source", "0", "--depth-limit", "1", *cpu], capsys)
    assert status == 0
    assert fields(out)["reached"] == "3"  # the source and its two out-neighbours
    status, out, _ = run(
        ["bfs", small_gr, "--source", "0", "--policy", "seed000", "--alpha", "2", "--beta", "3",
         *cpu],
        capsys,
    )
    assert status == 0 and fields(out)["reached"] == "4"


def test_bfs_option_the_method_does_not_take(capsys, small_gr):
    status, _, err = run(
        ["bfs", small_gr, "--source", "0", "--backend", "cpu", "--method", "top-down",
         "--policy", "gap"], capsys,
    )
    assert status == 2
    assert "does not take --policy" in err


def expected_levels():
    levels = csgraph.shortest_path(small_matrix(), unweighted=True, indices=0)
    return np.where(np.isfinite(levels), levels, -1).astype(np.int64)


@pytest.mark.parametrize("suffix", [".npz", ".csv", ".tsv"])
def test_bfs_output_round_trip(capsys, small_gr, tmp_path, suffix):
    out_path = tmp_path / f"result{suffix}"
    status, _, err = run(["bfs", small_gr, "--source", "0", "--output", out_path], capsys)
    assert status == 0, err
    if suffix == ".npz":
        data = np.load(out_path)
        assert int(data["source"]) == 0
        levels, parents = data["levels"], data["parents"]
        assert levels.dtype == np.int32 and parents.dtype == np.int64
    else:
        sep = "," if suffix == ".csv" else "\t"
        header = out_path.read_text().splitlines()[0]
        assert header == sep.join(["vertex", "level", "parent"])
        table = np.loadtxt(out_path, delimiter=sep, skiprows=1, dtype=np.int64)
        assert table[:, 0].tolist() == list(range(5))
        levels, parents = table[:, 1], table[:, 2]
    assert levels.tolist() == expected_levels().tolist()
    assert parents[0] == 0 and parents[4] == -1
    tree = np.flatnonzero(levels > 0)
    assert (levels[parents[tree]] == levels[tree] - 1).all()
    assert [p for p in tmp_path.iterdir() if p.name.startswith(".wavefront-partial")] == []


def test_bad_output_is_refused_before_the_run(capsys, small_gr, tmp_path):
    status, out, err = run(["bfs", small_gr, "--source", "0", "--output", tmp_path / "r.json"],
                           capsys)
    assert status == 2 and "r.json" in err and out == ""
    status, _, err = run(
        ["bfs", small_gr, "--source", "0", "--output", tmp_path / "missing" / "r.npz"], capsys
    )
    assert status == 2 and "does not exist" in err


def test_failed_run_leaves_an_existing_output_alone(capsys, small_gr, tmp_path):
    out_path = tmp_path / "result.csv"
    out_path.write_text("precious\n")
    status, _, _ = run(["bfs", small_gr, "--source", "99", "--output", out_path], capsys)
    assert status == 2
    assert out_path.read_text() == "precious\n"


@pytest.mark.parametrize("kernel", ["bfs", "sssp"])
def test_an_existing_file_is_replaced_only_with_force(capsys, small_gr, tmp_path, kernel):
    """--output and --json refuse a file that exists (exit 2, before any
    work) unless --force, and never the input graph itself."""
    for option in ("--output", "--json"):
        target = tmp_path / f"{kernel}{option[2:]}.csv"
        target.write_text("precious\n")
        status, out, err = run([kernel, small_gr, "--source", "0", option, target], capsys)
        assert status == 2 and out == "" and "already exists" in err and "--force" in err
        assert target.read_text() == "precious\n"
        status, _, _ = run([kernel, small_gr, "--source", "0", option, target, "--force"], capsys)
        assert status == 0 and target.read_text() != "precious\n"
    graph = Path(small_gr).read_text()
    status, _, err = run([kernel, small_gr, "--source", "0", "--json", small_gr, "--force"], capsys)
    assert status == 2 and "is the input file" in err and Path(small_gr).read_text() == graph
    both = tmp_path / "both.csv"
    status, _, err = run([kernel, small_gr, "--source", "0", "--output", both, "--json", both], capsys)
    assert status == 2 and "same file" in err


def test_convert_and_graph500_replace_an_existing_file_only_with_force(capsys, small_gr, tmp_path):
    out = tmp_path / "out.mtx"
    out.write_text("precious\n")
    status, _, err = run(["convert", small_gr, out], capsys)
    assert status == 2 and "already exists" in err and out.read_text() == "precious\n"
    assert run(["convert", small_gr, out, "--force"], capsys)[0] == 0
    assert out.read_text().startswith("%%MatrixMarket")
    report = tmp_path / "report.json"
    report.write_text("precious\n")
    argv = ["graph500", "--scale", "4", "--roots", "2", "--backend", "cpu", "--no-progress", "--json", report]
    status, _, err = run(argv, capsys)
    assert status == 2 and "already exists" in err and report.read_text() == "precious\n"
    status, _, err = run(["graph500", "--scale", "4", "--backend", "cpu", "--json", tmp_path], capsys)
    assert status == 2 and "is a directory" in err
    assert run([*argv, "--force"], capsys)[0] == 0
    assert json.loads(report.read_text())["SCALE"] == 4


def test_an_infinite_delta_is_refused(capsys, small_gr):
    status, _, err = run(["sssp", small_gr, "--source", "0", "--delta", "inf"], capsys)
    assert status == 2 and "positive finite" in err


def test_atomic_path_removes_the_partial_file(tmp_path):
    target = tmp_path / "out.csv"
    target.write_text("old")
    with pytest.raises(RuntimeError):
        with cli.atomic_path(target) as partial:
            partial.write_text("half")
            raise RuntimeError("interrupted")
    assert target.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.csv"]


# -- exit status and messages ------------------------------------------------
def test_missing_file_names_the_path(capsys, tmp_path):
    missing = tmp_path / "nowhere.gr"
    status, _, err = run(["bfs", missing, "--source", "0"], capsys)
    assert status == 2
    assert err.strip().endswith(f"wavefront: error: {missing}: no such file")


def test_malformed_line_names_file_and_line(capsys, tmp_path):
    bad = tmp_path / "bad.gr"
    bad.write_text("c ok\np sp 3 2\na 1 2 4\na 2 x 4\n")
    for argv in (["bfs", bad, "--source", "0"], ["info", bad], ["convert", bad, tmp_path / "o.mtx"]):
        status, _, err = run(argv, capsys)
        assert status == 2
        assert f"wavefront: error: {bad}:4:" in err
        assert "Traceback" not in err
    assert not (tmp_path / "o.mtx").exists()


def test_source_out_of_range(capsys, small_gr):
    status, _, err = run(["bfs", small_gr, "--source", "5"], capsys)
    assert status == 2 and "vertex 5 is out of range" in err and "0..4" in err
    status, _, err = run(["sssp", small_gr, "--source", "one"], capsys)
    assert status == 2 and "--source must be an integer" in err
    status, _, err = run(["sssp", small_gr, "--source", "0", "--target", "-1"], capsys)
    assert status == 2 and "out of range" in err


def test_unknown_method(capsys, small_gr):
    status, _, err = run(["sssp", small_gr, "--source", "0", "--method", "bellman"], capsys)
    assert status == 2 and "no sssp method 'bellman'" in err


@pytest.mark.skipif(cuda_status()[0], reason="CUDA works here")
def test_cuda_without_gpu_is_a_usage_error(capsys, small_gr):
    status, out, err = run(["bfs", small_gr, "--source", "0", "--backend", "cuda"], capsys)
    assert status == 2 and out == ""
    assert "wavefront: error: the CUDA backend cannot run here" in err


def test_debug_shows_the_traceback(capsys, small_gr, monkeypatch):
    monkeypatch.delenv("WAVEFRONT_DEBUG", raising=False)
    argv = ["bfs", small_gr, "--source", "9"]
    assert "Traceback" not in run(argv, capsys)[2]
    assert "Traceback" in run(["--debug", *argv], capsys)[2]
    assert "Traceback" in run([*argv, "--debug"], capsys)[2]
    monkeypatch.setenv("WAVEFRONT_DEBUG", "1")
    status, _, err = run(argv, capsys)
    assert status == 2 and "Traceback" in err and "VertexError" in err


def test_unexpected_error_exits_1(capsys, monkeypatch):
    def broken(args):
        raise RuntimeError("disk on fire")

    monkeypatch.delenv("WAVEFRONT_DEBUG", raising=False)
    monkeypatch.setattr(cli, "run_methods", broken)
    status, _, err = run(["methods"], capsys)
    assert status == 1
    assert "wavefront: error: RuntimeError: disk on fire (run with --debug" in err


def test_ctrl_c_exits_130(capsys, monkeypatch):
    def interrupted(args):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "run_methods", interrupted)
    status, _, err = run(["methods"], capsys)
    assert status == 130 and "interrupted" in err


def test_closed_stdout_does_not_traceback(small_gr):
    child = subprocess.Popen(
        [sys.executable, "-m", "wavefront", "bfs", str(small_gr), "--source", "0", "--trace"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    child.stdout.close()  # like `| head` exiting before wavefront writes
    err = child.stderr.read()
    assert child.wait(timeout=300) == 141
    assert "Traceback" not in err and "error" not in err


# -- sssp ----------------------------------------------------------------------
def test_sssp_against_scipy_with_target(capsys, small_gr):
    expected = csgraph.dijkstra(small_matrix(), indices=0)
    status, out, err = run(["sssp", small_gr, "--source", "0", "--target", "3"], capsys)
    assert status == 0, err
    f = fields(out)
    assert f["reached"] == str(int(np.isfinite(expected).sum()))
    assert float(f["max_distance"]) == expected[np.isfinite(expected)].max()
    assert float(f["distance"]) == expected[3] == 8
    assert f["path"] == "0 -> 1 -> 2 -> 3" and f["hops"] == "3"


def test_sssp_unreachable_target(capsys, small_gr):
    status, out, _ = run(["sssp", small_gr, "--source", "0", "--target", "4"], capsys)
    assert status == 0
    f = fields(out)
    assert f["distance"] == "inf" and f["path"].startswith("none")


def test_sssp_cutoff_and_delta(capsys, small_gr):
    cpu = ["--backend", "cpu"]
    status, out, _ = run(["sssp", small_gr, "--source", "0", "--cutoff", "6", *cpu], capsys)
    assert status == 0 and fields(out)["reached"] == "3"  # 0, 1 (5), 2 (6)
    status, out, _ = run(
        ["sssp", small_gr, "--source", "0", "--method", "delta-stepping", "--delta", "2", *cpu],
        capsys,
    )
    assert status == 0
    assert fields(out)["method"] == "delta-stepping" and float(fields(out)["max_distance"]) == 8


@pytest.mark.parametrize("suffix", [".npz", ".csv"])
def test_sssp_output_round_trip_is_exact(capsys, tmp_path, suffix):
    rng = np.random.default_rng(7)
    src, dst = rng.integers(0, 40, 150), rng.integers(0, 40, 150)
    weights = rng.random(150)
    graph_path = tmp_path / "g.txt"
    graph_path.write_text("".join(f"{s} {d} {w!r}\n" for s, d, w in zip(src.tolist(), dst.tolist(), weights.tolist())))
    out_path = tmp_path / f"d{suffix}"
    status, _, err = run(
        ["sssp", graph_path, "--source", int(src[0]), "--output", out_path], capsys
    )
    assert status == 0, err
    n = int(max(src.max(), dst.max())) + 1
    keep = src != dst
    expected = _min_weight_dijkstra(src[keep], dst[keep], weights[keep], n, int(src[0]))
    if suffix == ".npz":
        distances = np.load(out_path)["distances"]
    else:
        distances = np.loadtxt(out_path, delimiter=",", skiprows=1)[:, 1]
    np.testing.assert_array_equal(distances, expected)


def _min_weight_dijkstra(src, dst, w, n, source):
    """SciPy Dijkstra on the undirected graph keeping the lightest parallel edge."""
    order = np.lexsort((w, np.minimum(src, dst), np.maximum(src, dst)))
    lo, hi, w = np.minimum(src, dst)[order], np.maximum(src, dst)[order], w[order]
    first = np.ones(lo.size, bool)
    first[1:] = (lo[1:] != lo[:-1]) | (hi[1:] != hi[:-1])
    a = sp.csr_array((w[first], (lo[first], hi[first])), shape=(n, n))
    return csgraph.dijkstra(a, directed=False, indices=source)


def test_sssp_negative_weight_is_bad_input(capsys, tmp_path):
    path = tmp_path / "neg.txt"
    path.write_text("0 1 2\n1 2 -3\n")
    status, _, err = run(["sssp", path, "--source", "0"], capsys)
    assert status == 2 and "non-negative" in err


# -- info ------------------------------------------------------------------------
def test_info_json_against_scipy(capsys, tmp_path):
    # two components (a path 0-1-2 and an edge 3-4), vertex 5 isolated
    path = tmp_path / "g.txt"
    path.write_text("# wavefront edge list: n=6 undirected\n0 1 1.5\n1 2 4\n3 4 0.25\n")
    status, out, err = run(["info", path, "--json"], capsys)
    assert status == 0, err
    info = json.loads(out)
    a = sp.csr_array((np.ones(3), ([0, 1, 3], [1, 2, 4])), shape=(6, 6))
    a = a + a.T
    degree = np.diff(a.indptr)
    count, labels = csgraph.connected_components(a, directed=False)
    assert (info["vertices"], info["arcs"], info["edges"], info["directed"]) == (6, 6, 3, False)
    assert info["weighted"] and info["weight_dtype"] == "float64"
    assert (info["weight_min"], info["weight_max"]) == (0.25, 4.0)
    assert info["degree"] == {
        "min": int(degree.min()), "mean": float(degree.mean()),
        "median": float(np.median(degree)), "max": int(degree.max()),
    }
    assert info["isolated_vertices"] == 1
    assert info["components"] == {"count": count, "giant_size": int(np.bincount(labels).max())}
    assert info["memory_bytes"] > 0


def test_info_counts_nan_and_infinite_weights_and_writes_valid_json(capsys, tmp_path):
    """A NaN weight is a count of its own, not the minimum: --json stays JSON."""
    path = tmp_path / "g.txt"
    path.write_text("# wavefront edge list: n=4 undirected\n0 1 nan\n1 2 4\n2 3 inf\n")
    status, out, err = run(["info", path, "--json"], capsys)
    assert status == 0, err
    info = json.loads(out, parse_constant=lambda name: pytest.fail(f"{name} is not JSON"))
    # arcs, as the weight extremes count them: each undirected edge is stored both ways
    assert (info["weight_min"], info["weight_max"], info["weight_nonfinite"]) == (4.0, 4.0, 4)
    status, out, _ = run(["info", path], capsys)
    assert status == 0 and "weight_nonfinite: 4" in out


def test_plot_dpi_is_bounded(capsys, tmp_path):
    status, _, err = run(["plot", tmp_path / "r.json", "--dpi", "100000"], capsys)
    assert status == 2 and "dots per inch" in err


def test_info_directed_has_weak_and_strong_components(capsys, small_gr):
    status, out, _ = run(["info", small_gr, "--json"], capsys)
    assert status == 0
    info = json.loads(out)
    a = small_matrix()
    weak = csgraph.connected_components(a, directed=True, connection="weak")[0]
    strong = csgraph.connected_components(a, directed=True, connection="strong")[0]
    assert info["weak_components"]["count"] == weak == 1
    assert info["strong_components"]["count"] == strong == 5
    assert info["out_degree"]["max"] == 2 and info["in_degree"]["max"] == 2
    assert info["weight_dtype"] == "int32"


def test_info_text(capsys, small_gr):
    status, out, _ = run(["info", small_gr], capsys)
    assert status == 0
    f = fields(out)
    assert f["vertices"] == "5" and f["arcs"] == "5" and f["directed"] == "yes"
    assert f["memory"].endswith("bytes)")


# -- convert ---------------------------------------------------------------------
@pytest.mark.parametrize("name", ["small.mtx", "small.txt.gz", "small.wfb", "small.csv"])
def test_convert_round_trip(capsys, small_gr, tmp_path, name):
    from wavefront.io import read_graph

    middle, back = tmp_path / name, tmp_path / "back.gr"
    assert run(["convert", small_gr, middle], capsys)[0] == 0
    assert run(["convert", middle, back, "--directed"], capsys)[0] == 0
    original, round_trip = read_graph(small_gr), read_graph(back)
    assert original.n == round_trip.n == 5
    for attr in ("indptr", "indices", "weights"):
        np.testing.assert_array_equal(getattr(original, attr), getattr(round_trip, attr))


def test_convert_formats_by_flag_and_undirected(capsys, small_gr, tmp_path):
    out_path = tmp_path / "out.data"
    status, _, err = run(["convert", small_gr, out_path, "--to", "mtx", "--undirected"], capsys)
    assert status == 0, err
    status, out, _ = run(["info", out_path, "--format", "mtx", "--json"], capsys)
    assert status == 0
    info = json.loads(out)
    assert not info["directed"] and info["edges"] == 5


def test_convert_refuses_unknown_suffix_and_same_file(capsys, small_gr, tmp_path):
    status, _, err = run(["convert", small_gr, tmp_path / "out.xyz"], capsys)
    assert status == 2 and "out.xyz" in err
    assert not (tmp_path / "out.xyz").exists()
    status, _, err = run(["convert", small_gr, small_gr], capsys)
    assert status == 2 and "same file" in err
    assert small_gr.read_text() == SMALL_GR
    status, _, err = run(["convert", tmp_path / "none.gr", tmp_path / "o.mtx"], capsys)
    assert status == 2 and "none.gr: no such file" in err


# -- graph500 --------------------------------------------------------------------
def test_graph500_tiny(capsys):
    status, out, err = run(["graph500", "--scale", "8", "--roots", "4", "--no-progress"], capsys)
    assert status == 0, err
    assert out.startswith("SCALE:")
    f = {k.strip(): v.strip() for k, _, v in (l.partition(":") for l in out.splitlines())}
    assert f["SCALE"] == "8" and f["NBFS"] == "4"


def test_graph500_bad_scale_is_a_usage_error(capsys):
    assert run(["graph500", "--scale", "0"], capsys)[0] == 2
    assert run(["graph500"], capsys)[0] == 2


def test_python_m_runs_a_search(small_gr, tmp_path):
    done = subprocess_cli("bfs", small_gr, "--source", "0", "--output", tmp_path / "r.npz",
                          env={**os.environ, "WAVEFRONT_DEBUG": ""})
    assert done.returncode == 0, done.stderr
    assert fields(done.stdout)["reached"] == "4"
    assert np.load(tmp_path / "r.npz")["levels"].tolist() == expected_levels().tolist()


# -- GPU -------------------------------------------------------------------------
@pytest.mark.gpu
@pytest.mark.parametrize("kernel", ["bfs", "sssp"])
def test_cuda_backend_matches_cpu(capsys, tmp_path, kernel):
    path = road_file("seattle.gr.gz")
    results = {}
    for backend in ("cpu", "auto"):
        out_path = tmp_path / f"{backend}.npz"
        status, out, err = run(
            [kernel, path, "--source", "4242", "--undirected", "--backend", backend,
             "--output", out_path], capsys,
        )
        assert status == 0, err
        assert fields(out)["backend"] == ("cpu" if backend == "cpu" else "cuda")
        results[backend] = np.load(out_path)
    assert f"{kernel} on cuda (auto: CUDA device" in err
    values = "levels" if kernel == "bfs" else "distances"
    np.testing.assert_array_equal(results["cpu"][values], results["auto"][values])
    assert (results["cpu"]["parents"] >= 0).sum() == (results["auto"]["parents"] >= 0).sum()


# -- the command line speaks in flags, and times the search alone ------------------
def test_messages_name_flags_not_parameters():
    assert cli.command_line_message("... or use backend='cpu'") == "... or use --backend cpu"
    assert "--format" in cli.command_line_message("unknown file suffix '.x'; or pass format= one of a, b")


@pytest.mark.skipif(cuda_status()[0], reason="needs a machine where CUDA is unavailable")
def test_unavailable_cuda_says_backend_flag(small_gr, capsys):
    status, out, err = run(["bfs", small_gr, "--source", 0, "--backend", "cuda"], capsys)
    assert status == 2 and out == ""
    assert "--backend cpu" in err and "backend='cpu'" not in err


def test_unknown_suffix_says_format_flag(tmp_path, capsys):
    path = tmp_path / "graph.xyz"
    path.write_text(SMALL_GR)
    status, out, err = run(["info", path], capsys)
    assert status == 2 and "--format" in err and "format=" not in err and str(path) in err


@pytest.mark.parametrize("kernel", ["bfs", "sssp"])
def test_reported_seconds_exclude_one_time_setup(kernel, small_gr):
    """A fresh process: numba's loading is setup, not search time."""
    done = subprocess_cli(kernel, small_gr, "--source", 0, "--backend", "cpu")
    assert done.returncode == 0, done.stderr
    summary = fields(done.stdout)
    assert float(summary["setup_seconds"]) > float(summary["seconds"])
    assert float(summary["seconds"]) < 0.05


# -- outputs: checked before the work, and named in every write error --------------
def test_unwritable_output_folder_fails_before_the_search(small_gr, tmp_path, capsys):
    locked = tmp_path / "locked"
    locked.mkdir()
    target = locked / "out.csv"
    for argv in (["sssp", small_gr, "--source", 0, "--output", target],
                 ["convert", small_gr, locked / "x.gr"]):
        with pytest.MonkeyPatch.context() as m:
            def refuse(*args, **kwargs):
                raise PermissionError(13, "Permission denied")

            m.setattr("tempfile.TemporaryFile", refuse)
            status, out, err = run(argv, capsys)
        assert status == 2 and out == "", err
        assert str(argv[-1]) in err and "cannot write in the folder" in err and ".tmp" not in err


def test_a_write_failing_part_way_names_the_users_path(small_gr, tmp_path, capsys, monkeypatch):
    import wavefront.io

    def disk_full(graph, path, format=None):
        raise OSError(28, "No space left on device", str(tmp_path / ".x.gr.abc123.tmp"))

    monkeypatch.setattr(wavefront.io, "write_graph", disk_full)
    target = tmp_path / "x.gr"
    status, out, err = run(["convert", small_gr, target], capsys)
    assert status == 1
    assert f"could not write {target}" in err and "No space left" in err and ".tmp" not in err
    assert not target.exists()


def test_a_format_that_cannot_hold_the_graph_is_bad_input(tmp_path, capsys):
    """Fractional weights into DIMACS (integer lengths): the user's choice of
    format, so a typed error and exit 2, and nothing written."""
    source = tmp_path / "frac.el"
    source.write_text("0 1 0.5\n1 2 1.25\n")
    target = tmp_path / "frac.gr"
    status, out, err = run(["convert", source, target], capsys)
    assert status == 2, err
    assert "integer arc lengths" in err and "ValueError" not in err
    assert not target.exists()
    from wavefront.errors import OutputFormatError

    assert issubclass(OutputFormatError, ValueError)


@pytest.mark.parametrize("compress", [False, True])
def test_weight_errors_name_the_file_and_line(tmp_path, capsys, compress):
    text = "c a negative arc on line 4\np sp 3 2\na 1 2 1\na 2 3 -4\n"
    path = tmp_path / ("neg.gr.gz" if compress else "neg.gr")
    path.write_bytes(gzip.compress(text.encode()) if compress else text.encode())
    status, out, err = run(["sssp", path, "--source", 0], capsys)
    assert status == 2 and out == ""
    assert f"{path}:4:" in err and "'a 2 3 -4'" in err and "arc 1" not in err


def test_weight_errors_name_the_callers_edge_and_position():
    weights = np.array([1.0, 2.0, np.nan, -4.0])
    g = wavefront.from_edges([0, 2, 5, 1], [1, 3, 5, 2], weights=weights)  # the NaN is a self-loop: dropped
    with pytest.raises(wavefront.WeightError, match=r"input edge \(1, 2\) at position 3 has weight -4.0"):
        wavefront.sssp(g, 0)
    g = wavefront.Graph.from_edges([0, 1], [1, 2], weights=np.array([1.0, np.inf]), relabel="degree")
    with pytest.raises(wavefront.WeightError, match=r"finite: input edge \(1, 2\) at position 1"):
        wavefront.sssp(g, 0)


def test_sssp_hierarchy_file_is_built_once_then_read(tmp_path, capsys):
    """``--hierarchy FILE``: the first run builds and writes it, the next reads
    it (same distances), another graph's file is refused with exit 2, and a
    method that would not use it is refused before any work."""
    graph = wavefront.road_like(800, seed=2)
    road = tmp_path / "road.gr"
    wavefront.write_graph(graph, road, progress=False)
    saved = tmp_path / "road.hierarchy"
    first = tmp_path / "first.npz"
    status, out, err = run(["sssp", road, "--source", 3, "--backend", "cpu", "--hierarchy", saved,
                            "--output", first], capsys)
    assert status == 0, err
    assert "built the hierarchy" in err and saved.exists()
    assert fields(out)["method"] == "hierarchy"
    again = tmp_path / "again.npz"
    status, out, err = run(["sssp", road, "--source", 3, "--backend", "cpu", "--hierarchy", saved,
                            "--output", again], capsys)
    assert status == 0, err
    assert "read the hierarchy" in err and "built" not in err
    with np.load(first) as a, np.load(again) as b:
        np.testing.assert_array_equal(a["distances"], b["distances"])
        expected = csgraph.dijkstra(sp.csr_array((graph.weights.astype(float), graph.indices, graph.indptr)),
                                    indices=3)
        np.testing.assert_array_equal(a["distances"], expected)
    other = tmp_path / "other.gr"
    wavefront.write_graph(wavefront.road_like(800, seed=9), other, progress=False)
    status, out, err = run(["sssp", other, "--source", 3, "--backend", "cpu", "--hierarchy", saved], capsys)
    assert status == 2 and "saved for another graph" in err and str(saved) in err
    status, out, err = run(["sssp", road, "--source", 3, "--method", "dijkstra", "--hierarchy", saved], capsys)
    assert status == 2 and "--hierarchy is for --method auto or hierarchy" in err


def test_hierarchy_on_float_weights_is_bad_input(tmp_path, capsys):
    """A contraction hierarchy needs integer weights: `--method hierarchy` and
    `--hierarchy FILE` both exit 2 with the method's message, writing nothing."""
    road = tmp_path / "float.gr"
    road.write_text("p sp 3 2\na 1 2 0.5\na 2 3 1.5\n")
    for extra in (["--method", "hierarchy"], ["--hierarchy", tmp_path / "float.ch"]):
        status, _, err = run(["sssp", road, "--source", 0, "--backend", "cpu", *extra], capsys)
        assert status == 2 and "needs integer weights" in err, err
    assert not (tmp_path / "float.ch").exists()
