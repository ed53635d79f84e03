"""CPU+GPU cooperation on a GPU block's bottom-up levels (``--cpu-share``, seed 000 §3.3).

Without a GPU: the flag's checks, the share's range split, ``auto``'s ratio
and decision on given rates, and the merge of a split bottom-up step (two
partial CPU steps, merged as the GPU search merges them) against one full
CPU bottom-up step on random blocks. With a GPU (``gpu`` marker): levels
identical to the single-process search for shares 0, 0.25, 0.5 and auto in
a world of one, parents valid, and share 0 making no host copies.
"""
from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import wavefront
import wavefront.distributed as wd
from wavefront.backends.cpu import _bfs_steps as steps
from wavefront.cli import main
from wavefront.distributed.cooperation import (
    ROW_ALIGN,
    HostHalf,
    RateMeter,
    ShareState,
    decide,
    merge_halves,
    ratio_share,
    split_rows,
)
from wavefront.distributed.grid import ProcessGrid
from wavefront.distributed.transport import SelfTransport
from wavefront.distributed.tuning import DistributedTuning, check_cpu_share
from wavefront.graph500.cli import _cpu_share
from wavefront.validate import validate_bfs

WORKERS = 2


# -- the flag and the tuning field --------------------------------------------------------
@pytest.mark.parametrize("text, value", [("auto", "auto"), ("AUTO", "auto"), ("0", 0.0), ("0.25", 0.25),
                                         (" 0.5 ", 0.5), ("1e-1", 0.1), ("0.999", 0.999)])
def test_cpu_share_values(text, value):
    assert _cpu_share(text) == value
    assert DistributedTuning(cpu_share=text).cpu_share == value


@pytest.mark.parametrize("text", ["1", "1.0", "1.5", "-0.25", "nan", "inf", "-inf", "half", "", "0.2.5"])
def test_cpu_share_outside_0_1_or_not_a_number_is_refused(text):
    with pytest.raises(ValueError, match=r"CPU share must"):
        check_cpu_share(text)
    with pytest.raises(ValueError, match=r"CPU share must"):
        DistributedTuning(cpu_share=text)


def test_cpu_share_field_checks_types_and_probe():
    assert DistributedTuning(cpu_share=np.float32(0.25)).cpu_share == 0.25
    with pytest.raises(TypeError, match="CPU share"):
        DistributedTuning(cpu_share=True)
    with pytest.raises(TypeError, match="CPU share"):
        DistributedTuning(cpu_share=[0.25])
    for probe in (0, 1, -0.5):
        with pytest.raises(ValueError, match="cpu_share_probe"):
            DistributedTuning(cpu_share="auto", cpu_share_probe=probe)
    with pytest.raises(ValueError, match="cpu_share_min"):
        DistributedTuning(cpu_share_min=1)
    # Frozen and hashable: a block keeps one share state per tuning.
    assert hash(DistributedTuning(cpu_share=0.25)) == hash(DistributedTuning(cpu_share="0.25"))


@pytest.mark.parametrize("value", ["1", "1.5", "-0.1", "nan", "abc"])
def test_cli_cpu_share_out_of_range_or_not_a_number_exits_2(value, capsys):
    status = main(["graph500", "--scale", "8", "--distributed", "--backend", "cuda", "--kernels", "bfs",
                   "--no-progress", "--cpu-share", value])
    err = capsys.readouterr().err
    assert status == 2 and "--cpu-share" in err and "[0, 1)" in err


@pytest.mark.parametrize("backend", ["cpu", "auto"])
def test_cli_cpu_share_is_refused_on_cpu_ranks(backend, capsys):
    status = main(["graph500", "--scale", "8", "--distributed", "--backend", backend, "--kernels", "bfs",
                   "--no-progress", "--cpu-share", "0.25"])
    err = capsys.readouterr().err
    assert status == 2 and "--cpu-share" in err and "--backend cuda" in err


def test_cli_cpu_share_needs_a_distributed_run(capsys):
    status = main(["graph500", "--scale", "8", "--backend", "cuda", "--kernels", "bfs", "--no-progress",
                   "--cpu-share", "auto"])
    err = capsys.readouterr().err
    assert status == 2 and "--cpu-share" in err and "--distributed" in err


