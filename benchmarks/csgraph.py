"""``wavefront.csgraph.dijkstra`` against ``scipy.sparse.csgraph.dijkstra``.

    PYTHONPATH=. python benchmarks/csgraph.py [--road-nodes 1000000] [--indices 16] [--repeats 3]

Graphs: seattle (DIMACS, ``.data/`` or ``../shared/data``, directed) and a
road-like graph (``wavefront.generators.road_like``, stored symmetric), both
as float64 ``scipy.sparse.csr_array`` matrices, searched with
``directed=True``. Rows: one index and ``--indices`` indices (random nodes of
degree >= 1). Columns, each the median of ``--repeats`` calls after one
untimed warm-up (numba and CUDA compilation excluded):

* SciPy: ``scipy.sparse.csgraph.dijkstra`` (one core, as SciPy runs);
* CPU: ``wavefront.csgraph.dijkstra`` on the same matrix, with wavefront's
  ``auto`` method and with ``dijkstra`` (wavefront.interop.csgraph.METHODS);
  the whole call, conversion of the matrix included;
* CUDA, when CuPy is present: copy the matrix to the GPU
  (``cupyx.scipy.sparse.csr_matrix``), call, copy the distances back, all
  timed; and "resident": the matrix already on the GPU, results left there.

Every answer's distances are checked against SciPy's. Prints a markdown table.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import wavefront as wf  # noqa: E402
from benchmarks._common import cpu_model, pick_roots  # noqa: E402
from wavefront.interop import csgraph as wf_csgraph  # noqa: E402


def seattle():
    local = ROOT / ".data" / "seattle.gr.gz"
    path = local if local.exists() else ROOT.parent / "shared" / "data" / "seattle.gr.gz"
    if not path.exists():
        return None
    return wf.read_graph(path)


def timed(run, repeats: int, sync=lambda: None):
    """(last result, median seconds) of ``repeats`` calls after one warm-up."""
    result = run()
    sync()
    seconds = []
    for _ in range(repeats):
        sync()
        start = time.perf_counter()
        result = run()
        sync()
        seconds.append(time.perf_counter() - start)
    return result, statistics.median(seconds)


def with_cpu_method(method: str, run):
    def call():
        saved = dict(wf_csgraph.METHODS["cpu"])
        wf_csgraph.METHODS["cpu"]["sssp"] = method
        try:
            return run()
        finally:
            wf_csgraph.METHODS["cpu"].update(saved)

    return call


def cuda_present() -> bool:
    from wavefront.backends import cuda_available

    return cuda_available()


def measure(name: str, matrix, indices, repeats: int) -> dict:
    import scipy.sparse.csgraph as scipy_csgraph

    expected, scipy_s = timed(lambda: scipy_csgraph.dijkstra(matrix, indices=indices), repeats)
    row = {"graph": name, "n": matrix.shape[0], "m": matrix.nnz,
           "indices": 1 if np.ndim(indices) == 0 else len(indices), "scipy": scipy_s}
    for method in ("auto", "dijkstra"):
        got, seconds = timed(with_cpu_method(method, lambda: wf_csgraph.dijkstra(matrix, indices=indices)),
                             repeats)
        np.testing.assert_array_equal(got, expected)
        row[f"cpu_{method}"] = seconds
    if cuda_present():
        import cupy
        import cupyx.scipy.sparse as cusparse

        sync = cupy.cuda.get_current_stream().synchronize
        got, row["cuda"] = timed(
            lambda: wf_csgraph.dijkstra(cusparse.csr_matrix(matrix), indices=indices).get(), repeats, sync
        )
        np.testing.assert_array_equal(got, expected)
        on_gpu = cusparse.csr_matrix(matrix)
        got, row["cuda_resident"] = timed(lambda: wf_csgraph.dijkstra(on_gpu, indices=indices), repeats, sync)
        np.testing.assert_array_equal(got.get(), expected)
    return row


def table(rows: list[dict]) -> str:
    cuda = any("cuda" in r for r in rows)
    head = ["graph", "n", "arcs", "indices", "SciPy ms", "CPU auto ms", "CPU dijkstra ms", "CPU best ×"]
    if cuda:
        head += ["CUDA ms (with transfers)", "CUDA ×", "CUDA resident ms", "resident ×"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        best = min(r["cpu_auto"], r["cpu_dijkstra"])
        cells = [r["graph"], f"{r['n']:,}", f"{r['m']:,}", str(r["indices"]), f"{r['scipy'] * 1e3:.1f}",
                 f"{r['cpu_auto'] * 1e3:.1f}", f"{r['cpu_dijkstra'] * 1e3:.1f}", f"{r['scipy'] / best:.2f}"]
        if cuda:
            cells += [f"{r['cuda'] * 1e3:.1f}", f"{r['scipy'] / r['cuda']:.2f}",
                      f"{r['cuda_resident'] * 1e3:.1f}", f"{r['scipy'] / r['cuda_resident']:.2f}"]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--road-nodes", type=int, default=1_000_000)
    parser.add_argument("--indices", type=int, default=16, help="indices of the multi-index rows")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)

    from numba import get_num_threads

    from wavefront.generators import road_like

    graphs = []
    road = seattle()
    if road is None:
        print("seattle.gr.gz not found in .data/ or ../shared/data: skipped", file=sys.stderr)
    else:
        graphs.append(("seattle", road))
    graphs.append((f"road_like({args.road_nodes:,})", road_like(args.road_nodes, seed=args.seed)))
    rows = []
    for name, graph in graphs:
        matrix = graph.to_scipy().astype(np.float64)
        roots = pick_roots(graph, count=args.indices, seed=args.seed)
        for indices in (roots[0], np.array(roots)):
            rows.append(measure(name, matrix, indices, args.repeats))
            print(f"done: {name}, {rows[-1]['indices']} indices", file=sys.stderr)
    print(f"CPU: {cpu_model()}, {get_num_threads()} numba threads; median of {args.repeats} after a warm-up; "
          "× = SciPy's time / wavefront's")
    if cuda_present():
        from wavefront.backends import cuda_status

        print(cuda_status()[1])
    print()
    print(table(rows))


if __name__ == "__main__":
    main()
