"""Checks of the distributed BFS, run by tests/test_distributed.py under
``mpirun -n P`` (or plain ``python`` for a world of one).

On a Kronecker graph and on a small irregular graph (not a multiple of 64
vertices, several components, a long path), for every root and direction
policy:

* the distributed roots are the single-process driver's;
* the levels equal the single-process hybrid BFS's (on the Kronecker graph
  with the fold deduplicated by the auto rule, always, and never with
  unpacked pairs), and the gathered result passes the single-process validator;
* the distributed validator passes it with the driver's edge count;
* corrupted results (one per rule) make the distributed validator name the
  rule the single-process validator names.

Rank 0 writes a JSON summary to ``--out``; any failure ends every rank
(``abort_on_error``), so the test sees a non-zero exit instead of a hang.
"""
from __future__ import annotations

import argparse
import json
import os
import sys

import numpy as np

import wavefront
import wavefront.distributed as wd
from wavefront.distributed.launch import abort_on_error
from wavefront.generators import kronecker_edges
from wavefront.graph.build import from_edges
from wavefront.graph500.roots import choose_roots
from wavefront.results import BFSResult
from wavefront.validate import validate_bfs

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # this folder, however the script is run
from _faults import rules_per_fault  # noqa: E402

POLICIES = ("gap", "seed000", "top-down", "bottom-up")


def irregular_edges(n: int = 1000):
    """Random edges among the first 700 vertices, a path over 900..999, the rest
    isolated (roots 0, 950 and 800 search each kind of component)."""
    rng = np.random.default_rng(5)
    src, dst = rng.integers(0, 700, 3000), rng.integers(0, 700, 3000)
    path = np.arange(900, n - 1)
    return np.concatenate((src, path)), np.concatenate((dst, path + 1))


def my_slice(src, dst, grid):
    lo, hi = src.shape[0] * grid.rank // grid.size, src.shape[0] * (grid.rank + 1) // grid.size
    return src[lo:hi], dst[lo:hi], lo


TUNINGS = (wd.DistributedTuning(), wd.DistributedTuning(fold_dedupe="always"),
           wd.DistributedTuning(fold_dedupe="never", pack_pairs=False))


def compare_levels(graph, full_graph, edges, roots, policies, grid, tunings=TUNINGS[:1]) -> int:
    """Searches from every root with every policy and fold tuning; returns how many were compared."""
    compared = 0
    for root in roots:
        for policy, tuning in ((p, t) for p in policies for t in tunings):
            result = wd.bfs(graph, int(root), policy=policy, tuning=tuning)
            nedge = graph.traversed_edges(result.reached)
            summary = wd.validate_bfs(graph, result, nedge)
            gathered = result.gather()
            if grid.rank == 0:
                reference = wavefront.bfs(full_graph, int(root), method="hybrid")
                assert np.array_equal(gathered.levels, reference.levels), (int(root), policy, tuning)
                assert nedge == full_graph.traversed_edges(reference.parents >= 0) == summary.nedge
                assert summary.depth == reference.depth and summary.reached == reference.num_reached
                validate_bfs(edges, gathered, n=full_graph.n, nedge=nedge)
                compared += 1
    return compared