# -- the share's range -----------------------------------------------------------------------
def _indptr(degrees) -> np.ndarray:
    out = np.zeros(len(degrees) + 1, dtype=np.int64)
    np.cumsum(degrees, out=out[1:])
    return out


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 50), min_size=1, max_size=700), st.floats(0, 0.999))
def test_split_rows_takes_the_nearest_share_of_the_arcs(degrees, share):
    degrees = degrees + [0] * (-len(degrees) % ROW_ALIGN)  # blocks are whole words of rows
    rows = len(degrees)
    indptr = _indptr(degrees)
    total = int(indptr[-1])
    cut = split_rows(indptr, rows, share)
    assert 0 <= cut <= rows and (cut % ROW_ALIGN == 0 or cut == rows)
    cpu_arcs = total - int(indptr[cut])
    if share == 0 or total == 0:
        assert cut == rows
        return
    # No other boundary would be nearer the asked share of the arcs.
    boundaries = list(range(0, rows, ROW_ALIGN)) + [rows]
    best = min(abs(total - int(indptr[b]) - share * total) for b in boundaries)
    assert abs(cpu_arcs - share * total) == pytest.approx(best)
    # A larger share never moves the cut back toward the end.
    assert split_rows(indptr, rows, min(0.999, share + 0.1)) <= cut


def test_split_rows_examples():
    indptr = _indptr([1] * 256)  # 4 groups of 64 rows, one arc each
    assert split_rows(indptr, 256, 0) == 256
    assert split_rows(indptr, 256, 0.25) == 192 and split_rows(indptr, 256, 0.5) == 128
    assert split_rows(indptr, 256, 0.05) == 256  # nearer no rows than 64 of them
    assert split_rows(_indptr([0] * 128), 128, 0.5) == 128  # no arcs: nothing to share
    heavy_tail = _indptr([1] * 192 + [3] * 64)  # half the arcs in the last group of rows
    assert split_rows(heavy_tail, 256, 0.5) == 192  # sized by arcs, not by rows
    assert split_rows(heavy_tail, 256, 0.2) == 256  # 0 arcs is nearer 20 % than 50 % is
    with pytest.raises(ValueError, match=r"\[0, 1\)"):
        split_rows(indptr, 256, 1.0)
    # auto's probe keeps one group of rows however small its share.
    assert split_rows(indptr, 256, 0.05, minimum_rows=64) == 192
    assert split_rows(indptr, 256, 0.05, minimum_rows=1) == 192  # rounded up to a whole group
    assert split_rows(indptr, 256, 0.5, minimum_rows=64) == 128  # larger ranges stay
    assert split_rows(indptr, 64, 0.05, minimum_rows=128) == 0
    assert split_rows(indptr, 256, 0, minimum_rows=64) == 256  # share 0 is the GPU alone


# -- auto ------------------------------------------------------------------------------------------
def test_ratio_share_is_the_cpu_part_of_the_summed_rates():
    assert ratio_share(1, 3) == 0.25  # seed 000's best split, CPU:GPU = 1:3
    assert ratio_share(5e9, 5e9) == 0.5
    assert ratio_share(0, 7e9) == 0
    assert ratio_share(1e9, 99e9) == pytest.approx(0.01)
    with pytest.raises(ValueError):
        ratio_share(0, 0)
    with pytest.raises(ValueError):
        ratio_share(-1, 2)


def _meter(cpu_rate, gpu_rate, overhead, seconds=0.01, levels=3) -> RateMeter:
    meter = RateMeter()
    for _ in range(levels):
        meter.add(cpu_rate * seconds, seconds, gpu_rate * seconds, seconds, overhead / levels)
    return meter


def test_decide_takes_the_ratio_when_the_cpu_helps():
    decision = decide(_meter(1e9, 3e9, overhead=0.0), minimum=0.02)
    assert decision.share == pytest.approx(0.25) and decision.ratio == pytest.approx(0.25)
    assert decision.cpu_rate == pytest.approx(1e9) and decision.gpu_rate == pytest.approx(3e9)
    work = 3 * 0.01 * 4e9
    assert decision.gpu_alone_seconds == pytest.approx(work / 3e9)
    assert decision.together_seconds == pytest.approx(work / 4e9) and decision.levels == 3


