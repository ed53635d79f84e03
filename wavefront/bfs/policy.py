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
"""
from __future__ import annotations

from dataclasses import dataclass

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
    frontier_edges: int  # m_f: out-degree sum of the current frontier
    unexplored_edges: int  # m_u: degree sum of unvisited vertices
    previous_frontier_vertices: int  # n_f one level earlier (0 at the root)
    direction: str  # the direction of the level just run (TOP_DOWN at the root)


class DirectionPolicy:
    """Base class: ``choose(state) -> (direction, reason)``."""

    name = "policy"

    def choose(self, state: LevelState) -> tuple[str, str]:  # pragma: no cover - abstract
        raise NotImplementedError

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


class FixedPolicy(DirectionPolicy):
    """Always the same direction (top-down-only or bottom-up-only BFS)."""

    def __init__(self, direction: str):
        if direction not in DIRECTIONS:
            raise ValueError(f"direction must be one of {DIRECTIONS}, got {direction!r}")
        self.direction = direction
        self.name = direction

    def choose(self, s: LevelState) -> tuple[str, str]:
        return self.direction, "fixed"


POLICIES = {"seed000": Seed000Policy, "gap": GAPPolicy}
DEFAULT_POLICY = "gap"


def make_policy(policy=None, alpha: float | None = None, beta: float | None = None) -> DirectionPolicy:
    """A policy from an object, a name ("gap", "seed000", "top-down", "bottom-up") or None.

    ``alpha``/``beta`` override the named policy's defaults.
    """
    if isinstance(policy, DirectionPolicy):
        if alpha is not None or beta is not None:
            raise ValueError("give alpha/beta either to the policy object or here, not both")
        return policy
    name = DEFAULT_POLICY if policy is None else policy
    if name in DIRECTIONS:
        return FixedPolicy(name)
    if name not in POLICIES:
        raise ValueError(
            f"unknown direction policy {name!r}; choose one of {sorted(POLICIES) + list(DIRECTIONS)}"
        )
    kwargs = {k: v for k, v in (("alpha", alpha), ("beta", beta)) if v is not None}
    return POLICIES[name](**kwargs)
