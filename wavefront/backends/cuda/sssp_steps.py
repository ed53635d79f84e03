"""Launchers for the SSSP kernels (kernels/sssp_*.cu): one method per kernel.

The kernels are compiled per (vertex-id width, weight type, tuning, device)
through the compile-once cache; ``SSSPKernels.for_graph`` returns the set for
a graph and an :class:`~.sssp_tuning.SSSPTuning`. Scalars are passed as NumPy
scalars of the exact C type. The two persistent kernels take their many
arguments as named tuples (:class:`NearFarArgs`, :class:`AsyncDeltaArgs`)
whose fields are the kernel's parameters in order.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

import numpy as np

from .abi import (
    ASYNC_BLOCK,
    ASYNC_CTL_WORDS,
    ASYNC_MAX_BLOCKS_PER_SM,
    NEAR_FAR_BLOCK,
    NEAR_FAR_MAX_BLOCKS_PER_SM,
    PARENT_BLOCK,
    SSSP_BLOCK,
    SSSP_INT_INFINITY,
    SSSP_WEIGHT_FLOAT32,
    SSSP_WEIGHT_FLOAT64,
    SSSP_WEIGHT_INT32,
    SSSP_WEIGHT_INT64,
    SSSP_WEIGHT_NONE,
)
from .compile import module
from .sssp_tuning import SSSPTuning

NO_RECORD = np.iinfo(np.uint64).max  # a parent-record word no relaxation wrote
NULL = np.uint64(0)  # a pointer argument the kernel does not read
# Pinned uint32 words for small read-backs: a control block's 32-bit words, or
# the counters of seed 001's phases in flight (4 words a phase).
HOST_WORDS = ASYNC_CTL_WORDS

# weight dtype -> (SSSP_WEIGHT code, distance dtype)
_WEIGHT_KINDS = {
    np.dtype(np.float32): (SSSP_WEIGHT_FLOAT32, np.float32),
    np.dtype(np.float64): (SSSP_WEIGHT_FLOAT64, np.float64),
    np.dtype(np.int32): (SSSP_WEIGHT_INT32, np.int64),
    np.dtype(np.int64): (SSSP_WEIGHT_INT64, np.int64),
    None: (SSSP_WEIGHT_NONE, np.int64),
}


@dataclass(frozen=True)
class Arithmetic:
    """How a graph's distances are computed: kernel code, distance dtype, output dtype."""

    weight_code: int
    dist_dtype: type

    @property
    def infinity(self):
        if self.dist_dtype == np.int64:
            return np.int64(SSSP_INT_INFINITY)
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


def records_parents(index64: bool, weight_code: int, tuning: SSSPTuning) -> bool:
    """Whether near_far records parents: the record packs a float32 distance
    and a 32-bit id into one 64-bit word."""
    return tuning.record_parents and weight_code == SSSP_WEIGHT_FLOAT32 and not index64


def kernel_defines(filename: str, index64: bool, weight_code: int, tuning: SSSPTuning) -> dict:
    """The ``#define``s ``kernels/<filename>`` is built with, besides the ABI's."""
    defines = {"WF_INDEX64": int(index64), "SSSP_WEIGHT": weight_code, **tuning.defines(filename)}
    if filename == "sssp_near_far.cu":
        defines["SSSP_RECORDS_PARENTS"] = int(records_parents(index64, weight_code, tuning))
    return defines


class NearFarArgs(NamedTuple):
    """``near_far``'s parameters, in order. Pairs (near0/near1, ...) are the
    double-buffered queues; ``ctl``: NEAR_FAR_CTL_WORDS zeros but the first
    near queue's length. Optional groups default to null: ``light_end``,
    ``settled``, ``settled_stamp`` with the light/heavy split (``indices`` and
    ``weights`` ordered by ``split_light_heavy``); ``record``, the
    (distance, parent) words, all ones, when the kernels record parents;
    ``n`` .. ``arc_count``, the in-arcs, for heavy steps in pull form."""

    indptr: object
    indices: object
    weights: object
    dist: object
    near0: object
    near1: object
    far0: object
    far1: object
    chunk_vertex0: object
    chunk_vertex1: object
    chunk_begin0: object
    chunk_begin1: object
    near_stamp: object
    far_stamp: object
    far_min: object  # 3 slots, by split % 3
    ctl: object
    # the bucket width and the cutoff, NumPy scalars of the distance type
    delta: object
    cutoff: object
    chain: int
    trace: object
    trace_capacity: int
    # the light/heavy split
    light_end: object = NULL
    settled: object = NULL
    settled_stamp: object = NULL
    record: object = NULL
    # heavy steps in pull form
    n: int = 0
    in_indptr: object = NULL
    in_indices: object = NULL
    in_weights: object = NULL
    arc_count: int = 0


