"""Graph500 driver: statistics, the reference output block, roots, energy
bookkeeping, an end-to-end CPU run and the command line's exit codes."""
from __future__ import annotations

import io
import json
import math
import sys
import time
import types

import numpy as np
import pytest

import wavefront as wf
from wavefront import registry
from wavefront.cli import main
from wavefront.errors import BackendUnavailableError, UnknownMethodError
from wavefront.graph500 import choose_roots, run_graph500, statistics, teps_statistics
from wavefront.graph500.driver import resolve_methods
from wavefront.graph500.energy import EnergyMeasurement, EnergyMeter, integrate, open_meter
from wavefront.graph500.report import (
    INVALID_RUN,
    EnergyRun,
    Graph500Report,
    KernelRun,
    ValidationFailure,
)

# -- statistics -------------------------------------------------------------------


@pytest.mark.parametrize(
    "values, q1, median, q3",
    [
        ([4, 1, 3, 2], 1.5, 2.5, 3.5),  # n = 4: quartiles average two order statistics
        ([5, 4, 3, 2, 1], 2.0, 3.0, 4.0),  # n = 5: both indices meet
        ([6, 1, 5, 2, 4, 3], 2.0, 3.5, 5.0),
        ([7, 1, 6, 2, 5, 3, 4], 2.0, 4.0, 6.0),
        ([1, 2, 3, 4, 5, 6, 7, 8], 2.5, 4.5, 6.5),
    ],
)
def test_quartiles_follow_the_reference(values, q1, median, q3):
    s = statistics(values)
    assert (s.firstquartile, s.median, s.thirdquartile) == (q1, median, q3)
    assert (s.min, s.max) == (min(values), max(values))


def test_mean_and_sample_stddev():
    s = statistics([4, 1, 3, 2])
    assert s.mean == 2.5
    assert s.stddev == pytest.approx(math.sqrt(5 / 3), rel=1e-15)  # divides by n - 1


def test_single_value_gives_nan_spread_like_the_reference():
    s = statistics([2.0])
    assert (s.min, s.median, s.max, s.mean) == (2.0, 2.0, 2.0, 2.0)
    assert math.isnan(s.stddev)
    t = teps_statistics([2.0], [10])
    assert t.harmonic_mean == 5.0 and math.isnan(t.harmonic_stddev)


def test_teps_statistics_by_hand():
    # seconds per edge 0.1, 0.2, 0.4: mean 7/30, sample variance 7/300
    t = teps_statistics([1.0, 2.0, 4.0], [10, 10, 10])
    assert t.min == pytest.approx(2.5)  # 1 / max(t/nedge)
    assert t.max == pytest.approx(10.0)  # 1 / min(t/nedge)
    assert t.firstquartile == pytest.approx(2.5)  # 1 / thirdquartile(t/nedge)
    assert t.median == pytest.approx(5.0)
    assert t.thirdquartile == pytest.approx(10.0)  # 1 / firstquartile(t/nedge)
    assert t.harmonic_mean == pytest.approx(30 / 7)
    assert t.harmonic_stddev == pytest.approx(math.sqrt(7 / 300) / ((49 / 900) * math.sqrt(2)))


def test_harmonic_stddev_matches_the_specs_norris_form():
    """The spec's Octave form: sqrt(sum((1/TEPS - 1/hmean)**2)) / (N-1) * hmean**2."""
    rng = np.random.default_rng(3)
    times, nedges = rng.uniform(0.1, 1.0, 64), rng.integers(1000, 5000, 64)
    t = teps_statistics(times, nedges)
    inverse = times / nedges
    norris = np.sqrt(np.sum((inverse - 1 / t.harmonic_mean) ** 2)) / 63 * t.harmonic_mean**2
    assert t.harmonic_stddev == pytest.approx(norris, rel=1e-12)
    assert t.harmonic_mean == pytest.approx(1 / inverse.mean(), rel=1e-12)


# -- the reference block ------------------------------------------------------------
STATS = ["min", "firstquartile", "median", "thirdquartile", "max", "mean", "stddev"]
TEPS = ["min", "firstquartile", "median", "thirdquartile", "max", "harmonic_mean", "harmonic_stddev"]
REFERENCE_NAMES = (
    ["SCALE", "edgefactor", "NBFS", "graph_generation", "num_mpi_processes", "construction_time"]
    + [f"bfs  {s}_time" for s in STATS]
    + [f"sssp {s}_time" for s in STATS]
    + [f"{s}_nedge" for s in STATS]
    + [f"bfs  {s}_TEPS" for s in TEPS]
    + [f"sssp {s}_TEPS" for s in TEPS]
    + [f"bfs  {s}_validate" for s in STATS]
    + [f"sssp {s}_validate" for s in STATS]
)


