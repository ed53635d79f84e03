"""GPU single-source shortest paths: seed 001's three thread-creation schemes
and delta-stepping.

* ``bellman-ford`` — seed 001 algorithm 1 with RELAX/UPDATE (algorithms 2-3):
  every phase runs |V| threads ("conventional", Harish & Narayanan).
* ``frontier`` — algorithms 5-6: threads only for the vertices updated last
  phase ("selection").
* ``adaptive`` — algorithm 4 ("proposal"): switches between the two by the
  host-measured phase time (policy in :mod:`wavefront.sssp.policy`),
  rebuilding the frontier with the SWITCH kernel when it goes back. The
  thresholds are calibrated on first use per (GPU, graph size class).
* ``delta-stepping`` — near-far delta-stepping (Davidson et al. 2014) as one
  persistent kernel (kernels/sssp_near_far.cu), with Meyer & Sanders'
  light/heavy split and heavy steps in push or pull form on skewed graphs, or
  asynchronous buckets (kernels/sssp_async.cu) on roads; defaults by graph
  shape (:func:`tuning_for`).
* ``auto`` — delta-stepping (fastest on every graph measured; docs/notes-cuda-sssp.md).

Predecessors come from kernels/sssp_parents.cu: delta-stepping with float32
weights records them during the search, every other case confirms them from
the final distances afterwards. All methods accept
``cutoff=`` and return distances in the graph's arithmetic (float32 for
float32 weights, float64 otherwise; integer weights are summed exactly in
int64).
"""
from __future__ import annotations

import math
import time
from collections import deque
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ...errors import GPUMemoryError, WeightError
from ...results import SSSPResult, Trace, TraceRow
from ...sssp.policy import (
    ALL_ONLY,
    FRONTIER_ONLY,
    AdaptiveModePolicy,
    FixedModePolicy,
    ThresholdCache,
    calibrate_thresholds,
    pick_thresholds,
    size_class,
)
from .memory import check_fits
from .sssp_steps import (
    ASYNC_QUEUE_RELAXED,
    ASYNC_QUEUE_WORDS,
    CTL_ITERATIONS,
    CTL_WORDS,
    NEAR_FAR_CTL_WORDS,
    INT_INFINITY,
    NEAR_FAR_CHUNK,
    PARENT_CHUNK,
    NO_RECORD,
    TRACE_WIDTH,
    SSSPKernels,
    arithmetic,
    check_blocks_per_sm,
)

WARP_SIZE = 32


@dataclass(frozen=True)
class DeltaSteppingTuning:
    """Delta-stepping's defaults for one shape of graph (sweeps on an H200:
    docs/notes-cuda-sssp.md). ``delta_scale`` multiplies Davidson et al.'s
    delta (mean weight x warp size / mean out-degree)."""

    delta_scale: float
    light_heavy: bool
    chain: int
    blocks_per_sm: int
    asynchronous: bool = False


# Road networks (mean out-degree < 8): bulk-synchronous delta-stepping needs
# hundreds to thousands of latency-bound iterations; the asynchronous schedule
# (no iterations inside a bucket, lanes following their own chains of
# improvements) is 1.3-1.6x faster on both road graphs measured. Kronecker and
# other skewed graphs: tens of iterations moving most arcs; narrow buckets
# with the light/heavy split cut the arcs relaxed twice or more, and a second
# block per SM hides latency. Since heavy steps pull when that reads fewer arcs
# and splits stage their appends, narrower buckets pay: 0.1 (x0.375-0.4 of the
# old 0.25) was best or within 3 % of the best at SCALE 23-25 on an H200
# (docs/notes-cuda-sssp.md, round 4).
ROAD_TUNING = DeltaSteppingTuning(delta_scale=1.0, light_heavy=False, chain=1000, blocks_per_sm=1,
                                  asynchronous=True)
SKEWED_TUNING = DeltaSteppingTuning(delta_scale=0.1, light_heavy=True, chain=0, blocks_per_sm=2)
SKEWED_MEAN_DEGREE = 8
# Asynchronous buckets on a small graph are bound by each bucket's chain of
# hops, on a large one by redundant relaxations: seattle (148 K vertices) ran
# best at delta_scale 4-8, the 1.4 M road-like graph at 0.5, before idle lanes
# took over improved targets inside their warp (AS_LOCAL); since then both,
# amsterdam and road-like graphs of 0.2-3 M vertices run as fast or faster at
# twice those scales (round 6), hence 16 and 1. The scale falls as 1 / n in
# between (docs/notes-cuda-sssp.md).
ASYNC_WIDEST_SCALE = 16.0
ASYNC_WIDEST_UP_TO = 92_000  # vertices


