"""Launchers for the SSSP kernels (kernels/sssp_*.cu): one method per kernel.

The kernels are compiled per (vertex-id width, weight type) through the
compile-once cache; ``SSSPKernels.for_graph`` returns the set for a graph.
Scalars are passed as NumPy scalars of the exact C type.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .compile import module

BLOCK = 256
NEAR_FAR_BLOCK = 512  # matches NF_BLOCK's default and its __launch_bounds__(512, 2)
NEAR_FAR_MAX_BLOCKS_PER_SM = 2  # what __launch_bounds__(NF_BLOCK, 2) keeps resident
NEAR_FAR_CHUNK = NEAR_FAR_BLOCK * 4  # NF_CHUNK = NF_BLOCK * NF_ARCS
ASYNC_BLOCK = 64  # AS_BLOCK of sssp_async.cu
ASYNC_DEFINES: dict = {}  # tuning #defines for sssp_async.cu (sweeps)
NEAR_FAR_DEFINES: dict = {}  # the same for sssp_near_far.cu and the parent record
HARISH_DEFINES: dict = {}  # the same for sssp_harish.cu
ASYNC_MAX_BLOCKS_PER_SM = 4  # its __launch_bounds__(AS_BLOCK, 4)
ASYNC_QUEUE_WORDS = 64  # Q_WORDS: ring counters (uint64)
ASYNC_QUEUE_RELAXED = 48  # Q_RELAXED
PARENT_BLOCK = 256
PARENT_CHUNK = 2048  # sssp_parents.cu
TRACE_WIDTH = 4
# near_far records (distance, parent) words for float32 weights and 32-bit ids
# (SSSP_RECORDS_PARENTS in sssp_common.cuh); False: the parent pass pulls over
# in-arcs instead (for A/B runs: set it, then _kernels.cache_clear()).
RECORD_PARENTS = True
NO_RECORD = np.iinfo(np.uint64).max  # a word no relaxation wrote
CTL_WORDS = 16
CTL_ITERATIONS = 11
NEAR_FAR_CTL_WORDS = 48  # near_far's control words: CTL_WORDS x 32 bits, then 16 64-bit counters

# SSSP_WEIGHT codes of sssp_common.cuh: weight dtype -> (code, distance dtype).
_WEIGHT_KINDS = {
    np.dtype(np.float32): (0, np.float32),
    np.dtype(np.float64): (1, np.float64),
    np.dtype(np.int32): (2, np.int64),
    np.dtype(np.int64): (3, np.int64),
    None: (4, np.int64),
}
INT_INFINITY = np.iinfo(np.int64).max


@dataclass(frozen=True)
class Arithmetic:
    """How a graph's distances are computed: kernel code, distance dtype, output dtype."""

    weight_code: int
    dist_dtype: type

    @property
    def infinity(self):
        if self.dist_dtype == np.int64:
            return np.int64(INT_INFINITY)
        return self.dist_dtype(np.inf)

    @property
    def output_dtype(self):
        return np.float32 if self.dist_dtype == np.float32 else np.float64

    def scalar(self, value):
        return self.dist_dtype(value)


def arithmetic(graph) -> Arithmetic:
    key = None if graph.weights is None else np.dtype(graph.weights.dtype)
    code, dist = _WEIGHT_KINDS[key]
    return Arithmetic(code, dist)


