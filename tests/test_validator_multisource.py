"""The Graph500 validators on multi-source results: valid forests pass, and each
fault a multi-source search can make is rejected by the rule named for it.

Valid results are wavefront's own CPU searches from several sources (checked
against SciPy in tests/test_multisource.py) on Graph500-style tuple lists
with duplicates, self-loops, a second component and isolated vertices; the
sources lie in both components.
"""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import wavefront as wf
from wavefront.errors import ValidationError
from wavefront.validate import validate_bfs, validate_sssp

SEEDS = range(6)


@dataclasses.dataclass
class Forest:
    src: np.ndarray
    dst: np.ndarray
    weights: np.ndarray
    n: int
    sources: list
    bfs: wf.BFSResult
    sssp: wf.SSSPResult

    def neighbours(self, v: int) -> set:
        proper = self.src != self.dst
        return set(self.dst[proper & (self.src == v)].tolist()) | set(self.src[proper & (self.dst == v)].tolist())

    def lightest(self, u: int, v: int) -> np.float32:
        hit = ((self.src == u) & (self.dst == v)) | ((self.src == v) & (self.dst == u))
        return self.weights[hit].min()


def forest(seed: int) -> Forest:
    rng = np.random.default_rng(seed)
    n_main = int(rng.integers(40, 120))
    m = 3 * n_main
    src, dst = rng.integers(0, n_main, m), rng.integers(0, n_main, m)
    dup = rng.integers(0, m, m // 5)
    loops = rng.integers(0, n_main, 4)
    other = n_main + np.arange(6)  # a path of 6 vertices, then 3 isolated ones
    src = np.concatenate([src, src[dup], loops, other[:-1]])
    dst = np.concatenate([dst, dst[dup], loops, other[1:]])
    weights = rng.uniform(0.05, 1.0, src.shape[0]).astype(np.float32)
    n = n_main + 9
    sources = [int(v) for v in rng.choice(n_main, 3, replace=False)] + [int(other[2])]
    bfs = wf.bfs(wf.Graph.from_edges(src, dst, n=n), sources=sources)
    sssp = wf.sssp(wf.Graph.from_edges(src, dst, weights, n=n), sources=sources, method="dijkstra")
    return Forest(src, dst, weights, n, sources, bfs, sssp)


FORESTS = [forest(seed) for seed in SEEDS]


def edges(f: Forest, kernel: str):
    return (f.src, f.dst) if kernel == "bfs" else (f.src, f.dst, f.weights)


def base(f: Forest, kernel: str):
    return f.bfs if kernel == "bfs" else f.sssp


def changed(result, **arrays):
    return dataclasses.replace(result, **arrays)


def leaf_child_of_source(f: Forest, result):
    """A (leaf, its source parent) pair, the leaf not a source."""
    parents = result.parents
    for s in f.sources:
        kids = [v for v in np.flatnonzero(parents == s).tolist() if v != s and not (parents == v).any()]
        if kids:
            return kids[0], s
    return None


# -- faults: f(forest, kernel) -> (result, rules that name it) or None ------------
def source_not_its_own_parent(f, kernel):
    s = next(s for s in f.sources if f.neighbours(s))
    parents = base(f, kernel).parents.copy()
    parents[s] = min(f.neighbours(s))
    return changed(base(f, kernel), parents=parents), {"root-parent"}


def source_level_not_zero(f, kernel):
    if kernel != "bfs":
        return None
    levels = f.bfs.levels.copy()
    levels[f.sources[-1]] = 1
    return changed(f.bfs, levels=levels), {"level-root"}


def source_distance_not_zero(f, kernel):
    if kernel != "sssp":
        return None
    distances = f.sssp.distances.copy()
    distances[f.sources[1]] = np.float32(0.25)
    return changed(f.sssp, distances=distances), {"root-distance"}


def source_left_out_of_sources(f, kernel):
    # The vertex stays its own parent but the result no longer names it a root.
    result = base(f, kernel)
    kept = np.asarray(f.sources[:1] + f.sources[2:], dtype=np.int64)
    return changed(result, sources=kept, source=None), {"tree-cycle"}


def non_source_named_a_source(f, kernel):
    result = base(f, kernel)
    extra = next(v for v in np.flatnonzero(result.parents >= 0).tolist() if v not in f.sources)
    return changed(result, sources=np.asarray([*f.sources, extra], dtype=np.int64)), {"root-parent"}


def source_out_of_range(f, kernel):
    result = base(f, kernel)
    return changed(result, sources=np.asarray([*f.sources, f.n + 3], dtype=np.int64)), {"root-range"}


def phantom_root(f, kernel):
    # A reached non-source vertex becomes its own parent (level / distance 0).
    result = base(f, kernel)
    v = next(v for v in np.flatnonzero(result.parents >= 0).tolist() if v not in f.sources)
    parents = result.parents.copy()
    parents[v] = v
    if kernel == "bfs":
        levels = result.levels.copy()
        levels[v] = 0
        return changed(result, parents=parents, levels=levels), {"tree-cycle"}
    distances = result.distances.copy()
    distances[v] = 0
    return changed(result, parents=parents, distances=distances), {"tree-cycle"}


def hung_below_a_farther_source(f, kernel):
    """A source's child moved under another neighbour, its level / distance made
    consistent with the new parent: only the edge to the nearer source tells."""
    result = base(f, kernel)
    found = leaf_child_of_source(f, result)
    if found is None:
        return None
    v, s = found
    parents = result.parents.copy()
    if kernel == "bfs":
        options = [u for u in f.neighbours(v) if u != s and result.levels[u] >= 1 and parents[u] != v]
        if not options:
            return None
        u = options[0]
        levels = result.levels.copy()
        parents[v], levels[v] = u, levels[u] + 1
        return changed(result, parents=parents, levels=levels), {"edge-level"}
    d = result.distances
    options = [u for u in f.neighbours(v)
               if u != s and parents[u] >= 0 and parents[u] != v and np.float32(d[u] + f.lightest(u, v)) > d[v]]
    if not options:
        return None
    u = options[0]
    distances = d.copy()
    parents[v], distances[v] = u, np.float32(d[u] + f.lightest(u, v))
    return changed(result, parents=parents, distances=distances), {"edge-relaxed"}


def tree_across_components(f, kernel):
    # A vertex of the second component hung below a source of the first.
    result = base(f, kernel)
    v = f.sources[-1] + 1  # the second component's path: 2 -> 3
    parents = result.parents.copy()
    parents[v] = f.sources[0]
    return changed(result, parents=parents), {"tree-edge-missing", "tree-level", "pred-distance"}


FAULTS = {
    "source-not-its-own-parent": source_not_its_own_parent,
    "source-level-not-zero": source_level_not_zero,
    "source-distance-not-zero": source_distance_not_zero,
    "source-left-out-of-sources": source_left_out_of_sources,
    "non-source-named-a-source": non_source_named_a_source,
    "source-out-of-range": source_out_of_range,
    "phantom-root": phantom_root,
    "hung-below-a-farther-source": hung_below_a_farther_source,
    "tree-across-components": tree_across_components,
}


def outcome(f: Forest, kernel: str, fault):
    planted = fault(f, kernel)
    if planted is None:
        return None
    result, rules = planted
    validate = validate_bfs if kernel == "bfs" else validate_sssp
    try:
        validate(edges(f, kernel), result)
    except ValidationError as exc:
        return exc.rule in rules, f"rejected by {exc.rule} (expected {sorted(rules)})"
    return False, "accepted"


@pytest.mark.parametrize("kernel", ["bfs", "sssp"])
def test_valid_forests_pass_and_the_summary_names_every_root(kernel):
    for f in FORESTS:
        validate = validate_bfs if kernel == "bfs" else validate_sssp
        summary = validate(edges(f, kernel), base(f, kernel))
        assert summary.root is None and summary.roots == tuple(f.sources)
        assert summary.reached == int((base(f, kernel).parents >= 0).sum())
        assert summary.depth >= 1


@pytest.mark.parametrize("kernel", ["bfs", "sssp"])
@pytest.mark.parametrize("name", FAULTS)
def test_fault_is_rejected_by_its_rule(kernel, name):
    results = [outcome(f, kernel, FAULTS[name]) for f in FORESTS]
    applied = [r for r in results if r is not None]
    if not applied:
        pytest.skip(f"{name} does not apply to {kernel}")
    survivors = [text for killed, text in applied if not killed]
    assert not survivors, f"{name}: {survivors}"


def test_every_fault_kind_applies_to_some_kernel_and_graph():
    for name, fault in FAULTS.items():
        assert any(outcome(f, k, fault) is not None for f in FORESTS for k in ("bfs", "sssp")), name


def test_a_single_source_result_keeps_its_root_in_the_summary():
    f = FORESTS[0]
    result = wf.bfs(wf.Graph.from_edges(f.src, f.dst, n=f.n), f.sources[0])
    summary = validate_bfs((f.src, f.dst), result)
    assert summary.root == f.sources[0] and summary.roots == (f.sources[0],)
