"""The device transports' all-gather-v under ``mpirun -n P`` on a machine
with a GPU per rank (tests/test_distributed.py): uneven parts, empty parts,
every part empty, one rank holding everything, and one element a rank, in
three dtypes, into a given ``out`` and a new one. Every rank checks the
concatenation and the byte counters (payload only, as the host transports
count it); rank 0 writes how many cases passed to ``--out``.
"""
from __future__ import annotations

import argparse
import json

import numpy as np

import wavefront.distributed as wd
from wavefront.distributed.device_transport import make_device_transports
from wavefront.distributed.launch import abort_on_error, select_gpu


def parts(counts, dtype):
    """Rank r's part: ``counts[r]`` distinct values that name r and the position."""
    return [(np.arange(c) + 1000 * r + 7).astype(dtype) for r, c in enumerate(counts)]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--transport", default="nccl")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    import cupy

    world = wd.world()
    with abort_on_error(world):
        select_gpu(world)
        grid = wd.ProcessGrid(world.size, 1, world=world)
        transport, _, _ = make_device_transports(grid, args.transport)
        size, rank = world.size, world.rank
        patterns = [
            [3 + r for r in range(size)],  # uneven
            [0] + [5] * (size - 1),  # one empty part
            [0] * size,  # nothing at all
            [40] + [0] * (size - 1),  # one rank holds all
            [1] * size,  # one id each (the root level's shape)
        ]
        checked = 0
        for counts in patterns:
            for dtype in (np.int32, np.int64, np.uint32):
                expected = np.concatenate(parts(counts, dtype))
                send = cupy.asarray(parts(counts, dtype)[rank])
                for given in (False, True):
                    out = cupy.full(int(sum(counts)) + 3, 99, dtype=dtype) if given else None
                    before = transport.bytes_out, transport.bytes_in
                    got = transport.allgatherv(send, counts, out=out)
                    assert np.array_equal(cupy.asnumpy(got), expected), (counts, dtype, cupy.asnumpy(got))
                    if given:
                        assert got.data.ptr == out.data.ptr and int(out[-1]) == 99  # in place, nothing past it
                    item = np.dtype(dtype).itemsize
                    sent = transport.bytes_out - before[0]
                    received = transport.bytes_in - before[1]
                    assert sent == counts[rank] * item * (size - 1), (counts, sent)
                    assert received == (sum(counts) - counts[rank]) * item, (counts, received)
                    checked += 1
        totals = world.allgather(np.array([checked], dtype=np.int64))
    if rank == 0:
        with open(args.out, "w") as handle:
            json.dump({"size": size, "transport": transport.kind, "checked": [int(x) for x in totals]}, handle)


if __name__ == "__main__":
    main()