def _grid(count: int, block: int = BLOCK) -> tuple:
    return (max(1, -(-int(count) // block)),)


def check_blocks_per_sm(blocks_per_sm, asynchronous: bool) -> None:
    """Persistent kernels need every block resident (a grid barrier would wait
    forever for one that never started): at most what their launch bounds keep."""
    most = ASYNC_MAX_BLOCKS_PER_SM if asynchronous else NEAR_FAR_MAX_BLOCKS_PER_SM
    if blocks_per_sm not in range(1, most + 1):
        schedule = "asynchronous" if asynchronous else "bulk-synchronous"
        raise ValueError(f"blocks_per_sm must be 1..{most} for the {schedule} schedule, "
                         f"got {blocks_per_sm!r}")


class SSSPKernels:
    """The compiled SSSP kernels for one (index width, weight type, device)."""

    def __init__(self, index64: bool, weight_code: int, device_id: int):
        import cupy

        defines = {"WF_INDEX64": int(index64), "SSSP_WEIGHT": weight_code}
        harish = module("sssp_harish.cu", {**defines, **HARISH_DEFINES})
        self.records_parents = RECORD_PARENTS and weight_code == 0 and not index64
        near_far = module("sssp_near_far.cu", {**defines, **NEAR_FAR_DEFINES,
                                               "SSSP_RECORDS_PARENTS": int(self.records_parents)})
        parents = module("sssp_parents.cu", defines)
        self.async_block = ASYNC_BLOCK
        self.async_delta_k = module("sssp_async.cu", {**defines, **ASYNC_DEFINES, "AS_BLOCK": ASYNC_BLOCK}
                                    ).get_function("async_delta")
        self.relax_all_k = harish.get_function("relax_all")
        self.update_all_k = harish.get_function("update_all")
        self.select_relax_k = harish.get_function("select_relax")
        self.select_update_k = harish.get_function("select_update")
        self.switch_k = harish.get_function("switch_to_frontier")
        self.near_far_k = near_far.get_function("near_far")
        self.split_light_heavy_k = near_far.get_function("split_light_heavy")
        self.confirm_parents_k = parents.get_function("confirm_parents")
        self.confirm_parents_chunks_k = parents.get_function("confirm_parents_chunks")
        self.parents_from_record_k = parents.get_function("parents_from_record")
        self.count_unsettled_k = parents.get_function("count_unsettled")
        self.plateau_round_k = parents.get_function("plateau_round")
        attrs = cupy.cuda.Device(device_id).attributes
        self.sm_count = int(attrs["MultiProcessorCount"])
        self.index_dtype = np.int64 if index64 else np.int32
        # Small device->host copies land in pinned memory (one per phase).
        self.host_words = cupy.cuda.alloc_pinned_memory(CTL_WORDS * 4)
        self.host_view = np.frombuffer(self.host_words, dtype=np.uint32, count=CTL_WORDS)

    @classmethod
    def for_graph(cls, graph, weight_code: int | None = None) -> "SSSPKernels":
        """The kernels for the graph's index width and weights (or ``weight_code``'s)."""
        import cupy

        index64 = graph.indices.dtype == np.int64
        code = arithmetic(graph).weight_code if weight_code is None else weight_code
        return _kernels(bool(index64), code, cupy.cuda.Device().id)

    # -- host <-> device -------------------------------------------------------
    def read_words(self, words, count: int) -> np.ndarray:
        """Copy the first ``count`` uint32 of ``words`` to the host (synchronizes)."""
        import cupy

        stream = cupy.cuda.get_current_stream()
        cupy.cuda.runtime.memcpyAsync(
            self.host_view.ctypes.data, words.data.ptr, 4 * count,
            cupy.cuda.runtime.memcpyDeviceToHost, stream.ptr,
        )
        stream.synchronize()
        return self.host_view[:count]

    def copy_words_to_host(self, words, count: int, stream, at: int = 0) -> None:
        """Queue a copy of ``count`` uint32 into ``host_view[at:]`` (no wait; capturable)."""
        import cupy

        cupy.cuda.runtime.memcpyAsync(
            self.host_view[at:].ctypes.data, words.data.ptr, 4 * count,
            cupy.cuda.runtime.memcpyDeviceToHost, stream.ptr,
        )

    # -- seed 001, algorithms 2, 3, 5, 6 and SWITCH ---------------------------
    def relax_all(self, g, weights, mask, cost, updating, cutoff, updated_count):
        self.relax_all_k(_grid(g.n), (BLOCK,), (
            np.int64(g.n), g.indptr, g.indices, weights, mask, cost, updating, cutoff, updated_count))

    def update_all(self, n, mask, cost, updating, updated_count):
        self.update_all_k(_grid(n), (BLOCK,), (np.int64(n), mask, cost, updating, updated_count))

    def select_relax(self, g, weights, frontier_len, frontier_count, frontier, mask, cost,
                     updating, next_frontier, next_count, cutoff):
        # frontier_len None: the length is known only on the device (a captured
        # phase); a fixed grid strides over it.
        grid = (self.sm_count * 8,) if frontier_len is None else _grid(min(frontier_len, 1 << 26))
        self.select_relax_k(grid, (BLOCK,), (
            frontier_count, frontier, g.indptr, g.indices, weights, mask, cost, updating,
            next_frontier, next_count, cutoff))

    def select_update(self, updated_count, updated, mask, cost, updating, read_count):
        # The list's length is known only on the device: a grid-stride launch.
        self.select_update_k((self.sm_count * 2,), (BLOCK,), (
            updated_count, updated, mask, cost, updating, read_count))

    def switch_to_frontier(self, n, mask, frontier, frontier_count):
        self.switch_k(_grid(n), (BLOCK,), (np.int64(n), mask, frontier, frontier_count))

    # -- delta-stepping -------------------------------------------------------
    def near_far(self, indptr, indices, weights, dist, near, far, chunk_vertex, chunk_begin,
                 near_stamp, far_stamp, far_min, ctl, delta, cutoff, chain: int, trace,
                 trace_capacity: int, blocks_per_sm: int, light_heavy=None, record=None,
                 in_arcs=None):
        """``light_heavy``: None, or (light_end, settled list, settled stamps) with
        ``indices``/``weights`` ordered by :meth:`split_light_heavy`. ``record``:
        the (distance, parent) words, all ones, when :attr:`records_parents`.
        ``in_arcs``: (n, in_indptr, in_indices, in_weights) for heavy steps in
        pull form (with ``light_heavy`` only), or None. ``ctl``: NEAR_FAR_CTL_WORDS zeros
        but the first (the near queue's length)."""
        if self.records_parents != (record is not None):
            raise ValueError("near_far needs a parent record exactly when records_parents is set")
        # A persistent kernel: every block must be resident at once (its grid
        # barrier would wait forever for a block that never started).
        check_blocks_per_sm(blocks_per_sm, asynchronous=False)
        self.near_far_k((self.sm_count * blocks_per_sm,), (NEAR_FAR_BLOCK,), (
            indptr, indices, weights, dist, near[0], near[1], far[0], far[1],
            chunk_vertex[0], chunk_vertex[1], chunk_begin[0], chunk_begin[1],
            near_stamp, far_stamp, far_min, ctl, delta, cutoff, np.int32(chain),
            trace, np.int32(trace_capacity), *(light_heavy or (np.uint64(0),) * 3),
            np.uint64(0) if record is None else record, *self._pull_arguments(in_arcs)))

    @staticmethod
    def _pull_arguments(in_arcs) -> tuple:
        if in_arcs is None:
            return (np.int64(0), np.uint64(0), np.uint64(0), np.uint64(0), np.int64(0))
        n, in_indptr, in_indices, in_weights = in_arcs
        return (np.int64(n), in_indptr, in_indices, in_weights, np.int64(in_indices.size))

    def async_delta(self, indptr, indices, weights, dist, source, ring, queue, far,
                    far_stamp, far_min, ctl, delta, cutoff, chain: int, trace,
                    trace_capacity: int, blocks_per_sm: int, relaxed_at):
        """Asynchronous buckets (kernels/sssp_async.cu); ``ring`` = (vertex ids,
        distances), free slots all ones, their length a power of two;
        ``relaxed_at``: one distance per vertex, all ones (no distance)."""
        check_blocks_per_sm(blocks_per_sm, asynchronous=True)
        self.async_delta_k((self.sm_count * blocks_per_sm,), (self.async_block,), (
            indptr, indices, weights, dist, self.index_dtype(source), ring[0], ring[1],
            np.uint64(ring[0].size - 1), queue,
            far[0], far[1], far_stamp, far_min, ctl, delta, cutoff, np.int32(chain), trace,
            np.int32(trace_capacity), relaxed_at))

    def split_light_heavy(self, g, weights, delta, out_indices, out_weights, light_end):
        """Each out-list light arcs (w < delta) first into out_*; light_end[v]: v's first heavy arc."""
        warps_per_block = BLOCK // 32
        self.split_light_heavy_k((max(1, min(-(-g.n // warps_per_block), self.sm_count * 64)),),
                                 (BLOCK,), (np.int64(g.n), g.indptr, g.indices, weights, delta,
                                            out_indices, out_weights, light_end))

    # -- predecessors ---------------------------------------------------------
    def confirm_parents(self, g, in_weights, source, dist, parent, chunks):
        """Parents by pulling over in-arcs; ``chunks`` = (vertex, begin) of the
        PARENT_CHUNK-arc pieces of in-lists at least that long."""
        self.confirm_parents_k(_grid(g.n, PARENT_BLOCK), (PARENT_BLOCK,), (
            np.int64(g.n), np.int64(source), g.in_indptr, g.in_indices, in_weights, dist, parent))
        count = len(chunks[0])
        if count:
            warps_per_block = PARENT_BLOCK // 32
            self.confirm_parents_chunks_k(
                (max(1, min(-(-count // warps_per_block), self.sm_count * 32)),), (PARENT_BLOCK,), (
                    np.int64(count), chunks[0], chunks[1], g.in_indptr, g.in_indices, in_weights,
                    dist, parent))

    def parents_from_record(self, n, source, record, dist, parent, missing):
        self.parents_from_record_k(_grid(n, PARENT_BLOCK), (PARENT_BLOCK,), (
            np.int64(n), np.int64(source), record, dist, parent, missing))

    def count_unsettled(self, n, parent, settled_round, unsettled):
        self.count_unsettled_k(_grid(n), (BLOCK,), (np.int64(n), parent, settled_round, unsettled))

    def plateau_round(self, g, in_weights, dist, parent, settled_round, round_: int, settled):
        self.plateau_round_k(_grid(g.n), (BLOCK,), (
            np.int64(g.n), g.in_indptr, g.in_indices, in_weights, dist, parent,
            settled_round, np.int32(round_), settled))


@lru_cache(maxsize=None)
def _kernels(index64: bool, weight_code: int, device_id: int) -> SSSPKernels:
    return SSSPKernels(index64, weight_code, device_id)
