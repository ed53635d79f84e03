"""A cycle counter readable inside numba kernels, for per-level trace rows.

A kernel that runs a whole search in one call (the serial BFS levels, the
fused delta-stepping) cannot return to Python to read ``time.perf_counter``
between levels; it stamps each level with :func:`cycles` (LLVM's
``readcyclecounter``: ``rdtsc`` on x86, the virtual counter on AArch64) and
the driver converts the stamps with :func:`seconds_per_cycle`, measured once
per process against ``perf_counter``. Where the target has no counter the
intrinsic reads 0 and :func:`seconds_per_cycle` returns 0.0, and drivers
spread their measured total over the rows instead.
"""
from __future__ import annotations

import time
from functools import lru_cache

from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

CALIBRATION_SECONDS = 2e-3


@intrinsic
def cycles(typingctx):
    """The CPU's cycle (time-stamp) counter, as int64."""
    sig = types.int64()

    def codegen(context, builder, signature, args):
        fnty = ir.FunctionType(ir.IntType(64), [])
        counter = cgutils.get_or_insert_function(builder.module, fnty, "llvm.readcyclecounter")
        return builder.call(counter, [])

    return sig, codegen


@njit(cache=True)
def read_cycles():
    return cycles()


@lru_cache(maxsize=1)
def seconds_per_cycle() -> float:
    """Seconds per :func:`cycles` tick (0.0 where the counter does not tick)."""
    read_cycles()  # compile (or load) before timing
    start, first = time.perf_counter(), read_cycles()
    while time.perf_counter() - start < CALIBRATION_SECONDS:
        pass
    elapsed, ticks = time.perf_counter() - start, read_cycles() - first
    return elapsed / ticks if ticks > 0 else 0.0


def stamps_to_seconds(start: int, stamps, total: float) -> list[float]:
    """Per-row seconds from a start stamp and each row's end stamp; where the
    counter does not tick, ``total`` is shared out evenly."""
    rows = len(stamps)
    scale = seconds_per_cycle()
    if rows == 0:
        return []
    if scale == 0.0:
        return [total / rows] * rows
    out, previous = [], start
    for stamp in stamps:
        out.append(max(int(stamp) - previous, 0) * scale)
        previous = int(stamp)
    return out
