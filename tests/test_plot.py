"""``wavefront plot`` and wavefront.plot: JSON records in, PNG figures out.

* end to end: ``bfs/sssp/graph500 --json`` then ``plot`` on small graphs, the
  PNGs decoded and measured;
* the plotted data is the trace: bar heights, line and point positions, the
  TEPS dots and the harmonic-mean marker read back from the figure's artists
  (a hypothesis test over random traces);
* the errors: files that are not records, records of another version, a
  figure no input supports, existing PNGs, bad output paths, no matplotlib.
"""
from __future__ import annotations

import json
import math
from dataclasses import asdict

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import wavefront as wf
from wavefront import cli, plot
from wavefront.records import (
    GRAPH500_SCHEMA,
    SCHEMA_VERSION,
    SEARCH_SCHEMA,
    ResultFileError,
    SearchTrace,
    TEPSSample,
    parse_record,
    read_record,
)
from wavefront.results import TraceRow

PIL = pytest.importorskip("PIL.Image", reason="Pillow comes with matplotlib")
pytest.importorskip("matplotlib")

DPI = 50  # small PNGs: the tests measure them, not look at them


def run(argv, capsys):
    status = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture(scope="module")
def kron_file(tmp_path_factory):
    """A weighted Graph500 Kronecker graph, SCALE 9, in wavefront's binary format."""
    path = tmp_path_factory.mktemp("graphs") / "kron9.wfb"
    wf.write_graph(wf.kronecker(9, seed=2), path, progress=False)
    return path


def png_size(path):
    with PIL.open(path) as image:
        image.verify()  # a truncated or corrupt PNG raises here
    with PIL.open(path) as image:
        pixels = np.asarray(image.convert("L"))
        return image.format, image.size, pixels


def expected_pixels(figure_name: str, dpi: int = DPI):
    width, height = plot.DRAW[figure_name](*_sample_inputs(figure_name)).get_size_inches()
    return round(width * dpi), round(height * dpi)


def _sample_inputs(name):
    if name == "teps":
        return [TEPSSample("bfs", "bfs x", "", (1.0, 2.0), {"harmonic_mean": 1.3})]
    kernel = "bfs" if name == "bfs-levels" else "sssp"
    return [SearchTrace(kernel, "x", "", (TraceRow(1, "top-down", 1, 1, 1e-3),))]


def check_png(path, figure_name):
    kind, size, pixels = png_size(path)
    assert kind == "PNG"
    if figure_name != "teps":  # the TEPS figure's height grows with its rows
        assert size == expected_pixels(figure_name)
    assert size[0] > 100 and size[1] > 100
    # drawn on: dark pixels (text, axes, data) over a white page
    assert (pixels < 128).mean() > 0.005 and (pixels > 250).mean() > 0.1


# -- end to end ------------------------------------------------------------------
def test_bfs_and_sssp_json_then_plot(kron_file, tmp_path, capsys):
    bfs_json, sssp_json = tmp_path / "bfs.json", tmp_path / "sssp.json"
    status, out, err = run(["bfs", kron_file, "--source", "3", "--backend", "cpu",
                            "--json", bfs_json], capsys)
    assert status == 0, err
    assert f"wrote {bfs_json}" in err
    status, _, err = run(["sssp", kron_file, "--source", "3", "--backend", "cpu",
                          "--method", "delta-stepping", "--json", sssp_json], capsys)
    assert status == 0, err

    record = json.loads(bfs_json.read_text())
    assert record["schema"] == SEARCH_SCHEMA and record["schema_version"] == SCHEMA_VERSION
    assert record["kernel"] == "bfs" and record["source"] == 3 and record["backend"] == "cpu"
    graph = wf.read_graph(kron_file)
    assert record["graph"]["vertices"] == graph.n and record["graph"]["arcs"] == graph.m
    again = wf.bfs(graph, 3, method=record["method"])
    assert record["reached"] == again.num_reached and record["depth"] == again.depth
    # the trace is the search's: the same levels, directions, frontiers and edges
    assert [(r["step"], r["kind"], r["frontier"], r["edges"]) for r in record["trace"]] == [
        (r.step, r.kind, r.frontier, r.edges) for r in again.trace
    ]
    assert sum(r["frontier"] for r in record["trace"]) == again.num_reached

    status, out, err = run(["plot", bfs_json, sssp_json, "--dpi", DPI], capsys)
    assert status == 0, err
    written = out.split()
    assert written == [str(tmp_path / "bfs-bfs-levels.png"), str(tmp_path / "bfs-sssp-phases.png")]
    check_png(written[0], "bfs-levels")
    check_png(written[1], "sssp-phases")


