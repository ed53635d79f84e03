"""Road graphs under other vertex orders: does a locality order (reverse
Cuthill-McKee) speed up the CUDA BFS and SSSP?

    PYTHONPATH=. python benchmarks/vertex_order.py [--graphs amsterdam,seattle,road1.4m,grid,road4m] \
        [--orders given,rcm,random] [--roots 4] [--repeat 3] [--sssp-methods auto,regions] [--json out.json]

Each graph (benchmarks/roads.py's graphs, int32 weights) is renumbered by
each order (``given``: the file's or generator's ids; ``rcm``: SciPy's
reverse Cuthill-McKee; ``random``: a random permutation, the order with no
locality) into a relabelled wavefront.Graph (``Graph.labels``), so
``wavefront.bfs``/``sssp`` take the caller's root and return the caller's
ids: the timed call includes mapping the result back. Every result is
checked against SciPy on the given order. Prints one table (ms, mean over
roots of the best of ``--repeat``; the orders interleaved root by root).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks._common import pick_roots, timed_on_gpu  # noqa: E402
from benchmarks.roads import (  # noqa: E402
    _check_bfs,
    _check_sssp,
    build_graph,
    edge_list,
    scipy_reference,
)


def log(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def order_of(graph, name: str, seed: int) -> np.ndarray:
    """Old ids in their new order (``order[new] = old``)."""
    import scipy.sparse as sp
    from scipy.sparse import csgraph

    if name == "given":
        return np.arange(graph.n, dtype=np.int64)
    if name == "random":
        return np.random.default_rng(seed).permutation(graph.n).astype(np.int64)
    if name == "rcm":
        matrix = sp.csr_matrix((np.ones(graph.m, dtype=np.int8), graph.indices, graph.indptr), shape=(graph.n,) * 2)
        return csgraph.reverse_cuthill_mckee(matrix, symmetric_mode=not graph.directed).astype(np.int64)
    raise SystemExit(f"unknown order {name!r}")


def _permuted_rows(indptr, indices, weights, order, new_id):
    """One CSR (or CSC) with row i = old row order[i], ids renumbered, rows sorted."""
    n = order.size
    degree = np.diff(indptr)[order]
    out_indptr = np.zeros(n + 1, dtype=indptr.dtype)
    np.cumsum(degree, out=out_indptr[1:])
    take = np.arange(indices.size, dtype=np.int64) + np.repeat(indptr[:-1][order] - out_indptr[:-1], degree)
    cols = new_id[indices[take]]
    sort = np.lexsort((cols, np.repeat(np.arange(n, dtype=np.int64), degree)))
    return out_indptr, cols[sort].astype(indices.dtype), None if weights is None else weights[take][sort]


def renumbered(graph, order: np.ndarray):
    """The graph with internal id i = caller id order[i]."""
    import wavefront as wf

    new_id = np.empty(graph.n, dtype=np.int64)
    new_id[order] = np.arange(graph.n, dtype=np.int64)
    indptr, indices, weights = _permuted_rows(graph.indptr, graph.indices, graph.weights, order, new_id)
    csc = {}
    if graph.directed:
        in_indptr, in_indices, in_weights = _permuted_rows(graph.in_indptr, graph.in_indices, graph.in_weights,
                                                           order, new_id)
        csc = {"in_indptr": in_indptr, "in_indices": in_indices, "in_weights": in_weights}
    return wf.Graph(indptr, indices, n=graph.n, weights=weights, directed=graph.directed, **csc,
                    input_degree=graph.input_degree[order], num_input_edges=graph.num_input_edges, labels=order)


def main(argv=None) -> int:
    import cupy

    import wavefront as wf

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--graphs", default="amsterdam,seattle,road1.4m,grid,road4m")
    parser.add_argument("--orders", default="given,rcm,random")
    parser.add_argument("--roots", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--sssp-methods", default="auto,regions")
    parser.add_argument("--data", type=Path)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    orders = args.orders.split(",")
    runs = [("bfs", "hybrid")] + [("sssp", m) for m in filter(None, args.sssp_methods.split(","))]
    rows = []
    for name in args.graphs.split(","):
        label, graph = build_graph(name, args.data, args.seed)
        roots = pick_roots(graph, args.roots, seed=args.seed)
        edges = edge_list(graph)
        ref = scipy_reference(graph, roots, 1, True, True)
        graphs = {}
        for o in orders:
            start = time.perf_counter()
            order = order_of(graph, o, args.seed)
            graphs[o] = renumbered(graph, order).to("cuda")
            log(f"{label} {o}: order and CSR in {time.perf_counter() - start:.2f} s")
        for kernel, method in runs:
            call = wf.bfs if kernel == "bfs" else wf.sssp
            best = {o: [np.inf] * len(roots) for o in orders}
            skipped = set()
            for o in orders:  # warm-up: compilation, workspaces
                try:
                    call(graphs[o], roots[0], method=method)
                except wf.errors.MethodLimitError as error:
                    log(f"{label} {kernel} {method} {o}: not run ({error})")
                    skipped.add(o)
            for r in range(args.repeat):
                for i, root in enumerate(roots):
                    for o in orders:
                        if o in skipped:
                            continue
                        result, seconds = timed_on_gpu(call, graphs[o], root, method=method)
                        best[o][i] = min(best[o][i], seconds)
                        if r == 0:
                            if kernel == "bfs":
                                _check_bfs(label, f"cuda {o}", graph, edges, root, result, ref.levels[i])
                            else:
                                _check_sssp(label, f"cuda {o}", graph, edges, root, result, ref.distances[i])
            row = {"graph": label, "n": graph.n, "m": graph.m, "kernel": kernel, "method": method,
                   "ms": {o: None if o in skipped else statistics.fmean(best[o]) * 1e3 for o in orders}}
            rows.append(row)
            log(f"{label} {kernel} {method}: " + ", ".join(
                f"{o} {v:.3f}" if v is not None else f"{o} -" for o, v in row["ms"].items()) + " ms, checked")
        del graphs
        cupy.get_default_memory_pool().free_all_blocks()
    gpu = cupy.cuda.runtime.getDeviceProperties(0)["name"].decode()
    commit = os.environ.get("WAVEFRONT_COMMIT", "unknown")
    print(f"GPU {gpu}, commit {commit}, {args.roots} roots, best of {args.repeat}, mean over roots (ms)\n")
    print("| graph | n | kernel | method | " + " | ".join(orders) + " | " +
          " | ".join(f"{o} / given" for o in orders if o != "given") + " |")
    print("|---|---:|---|---|" + "---:|" * (2 * len(orders) - 1))
    for row in rows:
        ms = row["ms"]
        cells = [f"{ms[o]:.3f}" if ms[o] is not None else "-" for o in orders]
        ratios = [f"{ms[o] / ms['given']:.2f}" if ms[o] and ms.get("given") else "-" for o in orders if o != "given"]
        print(f"| {row['graph']} | {row['n']:,} | {row['kernel']} | {row['method']} | " + " | ".join(cells + ratios)
              + " |")
    out = args.json or (Path(os.environ["OUT"]) / "vertex_order.json" if os.environ.get("OUT") else None)
    if out:
        out.write_text(json.dumps({"gpu": gpu, "commit": commit, "rows": rows}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
