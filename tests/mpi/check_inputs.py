"""Bad input on one rank, or on every rank, run by tests/test_distributed.py
under ``mpirun -n 2``: every rank must raise the same error and go on, not
wait for ever in a collective (no ``abort_on_error`` here: a rank left
waiting hangs the job, which the test's timeout catches) nor end the job
through MPI_Abort.

* ``from_edges`` with tuples, weights or chunk malformed on the last rank
  alone, and with weights passed on some ranks only;
* ``run_graph500`` with bad arguments (each checked before its first
  collective; the run's own errors end the job through MPI_Abort).

Rank 0 prints one ``case: ExceptionType: message`` line per case; every rank
prints ``rank R: same errors`` when it saw the errors rank 0 saw.
"""
from __future__ import annotations

import io

import numpy as np

import wavefront.distributed as wd


def edges_case(world, name):
    src, dst, weights = np.array([0, 1, 2]), np.array([1, 2, 3]), np.ones(3, np.float32)
    chunk = 8
    last = world.rank == world.size - 1
    if last and name == "unequal":
        dst = dst[:2]
    if last and name == "weights-short":
        weights = weights[:2]
    if last and name == "chunk":
        chunk = 0
    if last and name == "fractional-id":
        dst = dst + 0.5
    if last and name == "weights-missing":
        weights = None
    return lambda: wd.from_edges(src, dst, 8, weights=weights, chunk=chunk)


EDGE_CASES = ("unequal", "weights-short", "chunk", "fractional-id", "weights-missing")
RUN_CASES = {
    "scale-0": {"scale": 0},
    "edgefactor-0": {"scale": 4, "edgefactor": 0, "kernels": "bfs"},
    "seed-negative": {"scale": 4, "seed": -1, "kernels": "bfs"},
    "policy-unknown": {"scale": 4, "policy": "nonesuch", "kernels": "bfs"},
    "delta-negative": {"scale": 4, "delta": -1.0, "kernels": "sssp"},
    "delta-without-sssp": {"scale": 4, "delta": 1.0, "kernels": "bfs"},
    "roots-fractional": {"scale": 4, "roots": 2.5, "kernels": "bfs"},
}


def main() -> None:
    world = wd.world()
    cases = [(name, edges_case(world, name)) for name in EDGE_CASES]
    cases += [(name, lambda kw=kw: wd.run_graph500(**kw, stream=io.StringIO(), log=io.StringIO()))
              for name, kw in RUN_CASES.items()]
    seen = []
    for name, call in cases:
        try:
            call()
            seen.append(f"{name}: no error")
        except Exception as exc:  # noqa: BLE001 - the type and message are the point
            seen.append(f"{name}: {type(exc).__name__}: {exc}")
        world.barrier()
    first = world.allgather_object(seen)[0]
    if world.rank == 0:
        print("\n".join(seen), flush=True)
    if seen == first:
        print(f"rank {world.rank}: same errors", flush=True)


if __name__ == "__main__":
    main()
