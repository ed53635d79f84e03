"""The one-column search's collectives alone, timed per call (run under mpirun, one rank per GPU).

    mpirun -n 4 python benchmarks/collectives.py [--repeat 200]

What a level of the one-column GPU search (:mod:`wavefront.distributed.gpu`)
exchanges, each call timed on its own between a host barrier and a stream
synchronization, on the column's device transport (NCCL): the new
frontier as ids (``allgatherv``: grouped send/recv pairs) at a few sizes, the
same ids as NCCL's all-gather of equal parts (what padding every rank's ids
to the largest count would cost), the bitmap pieces of SCALE 26 + log2 P
(``allgather``), and the level totals' host all-gather of two int64 (MPI).
Rank 0 prints the median and the 10th percentile per call, in microseconds.
The barrier releases the ranks a few microseconds apart, and that skew is
in every number.
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

from benchmarks._common import number_list  # noqa: E402
from wavefront.distributed import ProcessGrid, world  # noqa: E402


def timed(world_, run, repeat: int) -> list[float]:
    """Seconds per call of ``run()``, each between a barrier and a synchronize."""
    import cupy

    stream = cupy.cuda.get_current_stream()
    run()  # first use: NCCL's connections for this pattern
    stream.synchronize()
    seconds = []
    for _ in range(repeat):
        world_.barrier()
        start = time.perf_counter()
        run()
        stream.synchronize()
        seconds.append(time.perf_counter() - start)
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=200)
    parser.add_argument("--ids", type=number_list(int, minimum=0), default=[1, 16, 1024, 65536],
                        help="ids a rank sends, comma-separated")
    args = parser.parse_args()
    import cupy

    from wavefront.distributed.device_transport import make_device_transports
    from wavefront.distributed.launch import select_gpu

    everyone = world()
    select_gpu(everyone)
    grid = ProcessGrid(everyone.size, 1, world=everyone)
    _, _, column = make_device_transports(grid, "nccl")
    size = column.size
    rows = []

    def row(what: str, nbytes: int, seconds: list[float]) -> None:
        ordered = sorted(seconds)
        rows.append((what, nbytes, statistics.median(seconds) * 1e6, ordered[len(ordered) // 10] * 1e6))

    for count in args.ids:
        send = cupy.arange(count, dtype=cupy.int32) + column.rank * count
        counts = np.full(size, count, dtype=np.int64)
        out = cupy.empty(count * size, dtype=cupy.int32)
        row(f"ids, grouped send/recv (allgatherv), {count} a rank", send.nbytes,
            timed(everyone, lambda send=send, counts=counts, out=out: column.allgatherv(send, counts, out=out),
                  args.repeat))
        row(f"ids, NCCL all-gather of equal parts, {count} a rank", send.nbytes,
            timed(everyone, lambda send=send: column.allgather(send), args.repeat))
    scale = 26 + int(np.log2(size))
    piece = cupy.zeros((1 << scale) // size // 32, dtype=cupy.uint32)
    row(f"bitmap piece of SCALE {scale}, NCCL all-gather", piece.nbytes,
        timed(everyone, lambda: column.allgather(piece), args.repeat))
    totals = np.zeros(2, dtype=np.int64)
    row("level totals, host all-gather of two int64 (MPI)", totals.nbytes,
        timed(everyone, lambda: everyone.allgather(totals), args.repeat))
    if everyone.rank == 0:
        print(f"P = {size} (one column), {args.repeat} calls each, on {cupy.cuda.runtime.getDeviceCount()} GPUs "
              "visible a rank")
        print("collective | bytes a rank sends | median us | p10 us")
        for what, nbytes, median, low in rows:
            print(f"{what} | {nbytes:,} | {median:.1f} | {low:.1f}")


if __name__ == "__main__":
    main()
