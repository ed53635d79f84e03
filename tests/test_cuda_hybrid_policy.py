"""The CUDA hybrid's direction rules (wavefront.bfs.policy.CUDAHybridPolicy),
on the CPU: each rule in isolation, in the order the driver applies them."""
import pytest

from wavefront.backends.cuda.bfs_tuning import BFSTuning, tuning_from
from wavefront.bfs.policy import BOTTOM_UP, TOP_DOWN, CUDAHybridPolicy, FixedPolicy, GAPPolicy, LevelState

N, M = 1 << 20, 1 << 24


def state(level=3, n_f=100_000, m_f=2_000_000, m_u=10_000_000, previous=50_000, direction=TOP_DOWN):
    return LevelState(level, N, M, n_f, m_f, m_u, previous, direction)


def rules(**kw):
    base = dict(single_block_vertices=3072, single_block_edges=16384, bottom_up_min_edges=N // 1024,
                stay_margin=N // 256, bottom_up_ahead=True)
    return CUDAHybridPolicy(GAPPolicy(), **{**base, **kw})


def test_root_runs_top_down_in_the_single_block_when_its_degree_is_unknown():
    d = rules().choose(state(level=1, n_f=1, m_f=None, m_u=None, previous=0))
    assert d.direction == TOP_DOWN and d.single_block and d.reason == "root: top-down"


def test_the_base_policy_decides_big_frontiers():
    d = rules().choose(state())  # m_f > m_u / 15
    assert d.direction == BOTTOM_UP and not d.single_block and d.queue_next
    assert "m_u/alpha" in d.reason


def test_a_frontier_that_fits_the_single_block_stays_top_down():
    d = rules().choose(state(n_f=100, m_f=10_000, m_u=20_000))  # GAP alone: bottom-up
    assert GAPPolicy().choose(state(n_f=100, m_f=10_000, m_u=20_000))[0] == BOTTOM_UP
    assert d.direction == TOP_DOWN and d.single_block and "fits the single block" in d.reason
    off = rules(single_block_vertices=0).choose(state(n_f=100, m_f=10_000, m_u=20_000))
    assert off.direction == BOTTOM_UP and not off.single_block


def test_few_frontier_edges_go_top_down():
    s = state(n_f=5000, m_f=900, m_u=1000)
    d = rules().choose(s)
    assert d.direction == TOP_DOWN and not d.single_block and f"m_f < {N // 1024}" in d.reason
    assert rules(bottom_up_min_edges=0).choose(s).direction == BOTTOM_UP


def test_stays_bottom_up_while_few_edges_are_unexplored():
    s = state(n_f=10_000, previous=900_000, m_f=2_000_000, m_u=10_000, direction=BOTTOM_UP)
    assert GAPPolicy().choose(s)[0] == TOP_DOWN
    d = rules().choose(s)
    assert d.direction == BOTTOM_UP and "stays bottom-up" in d.reason
    assert rules(stay_margin=None).choose(s).direction == TOP_DOWN
    near = state(n_f=10_000, previous=900_000, m_f=10_000 + N // 256, m_u=10_000, direction=BOTTOM_UP)
    assert rules().choose(near).direction == TOP_DOWN  # not more than the sweep's worth


def test_a_queued_level_runs_bottom_up_and_queues_nothing_itself():
    s = state(n_f=100, m_f=10_000, m_u=20_000)
    d = rules().choose(s, queued=True)
    assert d.direction == BOTTOM_UP and not d.single_block and not d.queue_next
    assert "already queued" in d.reason


def test_nothing_is_queued_past_the_depth_limit_or_when_off():
    assert not rules().choose(state(level=4), last_level=4).queue_next
    assert rules().choose(state(level=4), last_level=5).queue_next
    assert not rules(bottom_up_ahead=False).choose(state()).queue_next


def test_fixed_policies_keep_their_direction():
    top = CUDAHybridPolicy(FixedPolicy(TOP_DOWN))
    assert top.choose(state()).direction == TOP_DOWN and not top.choose(state()).single_block
    bottom = CUDAHybridPolicy(FixedPolicy(BOTTOM_UP), bottom_up_ahead=True)
    d = bottom.choose(state(n_f=1, m_f=3))
    assert d.direction == BOTTOM_UP and d.queue_next


def test_tuning_is_frozen_validated_and_replaced_by_name():
    t = BFSTuning()
    with pytest.raises(Exception):
        t.single_block = False
    assert tuning_from(None, single_block=False, neighbour_order=None) == BFSTuning(single_block=False)
    assert tuning_from(t) is t
    with pytest.raises(TypeError, match="unknown BFS option"):
        tuning_from(None, single_blok=False)
    with pytest.raises(ValueError, match="neighbour_order"):
        BFSTuning(neighbour_order="random")
    with pytest.raises(ValueError, match="single_block_edges"):
        BFSTuning(single_block_edges=2**21)
    with pytest.raises(ValueError, match="bottom_up_large_probe"):
        BFSTuning(bottom_up_large_probe=12)
    assert BFSTuning(bottom_up_small_unroll=4).defines("bfs_bottom_up.cu")["BU_SMALL_UNROLL"] == 4
    assert BFSTuning().defines("bfs_convert.cu") == {}
    assert hash(BFSTuning()) == hash(BFSTuning())  # keys the kernel cache


def test_block_rules_keep_the_rules_that_hold_between_exchanged_levels():
    """The distributed GPU search's rules (backends/cuda/bfs.block_rules):
    the stay-bottom-up margin and bottom_up_min_edges, no single block, nothing
    queued ahead; a fixed direction stays fixed."""
    from wavefront.backends.cuda.bfs import block_rules

    tuning = BFSTuning()
    policy = block_rules(GAPPolicy(), tuning, N)
    assert policy.single_block_vertices == 0 and not policy.bottom_up_ahead
    assert policy.stay_margin == N // tuning.stay_bottom_up_ratio
    assert policy.bottom_up_min_edges == N // tuning.bottom_up_min_edges_ratio
    # SCALE 26's case: a shrinking frontier of leaves after a bottom-up level.
    # GAP goes back top-down; its arcs still exceed the unexplored ones by
    # more than the margin, so the level stays bottom-up.
    leaves = state(level=6, n_f=N // 40, m_f=N // 30, m_u=N // 100, previous=N // 3, direction=BOTTOM_UP)
    assert GAPPolicy().choose(leaves)[0] == TOP_DOWN
    decision = policy.choose(leaves)
    assert decision.direction == BOTTOM_UP and not decision.single_block and not decision.queue_next
    assert "stays bottom-up" in decision.reason
    tiny = state(n_f=10, m_f=100, m_u=200)  # GAP alone: bottom-up; too few arcs for a sweep
    assert GAPPolicy().choose(tiny)[0] == BOTTOM_UP and policy.choose(tiny).direction == TOP_DOWN
    fixed = block_rules(FixedPolicy(BOTTOM_UP), tuning, N)
    assert fixed.choose(tiny).direction == BOTTOM_UP and fixed.choose(leaves).direction == BOTTOM_UP
    kept = block_rules(FixedPolicy(BOTTOM_UP), tuning, N, 1 << 14, 1 << 23)  # small levels do not move it
    assert kept.choose(tiny).direction == BOTTOM_UP and kept.stay_margin is None and kept.single_block_vertices == 0


def test_block_rules_with_small_levels_stay_bottom_up_until_a_frontier_fits_them():
    """With the one-column search's small top-down levels (``small_edges``)
    and ``stay_edges``: a switch back to top-down waits while m_f > m_u -
    stay_edges, unless the frontier fits the small levels, which always run
    top-down; without ``stay_edges`` the tuning's margin holds."""
    from wavefront.backends.cuda.bfs import block_rules

    tuning = BFSTuning()
    small, stay = 1 << 10, 1 << 12
    policy = block_rules(GAPPolicy(), tuning, N, small, stay)
    assert policy.stay_margin == -stay and policy.single_block_edges == small and not policy.bottom_up_ahead
    # GAP goes back top-down; the old margin would too (m_f < m_u + n/256), the new rule stays bottom-up
    leaves = state(level=6, n_f=N // 400, m_f=N // 300, m_u=N // 300 + stay - 1, previous=N // 3,
                   direction=BOTTOM_UP)
    assert GAPPolicy().choose(leaves)[0] == TOP_DOWN
    assert block_rules(GAPPolicy(), tuning, N).choose(leaves).direction == TOP_DOWN
    assert block_rules(GAPPolicy(), tuning, N, small).choose(leaves).direction == TOP_DOWN
    decision = policy.choose(leaves)
    assert decision.direction == BOTTOM_UP and "stays bottom-up" in decision.reason
    # more unexplored arcs than the frontier's by stay_edges: top-down
    far = state(level=6, n_f=N // 400, m_f=N // 300, m_u=N // 300 + stay + 1, previous=N // 3, direction=BOTTOM_UP)
    assert policy.choose(far).direction == TOP_DOWN
    # a frontier the small levels take goes top-down, whatever the margin or GAP say
    fits = state(level=7, n_f=20, m_f=small, m_u=10 * small, previous=N // 400, direction=BOTTOM_UP)
    assert policy.choose(fits).direction == TOP_DOWN
    growing = state(level=2, n_f=20, m_f=small, m_u=1, previous=1, direction=TOP_DOWN)
    assert GAPPolicy().choose(growing)[0] == BOTTOM_UP and policy.choose(growing).direction == TOP_DOWN
    over = state(level=7, n_f=20, m_f=small + 1, m_u=small, previous=N // 400, direction=BOTTOM_UP)
    assert policy.choose(over).direction == BOTTOM_UP


def test_block_rules_ahead_queue_the_level_after_a_bottom_up_one():
    """``ahead`` (DistributedTuning.bottom_up_ahead on a one-column grid): a
    level the rules send bottom-up queues the next one's step, which then
    runs bottom-up whatever the rules say (the small levels' frontier
    included), and queues nothing itself; nothing is queued past the depth
    limit; a fixed bottom-up direction queues every level."""
    from wavefront.backends.cuda.bfs import block_rules

    tuning, small, stay = BFSTuning(), 1 << 10, 1 << 12
    policy = block_rules(GAPPolicy(), tuning, N, small, stay, True)
    assert policy.bottom_up_ahead and not block_rules(GAPPolicy(), tuning, N, small, stay).bottom_up_ahead
    big = state(level=3, n_f=N // 10, m_f=N * 4, m_u=N * 8, previous=1000, direction=TOP_DOWN)
    decision = policy.choose(big)
    assert decision.direction == BOTTOM_UP and decision.queue_next
    assert not policy.choose(big, last_level=3).queue_next  # the depth limit: no level follows
    assert policy.choose(big, last_level=4).queue_next
    fits = state(level=7, n_f=20, m_f=small, m_u=10 * small, previous=N // 400, direction=BOTTOM_UP)
    assert policy.choose(fits).direction == TOP_DOWN
    queued = policy.choose(fits, queued=True)
    assert queued.direction == BOTTOM_UP and not queued.queue_next and "already queued" in queued.reason
    fixed = block_rules(FixedPolicy(BOTTOM_UP), tuning, N, small, stay, True)
    assert fixed.choose(fits).direction == BOTTOM_UP and fixed.choose(fits).queue_next
    assert not block_rules(FixedPolicy(TOP_DOWN), tuning, N, small, stay, True).choose(big).queue_next
