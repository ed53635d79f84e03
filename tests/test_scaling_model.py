"""benchmarks/scaling_model.py: the byte model of the 2-D BFS against real traces, the fit, the projection.

The byte model is checked against distributed Graph500 reports produced here:
in one process (a world of one) and under ``mpirun`` on 2 (1x2) and 4 (2x2)
CPU ranks; every rank, level and collective, bytes out and in, and the
trace's found / sent / received / discovered / deduplicated counts, must
equal the model's, which derives them from the regenerated graph alone.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import wavefront.distributed as wd
from wavefront.cli import main
from wavefront.distributed.grid import ProcessGrid, grid_shape

ROOT = Path(__file__).resolve().parents[1]


def _load_model():
    spec = importlib.util.spec_from_file_location("scaling_model", ROOT / "benchmarks" / "scaling_model.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is made
    spec.loader.exec_module(module)
    return module


sm = _load_model()


# -- the formulas -------------------------------------------------------------------------------------------------
def test_bitmap_bytes_per_level_match_the_decision_record():
    """docs/decisions/distributed.md measured 8 192 B per level at P = 2 (1x2)
    and 20 480 B at P = 4 (2x2), SCALE 16, summed over ranks."""
    for (rows, cols), expected in (((1, 2), 8192), ((2, 2), 20480)):
        layout = sm.Layout(1 << 16, rows, cols)
        total = 0
        for rank in range(layout.size):
            model = sm.level_bytes(layout, rank, 3)
            total += sum(model[name][0] for name in ("row_allgather", "transpose", "column_allgather"))
        assert total == expected


class _Rank:
    """Enough of a transport for ProcessGrid's layout arithmetic."""

    def __init__(self, rank, size):
        self.rank, self.size = rank, size

    def split(self, color, key):
        return _Rank(0, 1)


@pytest.mark.parametrize("rows, cols", [(1, 1), (1, 2), (2, 1), (2, 2), (2, 4), (4, 2), (3, 3), (2, 3)])
def test_transpose_partners_are_the_process_grid_s(rows, cols):
    layout = sm.Layout(1 << 12, rows, cols)
    moved = False
    for rank in range(rows * cols):
        grid = ProcessGrid(rows, cols, world=_Rank(rank, rows * cols), set_threads=False)
        assert layout.transpose_dest(rank) == grid.transpose_dest
        assert layout.transpose_source(rank) == grid.transpose_source
        moved |= grid.transpose_dest != rank
    assert layout.transpose_moves() == moved


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 6), st.integers(1, 6), st.integers(8, 20), st.integers(0, 8), st.booleans(), st.booleans())
def test_bytes_in_equal_bytes_out_over_the_machine(rows, cols, scale, level, deduplicated, nccl):
    """Every byte one rank hands out another takes in: summed over ranks the
    two directions agree for every collective (fold pairs included, as long
    as every pair to another rank is one some rank receives from another)."""
    layout = sm.Layout(1 << scale, rows, cols, nccl)
    rng = np.random.default_rng(scale * 100 + level)
    pairs = rng.integers(0, 50, size=(rows, cols, cols))  # pairs[i, from j, to j']
    for i in range(rows):
        np.fill_diagonal(pairs[i], 0)
    dedup = deduplicated and cols > 1 and level > 0
    out, into = {}, {}
    for rank in range(layout.size):
        i, j = divmod(rank, cols)
        model = sm.level_bytes(layout, rank, level, deduplicated=dedup, to_others=int(pairs[i, j].sum()),
                               from_others=int(pairs[i, :, j].sum()))
        for name, (o, n) in model.items():
            out[name] = out.get(name, 0) + o
            into[name] = into.get(name, 0) + n
    assert out == into


def test_fit_recovers_alpha_and_beta_through_a_heavy_tail():
    rng = np.random.default_rng(7)
    calls = np.ones(400)
    nbytes = rng.choice([0, 8, 4096, 65536, 1 << 20, 1 << 22], size=400).astype(float)
    seconds = 20e-6 + nbytes / 5e9 + rng.uniform(0, 2e-6, size=400)
    stuck = rng.random(400) < 0.3  # a rank descheduled for a time slice
    seconds[stuck] += 10e-3
    alpha, beta = sm.fit_alpha_beta(calls, nbytes, seconds, 0.5)
    assert alpha == pytest.approx(21e-6, rel=0.1) and beta == pytest.approx(5e9, rel=0.1)
    low_alpha, low_beta = sm.fit_alpha_beta(calls, nbytes, seconds, 0.1)
    assert low_alpha == pytest.approx(20.2e-6, rel=0.1) and low_beta == pytest.approx(5e9, rel=0.1)
    alpha, beta = sm.fit_alpha_beta(calls, np.zeros(400), seconds[~stuck].mean() + np.zeros(400))
    assert beta == np.inf and alpha > 0


def test_projection_bitmaps_grow_as_sqrt_p_under_weak_scaling():
    """Seed 000's observation: at weak scaling a rank's bitmap bytes per level
    grow as R + C - 1, about 2 sqrt(P) on square grids."""
    shape = sm.GraphShape(18, 0.66, 1.0, {1: 1.0, 2: 1.5, 4: 2.3, 8: 3.2, 16: 4.3, 32: 5.6}, 8.0, 0.5)
    scenario = sm.Scenario("floor", False, None)
    previous = None
    for size in (16, 64, 256, 1024):
        p = sm.project(26 + int(np.log2(size)), size, sm.NVLINK, scenario, shape)
        side = int(np.sqrt(size))
        assert p.bitmap_bytes == 8 * (2 * side - 1) * (1 << 26) // 8
        if previous is not None:
            assert p.bitmap_bytes / previous == pytest.approx((2 * side - 1) / (side - 1), rel=1e-9)
        previous = p.bitmap_bytes
        assert p.comm_high == pytest.approx(p.comm_low * sm.NVLINK.beta_high / sm.NVLINK.beta_low)


# The third round's measurements (2026-11-25, docs/decisions/distributed.md "GPU runs, third round"), typed here
# rather than read from the script, so that a constant that drifts from the record fails these tests.
ONE_RANK_24 = 2.14e-3  # nvidia-h100-x1, 7818e9b, benchmarks/distributed_gpu.py median of 8
ONE_RANK_26 = 3.62e-3  # nvidia-h100-x2, ec6a706, the same script
TWO_RANKS_27 = 20.14e-3  # nvidia-h100-x2, 0f7641c, 1x2 over NCCL, the same script
TWO_RANKS_28 = 45.4e-3  # nvidia-h100-x2, ec6a706, 1x2, Graph500 with 2 roots (40.55 and 50.34 ms)
SINGLE_22, SINGLE_26 = 0.78e-3, 2.46e-3  # the first round's x2 run; the third round's x2 machine
# The fourteenth round (2026-11-27, docs/scaling.md "Fourteenth round"): the projection's compute anchors at
# b583891, one nvidia-h100-x1, the same 8 roots searched by both paths back to back, medians
TODAY_24, TODAY_26 = 1.28e-3, 2.53e-3  # the distributed path on one GPU
TODAY_SINGLE_24, TODAY_SINGLE_26 = 1.18e-3, 2.38e-3  # the single-GPU hybrid beside it
# the second round (c07a3b4), history: its anchors and 1 -> 2 pair
SECOND_24, SECOND_26, SECOND_27, SECOND_SINGLE_26 = 4.1e-3, 9.80e-3, 19.06e-3, 2.72e-3
# the synchronized traces, (compute ms, comm ms) per level: P = 1 SCALE 26 and 1x2 SCALE 27
TRACE_1 = [(0.267, 0.055), (0.171, 0.021), (0.113, 0.021), (1.268, 0.021), (0.789, 0.019), (0.131, 0.017),
           (0.112, 0.017), (0.065, 0.017)]
TRACE_2 = [(0.228, 0.775), (0.369, 0.435), (0.630, 0.382), (5.867, 1.418), (4.575, 1.338), (0.680, 0.366),
           (0.487, 0.359), (0.426, 0.352), (0.229, 0.279)]