class AsyncDeltaArgs(NamedTuple):
    """``async_delta``'s parameters, in order. The ring is (``ring_ids``,
    ``ring_dists``), free slots all ones, ``ring_mask + 1`` slots (a power of
    two); ``queue``: the ring counters; ``relaxed_at``: one distance per
    vertex, all ones (none yet)."""

    indptr: object
    indices: object
    weights: object
    dist: object
    source: int
    seeds: object  # a multi-source search's ids (device, distinct), or NULL: ``source`` alone
    seed_count: int
    ring_ids: object
    ring_dists: object
    ring_mask: int
    queue: object
    far0: object
    far1: object
    far_stamp: object
    far_min: object  # 3 slots, by split % 3, in the control buffer
    ctl: object
    delta: object
    cutoff: object
    chain: int
    trace: object
    trace_capacity: int
    relaxed_at: object


class RegionArgs(NamedTuple):
    """``region_sssp``'s parameters, in order: the graph renumbered by
    regions, the regions' starts, each vertex's region, the boundary counts
    (``boundary_start``: region r's inbox is 2 B + 64 slots), the inboxes all
    -1; ``dist`` all infinity, ``flag`` zeros (one per vertex), ``tails``
    zeros (REGION_TAIL_STRIDE per region), ``ctl`` the control words (work = the
    number of blocks), ``seeds`` the sources (renumbered, distinct), ``cap`` /
    ``arc_cap`` the shared-memory capacities (``arc_cap`` 0: arcs read from
    global memory), ``delta`` the bucket width (distance type), ``minima``
    one distance per region, all infinity, ``stats`` REGION_STAT_WORDS zeros."""

    indptr: object
    indices: object
    weights: object
    region_start: object
    region_of: object
    boundary_start: object
    inbox: object
    dist: object
    flag: object
    tails: object
    ctl: object
    seeds: object
    seed_count: int
    cutoff: object
    delta: object
    minima: object
    cap: int
    arc_cap: int
    stats: object