def test_graph500_json_then_plot(tmp_path, capsys):
    result = tmp_path / "g500.json"
    status, _, err = run(["graph500", "--scale", "8", "--roots", "8", "--backend", "cpu",
                          "--no-progress", "--json", result], capsys)
    assert status == 0, err
    data = json.loads(result.read_text())
    assert data["schema"] == GRAPH500_SCHEMA and data["schema_version"] == SCHEMA_VERSION
    out_dir = tmp_path / "figures"
    out_dir.mkdir()
    status, out, err = run(["plot", result, "-o", out_dir, "--dpi", DPI], capsys)
    assert status == 0, err
    names = ["bfs-levels", "sssp-phases", "teps"]
    assert out.split() == [str(out_dir / f"g500-{n}.png") for n in names]
    for name in names:
        check_png(out_dir / f"g500-{name}.png", name)
    # one figure to a file name of the user's
    single = tmp_path / "teps.png"
    status, out, err = run(["plot", result, "--figure", "teps", "-o", single, "--dpi", DPI], capsys)
    assert status == 0 and out.split() == [str(single)]
    _, size, _ = png_size(single)
    fig = plot.teps_distribution(*read_record(result).teps)
    assert size == tuple(round(v * DPI) for v in fig.get_size_inches())


def test_python_api_on_results(tmp_path):
    g = wf.kronecker(8, seed=5)
    hybrid, top_down = wf.bfs(g, 0), wf.bfs(g, 0, method="top-down")
    fig = plot.bfs_levels(hybrid, top_down, title="hybrid against top-down")
    assert fig._suptitle.get_text() == "hybrid against top-down"
    plot.save(fig, tmp_path / "levels.png", dpi=DPI)
    check_png(tmp_path / "levels.png", "bfs-levels")
    with pytest.raises(ValueError, match="sssp trace"):
        plot.bfs_levels(wf.sssp(g, 0))


# -- the plotted data is the trace ----------------------------------------------------
def by_gid(fig, gid):
    found = [a for ax in fig.axes for a in ax.get_children() if a.get_gid() == gid]
    assert found, f"no artist {gid!r}"
    return found


def bars(patches):
    """(x centres, heights) of bar patches."""
    patches = list(patches)
    return [p.get_x() + p.get_width() / 2 for p in patches], [p.get_height() for p in patches]


def bfs_figure_data(fig, trace: SearchTrace):
    """Per panel and kind: the bars drawn and the trace's values."""
    panels = ("frontier", "edges", "seconds")
    for ax, name in zip(fig.axes, panels):
        for kind in dict.fromkeys(r.kind for r in trace.rows):
            xs, heights = bars(a for a in ax.patches if a.get_gid() == f"bfs:0:{kind}")
            rows = [r for r in trace.rows if r.kind == kind]
            if name == "edges":
                rows = [r for r in rows if r.edges >= 0]
            yield name, kind, (xs, heights), ([r.step for r in rows], [getattr(r, name) for r in rows])


