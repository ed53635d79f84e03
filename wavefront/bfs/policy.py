"""Direction-optimizing policies: when a hybrid BFS goes top-down or bottom-up.

A policy sees one :class:`LevelState` per level and returns the direction to
run next and why. Policies are small, pure and backend-neutral: the CPU and
CUDA hybrids ask the same objects, and each trace row records the reason.

Two published settings are provided:

* :class:`Seed000Policy` (seed 000, after Beamer): top-down -> bottom-up when
  ``m_f > m / alpha``; bottom-up -> top-down when ``n_f < n**2 / (beta * m)``,
  with ``alpha = 10, beta = 14``.
* :class:`GAPPolicy` (the GAP benchmark suite): top-down -> bottom-up when
  ``m_f > m_u / alpha`` (``m_u``: edges of still-unvisited vertices); back to
  top-down once the frontier shrinks and ``n_f < n / beta``, with
  ``alpha = 15, beta = 18``.

``m`` counts stored arcs (an undirected edge twice), as the seeds' ``|E|`` does
for the symmetric CSR they traverse.

:class:`CUDAHybridPolicy` wraps one of them with the rules that make the
hybrid fast on a GPU, where a level's launch and host round trip cost
microseconds: small frontiers in one thread block, no grid-wide bottom-up
sweep for a few edges, staying bottom-up while few edges are unexplored, and
queueing the next bottom-up level ahead.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

TOP_DOWN = "top-down"
BOTTOM_UP = "bottom-up"
DIRECTIONS = (TOP_DOWN, BOTTOM_UP)


@dataclass(frozen=True)
class LevelState:
    """What a policy may look at before a level runs."""

    level: int  # the level about to be discovered (1 for the root's neighbours)
    n: int  # vertices
    m: int  # stored arcs
    frontier_vertices: int  # n_f: vertices in the current frontier
    frontier_edges: int | None  # m_f: out-degree sum of the current frontier (None: the root's, not yet known)
    unexplored_edges: int | None  # m_u: degree sum of unvisited vertices (None with m_f)
    previous_frontier_vertices: int  # n_f one level earlier (0 at the root)
    direction: str  # the direction of the level just run (TOP_DOWN at the root)


class TopDownBound(NamedTuple):
    """Where a policy keeps a search that went top-down going top-down: while
    the frontier's out-edges m_f <= ``edges``, or m_f <= m_u /
    ``unexplored_alpha`` (m_u: the unexplored edges; 0: no such term). A
    persistent kernel evaluates it between levels it runs without the host."""

    edges: int = 0
    unexplored_alpha: float = 0.0


class DirectionPolicy:
    """Base class: ``choose(state) -> (direction, reason)``."""

    name = "policy"

    def choose(self, state: LevelState) -> tuple[str, str]:  # pragma: no cover - abstract
        raise NotImplementedError

    def top_down_bound(self, n: int, m: int) -> TopDownBound | None:
        """The rule that keeps top-down going, as :class:`TopDownBound`
        numbers, on a graph of ``n`` vertices and ``m`` arcs; None where it
        cannot be stated so (a kernel then runs one level at a time)."""
        return None

    def __repr__(self) -> str:
        params = ", ".join(f"{k}={v}" for k, v in vars(self).items())
        return f"{type(self).__name__}({params})"


class _ThresholdPolicy(DirectionPolicy):
    """A policy tuned by two positive constants, alpha and beta."""

    default_alpha = default_beta = 1.0

    def __init__(self, alpha: float | None = None, beta: float | None = None):
        alpha = self.default_alpha if alpha is None else alpha
        beta = self.default_beta if beta is None else beta
        if not (alpha > 0 and beta > 0):
            raise ValueError(f"alpha and beta must be positive, got alpha={alpha}, beta={beta}")
        self.alpha = float(alpha)
        self.beta = float(beta)


class Seed000Policy(_ThresholdPolicy):
    """Seed 000's switch (Beamer's original form), alpha=10, beta=14."""

    name = "seed000"
    default_alpha, default_beta = 10.0, 14.0

    def choose(self, s: LevelState) -> tuple[str, str]:
        if s.direction == TOP_DOWN:
            limit = s.m / self.alpha
            if s.frontier_edges > limit:
                return BOTTOM_UP, f"m_f={s.frontier_edges} > m/alpha={limit:.0f}"
            return TOP_DOWN, f"m_f={s.frontier_edges} <= m/alpha={limit:.0f}"
        limit = s.n * s.n / (self.beta * max(s.m, 1))
        if s.frontier_vertices < limit:
            return TOP_DOWN, f"n_f={s.frontier_vertices} < n^2/(beta m)={limit:.0f}"
        return BOTTOM_UP, f"n_f={s.frontier_vertices} >= n^2/(beta m)={limit:.0f}"

    def top_down_bound(self, n: int, m: int) -> TopDownBound:
        # m_f > m / alpha (a float) fails exactly for the integers m_f <= floor(m / alpha).
        return TopDownBound(edges=math.floor(m / self.alpha))


class GAPPolicy(_ThresholdPolicy):
    """The GAP benchmark suite's switch, alpha=15, beta=18."""

    name = "gap"
    default_alpha, default_beta = 15.0, 18.0

    def choose(self, s: LevelState) -> tuple[str, str]:
        if s.direction == TOP_DOWN:
            limit = s.unexplored_edges / self.alpha
            if s.frontier_edges > limit:
                return BOTTOM_UP, f"m_f={s.frontier_edges} > m_u/alpha={limit:.0f}"
            return TOP_DOWN, f"m_f={s.frontier_edges} <= m_u/alpha={limit:.0f}"
        limit = s.n / self.beta
        shrinking = s.frontier_vertices < s.previous_frontier_vertices
        if shrinking and s.frontier_vertices < limit:
            return TOP_DOWN, f"shrinking and n_f={s.frontier_vertices} < n/beta={limit:.0f}"
        return BOTTOM_UP, f"n_f={s.frontier_vertices}, n/beta={limit:.0f}, shrinking={shrinking}"

    def top_down_bound(self, n: int, m: int) -> TopDownBound:
        return TopDownBound(unexplored_alpha=self.alpha)


