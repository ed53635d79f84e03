"""Road-like graphs for SSSP at the scale of seed 001's Kanto map.

Seed 001, Table 1: 1 427 876 nodes, 4 584 822 arcs (mean degree 3.2), edge
length mean 83 666 and standard deviation 184 384 (integer walking times).

Model (all vectorized, O(n) plus the builder's sort):

1. Vertices sit on a jittered square lattice: vertex ``v`` is lattice cell
   ``(r, c) = divmod(v, cols)`` with ``cols = ceil(n / ceil(sqrt(n)))``, at
   ``(c + dx, r + dy)``, ``dx, dy`` uniform in ``[-jitter, jitter]``. With
   ``jitter < 0.5`` two lattice edges can only meet at a shared endpoint, so
   these coordinates are a crossing-free (planar) drawing.
2. A random spanning tree makes the graph connected: every vertex but 0 links
   to its left or its upper lattice neighbour (a fair coin where it has both).
   Each link goes to a smaller id, so there is no cycle.
3. The other lattice edges are kept independently with the probability that
   brings the mean degree (stored arcs / n) to ``mean_degree`` (all of them
   on lattices too small to reach it).
4. Weight = ``max(1, round(length / mean_length * L))`` with ``L`` lognormal,
   its parameters solved so that the weights' mean and standard deviation
   are ``mean_weight`` and ``std_weight`` (the length factor's spread is
   accounted for): heavy-tailed integers like the Kanto map's.

The hop diameter is about ``2 * sqrt(n)`` (thousands at 1.4 M nodes). Ids
follow the lattice row by row, as map data is usually spatially ordered.
Randomness comes from NumPy's ``default_rng(seed)``: deterministic per seed.
"""
from __future__ import annotations

import math

import numpy as np

from .._xp import check_device
from ._hash import check_seed

KANTO_MEAN_DEGREE = 3.2
KANTO_MEAN_WEIGHT = 83_666
KANTO_STD_WEIGHT = 184_384


def _lognormal_parameters(mean: float, std: float, factor_second_moment: float):
    """(mu, sigma) so that ``factor * lognormal`` has this mean and std, for a
    factor of mean 1 and the given second moment, independent of it."""
    sigma2 = math.log((1.0 + (std / mean) ** 2) / factor_second_moment)
    if sigma2 <= 0:
        raise ValueError(
            f"std_weight={std} is too small for mean_weight={mean}: edge lengths alone "
            "already spread the weights more than that"
        )
    return math.log(mean) - sigma2 / 2, math.sqrt(sigma2)


def road_like(
    n,
    seed=1,
    *,
    mean_degree=KANTO_MEAN_DEGREE,
    mean_weight=KANTO_MEAN_WEIGHT,
    std_weight=KANTO_STD_WEIGHT,
    jitter=0.3,
    return_coordinates=False,
    device="cpu",
):
    """A connected planar road-like graph with ``n`` vertices and int64 weights.

    Returns the :class:`~wavefront.Graph`, or ``(graph, coordinates)`` with
    ``coordinates`` a float64 ``(n, 2)`` array of ``(x, y)`` when
    ``return_coordinates`` is true.
    """
    from ..graph.build import from_edges

    if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)) or n < 2:
        raise ValueError(f"n must be an integer of at least 2, got {n!r}")
    n = int(n)
    if not 0 <= jitter < 0.5:
        raise ValueError(f"jitter must lie in [0, 0.5) to keep the drawing planar, got {jitter}")
    if not (mean_weight > 0 and std_weight > 0):
        raise ValueError(
            f"mean_weight and std_weight must be positive, got {mean_weight} and {std_weight}"
        )
    if not 2 <= mean_degree <= 4:
        raise ValueError(
            f"mean_degree must lie in [2, 4] (a spanning tree up to the full lattice), got {mean_degree}"
        )
    check_device(device)
    rng = np.random.default_rng(check_seed(seed))

    rows = math.isqrt(n - 1) + 1  # ceil(sqrt(n))
    cols = -(-n // rows)
    ids = np.arange(n, dtype=np.int64)
    row, col = np.divmod(ids, cols)
    coordinates = np.column_stack([col, row]).astype(np.float64)
    coordinates += rng.uniform(-jitter, jitter, size=(n, 2))

    has_left, has_up = col > 0, row > 0
    up_in_tree = has_up & (~has_left | (rng.random(n) < 0.5))
    left_in_tree = has_left & ~up_in_tree
    spare_left, spare_up = has_left & ~left_in_tree, has_up & ~up_in_tree
    spare = int(spare_left.sum() + spare_up.sum())
    wanted = mean_degree * n / 2 - (n - 1)
    keep = min(1.0, wanted / spare) if spare else 0.0
    left = left_in_tree | (spare_left & (rng.random(n) < keep))
    up = up_in_tree | (spare_up & (rng.random(n) < keep))
    dst = np.concatenate([ids[left], ids[up]])
    src = np.concatenate([ids[left] - 1, ids[up] - cols])

    length = np.hypot(*(coordinates[src] - coordinates[dst]).T)
    factor = length / length.mean()
    mu, sigma = _lognormal_parameters(mean_weight, std_weight, float(np.mean(factor**2)))
    weights = np.maximum(1, np.rint(factor * rng.lognormal(mu, sigma, size=src.shape[0])))
    graph = from_edges(src, dst, weights.astype(np.int64), n=n).to(device)
    return (graph, coordinates) if return_coordinates else graph
