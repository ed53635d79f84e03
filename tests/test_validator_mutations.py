"""Mutation test of both Graph500 validators.

Every kind of fault a search can make is planted in valid results on several
Graph500-style tuple lists (duplicates, self-loops, isolated vertices), and
each mutant must be rejected by the rule named for that fault. One test per
fault kind (its id names the fault), and a summary that reports the kill rate
over all mutants: the goal, and the assertion, is 100 %.
"""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from wavefront.errors import ValidationError
from wavefront.validate import validate_bfs, validate_sssp

from test_validate import Case, make_case

SEEDS = range(6)


def graph(seed: int) -> Case:
    """A connected-ish random tuple list plus isolated vertices and a second component."""
    rng = np.random.default_rng(seed)
    n_main = int(rng.integers(40, 120))
    m = 3 * n_main
    src = rng.integers(0, n_main, m)
    dst = rng.integers(0, n_main, m)
    dup = rng.integers(0, m, m // 5)
    loops = rng.integers(0, n_main, 4)
    # A second component the root cannot reach, and 3 isolated vertices.
    other = n_main + np.arange(6)
    src = np.concatenate([src, src[dup], loops, other[:-1]])
    dst = np.concatenate([dst, dst[dup], loops, other[1:]])
    weights = rng.uniform(0.05, 1.0, src.shape[0]).astype(np.float32)
    return make_case(src, dst, weights, n_main + 9, int(src[0]))


def reached_by_level(case: Case):
    levels = case.levels
    return [v for v in np.flatnonzero(levels > 0).tolist()]


def is_leaf(parents, v) -> bool:
    return not bool((parents == v).any())


def tree_leaf(case: Case, parents) -> int:
    return next(v for v in reversed(np.argsort(case.levels, kind="stable").tolist())
                if parents[v] >= 0 and v != case.root and is_leaf(parents, v))


def unreached(case: Case) -> int:
    return int(np.flatnonzero(case.parents < 0)[0])


# -- the faults: f(case) -> (kernel, result, nedge, rules that name it) -----------------
def bfs_parent_not_neighbour(case):
    parents, levels = case.parents.copy(), case.levels
    for v in reached_by_level(case):
        options = [u for u in np.flatnonzero(levels == levels[v] - 1).tolist()
                   if u not in case.neighbours(v)]
        if options:
            parents[v] = options[0]
            return "bfs", case.bfs(parents, levels), None, {"tree-edge-missing"}
    return None


def parent_cycle(kernel):
    def fault(case):
        parents = (case.parents if kernel == "bfs" else case.sp_parents).copy()
        v = tree_leaf(case, parents)
        u = int(parents[v])
        if u == case.root:
            return None
        parents[u] = v  # u <- v <- u
        result = case.bfs(parents) if kernel == "bfs" else case.sssp(parents)
        return kernel, result, None, {"tree-cycle"}
    return fault


def root_parent_wrong(kernel):
    def fault(case):
        parents = (case.parents if kernel == "bfs" else case.sp_parents).copy()
        parents[case.root] = sorted(case.neighbours(case.root))[0]
        result = case.bfs(parents) if kernel == "bfs" else case.sssp(parents)
        return kernel, result, None, {"root-parent"}
    return fault


def level_change(delta):
    def fault(case):
        levels = case.levels.copy()
        levels[tree_leaf(case, case.parents)] += delta
        return "bfs", case.bfs(levels=levels), None, {"tree-level"}
    return fault


def bfs_root_level(case):
    levels = case.levels.copy()
    levels[case.root] = 1
    return "bfs", case.bfs(levels=levels), None, {"level-root"}


def bfs_unreached_level(case):
    levels = case.levels.copy()
    levels[unreached(case)] = 2
    return "bfs", case.bfs(levels=levels), None, {"level-reached"}


def reached_marked_unreached(kernel):
    def fault(case):
        if kernel == "bfs":
            parents, levels = case.parents.copy(), case.levels.copy()
            v = tree_leaf(case, parents)
            parents[v], levels[v] = -1, -1
            return kernel, case.bfs(parents, levels), None, {"edge-reached-unreached"}
        parents, distances = case.sp_parents.copy(), case.distances.copy()
        v = tree_leaf(case, parents)
        parents[v], distances[v] = -1, np.inf
        return kernel, case.sssp(parents, distances), None, {"edge-reached-unreached"}
    return fault


def unreached_marked_reached(kernel):
    def fault(case):
        u = int(np.flatnonzero((case.parents < 0))[0])  # first of the unreachable component
        if kernel == "bfs":
            parents, levels = case.parents.copy(), case.levels.copy()
            parents[u], levels[u] = case.root, 1
            return kernel, case.bfs(parents, levels), None, {"edge-reached-unreached", "tree-edge-missing"}
        parents, distances = case.sp_parents.copy(), case.distances.copy()
        parents[u], distances[u] = case.root, np.float32(1.0)
        return kernel, case.sssp(parents, distances), None, {"edge-reached-unreached", "tree-edge-missing"}
    return fault


def wrong_nedge(kernel, delta):
    def fault(case):
        result = case.bfs(levels=case.levels) if kernel == "bfs" else case.sssp()
        return kernel, result, case.nedge() + delta, {"edge-count"}
    return fault


def distance_ulp(direction):
    def fault(case):
        distances = case.distances.copy()
        v = tree_leaf(case, case.sp_parents)
        distances[v] = np.nextafter(distances[v], np.float32(direction * np.inf))
        return "sssp", case.sssp(distances=distances), None, {"edge-relaxed", "pred-distance"}
    return fault


def unreached_distance(value):
    def fault(case):
        distances = case.distances.copy()
        distances[unreached(case)] = value
        return "sssp", case.sssp(distances=distances), None, {"distance-unreached"}
    return fault


def reached_infinite(case):
    distances = case.distances.copy()
    distances[tree_leaf(case, case.sp_parents)] = np.inf
    return "sssp", case.sssp(distances=distances), None, {"distance-reached"}


def root_distance(case):
    distances = case.distances.copy()
    distances[case.root] = np.float32(0.5)
    return "sssp", case.sssp(distances=distances), None, {"root-distance"}


def sssp_parent_not_neighbour(case):
    parents, d = case.sp_parents.copy(), case.distances
    for v in np.argsort(d).tolist():
        if parents[v] < 0 or v == case.root:
            continue
        options = [u for u in np.flatnonzero((case.sp_parents >= 0) & (d < d[v])).tolist()
                   if u not in case.neighbours(v)]
        if options:
            parents[v] = options[0]
            return "sssp", case.sssp(parents), None, {"tree-edge-missing"}
    return None


FAULTS = {
    "bfs-parent-not-a-neighbour": bfs_parent_not_neighbour,
    "bfs-parent-cycle": parent_cycle("bfs"),
    "bfs-root-parent-wrong": root_parent_wrong("bfs"),
    "bfs-level-skip": level_change(+1),
    "bfs-level-off-by-one": level_change(-1),
    "bfs-root-level": bfs_root_level,
    "bfs-level-on-unreached": bfs_unreached_level,
    "bfs-reached-marked-unreached": reached_marked_unreached("bfs"),
    "bfs-unreached-marked-reached": unreached_marked_reached("bfs"),
    "bfs-nedge-plus-one": wrong_nedge("bfs", +1),
    "bfs-nedge-minus-one": wrong_nedge("bfs", -1),
    "sssp-parent-not-a-neighbour": sssp_parent_not_neighbour,
    "sssp-parent-cycle": parent_cycle("sssp"),
    "sssp-root-parent-wrong": root_parent_wrong("sssp"),
    "sssp-reached-marked-unreached": reached_marked_unreached("sssp"),
    "sssp-unreached-marked-reached": unreached_marked_reached("sssp"),
    "sssp-tree-arc-one-ulp-up": distance_ulp(+1),
    "sssp-tree-arc-one-ulp-down": distance_ulp(-1),
    "sssp-nan-on-unreached": unreached_distance(np.nan),
    "sssp-minus-inf-on-unreached": unreached_distance(-np.inf),
    "sssp-finite-on-unreached": unreached_distance(np.float32(3.0)),
    "sssp-inf-on-reached": reached_infinite,
    "sssp-root-distance": root_distance,
    "sssp-nedge-plus-one": wrong_nedge("sssp", +1),
    "sssp-nedge-minus-one": wrong_nedge("sssp", -1),
}


def outcome(case: Case, fault) -> tuple[bool, str]:
    """(killed by a named rule, what happened) for one mutant; None if not applicable."""
    planted = fault(case)
    if planted is None:
        return None
    kernel, result, nedge, rules = planted
    validate = validate_bfs if kernel == "bfs" else validate_sssp
    try:
        validate(case.edges, result, nedge=nedge)
    except ValidationError as exc:
        return exc.rule in rules, f"rejected by {exc.rule} (expected {sorted(rules)})"
    return False, "accepted"


CASES = [graph(seed) for seed in SEEDS]


def test_the_unmutated_results_pass():
    for case in CASES:
        validate_bfs(case.edges, case.bfs(levels=case.levels), nedge=case.nedge())
        validate_sssp(case.edges, case.sssp(), nedge=case.nedge())


@pytest.mark.parametrize("name", FAULTS)
def test_fault_is_rejected_by_its_rule(name):
    results = [outcome(case, FAULTS[name]) for case in CASES]
    applied = [r for r in results if r is not None]
    assert applied, f"{name}: no graph could take this fault"
    survivors = [text for killed, text in applied if not killed]
    assert not survivors, f"{name}: {survivors}"


def test_kill_rate_is_100_percent(capsys):
    total = killed = 0
    for name, fault in FAULTS.items():
        for case in CASES:
            result = outcome(case, fault)
            if result is not None:
                total += 1
                killed += result[0]
    with capsys.disabled():
        print(f"\nvalidator mutation test: {killed}/{total} mutants killed by their rule "
              f"({100 * killed / total:.1f} %) over {len(FAULTS)} fault kinds and {len(CASES)} graphs")
    assert killed == total


def test_a_fault_the_validators_miss_would_be_reported():
    """The harness itself can fail: a no-op 'fault' survives."""
    def no_fault(case):
        return "sssp", dataclasses.replace(case.sssp()), None, {"edge-relaxed"}

    assert outcome(CASES[0], no_fault) == (False, "accepted")