def test_bfs_figure_draws_the_trace():
    g = wf.kronecker(10, seed=4)
    hub = int(np.argmax(g.degree()))  # from a hub the hybrid goes bottom-up in the middle
    hybrid = SearchTrace.from_result(wf.bfs(g, hub))
    bottom_up = SearchTrace.from_result(wf.bfs(g, hub, method="bottom-up"))
    fig = plot.bfs_levels(hybrid, bottom_up)
    assert {r.kind for r in hybrid.rows} == {"top-down", "bottom-up"}
    for _name, _kind, drawn, expected in bfs_figure_data(fig, hybrid):
        assert drawn[0] == pytest.approx(expected[0]) and drawn[1] == expected[1]
    for ax, name in zip(fig.axes, ("frontier", "edges", "seconds")):
        (line,) = [a for a in ax.lines if a.get_gid() == "bfs:1"]
        assert list(line.get_xdata()) == [r.step for r in bottom_up.rows]
        assert list(line.get_ydata()) == [getattr(r, name) for r in bottom_up.rows]
    # sizes spanning decades go logarithmic; the labels say what is plotted
    assert fig.axes[0].get_yscale() == "log" and fig.axes[1].get_yscale() == "log"
    assert [ax.get_ylabel() for ax in fig.axes] == ["frontier (vertices)", "edges examined",
                                                   "time per level"]
    assert fig.axes[-1].get_xlabel() == "BFS level"
    labels = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert labels == ["hybrid (cpu): top-down", "hybrid (cpu): bottom-up", "bottom-up (cpu)"]


def test_uncounted_edges_are_left_out():
    rows = (TraceRow(1, "edge", 1, -1, 1e-5), TraceRow(2, "edge", 5, -1, 2e-5))
    fig = plot.bfs_levels(SearchTrace("bfs", "edge (cuda)", "", rows))
    edges_panel = fig.axes[1]
    assert len(edges_panel.patches) == 0
    assert any("not counted" in t.get_text() for t in edges_panel.texts)
    assert bars(fig.axes[0].patches)[1] == [1, 5]


trace_rows = st.lists(
    st.tuples(st.sampled_from(["top-down", "bottom-up", "single-block"]),
              st.integers(0, 10**9), st.integers(-1, 10**10),
              st.floats(1e-7, 10, allow_nan=False)),
    min_size=1, max_size=30,
).map(lambda rows: tuple(TraceRow(i + 1, k, f, e, s) for i, (k, f, e, s) in enumerate(rows)))


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(trace_rows)
def test_bfs_figure_draws_any_trace(rows):
    trace = SearchTrace("bfs", "m (cpu)", "", rows)
    fig = plot.bfs_levels(trace)
    for _name, _kind, drawn, expected in bfs_figure_data(fig, trace):
        assert drawn[0] == pytest.approx(expected[0]) and drawn[1] == expected[1]


def adaptive_trace():
    """A seed 001 style trace: frontier phases, a switch up to all-vertex
    phases, the list rebuild and a switch back (as the CUDA driver records it)."""
    rows, phase = [], 0
    modes = ["frontier"] * 4 + ["all"] * 5 + ["frontier"] * 3
    for i, mode in enumerate(modes):
        if i and mode == "frontier" and modes[i - 1] == "all":
            rows.append(TraceRow(phase, "switch", 90, -1, 3e-6, "rebuild NRa from Ma"))
            phase += 1
        rows.append(TraceRow(phase, mode, 10 * (i + 1) ** 2, -1, (20 + i) * 1e-6, ""))
        phase += 1
    return SearchTrace("sssp", "adaptive (cuda)", "road_like(1000)", tuple(rows))