SHAPE_22 = sm.GraphShape(22, 0.57, 1.0, {1: 1.0, 2: 1.5, 4: 2.18, 8: 3.0, 16: 4.0, 32: 5.0}, 8.0, 0.29)


def _model_1x2_comm(scale_two: int) -> tuple[float, float]:
    """The model's communication of a 1x2 search at ``scale_two``, by hand: 8
    trace rows; per level a row all-gather over 2 ranks (NCCL's 8.4 us base +
    1 NVLink step of 3.4 us) and a host allreduce (the traced 20 us + 1 step);
    from level 1 the fold costs the same two (its send/recv priced as a ring,
    its count exchange as a host call). Bytes per rank: one piece (half the
    vertices, a bit each) a level, and 8-byte pairs for the reached share of
    the vertices that the other column block claims (D(2) = 1.5), half of
    them to the other owner, over the two ranks."""
    ring, host = 8.4e-6 + 3.4e-6, 20e-6 + 3.4e-6
    latency = 8 * (ring + host) + 7 * (ring + host)
    n = 1 << scale_two
    moved = 8 * (n // 2 // 8) + 8 * 0.57 * n * 1.5 * 0.5 / 2
    return latency + moved / 450e9, latency + moved / 300e9


def test_compute_follows_the_measured_times_between_and_beyond_them():
    # today's anchors (the projection's default)
    assert sm.one_rank_seconds(24) == pytest.approx(TODAY_24)
    assert sm.one_rank_seconds(26) == pytest.approx(TODAY_26)
    assert sm.one_rank_seconds(25) == pytest.approx((TODAY_24 * TODAY_26) ** 0.5)
    assert sm.one_rank_seconds(20) == sm.one_rank_seconds(24) == pytest.approx(TODAY_24)
    excess = TODAY_26 - TODAY_SINGLE_26  # 0.15 ms
    assert sm.one_rank_seconds(27) == pytest.approx(2 * TODAY_SINGLE_26 + excess)  # 4.91 ms
    assert sm.one_rank_seconds(28) == pytest.approx(4 * TODAY_SINGLE_26 + excess)  # 9.67 ms
    slope = (TODAY_26 / TODAY_24) ** 0.5  # 1.41x per SCALE: below the single-GPU driver from SCALE 27 on
    assert TODAY_26 * slope < sm.single_gpu_seconds(27) < sm.one_rank_seconds(27) < 2 * TODAY_26
    assert sm.single_gpu_seconds(24) == pytest.approx(TODAY_SINGLE_24)
    assert sm.single_gpu_seconds(26) == pytest.approx(TODAY_SINGLE_26)
    assert sm.single_gpu_seconds(22) == pytest.approx(SINGLE_22)
    assert sm.single_gpu_seconds(25) == pytest.approx((TODAY_SINGLE_24 * TODAY_SINGLE_26) ** 0.5)
    assert sm.single_gpu_seconds(27) == pytest.approx(2 * TODAY_SINGLE_26)  # proportional to the edges above 26
    for scale in (20, 22, 24, 25, 26, 27, 28, 30):
        assert sm.one_rank_seconds(scale) > sm.single_gpu_seconds(scale)
    # the third round's curve, which the two-GPU comparisons of that round still use
    third = sm.H100_NVLINK_2GPU
    assert sm.one_rank_seconds(24, third) == pytest.approx(ONE_RANK_24)
    assert sm.one_rank_seconds(26, third) == pytest.approx(ONE_RANK_26)
    # log-linear between the anchors: SCALE 25 is their geometric mean
    assert sm.one_rank_seconds(25, third) == pytest.approx((ONE_RANK_24 * ONE_RANK_26) ** 0.5)
    # below the lowest anchor, its time; neither the first round's SCALE 22 nor the second's 24 anchors anything
    assert sm.one_rank_seconds(22, third) == pytest.approx(ONE_RANK_24)
    # Above 26: the single-GPU driver's time (2x per SCALE) plus the path's measured excess at 26, held fixed.
    # The anchors' own slope, 1.30x per SCALE, would fall below the single-GPU driver at SCALE 27.
    excess = ONE_RANK_26 - SINGLE_26  # 1.16 ms
    assert sm.one_rank_seconds(27, third) == pytest.approx(2 * SINGLE_26 + excess)  # 6.08 ms
    assert sm.one_rank_seconds(28, third) == pytest.approx(4 * SINGLE_26 + excess)  # 11.0 ms
    slope = (ONE_RANK_26 / ONE_RANK_24) ** 0.5
    assert ONE_RANK_26 * slope < sm.single_gpu_seconds(27, third) < sm.one_rank_seconds(27, third) < 2 * ONE_RANK_26
    assert sm.single_gpu_seconds(22, third) == pytest.approx(SINGLE_22)
    assert sm.single_gpu_seconds(26, third) == pytest.approx(SINGLE_26)
    assert sm.single_gpu_seconds(24, third) == pytest.approx((SINGLE_22 * SINGLE_26) ** 0.5)
    assert sm.single_gpu_seconds(20, third) == pytest.approx(SINGLE_22)
    # the second round's curve is history, still derivable from its own anchors
    second = {**sm.H100_NVLINK_2GPU, **sm.H100_SECOND_ROUND}
    assert sm.one_rank_seconds(24, second) == pytest.approx(SECOND_24)
    assert sm.one_rank_seconds(27, second) == pytest.approx(2 * SECOND_SINGLE_26 + SECOND_26 - SECOND_SINGLE_26)
    assert sm.single_gpu_seconds(26, second) == pytest.approx(SECOND_SINGLE_26)


def test_the_weak_scaling_compute_is_the_measured_scale_26_search():
    """Each GPU holds 2^26 vertices at weak scaling, so the 'today' and 'floor'
    rows charge exactly the two SCALE 26 medians of today's anchors (the
    third round's where a comparison of that round asks for them)."""
    today, floor = sm.scenarios(sm.gpu_constants())
    for size in (8, 64, 1024):
        scale = 26 + int(np.log2(size))
        assert sm.project(scale, size, sm.NVLINK, today, SHAPE_22).compute == pytest.approx(TODAY_26)
        assert sm.project(scale, size, sm.NVLINK, floor, SHAPE_22).compute == pytest.approx(TODAY_SINGLE_26)
        third = sm.project(scale, size, sm.NVLINK, today, SHAPE_22, anchors=sm.H100_NVLINK_2GPU)
        assert third.compute == pytest.approx(ONE_RANK_26)


def test_gpu_constants_are_the_third_round_s_and_the_history_s():
    constants = sm.gpu_constants()
    assert constants.overhead_26 == pytest.approx(ONE_RANK_26 - SINGLE_26)  # 1.16 ms, the same x2 machine
    assert constants.added_26 == pytest.approx(TWO_RANKS_27 - ONE_RANK_26)  # 16.52 ms
    second = sm.gpu_constants({**sm.H100_NVLINK_2GPU, **sm.H100_SECOND_ROUND})
    assert second.overhead_26 == pytest.approx(SECOND_26 - SECOND_SINGLE_26)  # 7.08 ms
    assert second.added_26 == pytest.approx(SECOND_27 - SECOND_26)  # 9.26 ms
    first = sm.gpu_constants({**sm.H100_NVLINK_2GPU, **sm.H100_FIRST_ROUND})
    assert first.overhead_26 == pytest.approx(17.7e-3 - 2.62e-3)
    assert first.added_26 == pytest.approx(26.3e-3 - 17.7e-3)


def test_the_two_gpu_check_compares_every_measured_pair():
    shape = sm.GraphShape(22, 0.57, 1.0, {1: 1.0, 2: 1.5, 4: 2.18}, 8.0, 0.29)
    rows = sm.two_gpu_check(shape, sm.gpu_constants())
    assert [label for label, *_ in rows] == [
        "SCALE 26 on 1 -> 27 on 2 (0f7641c/ec6a706)", "SCALE 26 on 1 -> 27 on 2 (c07a3b4)",
        "SCALE 22 on 1 -> 23 on 2 (f7dca24)", "SCALE 26 on 1 -> 27 on 2 (f7dca24)"]
    assert [measured for *_, measured in rows] == pytest.approx(
        [TWO_RANKS_27 - ONE_RANK_26, SECOND_27 - SECOND_26, 0.47e-3, 8.6e-3])
    _, low, high, fit_low, fit_high, measured = rows[0]
    assert (low, high) == pytest.approx(_model_1x2_comm(27))
    calls = 8 * 2 + 7  # the calls that cross ranks
    moved = 8 * (1 << 23) + 8 * 0.57 * (1 << 27) * 1.5 * 0.5 / 2
    fitted = [calls * 49.3e-6 + moved / 35.97e9, calls * 24.6e-6 + moved / 31.79e9]
    assert (fit_low, fit_high) == pytest.approx((min(fitted), max(fitted)))
    # The third round's second GPU adds more than even the traced fit's price of the bytes: at least 6.6 of its
    # 16.5 ms is not communication. The second round's 9.26 ms still lay under that bound.
    assert low < high < fit_high < measured and measured - fit_high > 6.5e-3
    assert rows[1][2] < rows[1][5] <= rows[1][4]
    # the model's side does not depend on the compute constants: every SCALE 26 pair gets the same
    assert rows[1][1:5] == pytest.approx(rows[0][1:5]) and rows[3][1:5] == pytest.approx(rows[0][1:5])


def test_the_traces_split_the_second_gpu_s_time_into_block_compute_and_communication():
    split = sm.trace_split()
    one, two = np.array(TRACE_1) * 1e-3, np.array(TRACE_2) * 1e-3
    assert (split.one_compute, split.one_comm) == pytest.approx((2.916e-3, 0.188e-3))
    assert (split.two_compute, split.two_comm) == pytest.approx((13.491e-3, 5.704e-3))
    assert (split.one_compute, split.one_comm) == pytest.approx(tuple(one.sum(axis=0)))
    assert (split.two_compute, split.two_comm) == pytest.approx(tuple(two.sum(axis=0)))
    # levels 3 and 4, the bottom-up levels that find 18.7 + 13.9 M (P = 1) and 21.1 + 24.1 M (1x2) vertices
    assert (split.one_big_compute, split.one_big_comm) == pytest.approx((2.057e-3, 0.040e-3))
    assert (split.two_big_compute, split.two_big_comm) == pytest.approx((10.442e-3, 2.756e-3))
    assert split.added_compute == pytest.approx(10.575e-3) and split.added_comm == pytest.approx(5.516e-3)
    # mostly compute, and mostly on the two big levels
    assert split.added_compute > 1.9 * split.added_comm
    assert split.two_big_compute - split.one_big_compute > 0.75 * split.added_compute
    # the synchronized traces add what the timed medians add, within 3 %
    assert split.added == pytest.approx(TWO_RANKS_27 - ONE_RANK_26, rel=0.03)
    # the model's communication is a quarter of the traced communication the second GPU adds, at most
    low, high = _model_1x2_comm(27)
    assert 0.2 < low / split.added_comm < high / split.added_comm < 0.3
    # level 3's 1x2 block examines 2.2x the arcs of P = 1's whole graph, at half the graph
    examined = sm.H100_NVLINK_2GPU["examined_level3"]
    assert examined["1x2"] / examined["1x1"] == pytest.approx(2.16, abs=0.01)


def test_every_measured_two_gpu_search_is_far_above_the_projection_s_p2_row():
    from wavefront.distributed.memory import block_bytes

    rows = sm.two_gpu_points(SHAPE_22, sm.gpu_constants())
    assert [row[0] for row in rows] == [27, 28]
    shares = (ONE_RANK_26, 2 * SINGLE_26 + ONE_RANK_26 - SINGLE_26)  # SCALE 26 measured, 27 above the anchors
    for (scale, compute, comm_low, comm_high, low, high, measured, block, held), one_share, want, gpu in zip(
            rows, shares, (TWO_RANKS_27, TWO_RANKS_28), (None, 71.2e9)):
        assert compute == pytest.approx(one_share)
        assert (comm_low, comm_high) == pytest.approx(_model_1x2_comm(scale))
        assert (low, high) == pytest.approx((compute + comm_low, compute + comm_high))
        assert measured == pytest.approx(want)
        assert block == block_bytes(scale, 16, 2, 1, 2)
        assert held == gpu
    # measured 3.9-4.2x the model at SCALE 27, 5.3-5.7x at 28: the 1x2 block's own cost is not in the projection
    assert 3.8 < rows[0][6] / rows[0][5] < rows[0][6] / rows[0][4] < 4.3
    assert 5.2 < rows[1][6] / rows[1][5] < rows[1][6] / rows[1][4] < 5.8
    # the memory model is an upper bound on what each GPU held at SCALE 28 (76.9 GB against 71.2)
    assert rows[1][8] < rows[1][7] < 1.1 * rows[1][8]


# -- one column (the GPU default since 9527731) and the GPU exchanges since a8f02a2 ------------------------------
def test_gpu_level_bytes_by_hand():
    """2x1 over 2^12 vertices: a piece of 2048 vertices, a 256-byte bitmap
    piece; ids of 4 bytes (the block's index dtype); the totals' host
    all-gather of two int64 to and from each other rank."""
    layout = sm.Layout(1 << 12, 2, 1, nccl=True)
    assert layout.piece_bytes == 256 and layout.id_bytes == 4 and layout.bitmap_bytes == 512
    ids = sm.level_bytes(layout, 0, 3, exchange="ids", ids_out=3, ids_in=5, counts_gather=True)
    assert ids == {"fold": (0, 0), "row_allgather": (0, 0), "transpose": (0, 0), "column_allgather": (12, 20),
                   "allreduce": (16, 16)}
    bitmap = sm.level_bytes(layout, 1, 3, counts_gather=True)
    assert bitmap["column_allgather"] == (256, 256) and bitmap["allreduce"] == (16, 16)
    assert sm.level_bytes(layout, 0, 0, counts_gather=True)["allreduce"] == (16, 16)  # the root's too
    assert sm.level_bytes(layout, 0, 0)["allreduce"] == (8, 8)  # CPU ranks and GPU ranks before a8f02a2
    assert set(sm.level_bytes(layout, 0, 4, exchange="none", counts_gather=True)) == {"fold", "allreduce"}
    assert set(sm.level_bytes(layout, 0, 0, exchange="none", counts_gather=True)) == {"allreduce"}
    four = sm.Layout(1 << 12, 4, 1, nccl=True)  # ids go to each of the 3 others
    assert sm.level_bytes(four, 2, 5, exchange="ids", ids_out=3, ids_in=7, counts_gather=True)["column_allgather"] \
        == (36, 28)
    assert sm.level_bytes(four, 2, 5, counts_gather=True)["allreduce"] == (48, 48)
    assert sm.Layout(1 << 30, 2, 1).id_bytes == 4 and sm.Layout(1 << 31, 2, 1).id_bytes == 8
    with pytest.raises(ValueError, match="one-column"):
        sm.level_bytes(sm.Layout(1 << 12, 1, 2), 0, 1, exchange="ids")
    with pytest.raises(ValueError, match="exchange must be"):
        sm.level_bytes(layout, 0, 1, exchange="pairs")


def test_gpu_exchange_form():
    layout = sm.Layout(1 << 12, 2, 1)
    td, bu = "top-down", "bottom-up"
    assert sm.gpu_exchange(layout, 2, bu, td, 128) == "ids"  # 512 bytes of ids, no more than the bitmap's
    assert sm.gpu_exchange(layout, 2, bu, td, 129) == "bitmap"
    assert sm.gpu_exchange(layout, 2, td, bu, 1) == "bitmap"  # a bottom-up step reads the bitmap
    assert sm.gpu_exchange(layout, 2, bu, td, 1, cooperative=True) == "bitmap"  # a shared step's piece
    assert sm.gpu_exchange(layout, 2, td, td, 1, cooperative=True) == "ids"
    assert sm.gpu_exchange(layout, 2, td, None, 1) == "none"  # no exchange after the last level
    assert sm.gpu_exchange(sm.Layout(1 << 12, 1, 2), 2, bu, td, 1) == "bitmap"  # 2-D grids: bitmaps
    assert sm.gpu_exchange(layout, 0, "root", td, 1) == "none"  # one column: every rank queues the root
    assert sm.gpu_exchange(layout, 0, "root", td, 1, root_sent=True) == "ids"  # as its owner sent it before
    assert sm.gpu_exchange(layout, 0, "root", bu, 1) == "bitmap"
    one = sm.Layout(1 << 12, 1, 1)
    assert [sm.gpu_exchange(one, 0, "root", td, 1), sm.gpu_exchange(one, 1, td, bu, 5),
            sm.gpu_exchange(one, 2, bu, td, 5), sm.gpu_exchange(one, 2, bu, td, 5, cooperative=True)] == [
        "bitmap", "none", "none", "bitmap"]
    # machine E's 2x1 SCALE 27 trace under the code it ran: ids before every top-down level, bitmaps before the
    # three bottom-up ones
    assert sm.one_column_forms(fixed_ids_edges=0, root_sent=True) == [
        "ids", "ids", "bitmap", "bitmap", "bitmap", "ids", "ids", "ids", "none"]
    reached = 2 + 17356 + 14529439 + 16816884 + 155087 + 442 + 2
    before = sm.before_small_levels()
    assert (before.bitmaps, before.root_sent, before.small_levels, before.small_last) == (3, True, 0, False)
    assert before.ids_share == pytest.approx((2 + 155087 + 442 + 2) / reached)
    assert (before.column_calls(9), before.host_calls(9)) == (8, 9)
    # today's code: nobody sends the root; levels 1, 7 and 8 (at most 2^14 arcs: twice rank 0's 2, 411 and 3)
    # are small, the last one exchanged; level 2 (twice 17666 arcs) is not
    assert sm.one_column_forms() == ["none", "fixed", "bitmap", "bitmap", "bitmap", "ids", "ids", "fixed", "fixed"]
    today = sm.one_column_exchanges()
    assert (today.bitmaps, today.root_sent, today.small_levels, today.small_last) == (3, False, 3, True)
    assert today.ids_share == pytest.approx((155087 + 442) / reached)
    assert (today.column_calls(9), today.host_calls(9), today.segment_bytes()) == (8, 6, 8 * ((1 << 14) + 3))
    # a K under level 7's 822 arcs leaves only levels 1 and 8 small
    assert sm.one_column_forms(fixed_ids_edges=100)[7:] == ["ids", "fixed"]


def _gpu_report(path, rows, grid="2x1", scale=12, root=3000):
    """A GPU Graph500 report with the given trace rows (what load_run reads)."""
    data = {"SCALE": scale, "edgefactor": 16, "seed": 1, "roots": [root], "backend": "cuda",
            "backend_reason": "distributed over nccl", "distributed": {"process_grid": grid},
            "kernels": {"bfs": {"trace": rows}}}
    path.write_text(json.dumps(data))
    return sm.load_run(path)


def _row(rank, level, direction, discovered, found, collectives):
    entries = {name: {"seconds": 1e-5, "bytes_out": o, "bytes_in": i, "calls": 1}
               for name, (o, i) in collectives.items()}
    return {"rank": rank, "level": level, "direction": direction, "discovered": discovered, "frontier_edges": 0,
            "deduplicated": False, "found": found, "sent": found, "received": found, "collectives": entries,
            "bytes_out": sum(o for o, _ in collectives.values())}


def _one_column_trace():
    """By hand, from gpu._Search.run and _exchange_owned on 2x1 over 2^12
    vertices (pieces of 2048: the root 3000 is rank 1's): the root, bound
    for a top-down level, is queued by every rank (no exchange); level 1
    (top-down) bound for a bottom-up step: bitmaps of 256 bytes; level 2 (bottom-up), 1500 found, bound for a top-down step: 6000 bytes
    of ids outweigh the 512-byte bitmap, so a bitmap; level 3, 30 found
    (20 and 10), bound for a top-down step: ids; level 4 finds nothing: no
    exchange. Every level: the totals' all-gather, 16 bytes each way."""
    empty, counts = (0, 0), (16, 16)
    rows = []
    for rank, mine, theirs in ((0, (0, 5, 700, 20, 0), (1, 4, 800, 10, 0)), (1, (1, 4, 800, 10, 0),
                                                                           (0, 5, 700, 20, 0))):
        directions = ("root", "top-down", "bottom-up", "top-down", "top-down")
        column = [None, (256, 256), (256, 256), (4 * mine[3], 4 * theirs[3]), None]
        for level in range(5):
            collectives = {} if level == 0 else {"fold": empty}
            if column[level] is not None:
                collectives.update(row_allgather=empty, transpose=empty, column_allgather=column[level])
            collectives["allreduce"] = counts
            found = 0 if level == 0 else mine[level]
            rows.append(_row(rank, level, directions[level], mine[level] + theirs[level], found, collectives))
    return rows


def test_the_fit_leaves_out_what_a_one_column_rank_does_not_call(tmp_path):
    """Clock.none's entries (no bytes, no time) are not calls to fit: as
    samples they would pull alpha to zero. An empty entry that took time is
    a real call and stays."""
    rows = _one_column_trace()
    for row in rows:
        for name in ("fold", "row_allgather", "transpose"):
            if name in row["collectives"]:
                row["collectives"][name]["seconds"] = 0.0
    rows[1]["collectives"]["row_allgather"]["seconds"] = 2e-5  # timed, though it moved nothing
    _, _, seconds, names = sm.samples(_gpu_report(tmp_path / "none.json", rows))
    assert names.count("fold") == 0 and names.count("transpose") == 0 and names.count("row_allgather") == 1
    assert names.count("allreduce") == len(rows) and (seconds > 0).all()


def test_a_one_column_gpu_trace_takes_the_exchanges_of_a8f02a2(tmp_path):
    rows = _one_column_trace()
    run = _gpu_report(tmp_path / "report.json", rows)
    assert sm.trace_rules(run) == "gpu"
    check = sm.check_bytes(run)
    assert check.ok, check.mismatches
    assert check.compared == 2 * sum(len(row["collectives"]) for row in rows)
    # level 3's ids sent as a bitmap instead: caught
    wrong = json.loads(json.dumps(rows))
    wrong[3]["collectives"]["column_allgather"].update(bytes_out=256, bytes_in=256)
    wrong[3]["bytes_out"] += 256 - 80
    assert any("level 3 rank 0: column_allgather" in line
               for line in sm.check_bytes(_gpu_report(tmp_path / "a.json", wrong)).mismatches)
    # the root level's total all-reduced in 8 bytes, as before a8f02a2: caught
    wrong = json.loads(json.dumps(rows))
    wrong[5]["collectives"]["allreduce"].update(bytes_out=8, bytes_in=8)
    wrong[5]["bytes_out"] -= 8
    assert any("level 0 rank 1: allreduce" in line
               for line in sm.check_bytes(_gpu_report(tmp_path / "b.json", wrong)).mismatches)
    # an exchange after the last level is the old code's: its rules then apply, and this trace's bytes break them
    old = json.loads(json.dumps(rows))
    for row in (old[4], old[9]):
        row["collectives"].update({name: {"seconds": 1e-5, "bytes_out": 0, "bytes_in": 0, "calls": 1}
                                   for name in ("row_allgather", "transpose", "column_allgather")})
    run = _gpu_report(tmp_path / "c.json", old)
    assert sm.trace_rules(run) == "gpu-before-a8f02a2" and not sm.check_bytes(run).ok
    # the same search on 1x2 under the old rules: bitmaps every level, 8 then 16 bytes of all-reduce
    assert sm.trace_rules(_gpu_report(tmp_path / "d.json", rows, grid="1x2")) == "gpu"
    # the root's id sent by its owner, as before the ranks queued it: that code's rules, which it meets
    sent = json.loads(json.dumps(rows))
    for row in (sent[0], sent[5]):
        mine = 4 * int(row["rank"] == 1)
        row["collectives"].update({name: {"seconds": 1e-5, "bytes_out": 0, "bytes_in": 0, "calls": 1}
                                   for name in ("row_allgather", "transpose")})
        row["collectives"]["column_allgather"] = {"seconds": 1e-5, "bytes_out": mine, "bytes_in": 4 - mine,
                                                  "calls": 1}
        row["bytes_out"] += mine
    run = _gpu_report(tmp_path / "e.json", sent)
    assert sm.trace_rules(run) == "gpu-root-sent"
    check = sm.check_bytes(run)
    assert check.ok, check.mismatches
    # and a root exchange missing from such a trace is caught
    del sent[5]["collectives"]["column_allgather"]
    sent[5]["bytes_out"] -= 4
    assert any("level 0 rank 1: collectives" in line
               for line in sm.check_bytes(_gpu_report(tmp_path / "f.json", sent)).mismatches)


def _as_fixed(row, segment: int) -> None:
    """A trace row made a small level's fixed-size exchange: one column
    all-gather of ``segment`` bytes a rank (empty row and transpose entries
    beside it) and no totals' all-gather."""
    collectives = row["collectives"]
    del collectives["allreduce"]
    for name in ("row_allgather", "transpose"):
        collectives.setdefault(name, {"seconds": 1e-5, "bytes_out": 0, "bytes_in": 0, "calls": 1})
    collectives["column_allgather"] = {"seconds": 1e-5, "bytes_out": segment, "bytes_in": segment, "calls": 1}
    row["bytes_out"] = sum(entry["bytes_out"] for entry in collectives.values())
    row["comm_seconds"] = sum(entry["seconds"] for entry in collectives.values())


def test_a_small_level_with_a_fixed_exchange_checks(tmp_path):
    """DistributedTuning.fixed_ids_edges: a small top-down level sends its
    finds and totals as one segment a rank (header and capacity), so its
    row holds a column all-gather of the segment and no totals' all-gather;
    a segment too small for the rank's finds is caught, and traced_levels
    names the form."""
    layout = sm.Layout(1 << 12, 2, 1)
    assert sm.level_bytes(layout, 0, 3, exchange="fixed", segment_bytes=152) == {
        "fold": (0, 0), "row_allgather": (0, 0), "transpose": (0, 0), "column_allgather": (152, 152)}
    rows = _one_column_trace()
    for row in rows:
        if row["level"] == 3:  # 30 found (20 and 10): segments of 32 ids and a 3-slot header, 280 bytes
            _as_fixed(row, 280)
    for row in rows:
        row.setdefault("comm_seconds", sum(entry["seconds"] for entry in row["collectives"].values()))
    run = _gpu_report(tmp_path / "fixed.json", rows)
    check = sm.check_bytes(run)
    assert check.ok, check.mismatches
    assert [t.form for t in sm.traced_levels(run)] == ["none", "bitmap", "bitmap", "fixed", "none"]
    small = json.loads(json.dumps(rows))
    for row in small:
        if row["level"] == 3:
            row["collectives"]["column_allgather"].update(bytes_out=160, bytes_in=160)
            row["found"] = 20 + 18  # more finds than 17 ids fit
            row["bytes_out"] = sum(entry["bytes_out"] for entry in row["collectives"].values())
    assert any("cannot hold" in line for line in sm.check_bytes(_gpu_report(tmp_path / "small.json", small)).mismatches)
    # the last level small too: its segments went out (they carry the totals that end the search), and the trace
    # still follows today's rules, not those of the code that exchanged after the last level
    last = json.loads(json.dumps(rows))
    for row in last:
        if row["level"] == 4:
            _as_fixed(row, 280)
    run = _gpu_report(tmp_path / "last.json", last)
    assert sm.trace_rules(run) == "gpu"
    check = sm.check_bytes(run)
    assert check.ok, check.mismatches


def test_an_overlapped_one_column_trace_sends_the_bitmap(tmp_path):
    """DistributedTuning.overlap_chunks: a bottom-up level sends its bitmap
    while the step runs (sends and their wait: two calls or more), before
    the next direction is known, so no ids; on the last level the sends are
    filed as column_allgather_unread. Both check, and both stay out of the
    alpha-beta samples."""
    rows = _one_column_trace()
    for row in rows:
        collectives = row["collectives"]
        if row["level"] in (3, 4):
            row["direction"] = "bottom-up"
        if row["level"] == 3:
            collectives["column_allgather"].update(bytes_out=256, bytes_in=256, calls=2)
        if row["level"] == 4:
            collectives["column_allgather_unread"] = {"seconds": 1e-5, "bytes_out": 256, "bytes_in": 256, "calls": 2}
        row["bytes_out"] = sum(entry["bytes_out"] for entry in collectives.values())
    run = _gpu_report(tmp_path / "overlap.json", rows)
    assert sm.trace_rules(run) == "gpu"
    check = sm.check_bytes(run)
    assert check.ok, check.mismatches
    assert sum(sm.overlapped(run.layout, row) for row in run.trace) == 4  # levels 3 and 4 on both ranks
    names = sm.samples(run)[3]
    assert names.count("column_allgather") == 4 and "column_allgather_unread" not in names  # levels 1-2, 2 ranks
    # the same bitmap in one call is not overlapped: bound for a top-down level 4, level 3 should have sent ids
    plain = json.loads(json.dumps(rows))
    plain[3]["collectives"]["column_allgather"]["calls"] = 1
    for row in (plain[4], plain[9]):
        row["direction"] = "top-down"
        row["bytes_out"] -= row["collectives"].pop("column_allgather_unread")["bytes_out"]
    assert any("level 3 rank 0: column_allgather" in line
               for line in sm.check_bytes(_gpu_report(tmp_path / "plain.json", plain)).mismatches)


def test_predict_levels_gpu_kinds():
    """GPU kinds now: the totals' all-gather from the root on, nothing after
    the last level, and on one column the ids' bytes beside the bitmap's;
    the kinds before a8f02a2 keep the old rules."""
    now = sm.predict_levels(10, 2, 1, "nccl", roots=2)
    before = sm.predict_levels(10, 2, 1, "nccl-before-a8f02a2", roots=2)
    name = {c: 4 + i for i, c in enumerate(sm.COLLECTIVES)}
    assert len(now) == len(before) and len(now[0]) == len(before[0]) + 1
    assert now[0][name["allreduce"]] == "16" and before[0][name["allreduce"]] == "8"
    assert now[-1][name["column_allgather"]] == "-" and now[-1][-1] == "-"
    assert before[-1][name["column_allgather"]] == "64"  # a piece: 512 of the 1024 vertices, a bit each
    assert now[1][name["column_allgather"]] == "64" and now[1][name["fold"]] == "0"
    assert now[0][-1] == "-" and now[0][name["column_allgather"]] == "-"  # every rank queues the root itself
    with pytest.raises(ValueError, match="kind must be"):
        sm.predict_levels(10, 2, 1, "gpu")


def test_the_one_column_projection_by_hand():
    """2x1 at SCALE 27 with the trace's 9 rows: no fold; 3 bitmaps of a
    2^26-vertex piece, the trace's ids share of the reached vertices at 4
    bytes (half of them from the other rank) and 3 small levels' segments
    from the other rank; 8 column all-gathers (NCCL's 8.4 us + 1 NVLink
    step) and 6 host all-gathers (20 us + 1 step). The earlier rounds' code
    (the root sent, no small levels): 9 host all-gathers, no segments."""
    today, floor = sm.scenarios(sm.gpu_constants())
    p = sm.project(27, 2, sm.NVLINK, today, SHAPE_22, 9, grid=(2, 1))
    share = sm.one_column_exchanges().ids_share
    segment = 8 * ((1 << 14) + 3)
    assert p.grid == "2x1" and p.fold_bytes == 0
    assert p.bitmap_bytes == pytest.approx(3 * (1 << 23) + 4 * share * 0.57 * (1 << 27) / 2 + 3 * segment)
    assert p.latency == pytest.approx(8 * (8.4e-6 + 3.4e-6) + 6 * (20e-6 + 3.4e-6))
    old = sm.project(27, 2, sm.NVLINK, today, SHAPE_22, 9, grid=(2, 1), exchanges=sm.before_small_levels())
    old_share = sm.before_small_levels().ids_share
    assert old.bitmap_bytes == pytest.approx(3 * (1 << 23) + 4 * old_share * 0.57 * (1 << 27) / 2)
    assert old.latency == pytest.approx(8 * (8.4e-6 + 3.4e-6) + 9 * (20e-6 + 3.4e-6))
    assert p.compute == pytest.approx(TODAY_26)
    assert (p.comm_low, p.comm_high) == pytest.approx((p.bitmap_bytes / 450e9, p.bitmap_bytes / 300e9))
    from wavefront.distributed.memory import block_bytes

    assert p.block_bytes == block_bytes(27, 16, 2, 2, 1)
    # 64 x 1 at SCALE 30: the bitmaps stay about n/8 each (63 pieces of 2^24 vertices), the rings grow to 63 steps
    q = sm.project(30, 64, sm.NVLINK, floor, SHAPE_22, 8, grid=(64, 1))
    assert q.bitmap_bytes == pytest.approx(3 * 63 * (1 << 21) + 4 * share * 0.57 * (1 << 30) * 63 / 64
                                           + 3 * 63 * segment)
    assert q.latency == pytest.approx(7 * (8.4e-6 + 63 * 3.4e-6) + 5 * (8.4e-6 + 6 * 3.4e-6))
    with pytest.raises(ValueError, match="ranks, not"):
        sm.project(27, 4, sm.NVLINK, today, SHAPE_22, grid=(2, 1))
    # the default stays the most square grid
    assert sm.project(27, 2, sm.NVLINK, today, SHAPE_22, 9).grid == "1x2"


def test_fourth_round_points_are_compared_within_each_machine():
    rows = sm.two_gpu_points(SHAPE_22, sm.gpu_constants())  # the 1x2 history is untouched
    assert [row[0] for row in rows] == [27, 28]
    points = {(name, grid, scale, mode): rest for name, _, _, grid, scale, mode, *rest
              in sm.one_column_points(SHAPE_22, sm.gpu_constants())}
    ratios = {key: round(value[2], 2) for key, value in points.items()}
    assert ratios[("A", "2x1", 27, "after validation")] == 0.53
    assert ratios[("B", "2x1", 27, "after validation")] == 0.82
    assert ratios[("C", "2x1", 27, "after validation")] == 0.73
    assert ratios[("C", "2x1", 27, "back to back")] == 0.65
    assert ratios[("E", "2x1", 27, "back to back")] == 0.84  # against the 1.7 target
    assert ratios[("E", "2x1", 27, "back to back")] < sm.ONE_COLUMN_ROUND["target_teps_ratio"] / 2
    # on machine B, SCALE 26 on 1x2 took 2.8x what it took on 2x1
    assert points[("B", "1x2", 26, "back to back")][0] / points[("B", "2x1", 26, "back to back")][0] == \
        pytest.approx(2.81, abs=0.01)
    # the model of a 2x1 SCALE 27 search: the same machine's P = 1 SCALE 26 plus the one-column communication
    seconds, _, _, low, high = points[("E", "2x1", 27, "back to back")]
    comm = sm.project(27, 2, sm.NVLINK, sm.scenarios(sm.gpu_constants())[0], SHAPE_22, 9, grid=(2, 1),
                      exchanges=sm.before_small_levels())  # the code that round ran
    assert (low, high) == pytest.approx((3.16e-3 + comm.latency + comm.comm_low, 3.16e-3 + comm.latency
                                         + comm.comm_high))
    assert 1.45 < seconds / high < seconds / low < 1.55  # against 3.9-4.2x for 1x2 in the third round
    for (_, grid, scale, _), (_, _, _, low, _) in points.items():
        assert (low is None) == (grid != "2x1" or scale != 27)


def test_the_2x1_trace_split_and_column_allgathers():
    cut = sm.one_column_split()
    assert (cut.compute, cut.comm, cut.column_allgather) == pytest.approx((3.555e-3, 0.783e-3, 0.608e-3))
    assert cut.compute > 4 * cut.comm
    assert cut.bottom_up_compute == pytest.approx(1.745e-3 + 0.779e-3)
    assert cut.examined_ratio == pytest.approx(76029487 / 58e6)  # 1.31x
    assert cut.bottom_up_floor == pytest.approx((1.09e-3 + 0.57e-3) * 76029487 / 58e6)
    assert 0.15 < cut.above_floor < 0.17
    levels = sm.column_allgather_levels()
    assert [row[0] for row in levels] == list(range(8))  # the last level exchanges nothing
    for level, form, nbytes, low, high, seconds in levels:
        assert nbytes == ((1 << 23) if form == "bitmap" else 4 * {0: 1, 1: 2, 5: 155087, 6: 442, 7: 2}[level])
        assert low == pytest.approx(11.8e-6 + nbytes / 450e9) and high == pytest.approx(11.8e-6 + nbytes / 300e9)
        # the synchronized trace: 2.2-3.3x the model on bitmaps, more than 4x on ids (a call's fixed cost)
        assert (2.1 < seconds / high < seconds / low < 3.4) if form == "bitmap" else seconds / high > 4
    # its median fit passes through level 1 (64 us, 8 B) and level 4 (91 us, a bitmap): the bytes move at
    # NVLink-class speed; the 10th percentile through level 7 (49 us) and level 2 (87 us)
    fit = sm.one_column_fit()
    assert fit[0.5] == pytest.approx((64e-6, (1 << 23) / 27e-6), rel=1e-3)
    assert fit[0.1] == pytest.approx((49e-6, (1 << 23) / 38e-6), rel=1e-3)


def test_where_communication_takes_over_on_one_column():
    """Bytes alone, compute proportional to the share's edges: P - 1 =
    beta * t26 / (2^26 * (3/8 + 4 * ids share * reached)), at any SCALE."""
    share = sm.one_column_exchanges().ids_share
    for seconds, beta in ((2.46e-3, 300e9), (3.62e-3, 450e9)):
        want = 1 + beta * seconds / ((1 << 26) * (3 / 8 + 4 * share * 0.571))
        assert sm.bytes_crossover_size(seconds, beta) == pytest.approx(want)
    assert 29 < sm.bytes_crossover_size(2.46e-3, 300e9) < 31 and 63 < sm.bytes_crossover_size(3.62e-3, 450e9) < 65
    # with latency and the measured compute curves: strong scaling at SCALE 30
    today, floor = sm.scenarios(sm.gpu_constants())
    # today's path on one GPU (2.53 ms at SCALE 26): 30-45 GPUs
    assert 29 < sm.bytes_crossover_size(TODAY_26, 300e9) < 31 and 44 < sm.bytes_crossover_size(TODAY_26, 450e9) < 46
    # with latency and the measured compute curves (today's anchors): strong scaling at SCALE 30
    strong = sm.one_column_crossover("strong", sm.NVLINK, today, SHAPE_22, 8, strong_scale=30)
    assert sm.crossover_size(strong, "low") == sm.crossover_size(strong, "high") == 32  # 64 on the third round's
    third = sm.one_column_crossover("strong", sm.NVLINK, today, SHAPE_22, 8, strong_scale=30,
                                    anchors=sm.H100_NVLINK_2GPU)
    assert sm.crossover_size(third, "low") == sm.crossover_size(third, "high") == 64
    by_p = {row[0]: row for row in strong}
    latency = 7 * (8.4e-6 + 63 * 3.4e-6) + 5 * (20e-6 + 6 * 3.4e-6)  # no host all-gather on 3 small levels
    moved = 3 * 63 * (1 << 21) + 4 * share * 0.57 * (1 << 30) * 63 / 64 + 3 * 63 * 8 * ((1 << 14) + 3)
    assert by_p[64][7] == pytest.approx((latency + moved / 300e9) / TODAY_24)
    # one column first holds SCALE 30 at 16 H100s (in powers of two), just short of where communication takes over
    assert next(row[0] for row in strong if row[8]) == 16 and by_p[16][7] < 1 < by_p[32][7]
    floor_rows = sm.one_column_crossover("strong", sm.NVLINK, floor, SHAPE_22, 8, strong_scale=30)
    assert sm.crossover_size(floor_rows, "low") == 32
    # weak scaling (2^26 vertices a GPU): the bytes a rank grow as P; memory ends it first, past 16 H100s
    weak = sm.one_column_crossover("weak", sm.NVLINK, today, SHAPE_22, 8)
    assert [row[0] for row in weak if row[8]] == [2, 4, 8, 16]
    assert max(row[7] for row in weak if row[8]) < 0.8 and sm.crossover_size(weak, "low") == 32
    # the memory's O(n) part: 40.6 bytes a vertex of the whole range on every GPU of one column (no step
    # arrays there: GPUBlock.step_arrays); a 2-D grid's block adds them, 12 bytes a vertex of its span
    from wavefront.distributed.memory import block_bytes_for

    assert block_bytes_for(1 << 30, 0, 1 << 14, 1 << 14, 1) / (1 << 30) == pytest.approx(40.64, abs=0.01)
    # 1x2 against 2x1 (same span): what only a grid that folds holds, the step's arrays (12 bytes a vertex of
    # the span) and the fold's pair buffers (32 bytes a vertex of the row block, here the whole range)
    assert block_bytes_for(1 << 30, 0, 2, 1, 2) - block_bytes_for(1 << 30, 0, 2, 2, 1) == (12 + 32) << 30


def test_the_shape_file_round_trips(tmp_path):
    path = tmp_path / "shape.json"
    measured = sm.load_or_measure_shape(9, path)
    assert path.exists() and sm.load_or_measure_shape(9, path) == measured
    assert 0 < measured.reached <= 1 and measured.duplication[1] == pytest.approx(1.0)
    assert all(measured.duplication[c] <= c for c in measured.duplication)


# -- against real traces -------------------------------------------------------------------------------------------
def _assert_exact(path: Path, size: int):
    run = sm.load_run(path)
    assert run.layout.size == size and {row["rank"] for row in run.trace} == set(range(size))
    counts = sm.counts_for(run)
    exact = sm.check_bytes(run, counts)
    assert exact.ok, exact.mismatches[:10]
    assert exact.fold_exact and exact.rows == len(run.trace) == counts.levels * size
    # every collective a row filed, both directions: four a level, three on a small level whose segments
    # carry the totals (no totals' all-gather)
    assert exact.compared == 2 * sum(len(row["collectives"]) for row in run.trace) >= 2 * 3 * len(run.trace)
    loose = sm.check_bytes(run)  # the fold by its identity alone
    assert loose.ok, loose.mismatches[:10]
    return run, counts


def test_in_process_report_bytes_equal_the_model(tmp_path, capsys):
    path = tmp_path / "report.json"
    status = main(["graph500", "--distributed", "--backend", "cpu", "--scale", "10", "--roots", "4",
                   "--kernels", "bfs", "--no-progress", "--json", str(path)])
    assert status == 0, capsys.readouterr().err
    run, counts = _assert_exact(path, 1)
    assert all(entry["bytes_out"] == 0 for row in run.trace for entry in row["collectives"].values())
    assert counts.discovered.sum() == sum(row["discovered"] for row in run.trace)


def test_a_wrong_count_is_caught(tmp_path, capsys):
    """The check can fail: one byte more in one collective, or a pair moved
    from the self-addressed share to another rank, is reported."""
    path = tmp_path / "report.json"
    assert main(["graph500", "--distributed", "--backend", "cpu", "--scale", "9", "--roots", "2",
                 "--kernels", "bfs", "--no-progress", "--json", str(path)]) == 0
    capsys.readouterr()
    data = json.loads(path.read_text())
    row = data["kernels"]["bfs"]["trace"][1]
    row["collectives"]["row_allgather"]["bytes_out"] += 1
    row["bytes_out"] += 1
    path.write_text(json.dumps(data))
    run = sm.load_run(path)
    check = sm.check_bytes(run, sm.counts_for(run))
    assert not check.ok and any("row_allgather" in line for line in check.mismatches)
    counts = sm.counts_for(run)
    counts.to_others[2, 0] += 1
    assert any("fold" in line for line in sm.check_bytes(run, counts).mismatches)


@pytest.mark.parametrize("size", [2, 4])
def test_mpirun_report_bytes_equal_the_model(size, tmp_path):
    from test_distributed import mpirun

    path = tmp_path / "report.json"
    done = mpirun(size, sys.executable, "-m", "wavefront", "graph500", "--scale", 10, "--roots", 4,
                  "--backend", "cpu", "--kernels", "bfs", "--no-progress", "--json", path,
                  "--grid", "x".join(map(str, grid_shape(size))))  # the 2-D grid the model was measured on
    assert done.returncode == 0, done.stderr[-3000:]
    run, counts = _assert_exact(path, size)
    assert any(row["collectives"]["fold"]["bytes_out"] > 8 for row in run.trace if row["level"] > 0)
    assert counts.deduplicated.any()  # the scan's bytes were checked too
    if size == 4:  # a 2x2 grid: off-diagonal ranks swap pieces, columns all-gather
        assert any(row["collectives"]["transpose"]["bytes_out"] > 0 for row in run.trace)


def test_script_prints_the_check_fit_and_projection(tmp_path, capsys):
    path = tmp_path / "report.json"
    assert main(["graph500", "--distributed", "--backend", "cpu", "--scale", "9", "--roots", "2",
                 "--kernels", "bfs", "--no-progress", "--json", str(path)]) == 0
    capsys.readouterr()
    status = sm.main([str(path), "--exact", "--markdown", "--shape-scale", "10", "--predict", "9:1x2:nccl",
                      "--roots", "2"])
    out = capsys.readouterr().out
    assert status == 0
    assert "| report.json | 1x1 | 9 | cpu/mpi |" in out and "| exact | yes |" in out
    assert "weak scaling, SCALE 26 + log2 P" in out and "strong scaling, SCALE 30" in out
    assert out.count("| 1024 | 32x32 |") == 8  # 2 series x 2 links x 2 scenarios
    assert "| SCALE 26 on 1 -> 27 on 2 (0f7641c/ec6a706) |" in out and "| 16.52 |" in out
    assert "| SCALE 26 on 1 -> 27 on 2 (c07a3b4) |" in out and "| 9.26 |" in out
    assert "| all | 2.92 | 0.19 | 13.49 | 5.70 | 10.57 | 5.52 |" in out
    assert "| 28 | 6.08 |" in out and "| 45.40 |" in out
    assert "Not measured yet" in out
    # the fourth round: each machine against itself, the 2x1 trace against the model, one column's tables
    assert "| E | 2 x H200 | a227212 | 2x1 | 27 | back to back | 5.33 | 401.8 | 0.84 |" in out
    assert "| B | 2 x H100 80GB | 9527731 | 1x2 | 26 | back to back | 11.20 | 93.6 | 0.23 | - | - |" in out
    assert "| 3 | bitmap | 8,388,608 | 30.4-39.8 | 99 | 2.5-3.3x |" in out
    assert "| 0.5 | 64.0 us | 310.69 GB/s |" in out
    assert out.count("| 64 | 64x1 |") == 3  # weak, strong at 30 and at 27


# -- on a GPU ------------------------------------------------------------------------------------------------------
@pytest.mark.gpu
@pytest.mark.parametrize("grid", [None, "1x2"])
def test_mpirun_gpu_report_bytes_equal_the_model(grid, tmp_path):
    """GPU blocks: no fold deduplication, and the count exchange outside the
    fold's counter on NCCL (two GPUs) but inside it when staged (one GPU);
    the exchanges of a8f02a2 and later (nothing after the last level, the
    totals' host all-gather), on the default one-column grid (2x1: ids
    before top-down levels, the root's among them) and on 1x2."""
    from test_distributed import mpirun

    path = tmp_path / "report.json"
    done = mpirun(2, sys.executable, "-m", "wavefront", "graph500", "--scale", 12, "--roots", 2,
                  "--backend", "cuda", "--kernels", "bfs", "--no-progress", "--json", path,
                  *(("--grid", grid) if grid else ()))
    assert done.returncode == 0, done.stderr[-3000:]
    run, counts = _assert_exact(path, 2)
    assert run.backend == "cuda" and not counts.deduplicated.any() and sm.trace_rules(run) == "gpu"
    assert f"{run.layout.rows}x{run.layout.cols}" == (grid or "2x1")
    root_sends = {row["collectives"].get("column_allgather", {}).get("bytes_out") for row in run.trace
                  if row["level"] == 0}
    assert root_sends == ({None} if grid is None else {0})  # 2x1: every rank queues the root; 1x2: bitmaps


def test_the_gpu_benchmark_s_trace_report_is_what_the_model_reads(tmp_path):
    """benchmarks/distributed_gpu.py --trace --json writes the traced search
    as load_run reads a Graph500 report: its layout, transport and trace
    check like one, and an existing file is never overwritten."""
    spec = importlib.util.spec_from_file_location("distributed_gpu", ROOT / "benchmarks" / "distributed_gpu.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    rows = _one_column_trace()
    path = tmp_path / "trace.json"
    grid = SimpleNamespace(size=2, rows=2, cols=1)  # rank 0's view of a 2x1 grid, no world needed
    bench.write_trace_report(path, 12, grid, "nccl", "NVIDIA H200", 3000, rows)
    run = sm.load_run(path)
    assert (run.scale, run.root, run.transport, run.device) == (12, 3000, "nccl", "NVIDIA H200")
    assert (run.layout.rows, run.layout.cols, run.layout.nccl) == (2, 1, True)
    check = sm.check_bytes(run)
    assert check.ok and check.compared == 2 * sum(len(row["collectives"]) for row in rows), check.mismatches
    with pytest.raises(FileExistsError):
        bench.write_trace_report(path, 12, grid, "nccl", "NVIDIA H200", 3000, rows)
    # its A/B takes the values the tuning and the policy take, and refuses the rest before building a graph
    label, tuning, options = bench.tuning_spec("fixed_ids_edges=0,stay_bottom_up_edges=None,alpha=30")
    assert label == "fixed_ids_edges=0,stay_bottom_up_edges=None,alpha=30" and options == {"alpha": 30.0}
    assert (tuning.fixed_ids_edges, tuning.stay_bottom_up_edges) == (0, None)
    assert bench.tuning_spec("default")[1:] == (wd.DistributedTuning(), {})
    assert bench.tuning_spec("fold_dedupe=never")[1].fold_dedupe == "never"
    assert bench.tuning_spec("bottom_up_ahead=False,whole_graph_search=False")[1] == wd.DistributedTuning(
        bottom_up_ahead=False, whole_graph_search=False)
    for bad in ("fixed_ids_edges=-1", "fixed_ids_edges=x", f"fixed_ids_edges={(1 << 20) + 1}", "no_such_field=1",
                "fixed_ids_edges", "alpha=0", "beta=-2", "alpha=x", "bottom_up_ahead=no"):
        with pytest.raises(argparse.ArgumentTypeError):
            bench.tuning_spec(bad)


def test_a_world_of_one_running_the_single_gpu_search_exchanges_nothing(tmp_path):
    """Since 588e75b P = 1 on a GPU runs the single-GPU search: its trace rows
    hold no collective, and the check expects none; a collective in such a
    trace is the 2-D loop's, whose rules then apply (and this one breaks them)."""
    rows = [{"rank": 0, "level": level, "direction": direction, "discovered": 1, "frontier_edges": -1,
             "deduplicated": False, "found": 1, "sent": 1, "received": 1, "collectives": {}, "bytes_out": 0,
             "comm_seconds": 0.0} for level, direction in enumerate(("root", "top-down", "bottom-up"))]
    run = _gpu_report(tmp_path / "p1.json", rows, grid="1x1")
    assert sm.trace_rules(run) == "gpu-whole-graph"
    check = sm.check_bytes(run)
    assert check.ok and check.rows == 3 and check.compared == 0
    assert not sm.fit_runs([run])  # nothing exchanged, nothing fitted
    rows[1]["collectives"] = {"column_allgather": {"seconds": 1e-5, "bytes_out": 4, "bytes_in": 0, "calls": 1}}
    rows[1]["bytes_out"] = 4
    loop = _gpu_report(tmp_path / "loop.json", rows, grid="1x1")
    assert sm.trace_rules(loop) == "gpu" and not sm.check_bytes(loop).ok


def test_traced_levels_price_each_level_of_a_one_column_trace(tmp_path):
    rows = _one_column_trace()
    rows[3]["collectives"]["column_allgather"]["seconds"] = 7e-5  # rank 0's level 3 ids took longer
    for row in rows:
        row["comm_seconds"] = sum(entry["seconds"] for entry in row["collectives"].values())
    run = _gpu_report(tmp_path / "report.json", rows)
    levels = sm.traced_levels(run, host_call=20e-6)
    assert [t.form for t in levels] == ["none", "bitmap", "bitmap", "ids", "none"]
    assert [t.bytes_in for t in levels] == [0, 256, 256, 80, 0]  # the most a rank received: level 3, rank 1's
    ring = sm.NCCL_BASE + sm.NVLINK.step  # two ranks: one ring step
    level3 = levels[3]
    assert level3.model_low == pytest.approx(ring + 80 / sm.NVLINK.beta_high)
    assert level3.model_high == pytest.approx(ring + 80 / sm.NVLINK.beta_low)
    assert level3.traced == (1e-5, 7e-5)
    assert level3.totals_model == pytest.approx(20e-6 + sm.NVLINK.step)  # ceil(log2 2) = 1 step
    assert levels[4].comm_model == (pytest.approx(20e-6 + sm.NVLINK.step),) * 2  # no exchange after the last
    assert level3.comm_traced == (pytest.approx(5e-5), pytest.approx(1.1e-4))  # 5 collectives; one 7e-5
    # an overlapped bottom-up level is named so, its seconds what the step left
    rows[5 + 2]["direction"] = rows[2]["direction"] = "bottom-up"
    rows[2]["collectives"]["column_allgather"]["calls"] = rows[7]["collectives"]["column_allgather"]["calls"] = 2
    assert sm.traced_levels(_gpu_report(tmp_path / "o.json", rows))[2].form == "overlapped"
    with pytest.raises(ValueError, match="one-column GPU report"):
        sm.traced_levels(_gpu_report(tmp_path / "wide.json", rows, grid="1x2"))


def test_the_four_gpu_round_is_compared_within_each_machine():
    points = {(name, grid, scale, binding): rest for name, grid, scale, binding, *rest
              in sm.four_gpu_points(SHAPE_22, sm.gpu_constants())}
    seconds, gteps, single, p1, low, high = points[("H", "4x1", 28, "bound")]
    assert (seconds, gteps) == (4.12e-3, 991.1)  # the best pass by GTEPS
    assert single == pytest.approx(991.1 / 504.2) and p1 == pytest.approx(991.1 / np.mean([451.1, 414.4, 438.5,
                                                                                              436.6]))
    p1_seconds = np.mean([2.27e-3, 2.44e-3, 2.30e-3, 2.30e-3])
    p = sm.project(28, 4, sm.NVLINK, sm.scenarios(sm.gpu_constants())[0], SHAPE_22, 9, grid=(4, 1),
                   exchanges=sm.before_small_levels())  # the code that round ran
    assert (low, high) == (pytest.approx(p1_seconds + p.latency + p.comm_low),
                           pytest.approx(p1_seconds + p.latency + p.comm_high))
    # machine J ran the code with small levels: its model prices today's exchanges, not the fifth round's
    seconds, _, _, _, low, high = points[("J", "4x1", 28, "unbound")]
    p1_seconds = np.mean([2.64e-3, 2.62e-3, 2.77e-3])
    today = sm.project(28, 4, sm.NVLINK, sm.scenarios(sm.gpu_constants())[0], SHAPE_22, 9, grid=(4, 1),
                       exchanges=sm.one_column_exchanges())
    assert seconds == 4.40e-3 and low == pytest.approx(p1_seconds + today.latency + today.comm_low)
    assert today.latency + today.comm_low != pytest.approx(p.latency + p.comm_low)
    assert points[("F", "2x2", 28, "unbound")][4] is None  # off the one-column series: no model
    assert points[("G", "4x1", 27, "bound")][4] is None  # strong scaling: no model
    assert points[("I", "4x1", 27, "unbound")][2:4] == [None, None]  # no single-GPU run on that machine
    # the 2-GPU goal (1.7x the single GPU's TEPS) is still missed on every machine
    assert all(points[key][2] < 1.7 for key in points if key[1] == "2x1")