def mutations(full, levels, adjacency):
    """(name, {vertex: (parent, level)}, nedge delta) corruptions of a valid result, each
    breaking the rule it is named after (chosen on rank 0 from the gathered result)."""
    parents = full.parents
    root = full.source
    reached = np.flatnonzero(parents >= 0)
    has_child = np.zeros(parents.shape[0], dtype=bool)
    has_child[parents[reached]] = True
    leaves = [int(v) for v in reached if not has_child[v] and v != root]
    unreached = np.flatnonzero(parents < 0)
    leaf = leaves[0]
    out = [
        ("parent-range", {leaf: (parents.shape[0], int(levels[leaf]))}, 0),
        ("root-parent", {root: (leaf, 0)}, 0),
        ("level-reached", {leaf: (int(parents[leaf]), -1)}, 0),
        ("tree-level", {leaf: (int(parents[leaf]), int(levels[leaf]) + 1)}, 0),
        ("edge-reached-unreached", {leaf: (-1, -1)}, 0),
        ("edge-count", {}, 1),
    ]
    if unreached.size:
        out.append(("parent-unreached", {leaf: (int(unreached[0]), int(levels[leaf]))}, 0))
    # A parent one level up that is not a neighbour.
    for v in leaves:
        level = int(levels[v])
        if level < 2:
            continue
        others = np.flatnonzero(levels == level - 1)
        strangers = np.setdiff1d(others, adjacency(v))
        if strangers.size:
            out.append(("tree-edge-missing", {v: (int(strangers[0]), level)}, 0))
            break
    # A leaf moved under a neighbour two levels down: its old parent's edge now spans 3 levels.
    for v in leaves:
        deeper = [int(w) for w in adjacency(v) if levels[w] >= levels[v] and w != v]
        if deeper and int(levels[deeper[0]]) + 1 - (int(levels[v]) - 1) > 1:
            out.append(("edge-level", {v: (deeper[0], int(levels[deeper[0]]) + 1)}, 0))
            break
    return out


def check_mutations(graph, full_graph, edges, root, grid) -> dict:
    """Rule named by the distributed and by the single-process validator, per corruption."""
    result = wd.bfs(graph, int(root))
    gathered = result.gather()
    plan = None
    if grid.rank == 0:
        indptr, indices = full_graph.indptr, full_graph.indices
        plan = mutations(gathered, gathered.levels, lambda v: indices[indptr[v]:indptr[v + 1]])
    plan = graph.world.bcast_object(plan)

    def distributed(parents, levels, nedge):
        wd.validate_bfs(graph, wd.DistributedBFSResult(
            source=result.source, parents=parents, levels=levels, first_vertex=result.first_vertex,
            n=result.n, world=result.world,
        ), nedge)

    def single(parents, levels, nedge):
        validate_bfs(edges, BFSResult(source=result.source, parents=parents, levels=levels),
                     n=full_graph.n, nedge=nedge)

    return rules_per_fault(graph, result, gathered, plan, "levels", distributed, single, grid.rank == 0)

def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--scale", type=int, default=10)
    parser.add_argument("--roots", type=int, default=4)
    parser.add_argument("--grid", default=None)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    world = wd.world()
    with abort_on_error(world):
        shape = tuple(int(x) for x in args.grid.split("x")) if args.grid else (None, None)
        grid = wd.ProcessGrid(*shape)
        summary = {"size": grid.size, "grid": [grid.rows, grid.cols]}

        graph = wd.kronecker(args.scale, grid=grid)
        roots = wd.choose_roots(graph, args.roots, seed=1)
        src, dst, _ = kronecker_edges(args.scale)
        full_graph = from_edges(src, dst, n=1 << args.scale)
        summary["roots_match"] = bool(np.array_equal(roots, choose_roots(src, dst, full_graph.n, args.roots, 1)))
        summary["kronecker_searches"] = compare_levels(graph, full_graph, (src, dst), roots, ("gap",), grid,
                                                       TUNINGS)
        summary["mutations"] = check_mutations(graph, full_graph, (src, dst), roots[0], grid)

        isrc, idst = irregular_edges()
        s, d, first = my_slice(isrc, idst, grid)
        small = wd.from_edges(s, d, 1000, grid, tuple_offset=first)
        small_full = from_edges(isrc, idst, n=1000)
        summary["irregular_searches"] = compare_levels(
            small, small_full, (isrc, idst), (0, 950, 800), POLICIES, grid
        )
        if grid.rank == 0:
            with open(args.out, "w") as f:
                json.dump(summary, f)


if __name__ == "__main__":
    main()
