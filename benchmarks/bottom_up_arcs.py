"""Arcs a bottom-up level examines, on the CPU: the probe order of a one-column block, and the graph's growth.

    PYTHONPATH=. python benchmarks/bottom_up_arcs.py --scales 17,18,19 --roots 12

On the Graph500 Kronecker graph of each SCALE, from random roots of degree 1
or more, every vertex still unvisited at a level probes its in-neighbours in
a given order until one lies on the level before (the early exit of the
GPU's bottom-up step, counted one arc at a time). Two tables:

1. **Probe order** on rank 0 of a one-column 2x1 grid, at the level that
   finds the most vertices: in-neighbours by global degree (the single-GPU
   order), by the block's out-degree (the order ``gpu.to_gpu`` sorts a
   one-column block's CSC by: a vertex's arcs into the rank's rows only),
   and unordered.
2. **Weak scaling**: a rank of 2x1 at SCALE k + 1 (its half of the rows)
   against one GPU at SCALE k (every row), levels 3 and 4 taken as
   bottom-up, global-degree order, the mean over roots and its range.

It answers docs/scaling.md's question whether a 2x1 rank examining 1.31x
the arcs of one GPU (one traced root, SCALE 27 against 26) belongs to the
layout or to the graph.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks._common import number_list  # noqa: E402


def examined(indptr, indices, vertices, key, level, at: int) -> int:
    """Arcs probed by ``vertices`` (unvisited at level ``at``), each probing
    its row of ``indices`` in increasing ``key(arcs)`` until a vertex of
    level ``at - 1``, or the whole row."""
    starts, degree = indptr[vertices], indptr[vertices + 1] - indptr[vertices]
    first = np.cumsum(degree) - degree
    row = np.repeat(np.arange(vertices.size), degree)
    offset = np.arange(int(degree.sum())) - np.repeat(first, degree)
    arcs = indices[np.repeat(starts, degree) + offset]
    order = np.lexsort((key(arcs), row))
    never = np.iinfo(np.int64).max
    hit = np.where(level[arcs[order]] == at - 1, offset, never)  # offset: the position within the sorted row
    found = np.full(vertices.size, never)
    some = degree > 0
    found[some] = np.minimum.reduceat(hit, first[some])
    return int(np.where(found == never, degree, found + 1).sum())


def kronecker_csr(scale: int):
    import wavefront
    from wavefront.generators import kronecker_edges
    from wavefront.graph.build import from_edges

    src, dst, _ = kronecker_edges(scale)
    graph = from_edges(src, dst, n=1 << scale)
    return wavefront, graph, np.asarray(graph.indptr), np.asarray(graph.indices)


def roots_of(degree, count: int, seed: int) -> list[int]:
    rng = np.random.default_rng(seed)
    return [int(r) for r in rng.integers(0, degree.size, 50 * count) if degree[r] > 0][:count]


def probe_orders(scale: int, roots: int, seed: int) -> list[tuple]:
    """(root, level, global, block, unordered) arcs on rank 0 of 2x1."""
    wavefront, graph, indptr, indices = kronecker_csr(scale)
    n, degree = graph.n, np.diff(indptr)
    half = n // 2
    sources = np.repeat(np.arange(n), degree)
    block_degree = np.bincount(indices[sources < half], minlength=n)  # arcs into rank 0's rows
    rows = []
    for root in roots_of(degree, roots, seed):
        level = np.asarray(wavefront.bfs(graph, root).levels)
        at = int(np.argmax(np.bincount(level[level >= 0])))
        mine = np.flatnonzero(((level >= at) | (level < 0)) & (np.arange(n) < half))
        counts = [examined(indptr, indices, mine, key, level, at) for key in
                  (lambda arcs: -degree[arcs], lambda arcs: -block_degree[arcs], lambda arcs: np.zeros(arcs.size))]
        rows.append((root, at, *counts))
    return rows


def per_gpu(scale: int, parts: int, roots: int, seed: int) -> np.ndarray:
    """Rows (level 3 arcs, level 4 arcs) on rank 0 of ``parts`` x 1, one per root."""
    wavefront, graph, indptr, indices = kronecker_csr(scale)
    degree = np.diff(indptr)
    piece = graph.n // parts
    out = []
    for root in roots_of(degree, roots, seed):
        level = np.asarray(wavefront.bfs(graph, root).levels)
        out.append([examined(indptr, indices, np.flatnonzero(((level >= at) | (level < 0))[:piece]),
                             lambda arcs: -degree[arcs], level, at) for at in (3, 4)])
    return np.array(out, dtype=float)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scales", type=number_list(int, minimum=1), default=[17, 18, 19])
    parser.add_argument("--roots", type=int, default=12)
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args()
    scales = args.scales
    print("probe order, rank 0 of 2x1, the level that finds the most (arcs examined)")
    print("SCALE | root | level | global degree | block out-degree | block / global | unordered")
    for scale in scales:
        for root, at, by_global, by_block, unordered in probe_orders(scale, min(args.roots, 3), args.seed):
            print(f"{scale} | {root} | {at} | {by_global:,} | {by_block:,} | {by_block / by_global:.4f} | "
                  f"{unordered:,}")
    print("\nweak scaling: rank 0 of 2x1 at SCALE k + 1 against one GPU at SCALE k, levels 3 and 4 bottom-up")
    print("SCALE k | roots | level 3 ratio of means | level 4 | levels 3 + 4 | per-root range of levels 3 + 4")
    for scale in scales:
        one, two = per_gpu(scale, 1, args.roots, args.seed), per_gpu(scale + 1, 2, args.roots, args.seed)
        both_one, both_two = one.sum(axis=1), two.sum(axis=1)
        spread = both_two / both_one  # root i of each graph: unrelated searches, so only the spread means much
        print(f"{scale} | {args.roots} | {two[:, 0].mean() / one[:, 0].mean():.2f} | "
              f"{two[:, 1].mean() / one[:, 1].mean():.2f} | {both_two.mean() / both_one.mean():.2f} | "
              f"{spread.min():.2f}-{spread.max():.2f}")


if __name__ == "__main__":
    main()