def synthetic_report(kernels=("bfs", "sssp"), energy=False) -> Graph500Report:
    rng = np.random.default_rng(0)
    runs = {}
    for k in kernels:
        times = list(rng.uniform(1e-3, 2e-3, 8))
        nedges = [123456789] * 8
        run = KernelRun(
            kernel=k, method="hybrid" if k == "bfs" else "auto", roots=list(range(8)),
            times=times, nedges=nedges, validate_times=list(rng.uniform(0.1, 0.2, 8)),
            depths=[6] * 8, reached=[1000] * 8,
        )
        if energy:
            m = EnergyMeasurement(seconds=2.0, joules=600.0, source="energy counter", samples=400, peak_watts=320.0)
            run.energy = EnergyRun(m, times, nedges)
        runs[k] = run
    return Graph500Report(
        scale=10, edgefactor=16, seed=1, roots=list(range(8)), graph_generation=0.25,
        construction_time=0.125, backend="cpu", backend_reason="requested", device="test",
        version=wf.__version__, kernels=runs,
    )


def parse(lines):
    return [line.split(":")[0] for line in lines]


def test_block_names_order_and_spacing():
    lines = synthetic_report().lines()
    block = lines[: len(REFERENCE_NAMES)]
    assert parse(block) == REFERENCE_NAMES
    for line in block:
        assert line[31] == " " and line[32] != " ", repr(line)  # values start in column 33
    harmonic = [l for l in block if "harmonic_mean_TEPS" in l]
    assert [l[24:32] for l in harmonic] == ["     !  ", "     !  "]
    assert block[0] == "SCALE:                          10"
    assert block[4] == "num_mpi_processes:              1"
    assert block[-1].startswith("sssp stddev_validate:           ")
    assert [l for l in block if l.startswith("min_nedge")] == ["min_nedge:                      123456789"]


def test_values_use_the_references_c_formats():
    report = synthetic_report()
    values = {line[:32].rstrip().rstrip(":").replace(":     !", ""): line[32:] for line in report.lines()}
    bfs = report.kernels["bfs"]
    assert values["graph_generation"] == "%g" % 0.25
    assert values["bfs  mean_time"] == "%g" % bfs.time_statistics().mean
    assert values["max_nedge"] == "%.11g" % 123456789
    teps = bfs.teps_statistics()
    harmonic = [l for l in report.lines() if l.startswith("bfs  harmonic_mean_TEPS")][0]
    assert harmonic == "bfs  harmonic_mean_TEPS:     !  " + "%g" % teps.harmonic_mean
    assert "%g" % 1e-05 == f"{1e-05:g}" == "1e-05"  # Python's g matches C's %g


def test_only_the_kernels_run_are_printed_and_extras_come_after():
    lines = synthetic_report(kernels=("bfs",), energy=True).lines()
    names = parse(lines)
    expected = [n for n in REFERENCE_NAMES if not n.startswith("sssp ")]
    assert names[: len(expected)] == expected
    extras = names[len(expected):]
    assert {"backend", "device", "seed", "wavefront_version", "bfs  method", "bfs  MTEPS_per_W"} <= set(extras)
    mteps_w = float([l for l in lines if l.startswith("bfs  MTEPS_per_W")][0][32:])
    run = synthetic_report(kernels=("bfs",), energy=True).kernels["bfs"]
    assert mteps_w == pytest.approx(run.teps_statistics().harmonic_mean / 300.0 / 1e6, rel=1e-5)


def test_invalid_run_prints_only_the_reference_notice():
    report = synthetic_report()
    report.failure = ValidationFailure("bfs", 3, 17, "tree-cycle", "[tree-cycle] ...")
    assert report.lines() == [INVALID_RUN]
    assert "bfs search 4 (root 17)" in report.failure.describe()


# -- roots --------------------------------------------------------------------------
def test_roots_are_unique_eligible_and_deterministic():
    rng = np.random.default_rng(1)
    n = 1000
    src, dst = rng.integers(0, 600, 3000), rng.integers(0, 600, 3000)
    src = np.concatenate([src, [700, 700, 800]])  # 700 and 800 only have self-loops
    dst = np.concatenate([dst, [700, 700, 800]])
    roots = choose_roots(src, dst, n, 64, seed=5)
    degree = np.bincount(src[src != dst], minlength=n) + np.bincount(dst[src != dst], minlength=n)
    assert roots.dtype == np.int64 and len(roots) == 64
    assert len(set(roots.tolist())) == 64
    assert np.all(degree[roots] >= 1)
    assert np.array_equal(roots, choose_roots(src, dst, n, 64, seed=5))
    assert not np.array_equal(roots, choose_roots(src, dst, n, 64, seed=6))