def tuning_for(graph) -> DeltaSteppingTuning:
    return SKEWED_TUNING if graph.m >= SKEWED_MEAN_DEGREE * graph.n else ROAD_TUNING

TRACE_CAPACITY = 1 << 16
_thresholds = ThresholdCache()


# -- shared set-up -------------------------------------------------------------
def _prepare(graph, source: int, cutoff):
    import cupy

    ar = arithmetic(graph)
    if ar.dist_dtype == np.int64 and graph.weights is not None and graph.m:
        key = "cuda.sssp.max_weight"
        if key not in graph.derived:
            graph.derived[key] = int(graph.weights.max())
        biggest = graph.derived[key]
        if biggest * max(graph.n - 1, 1) >= 2**62:
            raise WeightError(
                f"integer weights up to {biggest} could make a distance overflow int64 on "
                f"{graph.n} vertices; scale the weights down or use float64 weights"
            )
    # An unweighted graph's kernels get a placeholder pointer (never read); kept
    # with the graph because captured CUDA graphs hold on to it.
    weights = graph.weights
    if weights is None:
        weights = graph.derived.setdefault("cuda.sssp.no_weights", cupy.zeros(1, dtype=np.uint8))
    in_weights = graph.in_weights if graph.in_weights is not None else weights
    k = SSSPKernels.for_graph(graph)
    narrow = _int32_weights(graph)
    if narrow is not None:
        weights, in_weights = narrow
        k = SSSPKernels.for_graph(graph, weight_code=_INT32_WEIGHTS)
    return ar, k, weights, in_weights, _cutoff_scalar(cutoff, ar)


_INT32_WEIGHTS = 2  # SSSP_WEIGHT of int32 weights (int64 distances, as for int64 weights)


def _int32_weights(graph):
    """int32 copies of int64 weights that all fit (out- and in-arcs), kept with
    the graph; None if the weights are not int64, do not fit, or the copies do
    not fit in GPU memory. The kernels add them in int64 exactly as before, so
    the distances are the same, and a search reads 4 bytes less per arc (on
    the 1.4 M road-like graph the arcs then nearly fit in an H200's L2)."""
    import cupy

    if graph.weights is None or graph.weights.dtype != np.int64 or graph.m == 0:
        return None
    key = "cuda.sssp.int32_weights"
    if key not in graph.derived:
        narrow = None
        if 0 <= graph.derived["cuda.sssp.max_weight"] <= np.iinfo(np.int32).max:
            separate_in = graph.in_weights is not None and graph.in_weights is not graph.weights
            try:
                check_fits("int32 copy of the int64 weights", graph.m * 4 * (2 if separate_in else 1))
                out = graph.weights.astype(np.int32)
                narrow = (out, graph.in_weights.astype(np.int32) if separate_in else out)
            except (GPUMemoryError, cupy.cuda.memory.OutOfMemoryError):
                narrow = None
        graph.derived[key] = narrow
    return graph.derived[key]


def _cutoff_scalar(cutoff, ar):
    """The largest distance value <= cutoff, in the search's arithmetic."""
    if cutoff is None:
        return ar.infinity
    c = float(cutoff)
    if math.isnan(c) or c < 0:
        raise ValueError(f"cutoff must be a non-negative number, got {cutoff!r}")
    if ar.dist_dtype == np.int64:
        return np.int64(min(math.floor(c), INT_INFINITY - 1)) if math.isfinite(c) else ar.infinity
    value = ar.dist_dtype(c)
    if float(value) > c:
        value = np.nextafter(value, ar.dist_dtype(-np.inf), dtype=ar.dist_dtype)
    return value


def _parent_chunks(graph):
    """(vertex, first in-arc) of every PARENT_CHUNK-arc piece of the in-lists at
    least PARENT_CHUNK long (cached per graph)."""
    import cupy

    key = "cuda.sssp.parent_chunks"
    if key not in graph.derived:
        in_indptr = graph.in_indptr
        degree = cupy.diff(in_indptr)
        big = cupy.flatnonzero(degree >= PARENT_CHUNK)
        pieces = (degree[big] + PARENT_CHUNK - 1) // PARENT_CHUNK
        ends = cupy.cumsum(pieces)
        total = int(ends[-1]) if big.size else 0
        piece = cupy.arange(total, dtype=np.int64)
        owner = cupy.searchsorted(ends, piece, side="right")
        first_piece = ends[owner] - pieces[owner]
        vertex = big[owner].astype(graph.indices.dtype)
        begin = in_indptr[big[owner]] + (piece - first_piece) * PARENT_CHUNK
        graph.derived[key] = (vertex, begin.astype(np.int64))
    return graph.derived[key]


