"""Every tuning choice of the CUDA BFS, as one frozen object.

A :class:`BFSTuning` is passed explicitly (``wf.bfs(g, s, tuning=...)``, or
one field at a time as a keyword of the CUDA methods: ``single_block=False``)
and reaches the compile step: :meth:`BFSTuning.defines` renders the kernel
``#define``s it chooses, and the kernel cache is keyed by the tuning. The
defaults are the measured winners; docs/decisions/cuda-bfs.md gives the
measurements and the alternatives that lost.
"""
from __future__ import annotations

from dataclasses import dataclass, fields, replace
from functools import lru_cache

from ...errors import WavefrontError
from .abi import PADDED_MAX_WIDTH as MAX_PADDED_DEGREE  # the widest padded row

NEIGHBOUR_ORDERS = ("degree", "id")
SINGLE_BLOCK_BALANCES = ("auto", "edges", "padded")


class SingleBlockBalanceError(WavefrontError, ValueError):
    """``single_block_balance="padded"`` was asked for a graph with an
    out-degree above MAX_PADDED_DEGREE, or with more vertices than the padded
    rows' ids hold (``device_graph.padded_rows_take``)."""


@dataclass(frozen=True)
class BFSTuning:
    """Tuning of the CUDA BFS methods (the hybrid's direction rules, the steps'
    variants and the bottom-up kernels' compile-time constants)."""

    # -- the CUDA hybrid's direction rules (wavefront.bfs.policy.CUDAHybridPolicy)
    single_block: bool = True
    """Top-down levels whose frontier fits one block (``single_block_edges``
    out-edges, the kernel's queue capacity) run in the single-block kernel,
    several levels per launch."""
    single_block_edges: int = 16384
    """16 edges per thread of the block's 1024: below it a grid launch plus a
    host round trip costs more than the block spends (on graphs the
    grid-levels kernel takes, ``grid_levels_block_edges`` instead)."""
    bottom_up_min_edges_ratio: int = 1024
    """A bottom-up choice for a frontier with fewer than n / ratio out-edges
    runs top-down (0: never): a grid-wide bottom-up level sweeps all n / 32
    bitmap words (~0.1 ms at SCALE 26), an edge-balanced top-down step over
    n / 1024 edges a few microseconds."""
    stay_bottom_up: bool = True
    """On undirected graphs, keep bottom-up while the frontier's out-edges m_f
    exceed the unexplored edges m_u by more than n / ``stay_bottom_up_ratio``:
    a bottom-up step examines at most m_u edges, a top-down one all m_f."""
    stay_bottom_up_ratio: int = 256
    bottom_up_ahead: bool = True
    """When the policy picks bottom-up, queue the next level's bottom-up step
    at once (its grid does not depend on the counters), and keep it whatever
    the policy then says: no host round trip between bottom-up levels."""
    # -- step variants
    neighbour_order: str = "degree"
    """Order in which bottom-up steps probe in-neighbours: "degree" (hubs
    first, seed 002: a sorted CSC copy built once per graph) or "id" (the
    graph's own order, no extra memory)."""
    packed_first_probes: bool = True
    """Bottom-up steps read a candidate's row start and first in-neighbour
    from one packed 64-bit word (32-bit ids, < 2**32 arcs); False, or graphs
    where the words do not apply, probe through in_indptr and in_indices."""
    results_whole_min_bytes: int | None = 64 << 20
    """Result arrays (12 bytes per vertex) at least this big are not filled
    before the search: the first bottom-up level writes them whole in
    coalesced lines (or a completion pass at the end). Smaller ones stay in
    the L2 cache after a fill. None: always fill first."""
    defer_top_down_levels: bool = True
    """While the results are not yet written whole, a grid-wide top-down step
    writes its winners' parents only; the next step writes their levels."""
    single_block_balance: str = "auto"
    """How the single block shares a level among its threads: "edges" (a
    block scan of the frontier's degrees, each thread a slot of every 1024
    arcs: a frontier of two hubs still keeps 1024 threads busy), "padded" (a
    few lanes a frontier vertex, reading its row from a copy of the adjacency
    padded to a power of two >= the largest out-degree, at most
    MAX_PADDED_DEGREE: one dependent L2 trip a level instead of two) or
    "auto" (padded where the graph's largest out-degree is at most
    ``single_block_auto_max_degree``, edges elsewhere). H100, in the block:
    amsterdam 1.82 against 1.96 us a level, seattle 2.65 against 2.94, a 1024
    x 1024 grid 2.40 against 3.77, road-like 1.4 M 3.56 against 4.74; a thread
    a vertex with its neighbours from the CSR lost to both (2.77, 3.65, 3.84,
    5.43; docs/decisions/cuda-bfs.md, "Padded rows")."""
    single_block_auto_max_degree: int = 8
    """``single_block_balance="auto"`` takes the padded rows on graphs whose
    largest out-degree is at most this (rows of at most 8 ids, 32 bytes a
    vertex at 32-bit ids)."""
    grid_levels: bool = True
    """Top-down levels too big for the single block run in one persistent
    grid launch (kernels/bfs_grid_levels.cu), as many in a row as the
    direction rules keep top-down, on graphs whose out-degrees are all at
    most ``grid_levels_max_degree``: no launch or host round trip between
    them, a grid barrier instead. H200: road-like 4 M 42.1 -> 14.2 ms, 1.4 M
    14.2 -> 9.2, 1024 x 1024 grid 10.7 -> 7.3, seattle unchanged (with the
    block limits below; docs/decisions/cuda-bfs.md, "Grid levels"); on the
    padded rows, H100: road-like 4 M 15.9 -> 12.4 ms, 1.4 M 9.0 -> 6.6, grid
    7.0 -> 5.1 ("Padded rows")."""
    grid_levels_max_degree: int = 8
    """The largest out-degree the grid-levels kernel takes (1..32): it reads
    the single block's padded rows (``padded_rows``, W >= this many slots a
    vertex)."""
    grid_levels_block_edges: int = 3072
    """On graphs the grid-levels kernel takes, the host sends the single block
    frontiers of up to this many out-edges (``single_block_edges``
    elsewhere)."""
    grid_levels_keep_edges: int | None = 1024
    """Once a stretch runs in the grid-levels kernel, it stays there down to
    frontiers of this many out-edges (at most ``grid_levels_block_edges``: a
    band where either kernel may run a level, fewer switches of a launch and
    a round trip each); None: no band. H200, 3072 / 1024 against one limit of
    2048: seattle 1.41 against 1.51 ms (its levels stay in the block, as
    without the kernel), road-like 4 M 14.21 against 14.45, 1.4 M 9.16 against
    9.32, 1024 x 1024 grid 7.32 against 7.10 (docs/decisions/cuda-bfs.md)."""
    grid_levels_blocks: int = 48
    """Blocks of the grid-levels kernel (at most one per SM, all resident).
    H100, padded rows: 48 against 32 took road-like 4 M's grid-kernel level
    3.53-3.56 -> 3.08-3.09 us (its search 10-12 % faster: its levels average
    1 553 vertices against 801 and 713, so at 4 lanes a vertex its wide ones
    took more than one pass of 32 x 256 threads) and left road-like 1.4 M and the
    1024 x 1024 grid within 1.3 %; 16 was 9-28 % slower on all three, 64
    tied 48, 96 and 132 lost 2-7 % to it (more arrivals at each grid barrier;
    docs/decisions/cuda-bfs.md)."""
    shared_visited_bytes: int | None = None
    """The single block keeps the visited bitmap in shared memory up to this
    size; None: as much as the GPU lets the kernel take (its opt-in limit
    less the kernel's static shared memory: on an H100 or H200 about 203 KiB
    for the padded kernel, graphs up to 1.66 M vertices, 191 KiB for the
    edge kernel). H100, road-like 1.4 M (a 171 KiB bitmap): the block's
    levels 2.90 -> 1.99 us, the search 5.54 -> 5.06 ms against a cap of
    160 KiB, the default before (docs/decisions/cuda-bfs.md)."""
    degree_sort_chunk_arcs: int = 1 << 26
    """Arcs per round of the segmented sort behind ``neighbour_order="degree"``
    (bounds its scratch, ~40 bytes per arc)."""
    # -- compile-time constants of kernels/bfs_bottom_up.cu
    bottom_up_small_unroll: int = 2
    """Candidates per thread per round of the fig. 6 kernel (BU_SMALL_UNROLL)."""
    bottom_up_large_probe: int = 32
    """Leading in-edges each lane of the fig. 4 kernel tests on its own before
    the warp scans the rest together (BU_LARGE_PROBE: 8, 16, 24 or 32)."""

    def __post_init__(self):
        if self.neighbour_order not in NEIGHBOUR_ORDERS:
            raise ValueError(f"neighbour_order must be one of {NEIGHBOUR_ORDERS}, got {self.neighbour_order!r}")
        if not 0 <= int(self.single_block_edges) <= 2**20:  # the single block counts a level's edges in 32 bits
            raise ValueError(f"single_block_edges must be in [0, 2**20], got {self.single_block_edges}")
        for name in ("bottom_up_min_edges_ratio", "stay_bottom_up_ratio"):
            if int(getattr(self, name)) < 0:
                raise ValueError(f"{name} must be >= 0, got {getattr(self, name)}")
        if self.shared_visited_bytes is not None and int(self.shared_visited_bytes) < 0:
            raise ValueError(f"shared_visited_bytes must be None or >= 0, got {self.shared_visited_bytes}")
        if int(self.degree_sort_chunk_arcs) < 1:
            raise ValueError(f"degree_sort_chunk_arcs must be >= 1, got {self.degree_sort_chunk_arcs}")
        if self.results_whole_min_bytes is not None and int(self.results_whole_min_bytes) < 0:
            raise ValueError(f"results_whole_min_bytes must be >= 0 or None, got {self.results_whole_min_bytes}")
        if self.single_block_balance not in SINGLE_BLOCK_BALANCES:
            raise ValueError(f"single_block_balance must be one of {SINGLE_BLOCK_BALANCES}, "
                             f"got {self.single_block_balance!r}")
        if int(self.single_block_auto_max_degree) < 0:
            raise ValueError(f"single_block_auto_max_degree must be >= 0, got {self.single_block_auto_max_degree}")
        if not 1 <= int(self.grid_levels_max_degree) <= 32:
            raise ValueError(f"grid_levels_max_degree must be in [1, 32], got {self.grid_levels_max_degree}")
        if int(self.grid_levels_blocks) < 1:
            raise ValueError(f"grid_levels_blocks must be >= 1, got {self.grid_levels_blocks}")
        if not 0 <= int(self.grid_levels_block_edges) <= 2**20:  # the single block counts in 32 bits
            raise ValueError(f"grid_levels_block_edges must be in [0, 2**20], got {self.grid_levels_block_edges}")
        if self.grid_levels_keep_edges is not None and int(self.grid_levels_keep_edges) < 0:
            raise ValueError(f"grid_levels_keep_edges must be None or >= 0, got {self.grid_levels_keep_edges}")
        if self.bottom_up_small_unroll not in (1, 2, 3, 4):
            raise ValueError(f"bottom_up_small_unroll must be 1..4, got {self.bottom_up_small_unroll}")
        if self.bottom_up_large_probe not in (8, 16, 24, 32):
            raise ValueError(f"bottom_up_large_probe must be 8, 16, 24 or 32, got {self.bottom_up_large_probe}")
        # Computed once: the tuning keys a kernel lookup at every launch.
        object.__setattr__(self, "_hash", hash(tuple(getattr(self, f.name) for f in fields(self))))

    def __hash__(self) -> int:
        return self._hash

    def defines(self, filename: str) -> dict[str, int]:
        """The ``#define``s this tuning gives ``kernels/<filename>``."""
        if filename == "bfs_bottom_up.cu":
            return {"BU_SMALL_UNROLL": int(self.bottom_up_small_unroll),
                    "BU_LARGE_PROBE": int(self.bottom_up_large_probe)}
        return {}

    def single_block_kernel(self, max_degree: int, ids_fit: bool = True) -> str:
        """"edges" or "padded": how the single block balances a level on a
        graph whose largest out-degree is ``max_degree`` (``ids_fit``: whether
        the padded rows can hold its vertex ids beside their degrees)."""
        if self.single_block_balance == "edges":
            return "edges"
        if self.single_block_balance == "padded":
            if max_degree > MAX_PADDED_DEGREE:
                raise SingleBlockBalanceError(
                    f"single_block_balance='padded' takes out-degrees up to {MAX_PADDED_DEGREE}, but this graph "
                    f"has a vertex of out-degree {max_degree}; use single_block_balance='auto' or 'edges'")
            if not ids_fit:
                raise SingleBlockBalanceError(
                    "single_block_balance='padded' takes graphs whose vertex ids leave room for a degree beside "
                    "them (32-bit ids below 2**25); use single_block_balance='auto' or 'edges'")
            return "padded"
        fits = ids_fit and max_degree <= min(self.single_block_auto_max_degree, MAX_PADDED_DEGREE)
        return "padded" if fits else "edges"

    def with_options(self, **options) -> "BFSTuning":
        """This tuning with some fields replaced (``None`` values are ignored);
        an unknown name raises TypeError naming the fields."""
        unknown = sorted(set(options) - _FIELDS)
        if unknown:
            raise TypeError(f"unknown BFS option(s) {unknown}; BFSTuning fields are {sorted(_FIELDS)}")
        chosen = {k: v for k, v in options.items() if v is not None}
        return replace(self, **chosen) if chosen else self


DEFAULT_TUNING = BFSTuning()
_FIELDS = frozenset(f.name for f in fields(BFSTuning))


def tuning_from(tuning: BFSTuning | None = None, **options) -> BFSTuning:
    """``tuning`` (default: the measured winners) with ``options`` replacing fields."""
    if tuning is not None and not isinstance(tuning, BFSTuning):
        raise TypeError(f"tuning must be a BFSTuning, got {type(tuning).__name__}")
    tuning = tuning or DEFAULT_TUNING
    return _with_options(tuning, tuple(sorted(options.items()))) if options else tuning


@lru_cache(maxsize=256)
def _with_options(tuning: BFSTuning, options: tuple) -> BFSTuning:
    return tuning.with_options(**dict(options))
