"""Hop depth of road graphs' shortest-path trees, and how often those paths cross regions: the floors of a road SSSP.

    PYTHONPATH=. python benchmarks/road_depth.py [--graphs ../shared/data/amsterdam.gr.gz,...] [--roots 5]
        [--region-sizes 1024,4096,16384]

A distance reaches a vertex only after it reached the vertex's parent, so a
search takes at least the tree's hop depth in dependent updates, however it
is scheduled. Prints, per root of degree 1 or more that reaches more than
half the graph, the reached count, the SSSP tree's hop depth (Dijkstra's
parents), the BFS depth, and that depth at ``--hop-us`` a hop.

With ``--region-sizes`` the vertices are split by their coordinates (the
DIMACS ``.co`` file beside the ``.gr``; median cuts, x and y in turn) into
regions of at most that many vertices, and the table gives the share of arcs
cut and the most region crossings on any shortest path: the global rounds a
search needs if each region converges on its own between exchanges
(docs/decisions/cuda-sssp.md, "The floor and where the time goes").
``--simulate`` also runs that search (:func:`region_rounds`: each round,
every region's frontier Bellman-Ford to convergence over its own arcs, then
the cut arcs) and prints its rounds, its in-region iterations (the rounds'
longest chains, summed: the dependent steps a block-synchronous kernel
would take) and its relaxations per arc; its distances are checked against
Dijkstra's.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks._common import number_list  # noqa: E402

DATA = ROOT.parent / "shared" / "data"


def tree_paths(parents: np.ndarray, distances: np.ndarray, region: np.ndarray | None = None) -> tuple[int, int]:
    """The most hops, and the most changes of ``region`` (0 without one),
    on a root-to-vertex path of a shortest-path tree (parents of unreached
    vertices -1, the root its own parent). Parents come first in distance
    order; ties (zero-weight arcs) are settled by repeated passes."""
    reached = np.flatnonzero(parents >= 0)
    hops = np.full(parents.size, -1, dtype=np.int64)
    crossings = np.zeros(parents.size, dtype=np.int64)
    pending = reached[np.argsort(distances[reached], kind="stable")]
    while pending.size:
        later = []
        for v in pending:
            p = parents[v]
            if p == v:
                hops[v] = 0
            elif hops[p] >= 0:
                hops[v] = hops[p] + 1
                crossings[v] = crossings[p] + int(region is not None and region[p] != region[v])
            else:
                later.append(v)
        if len(later) == pending.size:
            raise ValueError("the parents hold a cycle")
        pending = np.array(later, dtype=np.int64)
    return int(hops.max()), int(crossings[reached].max())


def coordinate_regions(xy: np.ndarray, size: int) -> np.ndarray:
    """A region id per vertex: median cuts of the coordinates, x and y in
    turn, until every region holds at most ``size`` vertices."""
    region = np.zeros(len(xy), dtype=np.int64)
    pending, count = [(np.arange(len(xy)), 0)], 0
    while pending:
        ids, axis = pending.pop()
        if ids.size <= size:
            region[ids] = count
            count += 1
            continue
        order = ids[np.argsort(xy[ids, axis], kind="stable")]
        half = order.size // 2
        pending += [(order[:half], 1 - axis), (order[half:], 1 - axis)]
    return region


def _relax(indptr, indices, weights, sources, dist, keep):
    """Relax the arcs out of ``sources`` that ``keep`` selects; returns the
    improved vertices (each once, its best candidate written) and the arcs relaxed."""
    degree = indptr[sources + 1] - indptr[sources]
    first = np.cumsum(degree) - degree
    arcs = np.repeat(indptr[sources], degree) + (np.arange(int(degree.sum())) - np.repeat(first, degree))
    tails = np.repeat(sources, degree)
    chosen = keep[arcs]
    arcs, tails = arcs[chosen], tails[chosen]
    heads, candidates = indices[arcs], dist[tails] + weights[arcs]
    better = candidates < dist[heads]
    heads, candidates = heads[better], candidates[better]
    order = np.lexsort((candidates, heads))
    heads, candidates = heads[order], candidates[order]
    lowest = np.r_[True, heads[1:] != heads[:-1]] if heads.size else np.zeros(0, dtype=bool)
    heads, candidates = heads[lowest], candidates[lowest]
    dist[heads] = candidates
    return heads, int(arcs.size)


def region_rounds(indptr, indices, weights, region, root: int) -> tuple[np.ndarray, int, int, int]:
    """A region-synchronous search from ``root``: per round, every region's
    frontier Bellman-Ford to convergence over its own arcs (all regions in
    step, so a round takes its longest region's iterations), then one pass
    over the cut arcs out of every vertex the round improved, whose improved
    heads are the next round's frontier. Returns (distances, rounds, in-region
    iterations summed over rounds, arcs relaxed)."""
    n = indptr.size - 1
    internal = region[np.repeat(np.arange(n), np.diff(indptr))] == region[indices]
    dist = np.full(n, np.inf)
    dist[root] = 0.0
    frontier = np.array([root], dtype=np.int64)
    rounds = iterations = relaxed = 0
    while frontier.size:
        rounds += 1
        improved, current = [frontier], frontier
        while current.size:
            current, count = _relax(indptr, indices, weights, current, dist, internal)
            relaxed += count
            iterations += 1
            improved.append(current)
        frontier, count = _relax(indptr, indices, weights, np.unique(np.concatenate(improved)), dist, ~internal)
        relaxed += count
    return dist, rounds, iterations, relaxed


def main() -> None:
    import wavefront

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--graphs", default=",".join(str(DATA / f"{g}.gr.gz") for g in ("amsterdam", "seattle")))
    parser.add_argument("--roots", type=int, default=5)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--hop-us", type=float, default=1.04,
                        help="microseconds a dependent hop costs (default: two dependent L2 loads and a barrier "
                             "on an H200)")
    parser.add_argument("--region-sizes", type=number_list(int, minimum=0), default=[],
                        help="comma-separated region sizes (needs the .co files)")
    parser.add_argument("--simulate", action="store_true",
                        help="also run the region-synchronous search for each region size (region_rounds)")
    args = parser.parse_args()
    sizes = args.region_sizes
    print("graph | n | root | reached | SSSP tree hops | BFS depth | floor ms at --hop-us"
          + "".join(f" | regions <= {s}: count, arcs cut, most crossings" for s in sizes))
    for path in args.graphs.split(","):
        graph = wavefront.read_graph(path)
        regions = []
        if sizes:
            xy = wavefront.read_coordinates(path.replace(".gr", ".co")).astype(np.float64)
            sources = np.repeat(np.arange(graph.n), np.diff(np.asarray(graph.indptr)))
            for size in sizes:
                region = coordinate_regions(xy, size)
                cut = float(np.mean(region[sources] != region[np.asarray(graph.indices)]))
                regions.append((region, int(region.max()) + 1, cut))
        rng = np.random.default_rng(args.seed)
        done = 0
        for root in (int(r) for r in rng.integers(0, graph.n, 100 * args.roots)):
            if done == args.roots:
                break
            result = wavefront.sssp(graph, root, method="dijkstra")
            parents, distances = np.asarray(result.parents), np.asarray(result.distances)
            if (parents >= 0).sum() * 2 <= graph.n:
                continue  # a small component's root
            hops, _ = tree_paths(parents, distances)
            levels = int(np.asarray(wavefront.bfs(graph, root).levels).max())
            cells = "".join(f" | {count}, {cut:.1%}, {tree_paths(parents, distances, region)[1]}"
                            for region, count, cut in regions)
            print(f"{Path(path).name.split('.')[0]} | {graph.n:,} | {root} | {int((parents >= 0).sum()):,} | {hops} | "
                  f"{levels} | {hops * args.hop_us / 1e3:.2f}{cells}")
            if args.simulate:
                indptr, indices = np.asarray(graph.indptr), np.asarray(graph.indices)
                weights = np.asarray(graph.weights, dtype=np.float64)
                for (region, count, _), size in zip(regions, sizes, strict=True):
                    found, rounds, iterations, relaxed = region_rounds(indptr, indices, weights, region, root)
                    if not np.array_equal(found, distances.astype(np.float64)):
                        raise SystemExit(f"root {root}, regions <= {size}: the simulated distances differ")
                    print(f"  simulated, regions <= {size} ({count}): {rounds} rounds, {iterations} in-region "
                          f"iterations, {relaxed / graph.m:.2f} relaxations per arc")
            done += 1


if __name__ == "__main__":
    main()