def test_sssp_figure_draws_the_phases_and_marks_the_switches():
    trace = adaptive_trace()
    fig = plot.sssp_phases(trace)
    phases = [r for r in trace.rows if r.kind != "switch"]
    for ax, name in zip(fig.axes, ("frontier", "seconds")):
        for mode in ("frontier", "all"):
            (points,) = [a for a in ax.collections if a.get_gid() == f"sssp:0:{mode}"]
            xy = points.get_offsets()
            expected = [(x, getattr(r, name)) for x, r in enumerate(phases) if r.kind == mode]
            assert xy[:, 0].tolist() == [x for x, _ in expected]
            assert xy[:, 1].tolist() == pytest.approx([v for _, v in expected], rel=1e-12)
        # a mode switch at phases 4 (frontier -> all) and 9 (all -> frontier)
        marks = [line.get_xdata()[0] for line in ax.lines if line.get_linestyle() == ":"]
        assert marks == [4, 9]
    total = sum(r.seconds for r in trace.rows)
    assert f"{total * 1e3:.3g} ms" in fig.axes[0].get_title()
    assert "mode switch" in fig.axes[0].get_legend_handles_labels()[1]


def test_sssp_comparison_has_a_line_per_search():
    adaptive = adaptive_trace()
    phases = [r for r in adaptive.rows if r.kind != "switch"]
    conventional = SearchTrace("sssp", "bellman-ford (cuda)", "", tuple(
        TraceRow(i, "all", r.frontier, -1, 25e-6, "fixed") for i, r in enumerate(phases)))
    fig = plot.sssp_phases(conventional, adaptive)
    time_axis = fig.axes[1]
    (line,) = [a for a in time_axis.lines if a.get_gid() == "sssp:1"]
    assert list(line.get_ydata()) == [r.seconds for r in phases]
    (line,) = [a for a in time_axis.lines if a.get_gid() == "sssp:0"]
    assert line.get_color() == plot.MODE_COLOURS["all"]  # one mode: that mode's colour
    labels = time_axis.get_legend_handles_labels()[1]
    assert "adaptive (cuda): mode switch" in labels


def graph500_record(times, nedges, kernels=("bfs",)):
    """A wavefront.graph500 record as the driver writes it."""
    from wavefront.graph500.report import Graph500Report, KernelRun

    runs = {}
    for kernel in kernels:
        runs[kernel] = KernelRun(
            kernel, "m", roots=list(range(len(times))), times=list(times), nedges=list(nedges),
            validate_times=[0.1] * len(times), depths=[3] * len(times), reached=[9] * len(times),
            trace=[asdict(TraceRow(1, "top-down", 1, 5, 1e-5))],
        )
    report = Graph500Report(scale=5, edgefactor=16, seed=1, roots=list(range(len(times))),
                            graph_generation=0.1, construction_time=0.1, backend="cpu",
                            backend_reason="test", device="cpu", version="0", kernels=runs)
    return json.loads(json.dumps(report.as_dict()))


def test_teps_figure_draws_every_search_and_the_harmonic_mean():
    rng = np.random.default_rng(3)
    times = rng.uniform(1e-3, 5e-3, 64)
    nedges = rng.integers(10**5, 10**6, 64)
    record = parse_record(graph500_record(times, nedges, kernels=("bfs", "sssp")))
    fig = plot.teps_distribution(*record.teps)
    for y, kernel in enumerate(("bfs", "sssp")):
        (dots,) = by_gid(fig, f"teps:{y}")
        assert dots.get_offsets()[:, 0].tolist() == pytest.approx((nedges / times).tolist())
        (mark,) = by_gid(fig, f"teps:{y}:harmonic_mean")
        assert mark.get_offsets()[0, 0] == pytest.approx(1 / np.mean(times / nedges))
        (rect,) = by_gid(fig, f"teps:{y}:box")
        stats = record.data["kernels"][kernel]["TEPS"]
        assert rect.get_x() == pytest.approx(stats["firstquartile"])
        assert rect.get_x() + rect.get_width() == pytest.approx(stats["thirdquartile"])
    assert fig.axes[0].get_xlabel() == "traversed edges per second (TEPS)"
    assert "harmonic mean" in fig.axes[0].get_legend_handles_labels()[1]


