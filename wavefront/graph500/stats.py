"""Graph500 statistics, exactly as the v3 reference's ``get_statistics``.

For ``n`` values ``x`` (``xx`` sorted ascending, 0-based):

* ``mean`` is the left-to-right sum divided by n (the reference's loop, so
  results match it bit for bit); ``stddev`` is the sample standard deviation,
  ``sqrt(sum((x - mean)**2) / (n - 1))``.
* ``min = xx[0]``, ``max = xx[n-1]``;
  ``firstquartile = (xx[(n-1)//4] + xx[n//4]) / 2``,
  ``median = (xx[(n-1)//2] + xx[n//2]) / 2``,
  ``thirdquartile = (xx[n-1-(n-1)//4] + xx[n-1-n//4]) / 2``:
  each quartile averages two order statistics (the same one when they meet).

TEPS statistics are computed on the seconds per edge ``t_i / nedge_i`` and
inverted, so the order flips: ``min_TEPS = 1 / max(t/nedge)``,
``firstquartile_TEPS = 1 / thirdquartile(t/nedge)``, ...,
``harmonic_mean_TEPS = 1 / mean(t/nedge)`` and, after Norris (1940) as the
reference cites it, ``harmonic_stddev_TEPS = stddev(t/nedge) /
(mean(t/nedge)**2 * sqrt(n - 1))``.

With a single search, ``n - 1 = 0``: the reference divides by zero and prints
nan; so do we (no exception).
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass

STATISTICS = ("min", "firstquartile", "median", "thirdquartile", "max", "mean", "stddev")
TEPS_STATISTICS = (
    "min", "firstquartile", "median", "thirdquartile", "max", "harmonic_mean", "harmonic_stddev",
)


@dataclass(frozen=True)
class Statistics:
    """The seven summary statistics the reference prints for a sample."""

    min: float
    firstquartile: float
    median: float
    thirdquartile: float
    max: float
    mean: float
    stddev: float

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class TEPSStatistics:
    """TEPS statistics, derived from the statistics of seconds per edge."""

    min: float
    firstquartile: float
    median: float
    thirdquartile: float
    max: float
    harmonic_mean: float
    harmonic_stddev: float

    def as_dict(self) -> dict:
        return asdict(self)


def _divide(a: float, b: float) -> float:
    """IEEE division, as C does it: x/0 is ±inf, 0/0 is nan."""
    if b != 0:
        return a / b
    if a == 0 or math.isnan(a):
        return math.nan
    return math.copysign(math.inf, a) * math.copysign(1.0, b)


def statistics(values) -> Statistics:
    """The reference's ``get_statistics`` of a non-empty sequence of numbers."""
    xs = [float(v) for v in values]
    n = len(xs)
    if n == 0:
        raise ValueError("statistics need at least one value")
    total = 0.0
    for x in xs:
        total += x
    mean = total / n
    squares = 0.0
    for x in xs:
        squares += (x - mean) * (x - mean)
    stddev = math.sqrt(_divide(squares, n - 1))
    xx = sorted(xs)
    return Statistics(
        min=xx[0],
        firstquartile=(xx[(n - 1) // 4] + xx[n // 4]) * 0.5,
        median=(xx[(n - 1) // 2] + xx[n // 2]) * 0.5,
        thirdquartile=(xx[n - 1 - (n - 1) // 4] + xx[n - 1 - n // 4]) * 0.5,
        max=xx[n - 1],
        mean=mean,
        stddev=stddev,
    )


def teps_statistics(times, nedges) -> TEPSStatistics:
    """TEPS statistics of searches taking ``times`` seconds over ``nedges`` edges."""
    times, nedges = list(times), list(nedges)
    if len(times) != len(nedges):
        raise ValueError(f"{len(times)} times but {len(nedges)} edge counts")
    s = statistics(_divide(float(t), float(e)) for t, e in zip(times, nedges))
    n = len(times)
    return TEPSStatistics(
        min=_divide(1.0, s.max),
        firstquartile=_divide(1.0, s.thirdquartile),
        median=_divide(1.0, s.median),
        thirdquartile=_divide(1.0, s.firstquartile),
        max=_divide(1.0, s.min),
        harmonic_mean=_divide(1.0, s.mean),
        harmonic_stddev=_divide(s.stddev, s.mean * s.mean * math.sqrt(n - 1)),
    )