def test_fewer_roots_when_few_vertices_are_eligible():
    src = np.array([0, 2, 5, 7, 7])
    dst = np.array([2, 0, 6, 7, 7])  # 7: self-loops only; 1, 3, 4: untouched
    roots = choose_roots(src, dst, 10, 64, seed=1)
    assert sorted(roots.tolist()) == [0, 2, 5, 6]


@pytest.mark.parametrize("count, seed, message", [
    (2, -1, "seed must lie in"),  # was NumPy's "expected non-negative integer"
    (2, 2**64, "seed must lie in"),  # was taken, though the generator refuses it
    (2, 1.5, "seed must be an integer"),  # was truncated to 1
    (2.5, 1, "number of roots must be an integer"),  # was truncated to 2
    (0, 1, "number of roots must be an integer of at least 1"),
])
def test_roots_take_the_generators_seeds_and_a_whole_count(count, seed, message):
    with pytest.raises(ValueError, match=message):
        choose_roots(np.array([0, 1]), np.array([1, 2]), 4, count, seed=seed)


@pytest.mark.parametrize("distributed", [False, True])
def test_a_graph_of_self_loops_alone_has_no_root_and_exits_2(distributed, capsys):
    """SCALE 1, edgefactor 1, seed 0: both tuples are (0, 0). Was an IndexError, exit 1."""
    argv = ["graph500", "--scale", "1", "--edgefactor", "1", "--seed", "0", "--backend", "cpu", "--no-progress"]
    assert main(argv + (["--distributed"] if distributed else [])) == 2
    err = capsys.readouterr().err
    assert "has no edges but self-loops, so no vertex to search from" in err and "IndexError" not in err


# -- energy bookkeeping (NVML faked) --------------------------------------------------
def test_trapezoid_integration():
    assert integrate([(0.0, 100.0), (1.0, 200.0), (3.0, 200.0)]) == pytest.approx(150 + 400)


def fake_nvml(counter: bool):
    state = {"mj": 1_000_000}

    def energy(handle):
        if not counter:
            raise RuntimeError("not supported")
        state["mj"] += 50_000  # 50 J between reads
        return state["mj"]

    return types.SimpleNamespace(
        nvmlDeviceGetTotalEnergyConsumption=energy,
        nvmlDeviceGetPowerUsage=lambda handle: 250_000,  # mW
        nvmlShutdown=lambda: None,
    )


@pytest.mark.parametrize("counter", [True, False])
def test_energy_meter_counter_and_sampling(counter):
    meter = EnergyMeter(fake_nvml(counter), handle=None, interval=0.001)
    with meter:
        time.sleep(0.05)
    m = meter.measurement
    assert m.samples >= 2 and m.peak_watts == 250.0
    if counter:
        assert (m.source, m.joules) == ("energy counter", 50.0)
    else:
        assert m.source == "power sampling"
        assert m.average_watts == pytest.approx(250.0, rel=0.2)


def test_energy_without_nvml_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "pynvml", None)
    with pytest.raises(BackendUnavailableError, match="nvidia-ml-py"):
        open_meter()


def test_energy_on_the_cpu_backend_is_refused():
    with pytest.raises(BackendUnavailableError, match="GPU power"):
        run_graph500(6, roots=2, kernels=("bfs",), backend="cpu", energy=True, progress=False,
                     stream=io.StringIO(), log=io.StringIO())


# -- methods ----------------------------------------------------------------------------
def test_method_defaults_and_choices():
    assert resolve_methods(("bfs", "sssp"), "cpu") == {"bfs": "hybrid", "sssp": "auto"}
    assert resolve_methods(("bfs", "sssp"), "cpu", {"bfs": "top-down"}) == {"bfs": "top-down", "sssp": "auto"}
    assert resolve_methods(("bfs",), "cpu", "bottom-up") == {"bfs": "bottom-up"}
    with pytest.raises(UnknownMethodError, match="bfs=|sssp="):
        resolve_methods(("bfs", "sssp"), "cpu", "top-down")  # no SSSP method of that name
    with pytest.raises(ValueError, match="not run"):
        resolve_methods(("bfs",), "cpu", {"sssp": "auto"})