def _finish(graph, source, dist, ar, kernels, weights, in_weights, trace, method,
            record=None) -> SSSPResult:
    """Predecessors, output distances and the result (shared by every method).
    ``record``: the (distance, parent) words a search recorded, if it did."""
    import cupy

    n = graph.n
    parent = cupy.empty(n, dtype=np.int64)
    words = cupy.zeros(1, dtype=np.uint32)
    unsettled = 1
    if record is not None:
        kernels.parents_from_record(n, source, record, dist, parent, words)
        unsettled = int(kernels.read_words(words, 1)[0])  # 0 unless the record is broken
    if unsettled:
        kernels.confirm_parents(graph, in_weights, source, dist, parent, _parent_chunks(graph))
        settled_round = cupy.empty(n, dtype=np.int32)
        words.fill(0)
        kernels.count_unsettled(n, parent, settled_round, words)
        unsettled = int(kernels.read_words(words, 1)[0])
    round_ = 1
    while unsettled:
        words.fill(0)
        kernels.plateau_round(graph, in_weights, dist, parent, settled_round, round_, words)
        progress = int(kernels.read_words(words, 1)[0])
        if progress == 0:
            raise RuntimeError(
                f"{unsettled} reached vertices have no confirming in-neighbour; the distances "
                "are inconsistent (please report this as a wavefront bug)"
            )
        unsettled -= progress
        round_ += 1
    if ar.dist_dtype == np.int64:
        out = _float_distances()(dist)
    else:
        out = dist
    return SSSPResult(source=source, parents=parent, trace=trace, method=method,
                      backend="cuda", distances=out)


@lru_cache(maxsize=None)
def _float_distances():
    """int64 distances -> float64 with inf for unreached, in one pass."""
    import cupy

    return cupy.ElementwiseKernel(
        "int64 d", "float64 out",
        "out = d == 0x7fffffffffffffffLL ? __longlong_as_double(0x7ff0000000000000LL) : (double)d",
        "wavefront_float_distances")


# -- seed 001: conventional, selection, proposal ---------------------------------
class _HarishWorkspace:
    """Seed 001's arrays (Ca, Ua, Ma, NRa/NWa) for one graph,
    kept between searches with the CUDA graphs captured over them, so that a
    search pays neither allocations nor captures. Not for concurrent use."""

    def __init__(self, graph, ar, k):
        import cupy

        n = graph.n
        self.stream = cupy.cuda.Stream(non_blocking=True)
        with self.stream:
            self.cost = cupy.empty(n, dtype=ar.dist_dtype)
            self.updating = cupy.empty(n, dtype=ar.dist_dtype)
            self.mask = cupy.empty(n, dtype=np.uint8)
            self.lists = (cupy.empty(n, dtype=k.index_dtype), cupy.empty(n, dtype=k.index_dtype))
            # counts[0], counts[1]: lengths of the two frontier lists (NRa/NWa by
            # parity); counts[2]: vertices updated by an all-vertex phase.
            self.counts = cupy.empty(3, dtype=np.uint32)
        self.count_of = (self.counts[0:1], self.counts[1:2])
        self.all_count = self.counts[2:3]
        self.captured = {}
        # One event per in-flight phase: the host waits on the oldest.
        self.phase_done = [cupy.cuda.Event(disable_timing=True) for _ in range(2)]

    @classmethod
    def for_graph(cls, graph, ar, k) -> "_HarishWorkspace":
        key = "cuda.sssp.harish_workspace"
        ws = graph.derived.get(key)
        if ws is None:
            itemsize = np.dtype(ar.dist_dtype).itemsize
            idx_size = np.dtype(k.index_dtype).itemsize
            check_fits("seed-001 SSSP workspace", graph.n * (2 * itemsize + 1 + 2 * idx_size))
            ws = graph.derived[key] = cls(graph, ar, k)
        return ws

    def reset(self, source: int, ar) -> None:
        self.cost.fill(ar.infinity)
        self.updating.fill(ar.infinity)
        self.mask.fill(0)
        self.counts.fill(0)
        self.cost[source] = 0
        self.updating[source] = 0
        self.mask[source] = 1


PHASES_IN_FLIGHT = 2  # seed-001 phases on the stream while the host waits for the oldest
_SLOT_WORDS = 4  # each in-flight phase copies its three counters to its own host slot
_CAPTURES_PER_CUTOFF = 2 * 3  # per slot: one all-vertex phase, a frontier phase per list parity
_MAX_CAPTURED_PHASES = 8 * _CAPTURES_PER_CUTOFF  # captured phase graphs kept per graph


