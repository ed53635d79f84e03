"""Hop depth of the shortest-path trees and BFS trees of road graphs: the dependent-update floor of any SSSP.

    PYTHONPATH=. python benchmarks/road_depth.py [--graphs ../shared/data/amsterdam.gr.gz,...] [--roots 5]

A distance reaches a vertex only after it reached the vertex's parent, so a
search takes at least the tree's hop depth in dependent updates, however it
is scheduled. Prints, per root of degree 1 or more that reaches more than
half the graph, the reached count, the SSSP tree's hop depth (Dijkstra's
parents) and the BFS depth, and that depth at ``--hop-us`` a hop
(docs/decisions/cuda-sssp.md, "The floor and where the time goes").
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

DATA = ROOT.parent / "shared" / "data"


def tree_depth(parents: np.ndarray, distances: np.ndarray) -> int:
    """The largest hop count from the root in a shortest-path tree (parents of
    unreached vertices -1, the root its own parent): parents come first in
    distance order, ties broken by the tree itself (a zero-weight arc's head
    after its tail, by repeated passes)."""
    reached = np.flatnonzero(parents >= 0)
    depth = np.full(parents.size, -1, dtype=np.int64)
    pending = reached[np.argsort(distances[reached], kind="stable")]
    while pending.size:
        later = []
        for v in pending:
            p = parents[v]
            if p == v:
                depth[v] = 0
            elif depth[p] >= 0:
                depth[v] = depth[p] + 1
            else:
                later.append(v)
        if len(later) == pending.size:
            raise ValueError("the parents hold a cycle")
        pending = np.array(later, dtype=np.int64)
    return int(depth.max())


def main() -> None:
    import wavefront

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--graphs", default=",".join(str(DATA / f"{g}.gr.gz") for g in ("amsterdam", "seattle")))
    parser.add_argument("--roots", type=int, default=5)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--hop-us", type=float, default=1.04,
                        help="microseconds a dependent hop costs (default: two dependent L2 loads and a barrier "
                             "on an H200)")
    args = parser.parse_args()
    print("graph | n | root | reached | SSSP tree hops | BFS depth | floor ms at --hop-us")
    for path in args.graphs.split(","):
        graph = wavefront.read_graph(path)
        rng = np.random.default_rng(args.seed)
        done = 0
        for root in (int(r) for r in rng.integers(0, graph.n, 100 * args.roots)):
            if done == args.roots:
                break
            result = wavefront.sssp(graph, root, method="dijkstra")
            parents = np.asarray(result.parents)
            if (parents >= 0).sum() * 2 <= graph.n:
                continue  # a small component's root
            hops = tree_depth(parents, np.asarray(result.distances))
            levels = int(np.asarray(wavefront.bfs(graph, root).levels).max())
            print(f"{Path(path).name.split('.')[0]} | {graph.n:,} | {root} | {int((parents >= 0).sum()):,} | {hops} | "
                  f"{levels} | {hops * args.hop_us / 1e3:.2f}")
            done += 1


if __name__ == "__main__":
    main()
