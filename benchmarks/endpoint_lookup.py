"""The distributed validator's endpoint routes (built once per graph, on the first validation): NumPy on one core against the numba kernels.

    python benchmarks/endpoint_lookup.py --scale 28 --ranks 2 [--rank 0] [--tuples 2**26] [--threads 16] [--repeat 3]

One rank's slice of the Graph500 tuples of SCALE ``--scale`` split over
``--ranks`` ranks (the first ``--tuples`` of it: a sample; default all), in
the run's uint32 ids, then what :class:`wavefront.distributed._exchange.EndpointLookup`
finds from them before it asks the owners (that all-to-all-v is the same for
both): which of the ``n_pad`` vertices the endpoints touch and each one's
place among them. ``numpy`` is the build before (a chunked ``seen[ids] = True``
scatter, ``np.flatnonzero``, ``np.cumsum``), ``numba`` the kernels of
:mod:`wavefront.distributed._validate_kernels` on ``--threads`` threads.
Both results are checked equal. Prints seconds per phase (best of
``--repeat``) and ns per endpoint; a sample's seconds scale with the slice's
endpoints (the per-endpoint cost is a random write into the ``n_pad`` flags,
so take the sample at the real SCALE). No MPI, no GPU.
"""
from __future__ import annotations

import argparse
import time

import numpy as np


def _tuples(scale: int, ranks: int, rank: int, limit: int | None, chunk: int = 1 << 20):
    from wavefront.distributed.graph import id_dtype, tuple_range
    from wavefront.generators.kronecker import kronecker_edges, plan

    lo, hi = tuple_range(plan(scale, 16, 1).num_tuples, rank, ranks)
    if limit is not None:
        hi = min(hi, lo + limit)
    src, dst = np.empty(hi - lo, dtype=id_dtype(1 << scale)), np.empty(hi - lo, dtype=id_dtype(1 << scale))
    for a in range(0, hi - lo, chunk):
        b = min(a + chunk, hi - lo)
        s, d, _ = kronecker_edges(scale, 16, 1, np, lo + a, lo + b)
        src[a:b], dst[a:b] = s, d
    return src, dst


def with_numpy(n_pad: int, ids, chunk: int = 1 << 20) -> tuple[dict, np.ndarray, np.ndarray]:
    times = {}
    start = time.perf_counter()
    seen = np.zeros(n_pad, dtype=bool)
    for array in ids:
        for lo in range(0, array.shape[0], chunk):
            seen[array[lo : lo + chunk]] = True
    times["mark"] = time.perf_counter() - start
    start = time.perf_counter()
    unique = np.flatnonzero(seen)
    position = np.cumsum(seen, dtype=np.int32 if unique.shape[0] < 2**31 else np.int64)
    position -= 1
    times["place"] = time.perf_counter() - start
    return times, unique, position


def with_numba(n_pad: int, ids) -> tuple[dict, np.ndarray, np.ndarray]:
    from wavefront.distributed import _validate_kernels as kernels

    times = {}
    start = time.perf_counter()
    seen = np.zeros(n_pad, dtype=bool)
    for array in ids:
        kernels.mark_seen(array, seen)
    times["mark"] = time.perf_counter() - start
    start = time.perf_counter()
    counts = np.empty(kernels.tasks(), dtype=np.int64)
    kernels.count_seen(seen, counts)
    total = int(counts.sum())
    unique = np.empty(total, dtype=np.int64)
    position = np.empty(n_pad, dtype=np.int32 if total < 2**31 else np.int64)
    kernels.place_seen(seen, np.cumsum(counts) - counts, position, unique)
    times["place"] = time.perf_counter() - start
    return times, unique, position


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=int, required=True)
    parser.add_argument("--ranks", type=int, default=2)
    parser.add_argument("--rank", type=int, default=0)
    parser.add_argument("--tuples", type=lambda text: int(eval(text, {})), default=None,
                        help="take only the slice's first TUPLES (an expression such as 2**26)")
    parser.add_argument("--threads", type=int, default=None, help="numba threads (default: numba's)")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    from numba import get_num_threads, set_num_threads

    from wavefront.distributed.grid import Partition, grid_shape

    if args.threads is not None:
        set_num_threads(args.threads)
    n_pad = Partition.of(1 << args.scale, *grid_shape(args.ranks)).n_pad
    src, dst = _tuples(args.scale, args.ranks, args.rank, args.tuples)
    endpoints = 2 * src.shape[0]
    with_numba(n_pad, (src[:1024], dst[:1024]))  # load (or compile) the kernels untimed
    print(f"SCALE {args.scale}, rank {args.rank} of {args.ranks}: {src.shape[0]:,} tuples ({endpoints:,} endpoints), "
          f"n_pad {n_pad:,}, {get_num_threads()} numba threads; best of {args.repeat}, seconds")
    print("| build | mark | place | total | ns per endpoint |\n|---|---:|---:|---:|---:|")
    results = {}
    for name, build in (("numpy", with_numpy), ("numba", with_numba)):
        best = None
        for _ in range(args.repeat):
            times, unique, position = build(n_pad, (src, dst))
            if best is None or sum(times.values()) < sum(best.values()):
                best = times
        results[name] = (unique, position)
        total = sum(best.values())
        print(f"| {name} | {best['mark']:.3f} | {best['place']:.3f} | {total:.3f} | {total / endpoints * 1e9:.2f} |")
    (u0, p0), (u1, p1) = results["numpy"], results["numba"]
    assert np.array_equal(u0, u1) and np.array_equal(p0, p1), "the two builds disagree"
    print(f"unique endpoints: {u0.shape[0]:,}; the builds agree")


if __name__ == "__main__":
    main()