def _harish_search(graph, source: int, cutoff, policy, method: str,
                   cuda_graphs: bool = True, in_flight: int = PHASES_IN_FLIGHT) -> SSSPResult:
    """Seed 001's host loop (algorithms 1 and 4) with ``policy`` choosing each phase's mode.

    Each phase's launches and the copy of its counters to the host are
    captured once per (mode, list parity, host slot) as a CUDA graph and
    replayed, so that a phase's host-measured time reflects the GPU's work
    rather than Python's launch overhead (the seed's K20c phases took hundreds
    of µs; an H200's, tens). ``in_flight`` phases are queued at once: while
    the host waits for one phase, the next is already on the stream, so the
    GPU does not idle through the host's round trip (a phase that follows the
    last one to update anything finds nothing to do). A phase's time is
    measured from when the host saw the one before it end (or from its launch,
    if later) to when the host sees it end; the policy's choice takes effect
    ``in_flight - 1`` phases later. ``in_flight=1`` is the seed's loop exactly.
    """
    if isinstance(in_flight, bool) or in_flight not in (1, 2):
        raise ValueError(f"in_flight must be 1 or 2, got {in_flight!r}")
    ar, k, weights, in_weights, cut = _prepare(graph, source, cutoff)
    n = graph.n
    ws = _HarishWorkspace.for_graph(graph, ar, k)
    stream = ws.stream
    cost, updating, mask, lists, counts = ws.cost, ws.updating, ws.mask, ws.lists, ws.counts
    count_of, all_count = ws.count_of, ws.all_count

    def launch_phase(mode: str, cur: int, slot: int):
        if mode == "all":
            k.relax_all(graph, weights, mask, cost, updating, cut, all_count)
            k.update_all(n, mask, cost, updating, all_count)
        else:
            k.select_relax(graph, weights, None, count_of[cur], lists[cur], mask, cost,
                           updating, lists[1 - cur], count_of[1 - cur], cut)
            k.select_update(count_of[1 - cur], lists[1 - cur], mask, cost, updating,
                            count_of[cur])
        k.copy_words_to_host(counts, 3, stream, at=slot * _SLOT_WORDS)

    def phase_graph(mode: str, cur: int, slot: int):
        """The captured phase for (mode, list parity, slot, cutoff), captured on first use."""
        key = (mode, cur if mode == "frontier" else 0, slot, cut.item())
        if key not in ws.captured:
            stream.begin_capture()
            launch_phase(mode, cur, slot)
            ws.captured[key] = stream.end_capture()
        return ws.captured[key]

    queued = deque()  # (mode, list parity, slot, launch time, switch row) per queued phase
    launched = {"phases": 0, "cur": 0, "mode": None}

    def launch(mode: str):
        cur, slot = launched["cur"], launched["phases"] % in_flight
        switch = None
        if mode == "frontier" and launched["mode"] == "all":
            start = time.perf_counter()
            count_of[cur].fill(0)
            k.switch_to_frontier(n, mask, lists[cur], count_of[cur])
            switch = time.perf_counter() - start
        replay = phase_graph(mode, cur, slot) if cuda_graphs else None
        queued.append((mode, cur, slot, time.perf_counter(), switch))
        if replay is None:
            launch_phase(mode, cur, slot)
        else:
            replay.launch(stream)
        ws.phase_done[slot].record(stream)
        launched.update(phases=launched["phases"] + 1, mode=mode,
                        cur=1 - cur if mode == "frontier" else cur)

    with stream:
        if cuda_graphs:  # capture before anything is timed
            if len(ws.captured) > _MAX_CAPTURED_PHASES - _CAPTURES_PER_CUTOFF:  # many cutoffs
                ws.captured.clear()
            for mode in policy.modes:
                for slot in range(in_flight):
                    for cur in ((0, 1) if mode == "frontier" else (0,)):
                        phase_graph(mode, cur, slot)
        ws.reset(source, ar)
        mode = policy.initial_mode
        if mode == "frontier":
            lists[0][0] = source
            counts[0] = 1
        trace = Trace()
        active = 1  # vertices updated by the last phase (Ma's population)
        phase = 0
        finished = False  # a phase updated nothing: what is still queued has nothing to do
        last_seen = None
        while True:
            while not finished and len(queued) < in_flight:
                launch(mode)
            if not queued:
                break
            phase_mode, cur, slot, launched_at, switch = queued.popleft()
            ws.phase_done[slot].synchronize()
            seen = time.perf_counter()
            seconds = seen - (launched_at if last_seen is None else max(launched_at, last_seen))
            last_seen = seen
            if finished:
                continue
            word = slot * _SLOT_WORDS + (1 - cur if phase_mode == "frontier" else 2)
            updated = int(k.host_view[word])
            if switch is not None:
                trace.add(phase, "switch", active, -1, switch, "rebuild NRa from Ma")
                phase += 1
            mode, reason = policy.next_mode(phase_mode, seconds)
            trace.add(phase, phase_mode, active, -1, seconds, reason)
            active = updated
            phase += 1
            finished = not updated
        # Ca stays in the workspace; the result gets its own copy.
        result = _finish(graph, source, cost.copy(), ar, k, weights, in_weights, trace, method)
        stream.synchronize()
    return result