def test_decide_gives_0_when_the_copies_cost_more_than_the_cpu_saves():
    # The split saves a quarter of 40 ms; copies of 20 ms eat it.
    decision = decide(_meter(1e9, 3e9, overhead=0.02), minimum=0.02)
    assert decision.share == 0 and decision.ratio == pytest.approx(0.25) and "cost more" in decision.reason
    assert decide(_meter(1e9, 3e9, overhead=0.009), minimum=0.02).share == pytest.approx(0.25)


def test_decide_gives_0_below_the_minimum_share_or_without_rates():
    decision = decide(_meter(1e8, 99e8, overhead=0.0), minimum=0.02)
    assert decision.share == 0 and decision.ratio == pytest.approx(0.01) and "below the minimum" in decision.reason
    assert decide(_meter(0, 1e9, overhead=0.0)).share == 0
    assert "no GPU rate" in decide(_meter(1e9, 0, overhead=0.0)).reason


def test_share_state_measures_at_the_probe_then_keeps_its_decision():
    state = ShareState(DistributedTuning(cpu_share="auto", cpu_share_probe=0.125))
    assert state.share == 0.125 and state.mode == "auto (measuring)"
    state.end_search()  # a search without bottom-up levels measured nothing
    assert state.decision is None and state.share == 0.125
    state.measured(1e7, 0.01, 3e7, 0.01, 0.0)
    state.end_search()
    assert state.mode == "auto" and state.share == pytest.approx(0.25)
    state.measured(1e9, 0.01, 1e7, 0.01, 0.0)  # later levels do not move it
    state.end_search()
    assert state.share == pytest.approx(0.25) and state.meter.levels == 1
    report = state.as_dict()
    assert report["requested"] == "auto" and report["decision"]["share"] == pytest.approx(0.25)
    fixed = ShareState(DistributedTuning(cpu_share=0.5))
    fixed.measured(1, 1, 1, 1, 1)
    fixed.end_search()
    assert fixed.share == 0.5 and fixed.mode == "fixed" and fixed.decision is None


# -- the merge of a split bottom-up step ---------------------------------------------------------
def _random_block(rng, n_row, n_col, arcs, probe_shuffle):
    """A random block CSC (targets n_row, sources n_col, column-local ids),
    its rows optionally shuffled (any probe order serves)."""
    targets = rng.integers(0, n_row, arcs)
    sources = rng.integers(0, n_col, arcs)
    # A few high in-degree targets, as in Kronecker blocks.
    hubs = rng.integers(0, n_row, 3)
    targets = np.concatenate([targets, np.repeat(hubs, 40)])
    sources = np.concatenate([sources, rng.integers(0, n_col, 120)])
    order = np.lexsort((sources, targets))
    targets, sources = targets[order], sources[order]
    keep = np.ones(targets.shape[0], dtype=bool)
    keep[1:] = (targets[1:] != targets[:-1]) | (sources[1:] != sources[:-1])
    targets, sources = targets[keep], sources[keep]
    indptr = np.zeros(n_row + 1, dtype=np.int64)
    np.add.at(indptr, targets + 1, 1)
    np.cumsum(indptr, out=indptr)
    indices = sources.astype(np.int32)
    if probe_shuffle:
        for v in range(n_row):
            rng.shuffle(indices[indptr[v]: indptr[v + 1]])
    return indptr, indices


def _bits(rng, n, density):
    bools = rng.random(n) < density
    return np.packbits(bools, bitorder="little").view(np.int64).copy(), bools