def test_distributed_traces_become_one_row_per_level():
    data = graph500_record([1e-3, 2e-3], [1000, 1000])
    per_rank = []
    for rank in (0, 1):
        for level, direction in ((0, "top-down"), (1, "top-down"), (2, "bottom-up")):
            per_rank.append({"rank": rank, "level": level, "direction": direction, "reason": "",
                             "frontier_vertices": 3 * level, "frontier_edges": 0,
                             "examined": 10 * level + rank, "sent": 0, "received": 0,
                             "compute_seconds": 1e-4 * (rank + 1), "comm_seconds": 1e-5,
                             "wait_seconds": 0.0, "bytes_out": 0, "bytes_in": 0})
    data["kernels"]["bfs"]["trace"] = per_rank
    (trace,) = parse_record(data).traces
    assert [(r.step, r.kind, r.frontier, r.edges) for r in trace.rows] == [
        (1, "top-down", 3, 21), (2, "bottom-up", 6, 41)]
    assert trace.rows[0].seconds == pytest.approx(2e-4 + 1e-5)  # the slower rank
    # distributed SSSP phases: a "root" record, then light/heavy phases
    data = graph500_record([1e-3, 2e-3], [1000, 1000], kernels=("sssp",))
    data["kernels"]["sssp"]["trace"] = [
        {"rank": rank, "phase": phase, "kind": kind, "bucket": 0, "frontier_vertices": 4,
         "examined": 5 + rank, "compute_seconds": 1e-4, "comm_seconds": 0.0,
         "wait_seconds": 1e-5 * rank}
        for rank in (0, 1) for phase, kind in ((0, "root"), (1, "light"), (2, "heavy"))]
    (trace,) = parse_record(data).traces
    assert [(r.step, r.kind, r.edges) for r in trace.rows] == [(1, "light", 11), (2, "heavy", 11)]
    assert trace.rows[1].seconds == pytest.approx(1.1e-4)


# -- errors ---------------------------------------------------------------------------
def search_json(**changes):
    record = {"schema": SEARCH_SCHEMA, "schema_version": SCHEMA_VERSION, "kernel": "bfs",
              "graph": {"file": "g.gr"}, "source": 0, "sources": [0], "method": "hybrid",
              "backend": "cpu", "trace": [{"step": 1, "kind": "top-down", "frontier": 1,
                                           "edges": 3, "seconds": 1e-5, "reason": ""}]}
    record.update(changes)
    return record


@pytest.mark.parametrize("content, message", [
    ("not json at all", "not valid JSON (line 1, column 1"),
    ("[1, 2]", "the top level must be a JSON object, got an array"),
    ('{"SCALE": 9}', 'no "schema" key'),
    (json.dumps(search_json(schema="someone.else")), "unknown schema 'someone.else'"),
    (json.dumps(search_json(schema_version=SCHEMA_VERSION + 1)), "written by a newer wavefront"),
    (json.dumps(search_json(schema_version="1")), '"schema_version" must be an integer'),
    (json.dumps(search_json(kernel="dfs")), '"kernel" must be one of'),
    (json.dumps(search_json(trace=[{"step": 1}])), "trace[0] has no kind, frontier, edges"),
    (json.dumps(search_json(trace=[{"step": 1, "kind": "top-down", "frontier": "many",
                                     "edges": 1, "seconds": 1, "reason": ""}])),
     "trace[0].frontier must be a JSON integer, got a string"),
    (json.dumps(search_json(trace=None)), '"trace" must be a JSON array, got null'),
    (json.dumps({"schema": GRAPH500_SCHEMA, "schema_version": SCHEMA_VERSION, "valid": False}),
     "the run failed validation"),
])
def test_plot_refuses_what_it_does_not_understand(tmp_path, capsys, content, message):
    path = tmp_path / "result.json"
    path.write_text(content)
    with pytest.raises(ResultFileError) as info:
        read_record(path)
    assert message in str(info.value) and str(path) in str(info.value)
    status, out, err = run(["plot", path], capsys)
    assert status == 2 and out == ""
    assert err.startswith(f"wavefront: error: {path}: ") and message in err
    assert list(tmp_path.iterdir()) == [path]  # nothing drawn