def bellman_ford(graph, source: int, *, cutoff=None, cuda_graphs: bool = True,
                 in_flight: int = PHASES_IN_FLIGHT) -> SSSPResult:
    """Seed 001's "conventional" method: |V| threads every phase."""
    return _harish_search(graph, source, cutoff, FixedModePolicy("all"), "bellman-ford",
                          cuda_graphs, in_flight)


def frontier(graph, source: int, *, cutoff=None, cuda_graphs: bool = True,
             in_flight: int = PHASES_IN_FLIGHT) -> SSSPResult:
    """Seed 001's "selection" method: threads only for last phase's updates."""
    return _harish_search(graph, source, cutoff, FixedModePolicy("frontier"), "frontier",
                          cuda_graphs, in_flight)


def adaptive(graph, source: int, *, cutoff=None, thresholds=None, recalibrate: bool = False,
             hysteresis: float = 0.05, min_saving: float = 0.15,
             cuda_graphs: bool = True, in_flight: int = PHASES_IN_FLIGHT) -> SSSPResult:
    """Seed 001's "proposal": switch by measured phase time.

    ``thresholds=(up, down)`` in seconds overrides the calibration; otherwise
    the first call for a (GPU, graph size class) runs one frontier and one
    all-vertex search from ``source`` and fits where their phase costs cross
    (:func:`wavefront.sssp.policy.calibrate_thresholds`, with ``hysteresis``
    and ``min_saving``), then times searches with the fitted thresholds and
    keeps whichever of switching, frontier-only and all-vertex-only was
    fastest, all-vertex unless another wins by 3 %
    (:func:`wavefront.sssp.policy.pick_thresholds`). ``cuda_graphs=False``
    launches each phase's kernels from Python instead of replaying a CUDA
    graph; ``in_flight`` phases are queued ahead of the host (1: the seed's
    loop, launch then wait; 2: the next phase is queued before the host waits).
    """
    if thresholds is None:
        thresholds = calibrated_thresholds(graph, source, recalibrate=recalibrate,
                                           hysteresis=hysteresis, min_saving=min_saving,
                                           cuda_graphs=cuda_graphs, in_flight=in_flight)
    up, down = (float(t) for t in thresholds)
    return _harish_search(graph, source, cutoff, AdaptiveModePolicy(up, down), "adaptive",
                          cuda_graphs, in_flight)


@lru_cache(maxsize=None)
def _device_identity(device_id: int) -> tuple:
    """(name, PCI bus id) of a GPU; cached: querying the properties takes ~1 ms."""
    import cupy

    props = cupy.cuda.runtime.getDeviceProperties(device_id)
    return props["name"], props["pciBusID"]


def calibrated_thresholds(graph, source: int, *, recalibrate: bool = False,
                          hysteresis: float = 0.05, min_saving: float = 0.15,
                          cuda_graphs: bool = True,
                          in_flight: int = PHASES_IN_FLIGHT) -> tuple[float, float]:
    """(up, down) for this GPU and graph size class, measuring them if needed."""
    import cupy

    key = (_device_identity(cupy.cuda.Device().id), size_class(graph.n, graph.m), graph.directed,
           cuda_graphs, in_flight, hysteresis, min_saving)
    cached = None if recalibrate else _thresholds.get(key)
    if cached is not None:
        return cached
    samples, totals = {}, {}

    def measure(mode, policy):
        result = _harish_search(graph, source, None, policy, mode, cuda_graphs, in_flight)
        totals[mode] = min(totals.get(mode, math.inf), sum(row.seconds for row in result.trace))
        return result

    for mode in ("frontier", "frontier", "all"):  # the first run warms up
        result = measure(mode, FixedModePolicy(mode))
        samples[mode] = [(row.frontier, row.seconds) for row in result.trace]
    fitted = calibrate_thresholds(samples["frontier"], samples["all"], hysteresis, min_saving)
    if fitted not in (FRONTIER_ONLY, ALL_ONLY):
        # Time the fitted switch twice, each after an all-vertex search (the
        # best of each counts), so that clocks still rising favour neither.
        for _ in range(2):
            measure("adaptive", AdaptiveModePolicy(*fitted))
            measure("all", FixedModePolicy("all"))
    thresholds = pick_thresholds(fitted, totals["frontier"], totals["all"], totals.get("adaptive"))
    _thresholds.put(key, thresholds)
    return thresholds


