"""The GPU block's side of CPU+GPU cooperation (seed 000 §3.3) in the 2-D BFS of :mod:`.gpu`.

With ``DistributedTuning.cpu_share`` above 0, on a bottom-up level the GPU
runs the CUDA step over the block's first rows only (the launcher sees a
workspace whose word count ends there) while the host cores run the CPU
backend's step over the rest (:mod:`.cooperation`), from a host copy of
those rows of the CSC in the GPU's probe order. The host's inputs (column
frontier, the range's visited words) are copied on a side stream while the
GPU half runs; its results (next-frontier words, the found vertices'
parents in row order) are copied back and merged into the step's outputs
before the fold, so the rest of the level cannot tell. Share 0 runs none of
it. Each rank keeps its own share (``auto`` measures it; a
:class:`CooperativeLevelRecord` per level holds the split, the measured
rates and ``auto``'s decision).

The host cores' step, the share's state and ``auto``'s decision are in
:mod:`.cooperation`; this module splits a block's bottom-up step between the
GPU and that step, with the copies, the side stream and the merge. Its
functions take the rank's :class:`.gpu.GPUBlock` as ``gpu`` (this module is
below :mod:`.gpu`, which imports it).
"""
from __future__ import annotations

import copy
import time
from dataclasses import dataclass

import numpy as np

from ._trace import LevelRecord
from .cooperation import ROW_ALIGN, HostHalf, ShareState, merge_halves, split_rows
from .tuning import DEFAULT_TUNING, DistributedTuning


@dataclass
class CooperativeLevelRecord(LevelRecord):
    """A level of a search with a CPU share: the :class:`LevelRecord` plus how
    the block's bottom-up step was split and what each side measured
    (``examined`` is both halves' arcs). Seconds: ``gpu_seconds`` the GPU
    half's kernels (CUDA events), ``cpu_seconds`` the host step,
    ``overhead_seconds`` what only cooperation costs (waiting for the host's
    inputs, the compaction, the copy back, the merge). ``auto_*`` repeat
    ``auto``'s decision once made."""

    cpu_share: float = 0.0  # the share this level ran at (0: top-down, or the GPU alone)
    cpu_share_mode: str = "fixed"  # "fixed", "auto (measuring)" (at the probe share), "auto"
    cpu_rows: int = 0  # target vertices in the CPU's range
    cpu_examined: int = 0
    gpu_examined: int = 0
    cpu_seconds: float = 0.0
    gpu_seconds: float = 0.0
    overhead_seconds: float = 0.0
    cpu_rate: float = 0.0  # arcs examined per second on this level
    gpu_rate: float = 0.0
    auto_share: float = 0.0
    auto_cpu_rate: float = 0.0
    auto_gpu_rate: float = 0.0
    auto_reason: str = ""


def share_state(gpu, tuning: DistributedTuning) -> ShareState:
    """This rank's :class:`~.cooperation.ShareState` for ``tuning`` (kept on the block)."""
    state = gpu.share_states.get(tuning)
    if state is None:
        state = gpu.share_states[tuning] = ShareState(tuning)
    return state


def cpu_share_report(gpu, tuning: DistributedTuning | None = None) -> dict:
    """The requested share, the one in use and ``auto``'s decision on this rank."""
    tuning = DEFAULT_TUNING if tuning is None else tuning
    if tuning.cpu_share == 0:
        return {"requested": 0.0, "share": 0.0, "mode": "fixed"}
    return share_state(gpu, tuning).as_dict()


def prepare_cooperation(gpu, tuning: DistributedTuning | None) -> None:
    """Make the host copy of the CPU's rows and its buffers now (Graph500
    counts them in construction, as it does the block's upload); nothing for
    share 0."""
    if tuning is not None and tuning.cpu_share != 0:
        import cupy

        with cupy.cuda.Device(gpu.device):
            state = share_state(gpu, tuning)
            cooperation_for(gpu, state.share, probe_rows(state))


def cooperation_for(gpu, share: float, minimum_rows: int = 0):
    """The :class:`_Cooperation` of ``share``'s CPU range (one kept per block:
    another share's host copies are freed first), or None when the range is
    empty (the share rounds to no 64-row group; ``minimum_rows`` prevents that)."""
    cut = gpu.cuts.get((share, minimum_rows))
    rows = gpu.graph.part.row_block_size
    if cut is None:
        cut = gpu.cuts[share, minimum_rows] = split_rows(_host_in_indptr(gpu), rows, share, minimum_rows=minimum_rows)
    if cut >= rows:
        return None
    if gpu.cooperation is None or gpu.cooperation.cut != cut:
        gpu.cooperation = None
        gpu.cooperation = _Cooperation(gpu, cut)
    return gpu.cooperation


def probe_rows(state: ShareState) -> int:
    """Rows ``auto``'s probe range keeps however small its share (one group)."""
    return ROW_ALIGN if state.mode == "auto (measuring)" else 0


def _host_in_indptr(gpu):
    """The block's CSC offsets on the host (the graph's, else a copy)."""
    indptr = getattr(gpu.graph, "in_indptr", None)
    return gpu.block.in_indptr.get() if indptr is None else indptr


def _host_rows(gpu, cut: int, rows: int):
    """Rows ``[cut, rows)`` of the block CSC on the host, offsets from 0, in
    the GPU's probe order. The host CSC serves as it is where the GPU probes
    in stored order; with degree-ordered probes (the default) the rows are
    copied from the device, so both halves find the same early parents and
    their arcs-per-second rates measure the same work."""
    g = gpu.graph
    indptr = _host_in_indptr(gpu)[cut: rows + 1]
    first, last = int(indptr[0]), int(indptr[-1])
    host_indices = getattr(g, "in_indices", None)
    if gpu.in_indices is gpu.block.in_indices and host_indices is not None:
        indices = host_indices[first:last]
    else:
        indices = gpu.in_indices[first:last].get()
    return np.asarray(indptr, dtype=np.int64) - first, indices