def test_unknown_kernels_are_refused():
    with pytest.raises(ValueError, match="kernels must be among"):
        run_graph500(6, kernels=("bfs", "pagerank"), backend="cpu", stream=io.StringIO(), log=io.StringIO())


# -- end to end on the CPU ------------------------------------------------------------
def cpu_kernels():
    """The kernels whose CPU methods exist in this checkout."""
    import importlib.util

    return tuple(k for k in ("bfs", "sssp") if importlib.util.find_spec(f"wavefront.backends.cpu.{k}"))


def test_end_to_end_cpu_run_validates_and_writes_json(tmp_path):
    kernels = cpu_kernels()
    out, log = io.StringIO(), io.StringIO()
    path = tmp_path / "run.json"
    report = run_graph500(9, roots=6, kernels=kernels, backend="cpu", seed=3, json_path=path,
                          progress=False, stream=out, log=log)
    assert report.valid
    lines = out.getvalue().splitlines()
    expected = [n for n in REFERENCE_NAMES if n[:5].strip() in kernels or n[:5].strip() not in ("bfs", "sssp")]
    assert parse(lines)[: len(expected)] == expected
    fields = {line.split(":")[0]: line[32:].strip() for line in lines}
    assert fields["SCALE"] == "9" and fields["NBFS"] == "6" and fields["edgefactor"] == "16"
    assert "backend cpu (requested)" in log.getvalue()
    data = json.loads(path.read_text())
    assert data["valid"] and data["SCALE"] == 9 and len(data["roots"]) == 6
    graph = wf.kronecker(9, seed=3)
    for kernel in kernels:
        k = data["kernels"][kernel]
        assert len(k["searches"]) == 6 and k["trace"]
        for s in k["searches"]:
            assert s["TEPS"] == pytest.approx(s["nedge"] / s["seconds"])
            # the driver's count is the builder's count for that component
            reached = wf.bfs(graph, s["root"]).reached
            assert s["nedge"] == graph.traversed_edges(reached)
        assert k["TEPS"]["harmonic_mean"] == pytest.approx(report.kernels[kernel].teps_statistics().harmonic_mean)


def broken_bfs(graph, source, **options):
    """A BFS whose tree hangs every reached vertex under the root directly."""
    result = wf.bfs(graph, source, method="top-down")
    parents = np.where(result.parents >= 0, source, -1).astype(np.int64)
    return wf.BFSResult(source, parents, levels=None, method="broken")


