"""Small top-down levels of the 2-D BFS on a one-column grid's GPU block
(``DistributedTuning.fixed_ids_edges``, R > 1, the GPU alone;
``kernels/bfs_small_levels_2d.cu``), queued as one sequence a level.

A top-down level whose frontier holds at most K arcs in all finds at most K
vertices on any rank, so every rank sends its finds as one segment of K ids
after a header (count, degree sum, arcs examined), and one all-gather of
equal parts moves every rank's finds and totals. A level is:

1. its values (frontier size, level, the owner's arrays, the kernel's tiles)
   copied from pinned host memory into a small device array;
2. the segment's header zeroed, and the step (``small_top_down_2d``, a fixed
   grid striding over its tiles);
3. the segments' all-gather, and the P headers read back into pinned memory
   by one strided copy;
4. the gathered ids written as the next level's queue (``segments_to_queue``).

The host then waits once and reads the headers. Since nothing in the sequence
depends on the host but the pinned values, it is captured once (per queue
buffer) as a CUDA graph and replayed: one launch a level where the launches,
NCCL's host call and the copies cost a rank 100-180 us of host time
(docs/decisions/distributed.md, "eleventh round"). The capture needs NCCL (a
host-staged all-gather waits on the host) and an untraced search (a traced
one times the step apart from the all-gather); elsewhere the same sequence is
queued launch by launch. A buffer's first level also runs launch by launch,
so that NCCL sets up its connections outside a capture.
"""
from __future__ import annotations

import atexit
import contextlib
import weakref

import numpy as np

from ..backends.cuda import bfs_steps as steps
from ..backends.cuda.abi import (
    SEG_IDS,
    SMALL_COUNT,
    SMALL_LEVEL,
    SMALL_LEVELS,
    SMALL_PARAMS,
    SMALL_PARENTS,
    SMALL_SPREAD,
    SMALL_TILE,
    SMALL_TILES,
)

SMALL_KERNELS = "bfs_small_levels_2d.cu"
SMALL_MAX_SPREAD = 64  # the most blocks that share one tile's arcs
# The step's fixed grid: at K = 2^14 a level has at most 64 tiles and about 17
# blocks' worth of arcs, so each tile's blocks run in one trip.
SMALL_BLOCKS = 128
QUEUE_BLOCKS = 16  # segments_to_queue's blocks a rank (each strides over its ids)

# Every SmallLevels with captured graphs, whose graphs go before the NCCL
# communicators at exit: a graph holds NCCL's captured work, and with the
# graphs left to the interpreter's teardown both ranks hung at exit (2 x H100,
# NCCL 2.28), after every search had finished and validated.
_CAPTURING = weakref.WeakSet()


@atexit.register
def _release_graphs() -> None:
    for small in list(_CAPTURING):
        small.release()


