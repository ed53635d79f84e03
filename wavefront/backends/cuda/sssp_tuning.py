"""Every tuning choice of the CUDA SSSP, as one frozen object.

An :class:`SSSPTuning` is passed explicitly (``wf.sssp(g, s, method=...,
tuning=SSSPTuning(...))``; the methods' own keywords, such as ``chain=`` or
``in_flight=``, still override it per call) and reaches the compile step:
:meth:`SSSPTuning.defines` renders the ``#define``s it chooses for a kernel
file, and the kernel cache (``SSSPKernels.for_graph``) is keyed by the
tuning. The defaults are the measured winners, each equal to its kernel's
``#ifndef`` default; docs/decisions/cuda-sssp.md gives the measurements and
the alternatives that lost. Constants that Python and CUDA must agree on are
not tuning: they live in :mod:`.abi`.
"""
from __future__ import annotations

from dataclasses import dataclass, fields


@dataclass(frozen=True)
class DeltaSteppingTuning:
    """Delta-stepping's defaults for one shape of graph. ``delta_scale``
    multiplies Davidson et al.'s delta (mean weight x warp size / mean
    out-degree); ``chain``: hops a thread relaxes an improved neighbour itself
    before queueing it; ``blocks_per_sm`` sizes the persistent grid;
    ``asynchronous`` picks kernels/sssp_async.cu over the bulk-synchronous
    kernels/sssp_near_far.cu."""

    delta_scale: float
    light_heavy: bool
    chain: int
    blocks_per_sm: int
    asynchronous: bool = False


ROAD = DeltaSteppingTuning(delta_scale=1.0, light_heavy=False, chain=1000, blocks_per_sm=1, asynchronous=True)
"""Road networks need hundreds to thousands of latency-bound bulk-synchronous
iterations; the asynchronous schedule (no iterations inside a bucket, lanes
following their own chains of improvements) was 1.3-1.6x faster on both road
graphs measured."""
SKEWED = DeltaSteppingTuning(delta_scale=0.1, light_heavy=True, chain=0, blocks_per_sm=2)
"""Kronecker and other skewed graphs take tens of iterations moving most arcs:
narrow buckets with the light/heavy split cut the arcs relaxed twice or more,
and a second block per SM hides latency (0.1 was best at SCALE 24)."""