def test_a_failed_validation_stops_the_run_and_exits_1(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(registry, "_extra", {})
    wf.register("bfs", "cpu", "broken", broken_bfs)
    out = io.StringIO()
    report = run_graph500(8, roots=4, kernels=("bfs",), backend="cpu", method="broken",
                          progress=False, stream=out, log=io.StringIO())
    assert not report.valid
    assert report.failure.rule in ("tree-edge-missing", "edge-level")
    assert out.getvalue() == INVALID_RUN + "\n"
    path = tmp_path / "failed.json"
    status = main(["graph500", "--scale", "8", "--roots", "2", "--kernels", "bfs", "--backend", "cpu",
                   "--method", "broken", "--no-progress", "--json", str(path)])
    captured = capsys.readouterr()
    assert status == 1
    assert "validation failed: bfs search 1" in captured.err
    assert json.loads(path.read_text())["failure"]["rule"] == report.failure.rule


def test_cli_run_succeeds(capsys):
    status = main(["graph500", "--scale", "7", "--roots", "3", "--kernels", "bfs", "--backend", "cpu",
                   "--no-progress"])
    captured = capsys.readouterr()
    assert status == 0
    assert captured.out.startswith("SCALE:                          7\n")
    assert "bfs  harmonic_mean_TEPS:     !  " in captured.out
    assert "harmonic" not in captured.err  # stdout holds the block, stderr the notes


def test_delta_reaches_every_sssp_search(capsys, tmp_path, monkeypatch):
    """--delta runs delta-stepping with that bucket width (the report says so),
    in one process and in the distributed driver."""
    import wavefront.graph500.driver as driver
    from wavefront.graph500.driver import with_delta

    assert with_delta(("bfs", "sssp"), None, None) == (None, {})
    assert with_delta(("bfs", "sssp"), "auto", 2) == ({"bfs": "auto", "sssp": "delta-stepping"},
                                                     {"sssp": {"delta": 2.0}})
    assert with_delta(("sssp",), {"sssp": "delta-stepping"}, 0.5)[1] == {"sssp": {"delta": 0.5}}
    for bad in (0, -1.0, math.nan, math.inf, True):
        with pytest.raises(ValueError, match="positive finite"):
            with_delta(("sssp",), None, bad)
    with pytest.raises(ValueError, match="takes none"):
        with_delta(("sssp",), "dijkstra", 1.0)

    seen = []
    real = driver._searcher

    def spying(kernel):
        search = real(kernel)
        return lambda graph, root, **options: seen.append(options) or search(graph, root, **options)

    monkeypatch.setattr(driver, "_searcher", spying)
    path = tmp_path / "report.json"
    status = main(["graph500", "--scale", "8", "--roots", "3", "--kernels", "sssp", "--backend", "cpu",
                   "--delta", "0.125", "--no-progress", "--json", str(path)])
    out = capsys.readouterr().out
    assert status == 0
    assert "sssp method:                    delta-stepping(delta=0.125)" in out
    assert seen and all(o == {"method": "delta-stepping", "delta": 0.125} for o in seen)
    data = json.loads(path.read_text())
    assert data["kernels"]["sssp"]["options"] == {"delta": 0.125}

    status = main(["graph500", "--scale", "8", "--roots", "2", "--kernels", "sssp", "--backend", "cpu",
                   "--distributed", "--delta", "0.125", "--no-progress"])
    out = capsys.readouterr().out
    assert status == 0 and "2d-delta-stepping(delta=0.125)" in out


@pytest.mark.parametrize(
    "argv",
    [
        ["--scale", "0"],
        ["--scale", "x"],
        ["--scale", "8", "--kernels", "bfs,pagerank"],
        ["--scale", "8", "--roots", "0"],
        ["--scale", "8", "--method", "nonesuch", "--backend", "cpu"],
        ["--scale", "8", "--method", "pagerank=x"],
        ["--scale", "8", "--backend", "cpu", "--energy"],
        ["--scale", "8", "--json", "/nonexistent-folder/x.json"],
        ["--scale", "8", "--delta", "0"],
        ["--scale", "8", "--delta", "-1"],
        ["--scale", "8", "--delta", "nan"],
        ["--scale", "8", "--delta", "inf"],
        ["--scale", "8", "--delta", "x"],
        ["--scale", "8", "--backend", "cpu", "--kernels", "bfs", "--delta", "1"],
        ["--scale", "8", "--backend", "cpu", "--method", "sssp=dijkstra", "--delta", "1"],
        ["--scale", "8", "--distributed", "--kernels", "bfs", "--delta", "1"],
        # a method for a kernel not run: was exit 1 ("ValueError: ...") in one process, ignored distributed
        ["--scale", "8", "--backend", "cpu", "--kernels", "bfs", "--method", "sssp=dijkstra"],
        ["--scale", "8", "--backend", "cpu", "--kernels", "bfs", "--method", "sssp=auto", "--distributed"],
    ],
)
def test_bad_arguments_exit_2(argv, capsys):
    assert main(["graph500", *argv]) == 2
    assert "error" in capsys.readouterr().err


def test_a_method_for_a_kernel_not_run_names_the_flags(capsys):
    assert main(["graph500", "--scale", "8", "--kernels", "bfs", "--method", "bfs=hybrid,sssp=dijkstra"]) == 2
    err = capsys.readouterr().err
    assert "--method: sssp= names a method for a kernel not run (--kernels bfs)" in err
    assert "ValueError" not in err


# -- on the GPU -------------------------------------------------------------------------
@pytest.mark.gpu
def test_end_to_end_gpu_run_validates_on_the_gpu(tmp_path):
    kernels = tuple(k for k in ("bfs", "sssp") if registry.methods(k, "cuda"))
    if not kernels:
        pytest.skip("no CUDA methods registered yet")
    out = io.StringIO()
    report = run_graph500(12, roots=8, kernels=kernels, backend="cuda", progress=False,
                          json_path=tmp_path / "gpu.json", stream=out, log=io.StringIO())
    assert report.valid, report.failure
    assert report.backend == "cuda"
    assert parse(out.getvalue().splitlines())[0] == "SCALE"


@pytest.mark.gpu
def test_energy_meter_reads_the_gpu():
    pytest.importorskip("pynvml")
    import cupy

    meter = open_meter()
    try:
        with meter:
            a = cupy.ones(1 << 24, dtype=cupy.float32)
            deadline = time.perf_counter() + 0.3
            while time.perf_counter() < deadline:
                a = a * 1.0001
            cupy.cuda.get_current_stream().synchronize()
    finally:
        meter.close()
    m = meter.measurement
    assert m.seconds >= 0.3 and m.joules > 0
    assert 5 < m.average_watts < 2000