class SmallLevels:
    """One block's small-level buffers (kept between searches) and the
    sequence above, run launch by launch or as a captured graph."""

    def __init__(self, gpu, capacity: int, column):
        import cupy

        self.gpu, self.column, self.ranks = gpu, column, column.size
        self.width = capacity + SEG_IDS
        self.segment = cupy.empty(self.width, dtype=cupy.int64)
        self.gathered = cupy.empty(self.width * self.ranks, dtype=cupy.int64)  # kept: one a level cost an allocation
        self._pinned = (cupy.cuda.alloc_pinned_memory(8 * SEG_IDS * self.ranks),
                        cupy.cuda.alloc_pinned_memory(8 * SMALL_PARAMS))
        self.headers = np.frombuffer(self._pinned[0], dtype=np.int64, count=SEG_IDS * self.ranks).reshape(
            self.ranks, SEG_IDS)
        self.host_params = np.frombuffer(self._pinned[1], dtype=np.int64, count=SMALL_PARAMS)
        self.params = cupy.zeros(SMALL_PARAMS, dtype=cupy.int64)
        self.graphs = {}  # (queue, visited) pointers -> (graph, bytes out, bytes in) of one replay
        self.seen = set()  # keys whose first level ran launch by launch
        self.capture_stream = None

    def run(self, queue, count: int, edges: int, level: int, own_levels, own_parents, tile_arcs: int, clock,
            capture: bool) -> np.ndarray:
        """One small level from ``queue[:count]`` (``edges`` arcs in all)
        into the owner's arrays; returns the P headers (host, rank order).
        The next queue is in ``queue`` once the current stream gets there.
        ``capture``: replay a captured graph where one can be."""
        import cupy

        tiles = -(-count // SMALL_TILE)
        params = self.host_params
        params[SMALL_COUNT], params[SMALL_LEVEL] = count, level
        params[SMALL_LEVELS], params[SMALL_PARENTS] = own_levels.data.ptr, own_parents.data.ptr
        params[SMALL_TILES] = tiles
        params[SMALL_SPREAD] = min(SMALL_MAX_SPREAD, max(1, -(-edges // (max(tiles, 1) * tile_arcs))))
        stream = cupy.cuda.get_current_stream()
        ws = self.gpu.ws
        key = (queue.data.ptr, ws.visited.data.ptr)
        if capture and key in self.seen:
            made = self.graphs.get(key)
            if made is None:
                made = self.graphs[key] = self._capture(queue)
                _CAPTURING.add(self)
            graph, out, into = made
            graph.launch(stream)
            with clock.collective("column_allgather", self.column):  # the wait: step, all-gather and copies
                self.column.add_bytes(out, into)
                stream.synchronize()
            return self.headers
        self.seen.add(key)
        self._step(queue, stream)
        with clock.collective("column_allgather", self.column):
            self._gather(stream)
            stream.synchronize()  # the headers' copy waits for the all-gather, so it is communication
        self._to_queue(queue, stream)
        return self.headers

    def release(self) -> None:
        """Destroy the captured graphs (once the device is done with them)."""
        if self.graphs:
            import cupy

            cupy.cuda.runtime.deviceSynchronize()
            self.graphs.clear()
            cupy.cuda.runtime.deviceSynchronize()

    def __del__(self):
        # A block dropped before the program's end: its graphs go while this
        # object still holds the column's communicator (a cycle's finalizers
        # run before any of its objects is cleared).
        with contextlib.suppress(Exception):  # a finalizer must not raise, and CUDA may be gone at shutdown
            self.release()

    def _capture(self, queue):
        """The sequence as a CUDA graph on a side stream (a legacy default
        stream cannot capture), and the bytes one replay moves (the capture
        counted them without moving any)."""
        import cupy

        if self.capture_stream is None:
            self.capture_stream = cupy.cuda.Stream(non_blocking=True)
        side, column = self.capture_stream, self.column
        before = column.bytes_out, column.bytes_in
        with side:
            side.begin_capture()  # CuPy's default mode, relaxed: NCCL's host calls are not checked
            try:
                self._step(queue, side)
                self._gather(side)
                self._to_queue(queue, side)
            finally:
                graph = side.end_capture()
        moved = column.bytes_out - before[0], column.bytes_in - before[1]
        column.bytes_out, column.bytes_in = before
        return graph, *moved

    def _step(self, queue, stream) -> None:
        import cupy

        gpu = self.gpu
        block, ws = gpu.block, gpu.ws
        cupy.cuda.runtime.memcpyAsync(self.params.data.ptr, self.host_params.ctypes.data, self.params.nbytes,
                                      cupy.cuda.runtime.memcpyHostToDevice, stream.ptr)
        cupy.cuda.runtime.memsetAsync(self.segment.data.ptr, 0, 8 * SEG_IDS, stream.ptr)
        fn = steps.get_kernel(SMALL_KERNELS, "small_top_down_2d", ws.index64)
        with stream:
            fn((SMALL_BLOCKS,), (SMALL_TILE,),
               (self.params, queue, block.indptr, block.indices, block.in_indptr, ws.visited,
                steps.i64(gpu.graph.first_vertex), self.segment))

    def _gather(self, stream) -> None:
        import cupy

        width = self.width
        self.column.allgather_into(self.segment, self.gathered, [rank * width for rank in range(self.ranks)], stream)
        cupy.cuda.runtime.memcpy2DAsync(self.headers.ctypes.data, 8 * SEG_IDS, self.gathered.data.ptr, 8 * width,
                                        8 * SEG_IDS, self.ranks, cupy.cuda.runtime.memcpyDeviceToHost, stream.ptr)

    def _to_queue(self, queue, stream) -> None:
        fn = steps.get_kernel(SMALL_KERNELS, "segments_to_queue", self.gpu.ws.index64)
        with stream:
            fn((QUEUE_BLOCKS, self.ranks), (steps.BLOCK,),
               (self.gathered, np.int32(self.ranks), steps.i64(self.width), queue))