def test_missing_input_and_binary_input(tmp_path, capsys):
    status, _, err = run(["plot", tmp_path / "nope.json"], capsys)
    assert status == 2 and "nope.json: no such file" in err
    binary = tmp_path / "graph.wfb"
    binary.write_bytes(b"\xff\xfe\x00\x81" * 10)
    status, _, err = run(["plot", binary], capsys)
    assert status == 2 and "not a text file" in err


def write(tmp_path, name, record):
    path = tmp_path / name
    path.write_text(json.dumps(record))
    return path


def test_existing_pngs_are_kept_unless_forced(tmp_path, capsys):
    path = write(tmp_path, "r.json", search_json())
    target = tmp_path / "r-bfs-levels.png"
    target.write_bytes(b"the user's own file")
    status, out, err = run(["plot", path], capsys)
    assert status == 2 and out == ""
    assert f"{target} already exists; --force overwrites" in err
    assert target.read_bytes() == b"the user's own file"
    status, out, err = run(["plot", path, "--force", "--dpi", DPI], capsys)
    assert status == 0 and out.split() == [str(target)]
    check_png(target, "bfs-levels")
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".wavefront-partial")]


def test_no_png_is_written_when_any_target_exists(tmp_path, capsys):
    path = tmp_path / "g.json"
    path.write_text(json.dumps(graph500_record([1e-3, 2e-3], [100, 200], kernels=("bfs", "sssp"))))
    (tmp_path / "g-teps.png").write_bytes(b"keep")
    status, _, err = run(["plot", path], capsys)
    assert status == 2 and "g-teps.png already exists" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g-teps.png", "g.json"]


def test_output_paths_are_checked_before_drawing(tmp_path, capsys):
    path = tmp_path / "g.json"
    path.write_text(json.dumps(graph500_record([1e-3, 2e-3], [100, 200])))
    status, _, err = run(["plot", path, "-o", tmp_path / "one.png"], capsys)
    assert status == 2 and "one file name for 2 figures (bfs-levels, teps)" in err
    status, _, err = run(["plot", path, "-o", tmp_path / "missing"], capsys)
    assert status == 2 and "missing: no such folder" in err
    status, _, err = run(["plot", path, "-o", tmp_path / "missing" / "x.png", "--figure", "teps"],
                         capsys)
    assert status == 2 and "does not exist" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.json"]


def test_a_figure_no_input_supports(tmp_path, capsys):
    path = write(tmp_path, "r.json", search_json())
    status, _, err = run(["plot", path, "--figure", "teps"], capsys)
    assert status == 2 and "no input has data for the teps figure; it needs graph500 --json" in err
    empty = write(tmp_path, "empty.json", search_json(trace=[]))
    status, _, err = run(["plot", empty], capsys)
    assert status == 2 and "no trace rows" in err
    status, _, err = run(["plot", path, "--figure", "pie"], capsys)
    assert status == 2 and "invalid choice: 'pie'" in err


def test_without_matplotlib(tmp_path, capsys, monkeypatch):
    import sys

    path = write(tmp_path, "r.json", search_json())
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib raises ImportError
    status, _, err = run(["plot", path], capsys)
    assert status == 2 and "pip install 'wavefront[plot]'" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.json"]


def test_json_output_is_checked_before_the_search(kron_file, tmp_path, capsys):
    status, _, err = run(["bfs", kron_file, "--source", "0", "--backend", "cpu",
                          "--json", tmp_path / "missing" / "r.json"], capsys)
    assert status == 2 and "does not exist" in err and "read " not in err


