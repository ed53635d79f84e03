"""Checks of the distributed SSSP, run by tests/test_distributed.py under
``mpirun -n P`` (or plain ``python`` for a world of one).

* Graph500 Kronecker graph with its float32 weights: for each root the
  gathered distances equal the single-process ``wavefront.sssp`` run's
  exactly, both float32 (``np.array_equal``, no tolerance: the fixed point
  of float32 relaxation is unique); the gathered result passes the
  single-process validator and the distributed validator passes it with the
  driver's edge count.
* A small irregular graph (1000 vertices, not a multiple of 64; several
  components; zero weights and weights a float32 distance absorbs, so the
  parents need the breadth-first rounds) with float32 weights and with int32
  weights (int64 sums, float64 distances): the same checks.
* Corrupted results: the distributed validator names the rule the
  single-process validator names.

Rank 0 writes a JSON summary to ``--out``; any failure ends every rank.
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
from wavefront.results import SSSPResult
from wavefront.validate import validate_sssp

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # this folder, however the script is run
from _faults import rules_per_fault  # noqa: E402


def irregular_edges(n: int = 1000):
    """Random arcs among the first 700 vertices with float32 weights, a tenth
    of them 0 and a tenth 2**-26 (below half an ulp of any distance >= 1, so
    fl(d + w) == d there); a zero-weight path over 900..999; the rest isolated."""
    rng = np.random.default_rng(7)
    src, dst = rng.integers(0, 700, 3000), rng.integers(0, 700, 3000)
    weights = (rng.integers(1, 1 << 10, 3000) / 64).astype(np.float32)
    kind = rng.integers(0, 10, 3000)
    weights[kind == 0] = 0
    weights[kind == 1] = np.float32(2.0**-26)
    path = np.arange(900, n - 1)
    return (np.concatenate((src, path)), np.concatenate((dst, path + 1)),
            np.concatenate((weights, np.zeros(path.shape[0], np.float32))))


def my_slice(arrays, grid):
    k = arrays[0].shape[0]
    lo, hi = k * grid.rank // grid.size, k * (grid.rank + 1) // grid.size
    return [a[lo:hi] for a in arrays], lo


def compare(graph, full_graph, edges, roots, dtype, grid) -> dict:
    """Searches from every root; returns counts rank 0 checked."""
    compared, rounds = 0, 0
    for root in roots:
        result = wd.sssp(graph, int(root))
        nedge = graph.traversed_edges(result.reached)
        summary = wd.validate_sssp(graph, result, nedge)
        gathered = result.gather()
        rounds = max(rounds, result.parent_rounds)
        if grid.rank == 0:
            reference = wavefront.sssp(full_graph, int(root))
            assert gathered.distances.dtype == reference.distances.dtype == dtype, (
                gathered.distances.dtype, reference.distances.dtype)
            assert np.array_equal(gathered.distances, reference.distances), int(root)
            assert nedge == full_graph.traversed_edges(reference.parents >= 0) == summary.nedge
            assert summary.reached == int((reference.parents >= 0).sum())
            validate_sssp(edges, gathered, n=full_graph.n, nedge=nedge)
            compared += 1
    return {"searches": compared, "parent_rounds": rounds}


def mutations(full, adjacency):
    """(name, {vertex: (parent, distance)}, nedge delta): corruptions of a valid
    result, each breaking the rule it is named after."""
    parents, dist = full.parents, full.distances
    root = int(full.source)
    reached = np.flatnonzero(parents >= 0)
    has_child = np.zeros(parents.shape[0], dtype=bool)
    has_child[parents[reached]] = True
    leaves = [int(v) for v in reached if not has_child[v] and v != root]
    leaf, other = leaves[0], leaves[1]
    d = dist.dtype.type
    out = [
        ("parent-range", {leaf: (parents.shape[0], float(dist[leaf]))}, 0),
        ("root-parent", {root: (leaf, 0.0)}, 0),
        ("root-distance", {root: (root, 1.0)}, 0),
        ("distance-reached", {leaf: (int(parents[leaf]), float("inf"))}, 0),
        ("tree-cycle", {leaf: (other, float(dist[leaf])), other: (leaf, float(dist[other]))}, 0),
        ("edge-reached-unreached", {leaf: (-1, float("inf"))}, 0),
        ("edge-relaxed", {leaf: (int(parents[leaf]), float(np.nextafter(d(dist[leaf]), d(np.inf))))}, 0),
        ("edge-count", {}, 1),
    ]
    unreached = np.flatnonzero(parents < 0)
    if unreached.size:
        out.append(("distance-unreached", {int(unreached[0]): (-1, 1.0)}, 0))
        out.append(("parent-unreached", {leaf: (int(unreached[0]), float(dist[leaf]))}, 0))
    for v in leaves:  # a parent that is no neighbour
        strangers = np.setdiff1d(reached, np.append(adjacency(v), v))
        if strangers.size:
            out.append(("tree-edge-missing", {v: (int(strangers[0]), float(dist[v]))}, 0))
            break
    return out


def check_mutations(graph, full_graph, edges, root, grid) -> dict:
    result = wd.sssp(graph, int(root))
    gathered = result.gather()
    plan = None
    if grid.rank == 0:
        indptr, indices = full_graph.indptr, full_graph.indices
        plan = mutations(gathered, lambda v: indices[indptr[v]:indptr[v + 1]])
    plan = graph.world.bcast_object(plan)

    def distributed(parents, distances, nedge):
        wd.validate_sssp(graph, wd.DistributedSSSPResult(
            source=result.source, parents=parents, distances=distances, first_vertex=result.first_vertex,
            n=result.n, world=result.world,
        ), nedge)

    def single(parents, distances, nedge):
        validate_sssp(edges, SSSPResult(source=result.source, parents=parents, distances=distances),
                      n=full_graph.n, nedge=nedge)

    return rules_per_fault(graph, result, gathered, plan, "distances", distributed, single, grid.rank == 0)

def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--scale", type=int, default=10)
    parser.add_argument("--roots", type=int, default=3)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    world = wd.world()
    with abort_on_error(world):
        grid = wd.ProcessGrid()
        summary = {"size": grid.size, "grid": [grid.rows, grid.cols]}

        graph = wd.kronecker(args.scale, grid=grid, weighted=True)
        roots = wd.choose_roots(graph, args.roots, seed=1)
        src, dst, weights = kronecker_edges(args.scale)
        full_graph = from_edges(src, dst, weights, n=1 << args.scale)
        summary["kronecker"] = compare(graph, full_graph, (src, dst, weights), roots, np.float32, grid)
        summary["mutations"] = check_mutations(graph, full_graph, (src, dst, weights), roots[0], grid)

        isrc, idst, iw = irregular_edges()
        for label, w, dtype in (("float32", iw, np.float32), ("int32", (iw * 64).astype(np.int32), np.float64)):
            (s, d, ws), first = my_slice((isrc, idst, w), grid)
            small = wd.from_edges(s, d, 1000, grid, tuple_offset=first, weights=ws)
            small_full = from_edges(isrc, idst, w, n=1000)
            summary[f"irregular_{label}"] = compare(small, small_full, (isrc, idst, w), (0, 950, 800), dtype, grid)
        if grid.rank == 0:
            with open(args.out, "w") as f:
                json.dump(summary, f)


if __name__ == "__main__":
    main()