# -- delta-stepping ----------------------------------------------------------------
def delta_scale(graph) -> float:
    """The multiple of Davidson et al.'s delta that :func:`default_delta` uses."""
    tuning = tuning_for(graph)
    if not tuning.asynchronous:
        return tuning.delta_scale
    widest = ASYNC_WIDEST_SCALE * ASYNC_WIDEST_UP_TO / max(graph.n, 1)
    return min(ASYNC_WIDEST_SCALE, max(tuning.delta_scale, widest))


def default_delta(graph) -> float:
    """Davidson et al.'s rule (mean arc weight x warp size / mean out-degree)
    times :func:`delta_scale` (by the graph's shape and, for the asynchronous
    schedule, size). Cached per graph."""
    key = "cuda.sssp.default_delta"
    if key not in graph.derived:
        mean_weight = 1.0 if graph.weights is None or graph.m == 0 else float(graph.weights.mean())
        mean_degree = max(graph.m / max(graph.n, 1), 1.0)
        graph.derived[key] = delta_scale(graph) * mean_weight * WARP_SIZE / mean_degree
    return graph.derived[key]


def _delta_scalar(delta, ar, graph):
    value = default_delta(graph) if delta is None else float(delta)
    if math.isnan(value) or value < 0 or (delta is not None and value == 0):
        raise ValueError(f"delta must be a positive number, got {delta!r}")
    if ar.dist_dtype == np.int64:
        return np.int64(max(1, round(value))) if math.isfinite(value) else np.int64(INT_INFINITY // 4)
    value = value if value > 0 else 1.0
    return ar.dist_dtype(min(value, np.finfo(ar.dist_dtype).max / 4))


def _chunk_capacity(graph) -> int:
    """Chunk tasks one iteration can queue: sum of ceil(degree / chunk) over big vertices."""
    key = "cuda.sssp.chunk_capacity"
    if key not in graph.derived:
        deg = graph.degree()
        big = deg[deg >= NEAR_FAR_CHUNK]
        graph.derived[key] = int(((big + NEAR_FAR_CHUNK - 1) // NEAR_FAR_CHUNK).sum()) + 1
    return graph.derived[key]


def light_heavy_arcs(graph, delta_value, k, weights):
    """(indices, weights, light_end): the out-lists ordered light arcs (w < delta)
    first, built on the GPU once per (graph, delta) and kept with the graph
    (the latest delta only: a copy of the arcs is as big as the graph's)."""
    import cupy

    key = "cuda.sssp.light_heavy"
    cached = graph.derived.get(key)
    if cached is not None and cached[0] == delta_value.item():
        return cached[1]
    graph.derived.pop(key, None)
    check_fits("delta-stepping light/heavy arc copy",
               graph.indices.nbytes + (weights.nbytes if graph.weights is not None else 0)
               + 8 * graph.n)
    out_indices = cupy.empty_like(graph.indices)
    out_weights = cupy.empty_like(weights) if graph.weights is not None else weights
    light_end = cupy.empty(graph.n, dtype=np.int64)
    k.split_light_heavy(graph, weights, delta_value, out_indices, out_weights, light_end)
    graph.derived[key] = (delta_value.item(), (out_indices, out_weights, light_end))
    return graph.derived[key][1]


def delta_stepping(graph, source: int, *, cutoff=None, delta=None, chain: int | None = None,
                   blocks_per_sm: int | None = None, light_heavy: bool | None = None,
                   asynchronous: bool | None = None) -> SSSPResult:
    """Near-far delta-stepping in one persistent kernel.

    ``delta`` (bucket width, in weight units) defaults to :func:`default_delta`;
    ``chain`` is how many hops a thread may relax an improved neighbour at
    once before queueing it (0: plain near-far); ``blocks_per_sm`` (1 or 2)
    sizes the persistent grid (fewer blocks: a cheaper grid barrier).
    ``light_heavy`` relaxes heavy arcs (w >= delta) once per settled vertex
    instead of at every improvement (a per-delta copy of the arcs, built on
    first use: :func:`light_heavy_arcs`; skipped if it does not fit in GPU
    memory unless asked for). ``asynchronous`` relaxes each bucket without
    grid-wide iterations (kernels/sssp_async.cu, ADDS-style: every warp takes
    vertices from a shared ring as soon as they improve; ``chain`` is then the
    number of hops a lane follows on its own before queueing; ``blocks_per_sm``
    1..4); it has no light/heavy split (``light_heavy=True`` alone picks the
    bulk-synchronous schedule). Options left None follow the graph's shape
    (:func:`tuning_for`).
    """
    import cupy

    tuning = tuning_for(graph)
    if asynchronous is None:  # the split needs the bulk-synchronous schedule's heavy steps
        asynchronous = tuning.asynchronous and not light_heavy
    elif asynchronous and light_heavy:
        raise ValueError("light_heavy=True needs the bulk-synchronous schedule "
                         "(asynchronous=False): the asynchronous kernel has no heavy steps")
    chain = tuning.chain if chain is None else int(chain)
    blocks_per_sm = tuning.blocks_per_sm if blocks_per_sm is None else blocks_per_sm
    if chain < 0:
        raise ValueError(f"chain must be >= 0, got {chain!r}")
    check_blocks_per_sm(blocks_per_sm, asynchronous)  # before any GPU work
    ar, k, weights, in_weights, cut = _prepare(graph, source, cutoff)
    delta_value = _delta_scalar(delta, ar, graph)
    if asynchronous:
        return _async_delta_stepping(graph, source, ar, k, weights, in_weights, cut,
                                     delta_value, chain, blocks_per_sm)
    arcs = (graph.indices, weights, None)  # (indices, weights, light_end) the kernel reads
    if light_heavy or (light_heavy is None and tuning.light_heavy):
        try:
            arcs = light_heavy_arcs(graph, delta_value, k, weights)
        except GPUMemoryError:
            if light_heavy:  # asked for explicitly: say why it cannot be done
                raise
    light_heavy = arcs[2] is not None
    n = graph.n
    idx = k.index_dtype
    chunks = _chunk_capacity(graph)
    itemsize = np.dtype(ar.dist_dtype).itemsize
    check_fits("delta-stepping SSSP workspace",
               n * (itemsize + 4 * np.dtype(idx).itemsize + 8 + 8) + chunks * 2 * 16
               + (n * (np.dtype(idx).itemsize + 4) if light_heavy else 0)
               + (8 * n if k.records_parents else 0))
    dist = cupy.full(n, ar.infinity, dtype=ar.dist_dtype)
    dist[source] = 0
    near = (cupy.empty(n, dtype=idx), cupy.empty(n, dtype=idx))
    near[0][0] = source
    far = (cupy.empty(n, dtype=idx), cupy.empty(n, dtype=idx))
    chunk_vertex = (cupy.empty(chunks, dtype=idx), cupy.empty(chunks, dtype=idx))
    chunk_begin = (cupy.empty(chunks, dtype=np.int64), cupy.empty(chunks, dtype=np.int64))
    stamps = cupy.zeros(2 * n, dtype=np.int32)
    far_min = cupy.full(3, ar.infinity, dtype=ar.dist_dtype)
    ctl = cupy.zeros(NEAR_FAR_CTL_WORDS, dtype=np.uint32)
    ctl[0] = 1
    trace_rows = cupy.empty((TRACE_CAPACITY + 1, TRACE_WIDTH), dtype=np.int64)
    split = None
    if light_heavy:  # light_end, the settled list and its stamps
        split = (arcs[2], cupy.empty(n, dtype=idx), cupy.zeros(n, dtype=np.int32))
    record = cupy.full(n, np.uint64(NO_RECORD), dtype=np.uint64) if k.records_parents else None
    k.near_far(graph.indptr, arcs[0], arcs[1], dist, near, far, chunk_vertex, chunk_begin,
               stamps[:n], stamps[n:], far_min, ctl, delta_value, cut, chain, trace_rows,
               TRACE_CAPACITY, blocks_per_sm, split, record,
               (n, graph.in_indptr, graph.in_indices, in_weights) if light_heavy else None)
    words = k.read_words(ctl, CTL_WORDS)
    iterations = int(words[CTL_ITERATIONS])
    # The row after the last iteration holds the end time (kept while the trace fits).
    rows = trace_rows[: iterations + 1 if iterations < TRACE_CAPACITY else TRACE_CAPACITY].get()
    trace = _bucket_trace(rows, iterations, float(delta_value))
    return _finish(graph, source, dist, ar, k, weights, in_weights, trace, "delta-stepping", record)


def _ring_capacity(n: int) -> int:
    """The asynchronous schedule's ring: a power of two >= 2 (n + 1). The kernel
    keeps it at most half full (overflow goes to the far pile), so a split
    never overflows; any power of two is correct, only slower."""
    return 1 << max(12, (2 * (n + 1) - 1).bit_length())


class _AsyncWorkspace:
    """The asynchronous schedule's arrays for one graph, kept between searches:
    the ring (free again after every search: each queued item was taken), the
    far piles and their stamps, and one control buffer (ring counters, control
    words, far-pile minima) reset per search with one copy from pinned memory."""

    # control buffer layout, in uint64 words
    CTL_AT = ASYNC_QUEUE_WORDS  # CTL_WORDS uint32
    FAR_MIN_AT = CTL_AT + CTL_WORDS // 2  # 3 distances (<= 8 bytes each)
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
    def for_graph(cls, graph, ar, k) -> "_AsyncWorkspace":
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


def _async_delta_stepping(graph, source, ar, k, weights, in_weights, cut, delta_value,
                          chain: int, blocks_per_sm: int) -> SSSPResult:
    """The asynchronous schedule (kernels/sssp_async.cu): one ring of work, buckets
    separated only by splits. The kernel queues the source itself."""
    import cupy

    ws = _AsyncWorkspace.for_graph(graph, ar, k)
    dist = cupy.full(graph.n, ar.infinity, dtype=ar.dist_dtype)
    ws.reset()
    k.async_delta(graph.indptr, graph.indices, weights, dist, source, ws.ring, ws.queue, ws.far,
                  ws.far_stamp, ws.far_min, ws.ctl, delta_value, cut, chain, ws.trace_rows,
                  TRACE_CAPACITY, blocks_per_sm, ws.relaxed_at)
    control = ws.read_control()
    phases = int(control[ws.CTL_AT:ws.FAR_MIN_AT].view(np.uint32)[CTL_ITERATIONS])
    relaxed = int(control[ASYNC_QUEUE_RELAXED])
    rows = ws.trace_rows[: phases + 1 if phases < TRACE_CAPACITY else TRACE_CAPACITY].get()
    trace = _bucket_trace(rows, phases, float(delta_value), asynchronous=True)
    if len(trace):
        trace[-1].reason += f"; {relaxed} vertex relaxations in all (asynchronous)"
    return _finish(graph, source, dist, ar, k, weights, in_weights, trace, "delta-stepping")


def _bucket_trace(rows: np.ndarray, iterations: int, delta: float,
                  asynchronous: bool = False) -> Trace:
    """One trace row per bucket (the near iterations, or the asynchronous phase,
    and the split after it)."""
    trace = Trace()
    if len(rows) < 2:
        return trace
    kinds, counts, buckets, stamps = rows[:, 0], rows[:, 1], rows[:, 2], rows[:, 3]
    seconds = np.diff(stamps) * 1e-9
    body = slice(0, len(rows) - 1)
    starts = np.flatnonzero(np.diff(buckets[body], prepend=-1) != 0)
    # Vertices relaxed: near iterations (kind 0) and asynchronous buckets (kind 5).
    sums = np.add.reduceat(np.where((kinds[body] == 0) | (kinds[body] == 5), counts[body], 0),
                           starts)
    times = np.add.reduceat(seconds, starts)
    lengths = np.diff(np.append(starts, len(rows) - 1))
    # Plain Python values first: a road search has ~100 buckets, and numpy
    # scalars made this loop cost ~0.3 ms per search.
    prefix = f" (delta {delta:g}): "
    trace.extend(
        TraceRow(b, "bucket", total, -1, secs,
                 f"bucket {bucket}{prefix}" + ("asynchronous" if asynchronous else f"{length} iterations"))
        for b, (bucket, total, secs, length) in enumerate(
            zip(buckets[starts].tolist(), sums.tolist(), times.tolist(), lengths.tolist()))
    )
    if iterations > TRACE_CAPACITY:
        trace[-1].reason += f"; trace truncated after {TRACE_CAPACITY} of {iterations} iterations"
    return trace


def prepare(graph) -> None:
    """Untimed set-up for delta-stepping with its defaults: the kernels and the
    light/heavy arc copy for the default delta (skipped if it does not fit)."""
    if graph.m == 0:
        return
    ar, k, weights, _, _ = _prepare(graph, 0, None)
    _parent_chunks(graph)
    if not tuning_for(graph).light_heavy:
        return
    try:
        light_heavy_arcs(graph, _delta_scalar(None, ar, graph), k, weights)
    except GPUMemoryError:
        pass


def auto(graph, source: int, **options) -> SSSPResult:
    """Delta-stepping: the fastest method on every benchmark graph so far."""
    return delta_stepping(graph, source, **options)
