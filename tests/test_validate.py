"""Graph500 validators: valid results pass, and each corruption the rules
describe is rejected with the rule's name.

Valid results come from SciPy's csgraph (BFS order) and a float32 Dijkstra
(the arithmetic every search uses: ``d[v] = fl32(d[u] + w)``, checked against
SciPy's float64 distances) on small random Graph500-style tuple lists
(duplicates and self-loops included); hypothesis picks the graph and the
vertex to corrupt.
"""
from __future__ import annotations

import dataclasses
import heapq

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from scipy.sparse import csgraph

import wavefront as wf
from wavefront.errors import ValidationError, VertexError
from wavefront.results import BFSResult, SSSPResult
from wavefront.validate import validate_bfs, validate_sssp

SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@dataclasses.dataclass
class Case:
    """A tuple list, a root, and oracle results for it."""

    src: np.ndarray
    dst: np.ndarray
    weights: np.ndarray
    n: int
    root: int
    parents: np.ndarray  # BFS tree
    levels: np.ndarray
    sp_parents: np.ndarray  # shortest-path tree
    distances: np.ndarray  # float32

    @property
    def edges(self):
        return (self.src, self.dst, self.weights)

    def bfs(self, parents=None, levels=None) -> BFSResult:
        return BFSResult(self.root, self.parents if parents is None else parents, levels=levels)

    def sssp(self, parents=None, distances=None) -> SSSPResult:
        return SSSPResult(
            self.root,
            self.sp_parents if parents is None else parents,
            distances=self.distances if distances is None else distances,
        )

    def neighbours(self, v: int) -> set:
        proper = self.src != self.dst
        return set(self.dst[proper & (self.src == v)].tolist()) | set(
            self.src[proper & (self.dst == v)].tolist()
        )

    def tuples_between(self, u: int, v: int) -> np.ndarray:
        """Weights of every input tuple joining u and v."""
        hit = ((self.src == u) & (self.dst == v)) | ((self.src == v) & (self.dst == u))
        return self.weights[hit].astype(np.float64)

    def nedge(self) -> int:
        reached = self.parents >= 0
        proper = self.src != self.dst
        return int((proper & reached[self.src] & reached[self.dst]).sum())


def oracle_parents(predecessors: np.ndarray, root: int) -> np.ndarray:
    parents = np.where(predecessors < 0, -1, predecessors).astype(np.int64)
    parents[root] = root
    return parents


def make_case(src, dst, weights, n, root) -> Case:
    unit = wf.from_edges(src, dst, n=n).to_scipy()
    _, pred = csgraph.breadth_first_order(unit, root, directed=False, return_predecessors=True)
    hops = csgraph.shortest_path(unit, directed=False, unweighted=True, indices=root)
    levels = np.where(np.isfinite(hops), hops, -1).astype(np.int32)
    weighted = wf.from_edges(src, dst, weights, n=n).to_scipy()
    dist64 = csgraph.dijkstra(weighted, directed=False, indices=root)
    dist, sp_parents = float32_dijkstra(src, dst, weights, n, root)
    assert np.array_equal(np.isfinite(dist), np.isfinite(dist64))
    finite = np.isfinite(dist64)
    np.testing.assert_allclose(dist[finite], dist64[finite], rtol=1e-5, atol=1e-6)
    return Case(src, dst, weights, n, root, oracle_parents(pred, root), levels, sp_parents, dist)


def float32_dijkstra(src, dst, weights, n, root):
    """Distances summed in float32 one arc at a time, as the searches sum them,
    and the parent whose arc gave each final distance."""
    adjacency = [[] for _ in range(n)]
    for u, v, w in zip(src.tolist(), dst.tolist(), weights):
        if u != v:
            adjacency[u].append((v, w))
            adjacency[v].append((u, w))
    dist = np.full(n, np.inf, dtype=np.float32)
    parents = np.full(n, -1, dtype=np.int64)
    dist[root], parents[root] = 0, root
    heap, done = [(0.0, root)], np.zeros(n, dtype=bool)
    while heap:
        _, u = heapq.heappop(heap)
        if done[u]:
            continue
        done[u] = True
        for v, w in adjacency[u]:
            candidate = np.float32(dist[u] + w)
            if candidate < dist[v]:
                dist[v], parents[v] = candidate, u
                heapq.heappush(heap, (float(candidate), v))
    return dist, parents