class FixedPolicy(DirectionPolicy):
    """Always the same direction (top-down-only or bottom-up-only BFS)."""

    def __init__(self, direction: str):
        if direction not in DIRECTIONS:
            raise ValueError(f"direction must be one of {DIRECTIONS}, got {direction!r}")
        self.direction = direction
        self.name = direction

    def choose(self, s: LevelState) -> tuple[str, str]:
        return self.direction, "fixed"

    def top_down_bound(self, n: int, m: int) -> TopDownBound | None:
        return TopDownBound(edges=2**62) if self.direction == TOP_DOWN else None


POLICIES = {"seed000": Seed000Policy, "gap": GAPPolicy}
DEFAULT_POLICY = "gap"


def make_policy(policy=None, alpha: float | None = None, beta: float | None = None) -> DirectionPolicy:
    """A policy from an object, a name ("gap", "seed000", "top-down", "bottom-up") or None.

    ``alpha``/``beta`` override the named policy's defaults. Policies are
    pure, so a name gives the same object every time.
    """
    if isinstance(policy, DirectionPolicy):
        if alpha is not None or beta is not None:
            raise ValueError("give alpha/beta either to the policy object or here, not both")
        return policy
    name = DEFAULT_POLICY if policy is None else policy
    if not isinstance(name, str):
        raise ValueError(f"policy must be a DirectionPolicy or a name, got {name!r}")
    return _named_policy(name, alpha, beta)


@lru_cache(maxsize=64)
def _named_policy(name: str, alpha, beta) -> DirectionPolicy:
    if name in DIRECTIONS:
        return FixedPolicy(name)
    if name not in POLICIES:
        raise ValueError(
            f"unknown direction policy {name!r}; choose one of {sorted(POLICIES) + list(DIRECTIONS)}"
        )
    kwargs = {k: v for k, v in (("alpha", alpha), ("beta", beta)) if v is not None}
    return POLICIES[name](**kwargs)


class Decision(NamedTuple):
    """A :class:`CUDAHybridPolicy` answer for one level."""

    direction: str
    reason: str
    single_block: bool = False  # a top-down level run in the single-block kernel
    queue_next: bool = False  # also queue the next level's bottom-up step now
    grid_levels: bool = False  # a top-down level run in the grid-levels kernel, with those after it the rules keep