def test_strict_json_has_no_nan(kron_file, tmp_path, capsys):
    # an isolated source: depth 0, one trace row; every number must be valid JSON
    path = tmp_path / "r.json"
    g = wf.Graph.from_edges([0], [1], n=3)
    graph_file = tmp_path / "g.wfb"
    wf.write_graph(g, graph_file, progress=False)
    status, _, err = run(["sssp", graph_file, "--source", "2", "--backend", "cpu", "--json", path],
                         capsys)
    assert status == 0, err
    text = path.read_text()
    assert "NaN" not in text and "Infinity" not in text
    record = json.loads(text)
    assert record["reached"] == 1 and record["max_distance"] == 0
    assert math.isfinite(record["seconds"])


@pytest.mark.gpu
@pytest.mark.parametrize("method", ["bellman-ford", "frontier", "adaptive"])
def test_cuda_sssp_phases_end_to_end(tmp_path, capsys, method):
    """seed 001 fig. 6 from the command line: the CUDA trace's phases and
    mode switches are what the figure draws."""
    graph_file = tmp_path / "road.wfb"
    wf.write_graph(wf.road_like(20_000, seed=1), graph_file, progress=False)
    result = tmp_path / f"{method}.json"
    status, _, err = run(["sssp", graph_file, "--source", "0", "--backend", "cuda",
                          "--method", method, "--json", result], capsys)
    assert status == 0, err
    (trace,) = read_record(result).traces
    status, out, err = run(["plot", result, "--dpi", DPI], capsys)
    assert status == 0, err
    check_png(out.split()[0], "sssp-phases")
    fig = plot.sssp_phases(trace)
    phases = [r for r in trace.rows if r.kind != "switch"]
    switches = [x for x in range(1, len(phases)) if phases[x].kind != phases[x - 1].kind]
    marks = [line.get_xdata()[0] for line in fig.axes[1].lines if line.get_linestyle() == ":"]
    assert marks == switches
    if method != "adaptive":
        assert switches == [] and {r.kind for r in phases} == {"all" if method == "bellman-ford" else "frontier"}


@pytest.mark.gpu
def test_cuda_bfs_levels_end_to_end(tmp_path, capsys):
    graph_file = tmp_path / "kron.wfb"
    wf.write_graph(wf.kronecker(14, seed=1), graph_file, progress=False)
    result = tmp_path / "hybrid.json"
    status, _, err = run(["bfs", graph_file, "--source", "1", "--backend", "cuda", "--json", result],
                         capsys)
    assert status == 0, err
    (trace,) = read_record(result).traces
    assert trace.label.endswith("(cuda)") and trace.rows
    status, out, err = run(["plot", result, "--dpi", DPI], capsys)
    assert status == 0, err
    check_png(out.split()[0], "bfs-levels")
    fig = plot.bfs_levels(trace)
    for _name, _kind, drawn, expected in bfs_figure_data(fig, trace):
        assert drawn[0] == pytest.approx(expected[0]) and drawn[1] == expected[1]


def test_title_and_figure_choice(tmp_path, capsys, monkeypatch):
    path = tmp_path / "g.json"
    path.write_text(json.dumps(graph500_record([1e-3, 2e-3], [100, 200], kernels=("bfs", "sssp"))))
    drawn = []

    def save(fig, target, dpi):
        drawn.append((fig._suptitle.get_text(), target.name.endswith("-g-teps.png"), dpi))
        target.write_bytes(b"drawn")

    monkeypatch.setattr(plot, "save", save)
    status, out, err = run(["plot", path, "--figure", "teps", "--figure", "teps",
                            "--title", "my run", "--dpi", "30"], capsys)
    assert status == 0, err
    assert drawn == [("my run", True, 30)] and out.split() == [str(tmp_path / "g-teps.png")]
    assert (tmp_path / "g-teps.png").read_bytes() == b"drawn"