@st.composite
def cases(draw, min_n=2):
    n = draw(st.integers(min_n, 40))
    m = draw(st.integers(1, 3 * n))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    src = rng.integers(0, n, m)
    dst = rng.integers(0, n, m)
    # Graph500 lists hold duplicates and self-loops: add some of each.
    dup = rng.integers(0, m, m // 4)
    loops = rng.integers(0, n, m // 8)
    src = np.concatenate([src, src[dup], loops])
    dst = np.concatenate([dst, dst[dup], loops])
    if draw(st.booleans()):  # exact weights with many ties
        weights = (rng.integers(1, 8, src.shape[0]) / 4).astype(np.float32)
    else:
        weights = rng.uniform(0.05, 1.0, src.shape[0]).astype(np.float32)
    root = int(src[draw(st.integers(0, src.shape[0] - 1))])
    return make_case(src, dst, weights, n, root)


def assert_rule(rule: str, validate, *args, **kwargs):
    with pytest.raises(ValidationError) as info:
        validate(*args, **kwargs)
    assert info.value.rule == rule, str(info.value)
    assert f"[{rule}]" in str(info.value)
    return info.value


def reached_non_root(case: Case, parents=None) -> list:
    parents = case.parents if parents is None else parents
    return [v for v in np.flatnonzero(parents >= 0).tolist() if v != case.root]


def leaves(parents: np.ndarray, root: int) -> list:
    """Reached non-root vertices that are nobody's parent."""
    is_parent = np.zeros(parents.shape[0], dtype=bool)
    is_parent[parents[parents >= 0]] = True
    return [v for v in np.flatnonzero((parents >= 0) & ~is_parent).tolist() if v != root]


# -- valid results pass ---------------------------------------------------------
@SETTINGS
@given(cases())
def test_valid_results_pass(case):
    nedge = case.nedge()
    summary = validate_bfs(case.edges, case.bfs(levels=case.levels), nedge=nedge)
    assert summary.nedge == nedge
    assert summary.reached == int((case.parents >= 0).sum())
    assert summary.depth == int(case.levels.max())
    summary = validate_sssp(case.edges, case.sssp(), nedge=nedge)
    assert summary.nedge == nedge
    finite = case.distances[np.isfinite(case.distances)]
    assert summary.max_distance == pytest.approx(float(finite.max()))


@SETTINGS
@given(cases())
def test_validator_count_matches_the_builders(case):
    """The validator counts from the tuples; the driver from Graph.input_degree."""
    graph = wf.from_edges(case.src, case.dst, case.weights, n=case.n)
    expected = graph.traversed_edges(case.parents >= 0)
    assert validate_bfs(case.edges, case.bfs(), nedge=expected).nedge == expected


def test_isolated_root_reaches_only_itself():
    src, dst = np.array([0, 1, 3]), np.array([1, 2, 3])
    parents = np.array([-1, -1, -1, 3, -1], dtype=np.int64)
    summary = validate_bfs((src, dst), BFSResult(3, parents), n=5, nedge=0)
    assert (summary.reached, summary.nedge, summary.depth) == (1, 0, 0)
    distances = np.array([np.inf, np.inf, np.inf, 0, np.inf], dtype=np.float32)
    weights = np.ones(3, dtype=np.float32)
    result = SSSPResult(3, parents, distances=distances)
    assert validate_sssp((src, dst, weights), result, nedge=0).nedge == 0


@SETTINGS
@given(cases(), st.integers(1, 9))
def test_chunked_pass_gives_the_same_answers(case, chunk):
    whole = validate_sssp(case.edges, case.sssp())
    assert validate_sssp(case.edges, case.sssp(), chunk_edges=chunk) == whole
    v_list = leaves(case.parents, case.root)
    assume(v_list)
    parents = case.parents.copy()
    parents[v_list[0]] = -1
    assert_rule("edge-reached-unreached", validate_bfs, case.edges, case.bfs(parents), chunk_edges=chunk)


# -- tree rules (BFS and SSSP) ----------------------------------------------------
@SETTINGS
@given(cases(), st.data())
def test_parent_out_of_range(case, data):
    v = data.draw(st.integers(0, case.n - 1))
    bad = data.draw(st.sampled_from([case.n, case.n + 7, -2]))
    for validate, result in ((validate_bfs, case.bfs()), (validate_sssp, case.sssp())):
        parents = result.parents.copy()
        parents[v] = bad
        assert_rule("parent-range", validate, case.edges, dataclasses.replace(result, parents=parents))


@SETTINGS
@given(cases(), st.data())
def test_root_not_its_own_parent(case, data):
    other = data.draw(st.sampled_from([-1] + sorted(case.neighbours(case.root) or {(case.root + 1) % case.n})))
    for validate, result in ((validate_bfs, case.bfs()), (validate_sssp, case.sssp())):
        parents = result.parents.copy()
        parents[case.root] = other
        assert_rule("root-parent", validate, case.edges, dataclasses.replace(result, parents=parents))


@SETTINGS
@given(cases(), st.data())
def test_reached_vertex_with_unreached_parent(case, data):
    unreached = np.flatnonzero(case.parents < 0).tolist()
    reached = reached_non_root(case)
    assume(unreached and reached)
    v, u = data.draw(st.sampled_from(reached)), data.draw(st.sampled_from(unreached))
    parents = case.parents.copy()
    parents[v] = u
    assert_rule("parent-unreached", validate_bfs, case.edges, case.bfs(parents))


@SETTINGS
@given(cases(), st.data())
def test_unreached_vertex_next_to_a_reached_one(case, data):
    """A leaf marked unreached still has an input edge to its reached parent."""
    v_list = leaves(case.parents, case.root)
    assume(v_list)
    v = data.draw(st.sampled_from(v_list))
    parents = case.parents.copy()
    parents[v] = -1
    assert_rule("edge-reached-unreached", validate_bfs, case.edges, case.bfs(parents))
    sp_leaves = leaves(case.sp_parents, case.root)
    assume(sp_leaves)
    v = data.draw(st.sampled_from(sp_leaves))
    parents, distances = case.sp_parents.copy(), case.distances.copy()
    parents[v], distances[v] = -1, np.inf
    assert_rule("edge-reached-unreached", validate_sssp, case.edges, case.sssp(parents, distances))


@SETTINGS
@given(cases(), st.data())
def test_parent_that_is_not_a_neighbour(case, data):
    """Re-hang a vertex under the root although no tuple joins them."""
    far = [v for v in reached_non_root(case) if case.root not in case.neighbours(v)]
    assume(far)
    v = data.draw(st.sampled_from(far))
    parents = case.parents.copy()
    parents[v] = case.root
    assert_rule("tree-edge-missing", validate_bfs, case.edges, case.bfs(parents))
    parents = case.sp_parents.copy()
    parents[v] = case.root
    assert_rule("tree-edge-missing", validate_sssp, case.edges, case.sssp(parents))


def ancestors(parents: np.ndarray, v: int, root: int) -> list:
    chain = []
    while v != root:
        v = int(parents[v])
        chain.append(v)
    return chain


@SETTINGS
@given(cases(), st.data())
def test_two_cycle_in_parents(case, data):
    pairs = [(int(p), c) for c in reached_non_root(case) if (p := case.parents[c]) != case.root]
    assume(pairs)
    v, child = data.draw(st.sampled_from(pairs))
    parents = case.parents.copy()
    parents[v] = child  # v <-> child
    error = assert_rule("tree-cycle", validate_bfs, case.edges, case.bfs(parents))
    assert str(v) in str(error) and str(child) in str(error)


@SETTINGS
@given(cases(min_n=8), st.data())
def test_longer_cycle_in_parents(case, data):
    """Hang an ancestor two or more levels up below its descendant."""
    deep = [w for w in reached_non_root(case) if case.levels[w] >= 3]
    assume(deep)
    w = data.draw(st.sampled_from(deep))
    chain = ancestors(case.parents, w, case.root)[:-1]  # strictly below the root
    v = data.draw(st.sampled_from(chain[1:]))
    parents = case.parents.copy()
    parents[v] = w
    assert_rule("tree-cycle", validate_bfs, case.edges, case.bfs(parents))
    sp_parents = case.sp_parents.copy()
    # The same corruption breaks a shortest-path tree when v is w's ancestor there.
    sp_chain = ancestors(case.sp_parents, w, case.root)[:-1] if case.sp_parents[w] >= 0 else []
    if len(sp_chain) >= 2:
        sp_parents[sp_chain[-1]] = w
        assert_rule("tree-cycle", validate_sssp, case.edges, case.sssp(sp_parents))


def test_cycle_not_containing_the_first_stuck_vertex_is_named():
    # 0 is the root; 1 -> 2 -> 3 -> 2 (a cycle 2 <-> 3 hanging under 1)
    src, dst = np.array([0, 1, 2, 3]), np.array([1, 2, 3, 0])
    parents = np.array([0, 2, 3, 2], dtype=np.int64)
    error = assert_rule("tree-cycle", validate_bfs, (src, dst), BFSResult(0, parents))
    assert "2 -> 3 -> 2" in str(error) or "3 -> 2 -> 3" in str(error)


# -- BFS level rules -----------------------------------------------------------------
@SETTINGS
@given(cases(), st.data())
def test_level_skip_through_a_same_level_parent(case, data):
    """Re-hang v under a same-level neighbour: v drops a level, so the tuple to
    its old parent spans two levels."""
    options = [
        (v, u) for v in reached_non_root(case) for u in sorted(case.neighbours(v))
        if case.levels[u] == case.levels[v]
    ]
    assume(options)
    v, u = data.draw(st.sampled_from(options))
    parents = case.parents.copy()
    parents[v] = u
    assert_rule("edge-level", validate_bfs, case.edges, case.bfs(parents))


@SETTINGS
@given(cases(), st.data())
def test_reported_levels_must_follow_the_tree(case, data):
    reached = reached_non_root(case)
    assume(reached)
    v = data.draw(st.sampled_from(reached))
    levels = case.levels.copy()
    levels[v] += data.draw(st.sampled_from([1, 2, -1]))
    rule = "level-reached" if levels[v] < 0 else "tree-level"
    assert_rule(rule, validate_bfs, case.edges, case.bfs(levels=levels))
    levels = case.levels.copy()
    levels[case.root] = 1
    assert_rule("level-root", validate_bfs, case.edges, case.bfs(levels=levels))
    unreached = np.flatnonzero(case.parents < 0).tolist()
    if unreached:
        levels = case.levels.copy()
        levels[unreached[0]] = 2
        assert_rule("level-reached", validate_bfs, case.edges, case.bfs(levels=levels))


# -- SSSP distance rules ----------------------------------------------------------
@SETTINGS
@given(cases(), st.data())
def test_root_distance_must_be_zero(case, data):
    distances = case.distances.copy()
    distances[case.root] = data.draw(st.sampled_from([0.5, 1e-6, -1.0]))
    assert_rule("root-distance", validate_sssp, case.edges, case.sssp(distances=distances))


@SETTINGS
@given(cases(), st.data())
def test_distance_finite_exactly_when_reached(case, data):
    reached = reached_non_root(case)
    assume(reached)
    distances = case.distances.copy()
    distances[data.draw(st.sampled_from(reached))] = data.draw(st.sampled_from([np.inf, np.nan]))
    assert_rule("distance-reached", validate_sssp, case.edges, case.sssp(distances=distances))


@SETTINGS
@given(cases(), st.data())
def test_distance_too_large(case, data):
    reached = [v for v in np.flatnonzero(case.sp_parents >= 0).tolist() if v != case.root]
    assume(reached)
    v = data.draw(st.sampled_from(reached))
    distances = case.distances.copy()
    distances[v] = 2 * distances[v] + 1
    assert_rule("edge-relaxed", validate_sssp, case.edges, case.sssp(distances=distances))


@SETTINGS
@given(cases(), st.data())
def test_distance_too_small(case, data):
    """Lower d[v] while keeping every tuple relaxed: only its predecessor's
    tuple can tell."""
    d = case.distances.astype(np.float64)
    options = []
    for v in np.flatnonzero(case.sp_parents >= 0).tolist():
        if v == case.root:
            continue
        lower = max([0.0] + [d[u] - w for u in case.neighbours(v) for w in case.tuples_between(u, v)])
        if d[v] - lower > 1e-3:
            options.append((v, (lower + d[v]) / 2))
    assume(options)
    v, smaller = data.draw(st.sampled_from(options))
    distances = case.distances.copy()
    distances[v] = smaller
    assert_rule("pred-distance", validate_sssp, case.edges, case.sssp(distances=distances))


@SETTINGS
@given(cases(), st.data())
def test_pred_edge_that_does_not_confirm_the_distance(case, data):
    """Point v at a closer neighbour whose tuples do not give d[v]."""
    d = case.distances.astype(np.float64)
    options = [
        (v, u)
        for v in np.flatnonzero(case.sp_parents >= 0).tolist() if v != case.root
        for u in sorted(case.neighbours(v))
        if u != case.sp_parents[v] and d[u] < d[v]
        and np.all(np.abs(d[u] + case.tuples_between(u, v) - d[v]) > 1e-4)
    ]
    assume(options)
    v, u = data.draw(st.sampled_from(options))
    parents = case.sp_parents.copy()
    parents[v] = u
    assert_rule("pred-distance", validate_sssp, case.edges, case.sssp(parents))


def test_distances_are_compared_exactly_in_the_distance_dtype():
    """Float32 sums accumulated arc by arc pass; one ulp off on a tree arc, or a
    float64 sum rounded to float32 once (not what a search computes), fails;
    a tolerance, when asked for, admits the latter."""
    w = np.float32(0.1)
    src, dst = np.arange(0, 1000), np.arange(1, 1001)
    weights = np.full(1000, w, dtype=np.float32)
    parents = np.concatenate([[0], np.arange(1000)]).astype(np.int64)
    accumulated = np.cumsum(np.concatenate([[0], weights]), dtype=np.float32)
    validate_sssp((src, dst, weights), SSSPResult(0, parents, distances=accumulated))
    one_ulp = accumulated.copy()
    one_ulp[500] = np.nextafter(one_ulp[500], np.float32(np.inf))  # its tree arc no longer relaxed
    assert_rule("edge-relaxed", validate_sssp, (src, dst, weights), SSSPResult(0, parents, distances=one_ulp))
    one_ulp = accumulated.copy()
    one_ulp[1000] = np.nextafter(one_ulp[1000], np.float32(-np.inf))  # a leaf below what its arc gives
    assert_rule("pred-distance", validate_sssp, (src, dst, weights), SSSPResult(0, parents, distances=one_ulp))
    rounded = (np.arange(1001) * np.float64(w)).astype(np.float32)  # one rounding per vertex
    assert not np.array_equal(rounded, accumulated)
    with pytest.raises(ValidationError):
        validate_sssp((src, dst, weights), SSSPResult(0, parents, distances=rounded))
    validate_sssp((src, dst, weights), SSSPResult(0, parents, distances=rounded), rtol=1e-5)
    with pytest.raises(ValueError, match="rtol"):
        validate_sssp((src, dst, weights), SSSPResult(0, parents, distances=accumulated), rtol=-1)


@pytest.mark.parametrize("bad", [np.nan, -np.inf, 5.0, 0.0])
def test_unreached_vertex_must_be_plus_infinity(bad):
    src, dst = np.array([0, 1, 3]), np.array([1, 2, 4])
    weights = np.ones(3, dtype=np.float32)
    parents = np.array([0, 0, 1, -1, -1], dtype=np.int64)
    distances = np.array([0, 1, 2, np.inf, np.inf], dtype=np.float32)
    validate_sssp((src, dst, weights), SSSPResult(0, parents, distances=distances))
    distances[3] = bad
    assert_rule("distance-unreached", validate_sssp, (src, dst, weights),
                SSSPResult(0, parents, distances=distances))


# -- edge count and input checks ---------------------------------------------------
@SETTINGS
@given(cases(), st.sampled_from([-2, -1, 1, 5]))
def test_wrong_edge_count(case, delta):
    nedge = case.nedge() + delta
    assert_rule("edge-count", validate_bfs, case.edges, case.bfs(), nedge=nedge)
    assert_rule("edge-count", validate_sssp, case.edges, case.sssp(), nedge=nedge)


def test_parents_must_be_int64_and_one_per_vertex():
    src, dst = np.array([0, 1]), np.array([1, 2])
    parents = np.array([0, 0, 1], dtype=np.int32)
    assert_rule("parent-array", validate_bfs, (src, dst), BFSResult(0, parents))
    assert_rule("parent-array", validate_bfs, (src, dst), BFSResult(0, parents.astype(np.int64)), n=4)
    assert_rule("root-range", validate_bfs, (src, dst), BFSResult(5, parents.astype(np.int64)))


def test_edge_ids_outside_the_parent_array_are_refused():
    src, dst = np.array([0, 1]), np.array([1, 9])
    with pytest.raises(VertexError, match="vertex ids in"):
        validate_bfs((src, dst), BFSResult(0, np.array([0, 0, 1], dtype=np.int64)))


def test_wavefront_searches_validate():
    """Every built-in CPU method's results pass (a differential check of both sides)."""
    pytest.importorskip("numba")
    from wavefront.backends.cpu import METHODS  # the declared methods, not test plug-ins

    rng = np.random.default_rng(5)
    src, dst = rng.integers(0, 300, 2000), rng.integers(0, 300, 2000)
    weights = rng.uniform(0.0, 1.0, 2000).astype(np.float32)
    graph = wf.from_edges(src, dst, weights, n=300)
    root = int(src[0])
    for method in METHODS["bfs"]:
        result = wf.bfs(graph, root, method=method)
        validate_bfs((src, dst), result, nedge=graph.traversed_edges(result.reached))
    for method in sorted(set(METHODS["sssp"]) - {"hierarchy"}):
        result = wf.sssp(graph, root, method=method)
        validate_sssp((src, dst, weights), result, nedge=graph.traversed_edges(result.reached))
    # the hierarchy takes integer weights only (float ones raise MethodLimitError, tests/test_hierarchy.py)
    whole = np.round(weights * 1000).astype(np.int64)
    graph = wf.from_edges(src, dst, whole, n=300)
    result = wf.sssp(graph, root, method="hierarchy")
    validate_sssp((src, dst, whole), result, nedge=graph.traversed_edges(result.reached))


# -- on the GPU ---------------------------------------------------------------------
@pytest.mark.gpu
def test_validation_runs_on_the_gpu():
    import cupy

    rng = np.random.default_rng(11)
    n = 500
    src, dst = rng.integers(0, n, 4000), rng.integers(0, n, 4000)
    weights = rng.uniform(0.05, 1, 4000).astype(np.float32)
    case = make_case(src, dst, weights, n, int(src[0]))
    edges = tuple(cupy.asarray(a) for a in case.edges)
    nedge = case.nedge()
    cpu = validate_sssp(case.edges, case.sssp(), nedge=nedge)
    gpu = validate_sssp(edges, case.sssp().to("cuda"), nedge=nedge)
    assert gpu == cpu
    assert validate_bfs(edges, case.bfs(levels=case.levels).to("cuda"), nedge=nedge).nedge == nedge
    parents = case.parents.copy()
    parents[leaves(parents, case.root)[0]] = -1
    assert_rule("edge-reached-unreached", validate_bfs, edges, case.bfs(cupy.asarray(parents)))
    distances = case.distances.copy()
    v = reached_non_root(case)[0]
    distances[v] = 2 * distances[v] + 1
    assert_rule("edge-relaxed", validate_sssp, edges, case.sssp(distances=cupy.asarray(distances)))
    assert_rule("edge-count", validate_bfs, edges, case.bfs(), nedge=nedge + 1)
