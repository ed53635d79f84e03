"""Checks of the distributed construction and the chunked validation, run by
tests/test_host_memory.py under ``mpirun -n P`` (or plain ``python`` for a world of one).

* Every rank's block (CSR, CSC, weights, index dtypes, degrees) equals the
  single-process NumPy builder's on that rank's arcs, for the Kronecker
  tuples exchanged a few hundred at a time, and for irregular tuples split
  unevenly (rank 0 holds most, the last rank none), ids given as uint32,
  int32 and int64, with and without weights.
* The graph keeps the given tuple arrays without copying them.
* Validation a few tuples at a time (ranks running out of tuples at
  different rounds) accepts what it accepts in one chunk, names the same
  witness when a result is corrupted, and counts the same edges.

Rank 0 writes a JSON summary to ``--out``; a failure ends every rank.
"""
from __future__ import annotations

import argparse
import json

import numpy as np

import wavefront.distributed as wd
from wavefront.distributed.launch import abort_on_error
from wavefront.errors import ValidationError
from wavefront.generators import kronecker_edges
from wavefront.graph.build import compress


def reference_block(src, dst, weights, graph):
    """The block of this rank from all tuples, by the single-process builder."""
    keep = src != dst
    u = np.concatenate((src[keep], dst[keep])).astype(np.int64)
    v = np.concatenate((dst[keep], src[keep])).astype(np.int64)
    w = None if weights is None else np.concatenate((weights[keep], weights[keep]))
    part, grid = graph.part, graph.grid
    mine = part.block_rank(u, v) == grid.rank
    u = u[mine] - part.col_block(grid.j)[0]
    v = v[mine] - part.row_block(grid.i)[0]
    w = None if w is None else w[mine]
    span = max(part.row_block_size, part.col_block_size)
    return compress(u, v, w, span), compress(v, u, w, span), int(keep.sum())


def same_block(src, dst, weights, graph) -> bool:
    csr, csc, proper = reference_block(src, dst, weights, graph)
    got = ((graph.indptr, graph.indices, graph.weights), (graph.in_indptr, graph.in_indices, graph.in_weights))
    for want, have in zip((csr, csc), got):
        for a, b in zip(want, have):
            if (a is None) != (b is None) or (a is not None and (a.dtype != b.dtype or not np.array_equal(a, b))):
                return False
    return graph.num_input_edges == proper


def uneven(count: int, grid):
    """Rank 0 takes 70 %, the last rank nothing (when there are several)."""
    if grid.size == 1:
        return 0, count
    cuts = [0, count * 7 // 10]
    for r in range(1, grid.size - 1):
        cuts.append(cuts[-1] + (count - cuts[1]) // max(grid.size - 2, 1))
    cuts.append(count)
    cuts[-2] = count  # the last rank's slice is empty
    return cuts[grid.rank], cuts[grid.rank + 1]


def corrupted_message(graph, result, kernel) -> tuple[str, str] | None:
    validate = wd.validate_bfs if kernel == "bfs" else wd.validate_sssp
    try:
        validate(graph, result)
    except ValidationError as exc:
        return exc.rule, str(exc)
    return None


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out")
    args = parser.parse_args()
    grid = wd.ProcessGrid()
    summary = {"size": grid.size, "blocks": 0, "validations": 0}
    with abort_on_error(grid.world):
        scale = 10
        src, dst, weights = kronecker_edges(scale)
        lo, hi = src.shape[0] * grid.rank // grid.size, src.shape[0] * (grid.rank + 1) // grid.size
        for weighted in (False, True):
            w = weights if weighted else None
            mine = src[lo:hi].astype(np.uint32), dst[lo:hi].astype(np.uint32)
            graph = wd.from_edges(*mine, 1 << scale, grid, tuple_offset=lo,
                                  weights=None if w is None else w[lo:hi], chunk=300)
            assert graph.src is mine[0] and graph.dst is mine[1], "the tuples were copied"
            assert same_block(src, dst, w, graph), f"Kronecker block differs on rank {grid.rank}"
            summary["blocks"] += 1

        rng = np.random.default_rng(3)
        n = 1000
        isrc, idst = rng.integers(0, 700, 5000), rng.integers(0, 700, 5000)
        iw = rng.integers(1, 50, 5000).astype(np.int32)
        lo, hi = uneven(isrc.shape[0], grid)
        for dtype in (np.uint32, np.int32, np.int64):
            graph = wd.from_edges(isrc[lo:hi].astype(dtype), idst[lo:hi].astype(dtype), n, grid, tuple_offset=lo,
                                  weights=iw[lo:hi], chunk=97)
            assert same_block(isrc, idst, iw, graph), f"irregular block ({dtype.__name__}) differs on rank {grid.rank}"
            summary["blocks"] += 1

        # Validation in chunks of 97 tuples (ranks hold 3500..0) against one chunk.
        mine = isrc[lo:hi], idst[lo:hi], iw[lo:hi]  # views: corrupting isrc below corrupts both graphs' tuples
        chunked = wd.from_edges(*mine[:2], n, grid, tuple_offset=lo, weights=mine[2], chunk=97)
        whole = wd.from_edges(*mine[:2], n, grid, tuple_offset=lo, weights=mine[2])
        assert whole.chunk > hi - lo and chunked.src is whole.src
        root = int(wd.choose_roots(whole, 1)[0])
        for kernel in ("bfs", "sssp"):
            search, validate = (wd.bfs, wd.validate_bfs) if kernel == "bfs" else (wd.sssp, wd.validate_sssp)
            result = search(chunked, root)
            nedge = chunked.traversed_edges(result.reached)
            a, b = validate(chunked, result, nedge), validate(whole, result, nedge)
            assert a == b, (a, b)
            # Tuples (root, 999) at positions 250, 150 and 120 of rank 0's
            # slice (two chunks; 120 is the witness) and 30 of the others':
            # edges from the root to a vertex no tuple reaches.
            far = n - 1
            # Fresh graphs (blocks from the clean tuples): a validator routes a
            # graph's tuple endpoints once, on its first call.
            fresh = [wd.from_edges(*mine[:2], n, grid, tuple_offset=lo, weights=mine[2], chunk=c)
                     for c in (97, chunked.chunk)]
            saved = isrc.copy(), idst.copy()
            for k in ((250, 150, 120) if grid.rank == 0 else (30,)):
                if lo + k < hi:
                    isrc[lo + k], idst[lo + k] = root, far
            got = tuple(corrupted_message(g, result, kernel) for g in fresh)
            assert got[0] is not None and got[0] == got[1], got
            assert got[0][0] == "edge-reached-unreached" and "input edge 120 " in got[0][1], got[0]
            isrc[:], idst[:] = saved
            summary["validations"] += 1
            summary[f"{kernel}_rule"] = got[0][0]
        if grid.rank == 0 and args.out:
            with open(args.out, "w") as f:
                json.dump(summary, f)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