@dataclass
class _HalfRun:
    """One cooperative bottom-up step: each half's arcs and seconds."""

    cpu_found: int
    cpu_examined: int
    cpu_seconds: float
    gpu_examined: int
    gpu_seconds: float
    overhead_seconds: float


class _Cooperation:
    """The CPU's range ``[cut, n_row)`` of a block's bottom-up steps: its host
    copy of the CSC rows (:class:`~.cooperation.HostHalf`), pinned buffers
    for the copies each way, device staging for the merge, a side stream."""

    def __init__(self, gpu, cut: int):
        import cupy
        import numba

        part = gpu.graph.part
        self.cut, self.rows = cut, part.row_block_size
        self.first_word, self.last_word = cut // 32, self.rows // 32  # the GPU's uint32 words
        indptr, indices = _host_rows(gpu, cut, self.rows)
        span = self.rows - cut
        self._pinned = []
        self.host = HostHalf(cut, self.rows, indptr, indices, next_bits=self._pinned_array(span // ROW_ALIGN, np.int64),
                             found_parents=self._pinned_array(span, indices.dtype))
        self.frontier = self._pinned_array(part.col_block_size // ROW_ALIGN, np.int64)
        self.visited = self._pinned_array(span // ROW_ALIGN, np.int64)
        self.device_bits = cupy.empty(span // ROW_ALIGN, dtype=cupy.int64)
        self.device_parents = cupy.empty(span, dtype=indices.dtype)
        # Non-blocking: CuPy's default stream is the legacy one, which would
        # otherwise wait for the side stream's copies and they for it.
        self.side = cupy.cuda.Stream(non_blocking=True)
        self.ready, self.copied, self.uploaded = (cupy.cuda.Event(disable_timing=True) for _ in range(3))
        self.gpu_start, self.gpu_end = cupy.cuda.Event(), cupy.cuda.Event()
        self.workers = numba.get_num_threads()
        self.frontier.fill(0)
        self.host.warm_up(self.frontier, self.workers)

    def _pinned_array(self, count: int, dtype):
        import cupy

        dtype = np.dtype(dtype)
        memory = cupy.cuda.alloc_pinned_memory(max(count, 1) * dtype.itemsize)
        self._pinned.append(memory)  # the array does not keep it alive
        return np.frombuffer(memory, dtype=dtype, count=count)

    def step(self, gpu, level: int) -> _HalfRun:
        """Both halves of a bottom-up step, merged into ``ws.next_frontier``,
        ``ws.visited`` and ``gpu.step_parents`` as the GPU step alone leaves them."""
        import cupy

        from ..backends.cuda import bfs_bottom_up
        from ..backends.cuda import bfs_steps as steps
        from ..backends.cuda.abi import CNT_EDGES

        ws = gpu.ws
        runtime = cupy.cuda.runtime
        main = cupy.cuda.get_current_stream()
        host = self.host
        start = time.perf_counter()
        # The host's inputs, on the side stream while the GPU half runs: both
        # halves only read the frontier, and the GPU half writes visited words
        # below first_word only.
        self.ready.record(main)
        self.side.wait_event(self.ready)
        runtime.memcpyAsync(self.frontier.ctypes.data, ws.frontier.data.ptr, self.frontier.nbytes,
                            runtime.memcpyDeviceToHost, self.side.ptr)
        runtime.memcpyAsync(self.visited.ctypes.data, ws.visited[self.first_word:].data.ptr, self.visited.nbytes,
                            runtime.memcpyDeviceToHost, self.side.ptr)
        self.copied.record(self.side)
        steps.reset_counters(ws)
        self.gpu_start.record(main)
        if self.first_word:
            half = copy.copy(ws)  # the launchers size their grids by ws.words: the GPU half ends at the cut
            half.words = self.first_word
            bfs_bottom_up.bottom_up(gpu.block, half, gpu.tuning, level, *gpu.step_arrays(),
                                    gpu.in_indices, gpu.rows)
        self.gpu_end.record(main)
        self.copied.synchronize()
        inputs = time.perf_counter()
        found, cpu_examined = host.run(self.frontier, self.visited, level, self.workers)
        scanned = time.perf_counter()
        if found:
            host.compact()
        runtime.memcpyAsync(self.device_bits.data.ptr, host.next_bits.ctypes.data, host.next_bits.nbytes,
                            runtime.memcpyHostToDevice, self.side.ptr)
        if found:
            runtime.memcpyAsync(self.device_parents.data.ptr, host.found_parents.ctypes.data,
                                found * host.found_parents.itemsize, runtime.memcpyHostToDevice, self.side.ptr)
        self.uploaded.record(self.side)
        self.uploaded.synchronize()
        sent = time.perf_counter()
        self.gpu_end.synchronize()
        merging = time.perf_counter()
        main.wait_event(self.uploaded)
        merge_halves(cupy, self.cut, self.device_bits, self.device_parents, found, ws.next_frontier, ws.visited,
                     gpu.step_arrays()[1])
        gpu_examined = int(steps.read_counters(ws)[CNT_EDGES])
        done = time.perf_counter()
        return _HalfRun(
            cpu_found=found, cpu_examined=cpu_examined, cpu_seconds=scanned - inputs, gpu_examined=gpu_examined,
            gpu_seconds=cupy.cuda.get_elapsed_time(self.gpu_start, self.gpu_end) / 1e3,
            overhead_seconds=(inputs - start) + (sent - scanned) + (done - merging),
        )