def _halves(indptr, indices, frontier, visited, cut, n_row, span_words, level):
    """The split step as the GPU search runs it: rows [0, cut) by one step
    writing its outputs in place (the GPU half), rows [cut, n_row) by a
    HostHalf, merged with merge_halves. Returns (next uint32 words, visited
    uint32 words, step parents, found, examined)."""
    garbage = np.random.default_rng(99)
    next32 = garbage.integers(0, 2**32, span_words, dtype=np.uint32)  # stale words of an earlier step
    visited32 = np.zeros(span_words, dtype=np.uint32)
    visited32[: n_row // 32] = visited.view(np.uint32)
    step_parents = np.full(span_words * 32, -7, dtype=np.int64)
    found = examined = 0
    if cut:  # the GPU half: writes its own words of next and visited, and its parents
        gpu = HostHalf(0, cut, indptr[: cut + 1], indices)
        f, e = gpu.run(frontier, visited[: cut // 64], level, WORKERS)
        found, examined = found + f, examined + e
        next32[: cut // 32] = gpu.next_bits.view(np.uint32)
        visited32[: cut // 32] |= gpu.next_bits.view(np.uint32)
        rows = np.flatnonzero(np.unpackbits(gpu.next_bits.view(np.uint8), bitorder="little"))
        step_parents[rows] = gpu.parents[rows]
    if cut < n_row:
        cpu = HostHalf(cut, n_row, indptr[cut: n_row + 1] - indptr[cut], indices[indptr[cut]: indptr[n_row]])
        cpu.warm_up(frontier, WORKERS)
        f, e = cpu.run(frontier, visited[cut // 64:], level, WORKERS)
        assert cpu.compact() == f
        merge_halves(np, cut, cpu.next_bits, cpu.found_parents, f, next32, visited32, step_parents)
        found, examined = found + f, examined + e
    else:
        next32[cut // 32:] = 0
    return next32, visited32, step_parents, found, examined


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("share", [0.1, 0.25, 0.5, 0.9])
def test_split_step_merges_to_the_full_cpu_bottom_up_step(seed, share):
    rng = np.random.default_rng(seed)
    n_row = 64 * int(rng.integers(2, 20))
    n_col = 64 * int(rng.integers(2, 20))  # rectangular blocks: a non-square grid
    span_words = max(n_row, n_col) // 32
    indptr, indices = _random_block(rng, n_row, n_col, int(rng.integers(1, 12)) * n_row, bool(seed % 2))
    frontier, _ = _bits(rng, n_col, float(rng.uniform(0.01, 0.5)))
    visited, visited_bools = _bits(rng, n_row, float(rng.uniform(0, 0.6)))
    level = int(rng.integers(1, 9))

    # The full step: every unvisited row at once.
    parents_full = np.full(n_row, -1, dtype=np.int64)
    levels_full = np.full(n_row, -1, dtype=np.int32)
    unvisited = ~visited
    next_full = np.empty(n_row // 64, dtype=np.int64)
    found_full, _, examined_full = steps.bottom_up_step(
        indptr, indices, indptr, parents_full, levels_full, level, frontier, unvisited, next_full,
        np.zeros(1, dtype=np.int64), WORKERS,
    )

    cut = split_rows(indptr, n_row, share)
    next32, visited32, step_parents, found, examined = _halves(
        indptr, indices, frontier, visited, cut, n_row, span_words, level
    )
    assert np.array_equal(next32[: n_row // 32], next_full.view(np.uint32))
    assert not next32[n_row // 32:].any()  # rows past the block: no step wrote them
    assert np.array_equal(visited32[: n_row // 32], (visited | next_full).view(np.uint32))
    found_rows = np.flatnonzero(np.unpackbits(next_full.view(np.uint8), bitorder="little"))
    # Same probe order, so the same first parent; and each one valid: an
    # in-neighbour in the frontier, of a row that was unvisited.
    assert np.array_equal(step_parents[found_rows], parents_full[found_rows])
    for v in found_rows:
        p = step_parents[v]
        assert p in indices[indptr[v]: indptr[v + 1]] and (frontier[p >> 6] >> (p & 63)) & 1
        assert not visited_bools[v]
    assert (found, examined) == (found_full, examined_full)


def test_host_half_refuses_ranges_off_the_word_grid():
    indptr = np.zeros(129, dtype=np.int64)
    with pytest.raises(ValueError, match="multiples of 64"):
        HostHalf(32, 128, indptr[:97], np.zeros(0, dtype=np.int32))
    with pytest.raises(ValueError, match="offsets"):
        HostHalf(0, 128, indptr[:100], np.zeros(0, dtype=np.int32))


def test_compaction_lists_parents_in_row_order():
    from wavefront.distributed._cooperation_kernels import compact_found

    rng = np.random.default_rng(3)
    rows = 64 * 3000  # more than one chunk of words
    bits, bools = _bits(rng, rows, 0.3)
    parents = rng.integers(0, 2**31, rows)
    out = np.empty(rows, dtype=np.int32)
    count = compact_found(bits, parents, out)
    assert count == bools.sum() and np.array_equal(out[:count], parents[bools])


# -- on the GPU, in a world of one ---------------------------------------------------------------
SHARES = [0, 0.25, 0.5, "auto"]


def _world_of_one(scale):
    from wavefront.generators import kronecker_edges
    from wavefront.graph.build import from_edges

    src, dst, _ = kronecker_edges(scale)
    graph = from_edges(src, dst, n=1 << scale)
    dist = wd.kronecker(scale, grid=ProcessGrid(world=SelfTransport()))
    return (src, dst), graph, dist


@pytest.mark.gpu
@pytest.mark.parametrize("transport", ["nccl", "mpi"])
def test_levels_identical_for_every_share(transport):
    from wavefront.distributed import gpu, gpu_cooperation

    (src, dst), graph, dist = _world_of_one(12)
    block = gpu.to_gpu(dist, transport=transport)
    roots = [int(r) for r in wd.choose_roots(dist, 3)]
    for share in SHARES:
        tuning = DistributedTuning(cpu_share=share)
        for search in range(2):  # auto measures in its first search, then keeps its share
            for root in roots:
                reference = wavefront.bfs(graph, root, method="hybrid")
                for policy in ("gap", "bottom-up"):
                    result = gpu.bfs(block, root, policy=policy, tuning=tuning)
                    full = result.gather()
                    assert np.array_equal(full.levels, reference.levels), (share, search, root, policy)
                    summary = wd.validate_bfs(dist, result, dist.traversed_edges(result.reached))
                    assert summary.nedge == graph.traversed_edges(reference.parents >= 0)
                    validate_bfs((src, dst), full, n=graph.n)
                    _check_records(result.trace, share, policy)
        report = gpu_cooperation.cpu_share_report(block, tuning)
        if share == "auto":
            decision = report["decision"]
            assert 0 <= decision["share"] < 1 and decision["cpu_rate"] > 0 and decision["gpu_rate"] > 0
            assert report["mode"] == "auto" and report["share"] == decision["share"]
        else:
            assert report["share"] == share


def _check_records(trace, share, policy):
    from wavefront.distributed._trace import LevelRecord
    from wavefront.distributed.gpu_cooperation import CooperativeLevelRecord

    if share == 0:
        assert all(type(r) is LevelRecord for r in trace)
        return
    assert all(isinstance(r, CooperativeLevelRecord) for r in trace)
    bottom_up = [r for r in trace if r.direction == "bottom-up"]
    if policy == "bottom-up":
        assert bottom_up
    for r in bottom_up:
        if r.cpu_share > 0:
            assert r.cpu_examined + r.gpu_examined == r.examined and r.cpu_rows > 0
            assert r.cpu_seconds > 0 and r.overhead_seconds > 0
    if share != "auto":
        assert all(r.cpu_share == share for r in bottom_up)


@pytest.mark.gpu
def test_share_0_makes_no_host_copies_and_auto_may_choose_it():
    from wavefront.distributed import gpu, gpu_cooperation

    _, graph, dist = _world_of_one(11)
    block = gpu.to_gpu(dist, transport="mpi")
    root = int(wd.choose_roots(dist, 1)[0])
    reference = wavefront.bfs(graph, root, method="hybrid")
    gpu.bfs(block, root, policy="bottom-up", tuning=DistributedTuning(cpu_share=0))
    assert block.cooperation is None and not block.share_states
    # auto with a minimum share no machine reaches measures, then falls back to the GPU alone.
    never = DistributedTuning(cpu_share="auto", cpu_share_min=0.999)
    first = gpu.bfs(block, root, policy="bottom-up", tuning=never)
    assert any(r.cpu_share > 0 for r in first.trace)  # the probe ran
    assert gpu_cooperation.cpu_share_report(block, never)["share"] == 0 and block.cooperation is None
    again = gpu.bfs(block, root, policy="bottom-up", tuning=never)
    assert all(r.cpu_share == 0 and r.auto_reason for r in again.trace)
    assert np.array_equal(again.gather().levels, reference.levels)


@pytest.mark.gpu
def test_cli_distributed_gpu_run_reports_the_cpu_share(capsys, tmp_path):
    path = tmp_path / "report.json"
    status = main(["graph500", "--scale", "10", "--roots", "4", "--backend", "cuda", "--kernels", "bfs",
                   "--distributed", "--no-progress", "--cpu-share", "auto", "--json", str(path)])
    out, err = capsys.readouterr()
    assert status == 0, err
    data = json.loads(path.read_text())
    assert data["valid"]
    share = data["distributed"]["cpu_share"]
    assert share["requested"] == "auto" and len(share["ranks"]) == 1
    assert "cpu_share:" in out
