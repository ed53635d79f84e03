"""Seed 001's three thread-creation schemes on the GPU (kernels/sssp_harish.cu).

* ``bellman-ford`` — algorithm 1 with RELAX/UPDATE (algorithms 2-3): every
  phase runs |V| threads ("conventional", Harish & Narayanan).
* ``frontier`` — algorithms 5-6: threads only for the vertices updated last
  phase ("selection").
* ``adaptive`` — algorithm 4 ("proposal"): switches between the two by the
  host-measured phase time (policy in :mod:`wavefront.sssp.policy`),
  rebuilding the frontier with the SWITCH kernel when it goes back. The
  thresholds are calibrated on first use per (GPU, graph size class, tuning).

Each phase is a captured CUDA graph (:mod:`.sssp_capture`); the host loop
here times phases and asks the policy.
"""
from __future__ import annotations

import math
import time
from collections import deque
from functools import lru_cache

from ..._sources import multi_source
from ...results import SSSPResult, Trace
from ...sssp.policy import (
    ALL_ONLY,
    FRONTIER_ONLY,
    AdaptiveModePolicy,
    FixedModePolicy,
    ThresholdCache,
    calibrate_thresholds,
    explain_thresholds,
    pick_thresholds,
    size_class,
)
from .sssp_capture import HarishWorkspace, SeedPhases
from .sssp_common import device_seeds, finish_search, prepare_search
from .sssp_tuning import SSSPTuning, tuning_or_default

_thresholds = ThresholdCache()


def harish_search(graph, source, cutoff, policy, method: str, cuda_graphs: bool,
                  in_flight: int | None, tuning: SSSPTuning) -> SSSPResult:
    """Seed 001's host loop (algorithms 1 and 4) with ``policy`` choosing each phase's mode.

    ``source``: one internal id, or an int64 array of distinct ids (all in
    Ma at cost 0, and the first frontier list).

    ``in_flight`` phases (default ``tuning.phases_in_flight``) are queued at
    once: while the host waits for one phase, the next is already on the
    stream, so the GPU does not idle through the host's round trip (a phase
    that follows the last one to update anything finds nothing to do). A
    phase's time is measured from when the host saw the one before it end (or
    from its launch, if later) to when the host sees it end; the policy's
    choice takes effect ``in_flight - 1`` phases later. ``in_flight=1`` is the
    seed's loop exactly. ``cuda_graphs=False`` launches each phase's kernels
    from Python instead of replaying its captured CUDA graph.
    """
    in_flight = tuning.phases_in_flight if in_flight is None else in_flight
    if isinstance(in_flight, bool) or in_flight not in (1, 2):
        raise ValueError(f"in_flight must be 1 or 2, got {in_flight!r}")
    ar, k, weights, in_weights, cut = prepare_search(graph, source, cutoff, tuning)
    n = graph.n
    ws = HarishWorkspace.for_graph(graph, ar, k)
    phases = SeedPhases(graph, ws, k, weights, cut)
    stream = ws.stream
    queued = deque()  # (mode, list parity, slot, launch time, switch row) per queued phase
    launched = {"phases": 0, "cur": 0, "mode": None}

    def launch(mode: str):
        cur, slot = launched["cur"], launched["phases"] % in_flight
        switch = None
        if mode == "frontier" and launched["mode"] == "all":
            start = time.perf_counter()
            ws.count_of[cur].fill(0)
            k.switch_to_frontier(n, ws.mask, ws.lists[cur], ws.count_of[cur])
            switch = time.perf_counter() - start
        replay = phases.phase_graph(mode, cur, slot) if cuda_graphs else None
        queued.append((mode, cur, slot, time.perf_counter(), switch))
        if replay is None:
            phases.launch_kernels(mode, cur, slot)
        else:
            replay.launch(stream)
        ws.phase_done[slot].record(stream)
        launched.update(phases=launched["phases"] + 1, mode=mode,
                        cur=1 - cur if mode == "frontier" else cur)

    with stream:
        if cuda_graphs:  # capture before anything is timed
            phases.capture_all(policy.modes, in_flight)
        first, seeds = device_seeds(source, k.index_dtype)
        at = first if seeds is None else seeds
        ws.reset(at, ar)
        active = 1 if seeds is None else int(seeds.size)  # vertices updated by the last phase (Ma's population)
        mode = policy.initial_mode
        if mode == "frontier":
            ws.lists[0][:active] = at
            ws.counts[0] = active
        trace = Trace()
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
            updated = phases.updated(phase_mode, cur, slot)
            if switch is not None:
                trace.add(phase, "switch", active, -1, switch, "rebuild NRa from Ma")
                phase += 1
            mode, reason = policy.next_mode(phase_mode, seconds)
            trace.add(phase, phase_mode, active, -1, seconds, reason)
            active = updated
            phase += 1
            finished = not updated
        # Ca stays in the workspace; the result gets its own copy.
        result = finish_search(graph, source, ws.cost.copy(), ar, k, in_weights, trace, method)
        stream.synchronize()
    return result


