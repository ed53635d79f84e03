"""Asynchronous delta-stepping for road networks (kernels/sssp_async.cu).

One persistent kernel, one ring of work: inside a bucket every warp takes
(vertex, distance) items from the ring as soon as they improve, and buckets
are separated only by near-far splits. The host keeps the ring, far piles and
control words with the graph (:class:`AsyncWorkspace`), resets them with one
copy, launches once and reads back once.
"""
from __future__ import annotations

import numpy as np

from ...results import SSSPResult
from .abi import ASYNC_CTL_WORDS, ASYNC_QUEUE_RELAXED, ASYNC_QUEUE_WORDS, CTL_ITERATIONS, TRACE_WIDTH
from .memory import check_fits
from .sssp_common import TRACE_CAPACITY, device_seeds, finish_search, read_bucket_trace
from .sssp_steps import NULL, AsyncDeltaArgs


def _ring_capacity(n: int) -> int:
    """The ring: a power of two >= 2 (n + 1). The kernel keeps it at most half
    full (overflow goes to the far pile), so a split never overflows; any
    power of two is correct, only slower."""
    return 1 << max(12, (2 * (n + 1) - 1).bit_length())


class AsyncWorkspace:
    """The asynchronous schedule's arrays for one graph, kept between searches:
    the ring (free again after every search: each queued item was taken), the
    far piles and their stamps, and one control buffer (ring counters, control
    words, far-pile minima) reset per search with one copy from pinned memory."""

    # control buffer layout, in uint64 words
    CTL_AT = ASYNC_QUEUE_WORDS  # ASYNC_CTL_WORDS uint32
    FAR_MIN_AT = CTL_AT + ASYNC_CTL_WORDS // 2  # 3 distances (<= 8 bytes each)
    WORDS = FAR_MIN_AT + 3

    def __init__(self, graph, ar, k, capacity: int):
        import cupy
        import cupyx

        n = graph.n
        idx = k.index_dtype
        self.capacity = capacity
        self.ring = (cupy.full(capacity, -1, dtype=idx), cupy.empty(capacity, dtype=ar.dist_dtype))
        self.ring[1].view(np.uint8).fill(0xFF)  # a free slot is all ones in both fields
        self.far = (cupy.empty(n, dtype=idx), cupy.empty(n, dtype=idx))
        self.far_stamp = cupy.empty(n, dtype=np.int32)
        self.relaxed_at = cupy.empty(n, dtype=ar.dist_dtype)  # all ones (NaN or -1): none yet
        self.control = cupy.empty(self.WORDS, dtype=np.uint64)
        self.queue = self.control[:ASYNC_QUEUE_WORDS]
        self.ctl = self.control[self.CTL_AT:self.FAR_MIN_AT].view(np.uint32)
        self.far_min = self.control[self.FAR_MIN_AT:].view(ar.dist_dtype)[:3]
        self.template = cupyx.zeros_pinned(self.WORDS, dtype=np.uint64)
        self.template[self.FAR_MIN_AT:].view(ar.dist_dtype)[:3] = ar.infinity
        self.readback = cupyx.empty_pinned(self.WORDS, dtype=np.uint64)
        self.trace_rows = cupy.empty((TRACE_CAPACITY + 1, TRACE_WIDTH), dtype=np.int64)

    @classmethod
    def for_graph(cls, graph, ar, k) -> "AsyncWorkspace":
        key = "cuda.sssp.async_workspace"
        capacity = _ring_capacity(graph.n)
        ws = graph.derived.get(key)
        if ws is None or ws.capacity != capacity:
            graph.derived.pop(key, None)
            itemsize = np.dtype(ar.dist_dtype).itemsize
            idx_size = np.dtype(k.index_dtype).itemsize
            check_fits("asynchronous delta-stepping workspace",
                       graph.n * (2 * itemsize + 2 * idx_size + 4) + capacity * (idx_size + itemsize))
            ws = graph.derived[key] = cls(graph, ar, k, capacity)
        return ws

    def reset(self) -> None:
        import cupy

        self.far_stamp.fill(0)
        self.relaxed_at.view(np.uint8).fill(0xFF)
        self.control.set(self.template, stream=cupy.cuda.get_current_stream())

    def read_control(self) -> np.ndarray:
        """The control buffer, copied to the host (synchronizes)."""
        import cupy

        stream = cupy.cuda.get_current_stream()
        self.control.get(stream=stream, out=self.readback)
        stream.synchronize()
        return self.readback


def async_delta_stepping(graph, source, ar, k, weights, in_weights, cut, delta_value,
                         chain: int, blocks_per_sm: int) -> SSSPResult:
    """The asynchronous schedule: buckets of width ``delta_value``, ``chain``
    hops a lane follows on its own before queueing. The kernel queues the
    source itself (every one of several: ``source`` an int64 array)."""
    import cupy

    ws = AsyncWorkspace.for_graph(graph, ar, k)
    dist = cupy.full(graph.n, ar.infinity, dtype=ar.dist_dtype)
    ws.reset()
    first, seeds = device_seeds(source, k.index_dtype)
    k.async_delta(AsyncDeltaArgs(
        indptr=graph.indptr, indices=graph.indices, weights=weights, dist=dist, source=first,
        seeds=NULL if seeds is None else seeds, seed_count=0 if seeds is None else seeds.size,
        ring_ids=ws.ring[0], ring_dists=ws.ring[1], ring_mask=ws.capacity - 1, queue=ws.queue,
        far0=ws.far[0], far1=ws.far[1], far_stamp=ws.far_stamp, far_min=ws.far_min, ctl=ws.ctl,
        delta=delta_value, cutoff=cut, chain=chain, trace=ws.trace_rows, trace_capacity=TRACE_CAPACITY,
        relaxed_at=ws.relaxed_at), blocks_per_sm)
    control = ws.read_control()
    phases = int(control[ws.CTL_AT:ws.FAR_MIN_AT].view(np.uint32)[CTL_ITERATIONS])
    relaxed = int(control[ASYNC_QUEUE_RELAXED])
    trace = read_bucket_trace(ws.trace_rows, phases, float(delta_value), asynchronous=True)
    if len(trace):
        trace[-1].reason += f"; {relaxed} vertex relaxations in all (asynchronous)"
    return finish_search(graph, source, dist, ar, k, in_weights, trace, "delta-stepping")