@dataclass(frozen=True)
class SSSPTuning:
    """Tuning of the CUDA SSSP methods: delta-stepping's defaults by graph
    shape, seed 001's host loop, and the kernels' compile-time choices."""

    # -- delta-stepping's defaults by graph shape (docs/decisions/cuda-sssp.md)
    road: DeltaSteppingTuning = ROAD
    """Graphs with mean out-degree below ``skewed_mean_degree``."""
    skewed: DeltaSteppingTuning = SKEWED
    """Graphs with mean out-degree ``skewed_mean_degree`` or more."""
    skewed_mean_degree: float = 8
    async_widest_scale: float = 16.0
    """Asynchronous buckets on a small graph are bound by each bucket's chain of
    hops, on a large one by redundant relaxations: graphs up to
    ``async_widest_up_to`` vertices get this delta scale, larger ones a scale
    falling as 1 / n down to ``road.delta_scale``."""
    async_widest_up_to: int = 92_000
    record_parents: bool = True
    """Bulk-synchronous delta-stepping with float32 weights and 32-bit ids
    records each vertex's parent as it lowers its distance
    (SSSP_RECORDS_PARENTS); False: the pull pass over in-arcs afterwards."""
    require_recorded_parents: bool = False
    """True: a search whose recorded parents leave a reached vertex without
    one (or that records none) raises RuntimeError instead of confirming
    parents from the final distances with the pull pass. A check of the
    record for tests, never faster; False runs the pull pass as needed."""
    # -- seed 001's host loop
    phases_in_flight: int = 2
    """Phases queued on the stream while the host waits for the oldest (1: the
    seed's loop, launch then wait); the methods' ``in_flight=`` overrides it."""
    # -- kernels/sssp_common.cuh
    warp_coop_degree: int = 32
    """Out-lists at least this long are walked by a whole warp (SSSP_WARP_COOP_DEGREE)."""
    # -- kernels/sssp_harish.cu
    harish_stage: int = 2048
    """NWa appends a block stages in shared memory before one atomic adds them
    (HARISH_STAGE); appends past the stage go to NWa a warp at a time."""
    harish_arcs: int = 4
    """Arcs a lane relaxes together, loads and atomics issued before any result
    is used (HARISH_ARCS)."""
    # -- kernels/sssp_near_far.cu
    pull_percent: int = 100
    """A heavy step pulls when the unsettled vertices' in-arcs (plus n / 8) are
    fewer than this % of the heavy arcs to push (NF_PULL_PERCENT; 0: never)."""
    near_far_stats: int = 0
    """1: count the arcs each kind of step reads; 2: also print each heavy
    step's pull decision (NF_STATS; diagnostics only)."""
    # -- kernels/sssp_async.cu
    async_drop_stale: bool = True
    """Splits skip far vertices already relaxed at their distance (AS_DROP_STALE)."""
    async_arcs: int = 4
    """Arcs a lane relaxes at once (AS_ARCS)."""
    async_claim_attempts: int = 4
    """CAS attempts per claim on the ring (AS_CLAIM_ATTEMPTS)."""
    async_min_backoff_ns: int = 32
    """Idle workers poll the ring with exponential back-off from this (AS_MIN_BACKOFF) ..."""
    async_scout_backoff_ns: int = 64
    """... up to this for each block's first warp, its scout (AS_SCOUT_BACKOFF) ..."""
    async_idle_backoff_ns: int = 1024
    """... and up to this for the other warps (AS_IDLE_BACKOFF)."""
    async_far_buffer: int = 256
    """Far-pile candidates a warp gathers in shared memory before adding them
    (AS_FAR_BUFFER: a multiple of 32, at least 32 x ``async_arcs``)."""
    async_hand_to_idle_lanes: bool = True
    """Improved targets beyond a lane's kept one go first to idle lanes of the
    same warp, the rest to the ring (AS_LOCAL)."""
    async_stats: bool = False
    """Per-warp counters and clock64 stamps (AS_STATS; benchmarks/sssp_async_stats.py)."""
    # -- kernels/sssp_regions.cu (the ``regions`` method)
    region_threads: int = 256
    """Threads of a region's block, its mail warp included (RG_BLOCK)."""
    region_group_lanes: int = 4
    """The most lanes that relax one queued vertex's arcs together, while the queue is short enough to give
    every vertex its lanes in one round (RG_GROUP: 1, 2, 4, 8, 16 or 32)."""
    region_outbox: int = 1024
    """Arcs leaving the region that a block's outbox holds for its mail warp (RG_OUTBOX, a power of two)."""
    region_min_vertices: int = 256
    """Regions hold at least this many vertices: a small graph gets fewer blocks than SMs."""
    region_shared_arcs: bool = True
    """A region's arcs are copied to shared memory when every region's fit beside its distances
    (False: read from global memory)."""
    region_delta_scale: float = 4.0
    """Regions relax only vertices within this multiple of Davidson et al.'s delta of the least queued
    distance of all blocks (inf: no order, every queued vertex at once)."""
    region_stats: bool = False
    """clock64 timing of the region kernel's phases, reported in the trace (RG_STATS; diagnostics only)."""
    region_min_backoff_ns: int = 32
    """An idle region polls for messages with exponential back-off from this (RG_MIN_BACKOFF) ..."""
    region_idle_backoff_ns: int = 256
    """... up to this (RG_IDLE_BACKOFF)."""
    # -- kernels/sssp_phast.cu (the ``hierarchy`` method)
    phast_resident_bytes: int | None = None
    """Dynamic shared memory for the top of the hierarchy's narrow levels
    (24 bytes a vertex: its distance and both sweeps' row starts), kept in
    block 0 while it runs them; None: as much as the GPU allows a block, 0:
    none (every read goes to L2)."""
    # -- ``auto``'s choice between delta-stepping and ``regions``
    auto_regions_arcs_per_sm: int = 1800
    """``auto`` runs ``regions`` on road-shaped graphs (largest out-degree at
    most ``auto_regions_max_degree``) with at most this many arcs per SM (one
    region per SM), delta-stepping elsewhere; 0: always delta-stepping. H100,
    regions against delta-stepping: 0.72-0.92x the time at 140-1 800 arcs a
    region (amsterdam 0.72, road-like graphs of 8 k-100 k vertices 0.76-0.92),
    0.98-1.69x on road-like graphs past 2 300 (docs/decisions/cuda-sssp.md,
    "Region SSSP")."""
    auto_regions_max_degree: int = 8
    """The largest out-degree of a graph ``auto`` may run ``regions`` on."""

    def __post_init__(self):
        for shape in (self.road, self.skewed):
            if not isinstance(shape, DeltaSteppingTuning):
                raise TypeError(f"road and skewed must be DeltaSteppingTuning, got {type(shape).__name__}")
        if isinstance(self.phases_in_flight, bool) or self.phases_in_flight not in (1, 2):
            raise ValueError(f"phases_in_flight must be 1 or 2, got {self.phases_in_flight!r}")
        for name in ("warp_coop_degree", "harish_stage", "harish_arcs", "async_arcs", "async_claim_attempts",
                     "async_min_backoff_ns", "async_scout_backoff_ns", "async_idle_backoff_ns",
                     "region_min_vertices", "region_min_backoff_ns", "region_idle_backoff_ns",
                     "auto_regions_max_degree"):
            if int(getattr(self, name)) < 1:
                raise ValueError(f"{name} must be >= 1, got {getattr(self, name)!r}")
        if self.phast_resident_bytes is not None and int(self.phast_resident_bytes) < 0:
            raise ValueError(f"phast_resident_bytes must be >= 0 or None, got {self.phast_resident_bytes!r}")
        if int(self.auto_regions_arcs_per_sm) < 0:
            raise ValueError(f"auto_regions_arcs_per_sm must be >= 0, got {self.auto_regions_arcs_per_sm!r}")
        if self.pull_percent < 0:
            raise ValueError(f"pull_percent must be >= 0, got {self.pull_percent!r}")
        if self.near_far_stats not in (0, 1, 2):
            raise ValueError(f"near_far_stats must be 0, 1 or 2, got {self.near_far_stats!r}")
        if self.async_far_buffer % 32 or self.async_far_buffer < 32 * self.async_arcs:
            raise ValueError(f"async_far_buffer must be a multiple of 32 and >= 32 x async_arcs, "
                             f"got {self.async_far_buffer!r}")
        if not self.region_delta_scale > 0:
            raise ValueError(f"region_delta_scale must be > 0, got {self.region_delta_scale!r}")
        if self.region_threads % 32 or not 64 <= self.region_threads <= 1024:
            raise ValueError(f"region_threads must be a multiple of 32 in 64..1024, got {self.region_threads!r}")
        if self.region_group_lanes not in (1, 2, 4, 8, 16, 32):
            raise ValueError(f"region_group_lanes must be 1, 2, 4, 8, 16 or 32, got {self.region_group_lanes!r}")
        if self.region_outbox < 2 * self.region_threads or self.region_outbox & (self.region_outbox - 1):
            raise ValueError(f"region_outbox must be a power of two >= 2 x region_threads, got {self.region_outbox!r}")
        # Computed once: the tuning keys the kernel cache at every search.
        object.__setattr__(self, "_hash", hash(tuple(getattr(self, f.name) for f in fields(self))))

    def __hash__(self) -> int:
        return self._hash

    def for_shape(self, graph) -> DeltaSteppingTuning:
        """Delta-stepping's defaults for the graph's shape (mean out-degree)."""
        return self.skewed if graph.m >= self.skewed_mean_degree * graph.n else self.road

    def defines(self, filename: str) -> dict[str, int | str]:
        """The ``#define``s this tuning gives ``kernels/<filename>`` (only those it uses)."""
        return {macro: render(getattr(self, field)) for field, macro, render in _MACROS.get(filename, ())}