@multi_source
def bellman_ford(graph, source, *, cutoff=None, cuda_graphs: bool = True,
                 in_flight: int | None = None, tuning: SSSPTuning | None = None) -> SSSPResult:
    """Seed 001's "conventional" method: |V| threads every phase."""
    return harish_search(graph, source, cutoff, FixedModePolicy("all"), "bellman-ford",
                         cuda_graphs, in_flight, tuning_or_default(tuning))


@multi_source
def frontier(graph, source, *, cutoff=None, cuda_graphs: bool = True,
             in_flight: int | None = None, tuning: SSSPTuning | None = None) -> SSSPResult:
    """Seed 001's "selection" method: threads only for last phase's updates."""
    return harish_search(graph, source, cutoff, FixedModePolicy("frontier"), "frontier",
                         cuda_graphs, in_flight, tuning_or_default(tuning))


@multi_source
def adaptive(graph, source, *, cutoff=None, thresholds=None, recalibrate: bool = False,
             hysteresis: float = 0.05, min_saving: float = 0.15, cuda_graphs: bool = True,
             in_flight: int | None = None, tuning: SSSPTuning | None = None) -> SSSPResult:
    """Seed 001's "proposal": switch by measured phase time.

    ``thresholds=(up, down)`` in seconds overrides the calibration; otherwise
    the first call for a (GPU, graph size class) runs one frontier and one
    all-vertex search from ``source`` and fits where their phase costs cross
    (:func:`wavefront.sssp.policy.calibrate_thresholds`, with ``hysteresis``
    and ``min_saving``), then times searches with the fitted thresholds and
    keeps whichever of switching, frontier-only and all-vertex-only was
    fastest, all-vertex unless another wins by 3 %
    (:func:`wavefront.sssp.policy.pick_thresholds`). ``cuda_graphs`` and
    ``in_flight`` as for :func:`harish_search`. The first trace row's reason
    starts with why calibration kept its thresholds
    (:func:`wavefront.sssp.policy.explain_thresholds`), or says they were given.
    """
    tuning = tuning_or_default(tuning)
    if thresholds is None:
        thresholds, why = _calibration(graph, source, recalibrate, hysteresis, min_saving, cuda_graphs, in_flight,
                                       tuning)
    else:
        why = "thresholds given"
    up, down = (float(t) for t in thresholds)
    result = harish_search(graph, source, cutoff, AdaptiveModePolicy(up, down), "adaptive",
                           cuda_graphs, in_flight, tuning)
    if result.trace:
        first = result.trace[0]
        first.reason = f"{why}; {first.reason}" if first.reason else why
    return result


@lru_cache(maxsize=None)
def _device_identity(device_id: int) -> tuple:
    """(name, PCI bus id) of a GPU; cached: querying the properties takes ~1 ms."""
    import cupy

    props = cupy.cuda.runtime.getDeviceProperties(device_id)
    return props["name"], props["pciBusID"]


def calibrated_thresholds(graph, source, *, recalibrate: bool = False,
                          hysteresis: float = 0.05, min_saving: float = 0.15,
                          cuda_graphs: bool = True, in_flight: int | None = None,
                          tuning: SSSPTuning | None = None) -> tuple[float, float]:
    """(up, down) for this GPU, graph size class and tuning, measuring them if needed."""
    return _calibration(graph, source, recalibrate, hysteresis, min_saving, cuda_graphs, in_flight, tuning)[0]


def _calibration(graph, source, recalibrate, hysteresis, min_saving, cuda_graphs, in_flight, tuning):
    """(thresholds, the reason calibration gave for them); see :func:`calibrated_thresholds`."""
    import cupy

    tuning = tuning_or_default(tuning)
    in_flight = tuning.phases_in_flight if in_flight is None else in_flight
    key = (_device_identity(cupy.cuda.Device().id), size_class(graph.n, graph.m), graph.directed,
           cuda_graphs, in_flight, hysteresis, min_saving, tuning)
    cached = None if recalibrate else _thresholds.get(key)
    if cached is not None:
        return cached, _thresholds.reason(key)
    samples, totals = {}, {}

    def measure(mode, policy):
        result = harish_search(graph, source, None, policy, mode, cuda_graphs, in_flight, tuning)
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
    why = explain_thresholds(fitted, thresholds, totals["frontier"], totals["all"], totals.get("adaptive"))
    _thresholds.put(key, thresholds, why)
    return thresholds, why