@dataclass(frozen=True)
class CUDAHybridPolicy:
    """Every direction rule of the CUDA hybrid, on top of a :class:`DirectionPolicy`.

    * The root runs top-down in the single block when its degree is not yet
      known (it comes back from that launch instead of costing a round trip).
    * A top-down level whose frontier has at most ``single_block_vertices``
      vertices and ``single_block_edges`` out-edges runs in the single-block
      kernel, and a bottom-up choice for it is overridden: a grid-wide
      bottom-up level costs a bitmap sweep and a round trip, a single-block
      level a few microseconds.
    * A bottom-up choice whose frontier has fewer than ``bottom_up_min_edges``
      out-edges runs top-down (late in a Kronecker search GAP's
      ``m_f > m_u / alpha`` holds only because hardly any edge is unexplored).
    * With ``stay_margin`` (not None), a switch back to top-down is
      overridden while ``m_f > m_u + stay_margin``: a bottom-up step examines
      at most m_u edges on an undirected graph, the top-down one all m_f.
    * With ``bottom_up_ahead``, a level the policy sends bottom-up also
      queues the next level's bottom-up step, and a level whose step is
      already queued runs bottom-up whatever the rules say (any direction
      gives the same level).
    * With ``grid_levels``, a top-down level that does not fit the single
      block runs in the grid-levels kernel, which goes on with the levels
      after it while :meth:`grid_levels_rule` (these rules, for a frontier
      found top-down) keeps them top-down and outside the single block.
      Needs the base policy's :meth:`DirectionPolicy.top_down_bound`. With
      ``grid_levels_keep_edges`` the kernel keeps frontiers down to that
      many out-edges although they would fit the single block (top-down
      either way: a level that fits is never sent bottom-up).
    """

    base: DirectionPolicy
    single_block_vertices: int = 0  # 0: no single block
    single_block_edges: int = 0
    bottom_up_min_edges: int = 0
    stay_margin: int | None = None
    bottom_up_ahead: bool = False
    grid_levels: bool = False
    grid_levels_keep_edges: int | None = None

    def choose(self, s: LevelState, queued: bool = False, last_level: int | None = None) -> Decision:
        """The direction of level ``s.level``; ``queued``: its bottom-up step is
        already queued; ``last_level``: the depth limit (nothing is queued past it)."""
        fits = (0 < s.frontier_vertices <= self.single_block_vertices
                and (s.frontier_edges is None or s.frontier_edges <= self.single_block_edges))
        if s.frontier_edges is None:
            direction, reason = TOP_DOWN, "root: top-down"
        else:
            direction, reason = self.base.choose(s)
            if direction == BOTTOM_UP and fits:
                direction, reason = TOP_DOWN, reason + "; frontier fits the single block"
            elif direction == BOTTOM_UP and s.frontier_edges < self.bottom_up_min_edges:
                direction, reason = TOP_DOWN, reason + f"; m_f < {self.bottom_up_min_edges}: top-down"
            elif (direction == TOP_DOWN and self.stay_margin is not None and s.direction == BOTTOM_UP
                  and not fits and s.frontier_edges > s.unexplored_edges + self.stay_margin):
                direction, reason = BOTTOM_UP, reason + "; m_f > m_u + sweep: stays bottom-up"
        chosen_bottom_up = direction == BOTTOM_UP
        if queued and not chosen_bottom_up:
            direction, reason = BOTTOM_UP, reason + "; its bottom-up step was already queued"
        queue_next = (self.bottom_up_ahead and chosen_bottom_up
                      and (last_level is None or s.level < last_level))
        grid = (self.grid_levels and direction == TOP_DOWN and not fits and s.unexplored_edges is not None
                and self.base.top_down_bound(s.n, s.m) is not None)
        return Decision(direction, reason, direction == TOP_DOWN and fits, queue_next, grid)

    def grid_levels_rule(self, n: int, m: int) -> "GridLevelsRule":
        """:meth:`choose` for the level after a top-down one, as numbers the
        grid-levels kernel compares (kernels/bfs_grid_levels.cu,
        ``gl_next_runs``): that level runs top-down outside the single block
        exactly when its frontier is not empty, does not fit the single
        block (with ``grid_levels_keep_edges`` out-edges as the block's
        limit), and the base bound or ``bottom_up_min_edges`` keeps it
        top-down (the stay-bottom-up rule and a queued level concern a
        search that went bottom-up). A level the kernel runs is one
        :meth:`choose` sends top-down; one it hands back that does not fit is
        one :meth:`choose` sends bottom-up."""
        bound = self.base.top_down_bound(n, m)
        if bound is None:
            raise ValueError(f"{self.base!r} states no top-down bound: the grid-levels kernel cannot follow it")
        keep = self.single_block_edges if self.grid_levels_keep_edges is None else self.grid_levels_keep_edges
        return GridLevelsRule(self.single_block_vertices, min(keep, self.single_block_edges),
                              self.bottom_up_min_edges, int(bound.edges), float(bound.unexplored_alpha))


class GridLevelsRule(NamedTuple):
    """The next level runs in the grid-levels kernel while its frontier
    (n_f vertices, m_f out-edges, m_u unexplored edges) has n_f > 0, does not
    fit the single block (n_f <= block_vertices and m_f <= block_edges), and
    m_f < min_edges, m_f <= edges or m_f <= m_u / unexplored_alpha."""

    block_vertices: int
    block_edges: int
    min_edges: int
    edges: int
    unexplored_alpha: float