def _number(value) -> int:
    return int(value)


def _unsigned(value) -> str:
    return f"{int(value)}u"  # the kernels' own defaults are unsigned literals


_WARP_COOP = ("warp_coop_degree", "SSSP_WARP_COOP_DEGREE", _number)
# kernel file -> (field, macro, how the value is written) for each #define the file reads
_MACROS = {
    "sssp_harish.cu": (_WARP_COOP, ("harish_stage", "HARISH_STAGE", _number),
                       ("harish_arcs", "HARISH_ARCS", _number)),
    "sssp_near_far.cu": (_WARP_COOP, ("pull_percent", "NF_PULL_PERCENT", _number),
                         ("near_far_stats", "NF_STATS", _number)),
    "sssp_async.cu": (("async_drop_stale", "AS_DROP_STALE", _number), ("async_arcs", "AS_ARCS", _number),
                      ("async_claim_attempts", "AS_CLAIM_ATTEMPTS", _number),
                      ("async_min_backoff_ns", "AS_MIN_BACKOFF", _unsigned),
                      ("async_scout_backoff_ns", "AS_SCOUT_BACKOFF", _unsigned),
                      ("async_idle_backoff_ns", "AS_IDLE_BACKOFF", _unsigned),
                      ("async_far_buffer", "AS_FAR_BUFFER", _number),
                      ("async_hand_to_idle_lanes", "AS_LOCAL", _number),
                      ("async_stats", "AS_STATS", _number)),
    "sssp_regions.cu": (("region_threads", "RG_BLOCK", _number), ("region_outbox", "RG_OUTBOX", _number),
                        ("region_group_lanes", "RG_GROUP", _number),
                        ("region_min_backoff_ns", "RG_MIN_BACKOFF", _unsigned),
                        ("region_idle_backoff_ns", "RG_IDLE_BACKOFF", _unsigned),
                        ("region_stats", "RG_STATS", _number)),
    "sssp_parents.cu": (_WARP_COOP,),
}

DEFAULT_TUNING = SSSPTuning()


def tuning_or_default(tuning: SSSPTuning | None) -> SSSPTuning:
    """``tuning``, or the measured winners when None."""
    if tuning is None:
        return DEFAULT_TUNING
    if not isinstance(tuning, SSSPTuning):
        raise TypeError(f"tuning must be an SSSPTuning, got {type(tuning).__name__}")
    return tuning