def _grid(count: int, block: int = SSSP_BLOCK) -> tuple:
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
    """The compiled SSSP kernels for one (index width, weight type, tuning, device)."""

    def __init__(self, index64: bool, weight_code: int, device_id: int, tuning: SSSPTuning):
        import cupy

        def build(filename):
            return module(filename, kernel_defines(filename, index64, weight_code, tuning))

        harish = build("sssp_harish.cu")
        near_far = build("sssp_near_far.cu")
        parents = build("sssp_parents.cu")
        self.records_parents = records_parents(index64, weight_code, tuning)
        self.require_recorded_parents = tuning.require_recorded_parents
        self.async_delta_k = build("sssp_async.cu").get_function("async_delta")
        regions = build("sssp_regions.cu")
        self.region_sssp_k = regions.get_function("region_sssp")
        self.region_reset_k = regions.get_function("region_reset")
        self.region_threads = tuning.region_threads
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
        self.host_words = cupy.cuda.alloc_pinned_memory(HOST_WORDS * 4)
        self.host_view = np.frombuffer(self.host_words, dtype=np.uint32, count=HOST_WORDS)

    @classmethod
    def for_graph(cls, graph, tuning: SSSPTuning, weight_code: int | None = None) -> "SSSPKernels":
        """The kernels for the graph's index width and weights (or ``weight_code``'s)."""
        import cupy

        index64 = graph.indices.dtype == np.int64
        code = arithmetic(graph).weight_code if weight_code is None else weight_code
        return _kernels(bool(index64), code, cupy.cuda.Device().id, tuning)

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
        self.relax_all_k(_grid(g.n), (SSSP_BLOCK,), (
            np.int64(g.n), g.indptr, g.indices, weights, mask, cost, updating, cutoff, updated_count))

    def update_all(self, n, mask, cost, updating, updated_count):
        self.update_all_k(_grid(n), (SSSP_BLOCK,), (np.int64(n), mask, cost, updating, updated_count))

    def select_relax(self, g, weights, frontier_len, frontier_count, frontier, mask, cost,
                     updating, next_frontier, next_count, cutoff):
        # frontier_len None: the length is known only on the device (a captured
        # phase); a fixed grid strides over it.
        grid = (self.sm_count * 8,) if frontier_len is None else _grid(min(frontier_len, 1 << 26))
        self.select_relax_k(grid, (SSSP_BLOCK,), (
            frontier_count, frontier, g.indptr, g.indices, weights, mask, cost, updating,
            next_frontier, next_count, cutoff))

    def select_update(self, updated_count, updated, mask, cost, updating, read_count):
        # The list's length is known only on the device: a grid-stride launch.
        self.select_update_k((self.sm_count * 2,), (SSSP_BLOCK,), (
            updated_count, updated, mask, cost, updating, read_count))

    def switch_to_frontier(self, n, mask, frontier, frontier_count):
        self.switch_k(_grid(n), (SSSP_BLOCK,), (np.int64(n), mask, frontier, frontier_count))

    # -- delta-stepping -------------------------------------------------------
    def near_far(self, args: NearFarArgs, blocks_per_sm: int) -> None:
        """Bulk-synchronous delta-stepping (kernels/sssp_near_far.cu) on
        ``blocks_per_sm`` blocks per SM."""
        if self.records_parents != _is_array(args.record):
            raise ValueError("near_far needs a parent record exactly when records_parents is set")
        # A persistent kernel: every block must be resident at once (its grid
        # barrier would wait forever for a block that never started).
        check_blocks_per_sm(blocks_per_sm, asynchronous=False)
        self.near_far_k((self.sm_count * blocks_per_sm,), (NEAR_FAR_BLOCK,), tuple(args._replace(
            chain=np.int32(args.chain), trace_capacity=np.int32(args.trace_capacity),
            n=np.int64(args.n), arc_count=np.int64(args.arc_count))))

    def async_delta(self, args: AsyncDeltaArgs, blocks_per_sm: int) -> None:
        """Asynchronous buckets (kernels/sssp_async.cu) on ``blocks_per_sm`` blocks per SM."""
        check_blocks_per_sm(blocks_per_sm, asynchronous=True)
        self.async_delta_k((self.sm_count * blocks_per_sm,), (ASYNC_BLOCK,), tuple(args._replace(
            source=self.index_dtype(args.source), seed_count=np.int64(args.seed_count),
            ring_mask=np.uint64(args.ring_mask),
            chain=np.int32(args.chain), trace_capacity=np.int32(args.trace_capacity))))

    def region_sssp(self, args: "RegionArgs", blocks: int, shared_bytes: int) -> None:
        """The region SSSP (kernels/sssp_regions.cu): one block per region, every block resident."""
        kernel = self.region_sssp_k
        if kernel.max_dynamic_shared_size_bytes < shared_bytes:
            kernel.max_dynamic_shared_size_bytes = shared_bytes
        kernel((blocks,), (self.region_threads,), tuple(args._replace(
            seed_count=np.int64(args.seed_count), cap=np.int32(args.cap), arc_cap=np.int64(args.arc_cap))),
            shared_mem=shared_bytes)

    def region_reset(self, dist, flag, minima, inbox, tails, ctl, stats) -> None:
        """A region search's buffers as ``RegionArgs`` wants them, in one launch:
        ``dist`` and ``minima`` (one per region) infinity, ``inbox`` -1,
        ``flag``, ``tails``, ``stats`` zeros, ``ctl`` zeros but the work word
        (the region count)."""
        items = max(dist.size, inbox.size, tails.size)
        self.region_reset_k((max(1, min(-(-items // SSSP_BLOCK), self.sm_count * 8)),), (SSSP_BLOCK,),
                            (dist, flag, np.int64(dist.size), minima, np.int32(minima.size), inbox,
                             np.int64(inbox.size), tails, ctl, np.int32(ctl.size), stats))

    def split_light_heavy(self, g, weights, delta, out_indices, out_weights, light_end):
        """Each out-list light arcs (w < delta) first into out_*; light_end[v]: v's first heavy arc."""
        warps_per_block = SSSP_BLOCK // 32
        self.split_light_heavy_k((max(1, min(-(-g.n // warps_per_block), self.sm_count * 64)),),
                                 (SSSP_BLOCK,), (np.int64(g.n), g.indptr, g.indices, weights, delta,
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
        self.count_unsettled_k(_grid(n, PARENT_BLOCK), (PARENT_BLOCK,), (
            np.int64(n), parent, settled_round, unsettled))

    def plateau_round(self, g, in_weights, dist, parent, settled_round, round_: int, settled):
        self.plateau_round_k(_grid(g.n, PARENT_BLOCK), (PARENT_BLOCK,), (
            np.int64(g.n), g.in_indptr, g.in_indices, in_weights, dist, parent,
            settled_round, np.int32(round_), settled))


def _is_array(pointer) -> bool:
    return not isinstance(pointer, (int, np.integer))


@lru_cache(maxsize=None)
def _kernels(index64: bool, weight_code: int, device_id: int, tuning: SSSPTuning) -> SSSPKernels:
    return SSSPKernels(index64, weight_code, device_id, tuning)
