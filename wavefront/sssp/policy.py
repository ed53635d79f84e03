"""Mode-switch policies for seed 001's adaptive SSSP ("proposal", algorithm 4).

A phase runs either over all vertices (``"all"``: algorithms 2-3, no list is
kept) or over the vertices updated last phase (``"frontier"``: algorithms
5-6, which pay for building that list). The seed switches by the phase time
measured on the host, averaged over the last two phases: frontier -> all when
the average exceeds the *up* threshold, all -> frontier when it falls under
the *down* threshold. The seed's 350/330 µs were tuned for a Tesla K20c; here
the thresholds come from :func:`calibrate_thresholds` (a linear cost model of
each mode fitted to measured phases) or from the caller.

Backend-neutral: a policy sees only phase times, never a device.
"""
from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass, field

MODES = ("all", "frontier")


@dataclass
class FixedModePolicy:
    """Always the same mode (``bellman-ford`` runs "all", ``frontier`` runs "frontier")."""

    mode: str

    def __post_init__(self):
        if self.mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, got {self.mode!r}")

    @property
    def initial_mode(self) -> str:
        return self.mode

    @property
    def modes(self) -> tuple:
        """The modes this policy can run."""
        return (self.mode,)

    def next_mode(self, mode: str, seconds: float) -> tuple[str, str]:
        return self.mode, "fixed"


@dataclass
class AdaptiveModePolicy:
    """Seed 001 algorithm 4's switch, with the two-phase average of its §6.

    ``up``/``down`` are in seconds; ``up >= down`` gives hysteresis. Starts in
    "frontier" (the seed's ``sch = true``: one vertex is updated at first).
    """

    up: float
    down: float
    window: int = 2
    _recent: deque = field(default_factory=deque, init=False, repr=False)

    def __post_init__(self):
        if math.isnan(self.up) or math.isnan(self.down):
            raise ValueError("thresholds must not be NaN")
        if self.up < self.down:
            raise ValueError(
                f"the up threshold ({self.up}) must be at least the down threshold "
                f"({self.down}), or the policy would switch back and forth"
            )
        if self.window < 1:
            raise ValueError(f"window must be at least 1, got {self.window}")
        self._recent = deque(maxlen=self.window)

    @property
    def initial_mode(self) -> str:
        # The seed starts with sch = true (one vertex is updated at first),
        # unless the thresholds say the frontier mode never pays.
        return "all" if self.up <= 0 else "frontier"

    @property
    def modes(self) -> tuple:
        if self.up <= 0:
            return ("all",)
        return MODES if math.isfinite(self.up) else ("frontier",)

    def next_mode(self, mode: str, seconds: float) -> tuple[str, str]:
        """The mode of the next phase, given this phase's mode and time, and why
        (the reason is empty unless the mode changes: this runs every phase)."""
        recent = self._recent
        recent.append(seconds)
        average = sum(recent) / len(recent)
        if mode == "frontier" and average > self.up:
            return "all", f"avg {average * 1e6:.1f} us > up {self.up * 1e6:.1f} us"
        if mode == "all" and average < self.down:
            return "frontier", f"avg {average * 1e6:.1f} us < down {self.down * 1e6:.1f} us"
        return mode, ""


def fit_line(samples) -> tuple[float, float]:
    """Least-squares ``seconds = a + b * vertices`` over ``(vertices, seconds)`` pairs."""
    pairs = [(float(k), float(t)) for k, t in samples]
    if not pairs:
        raise ValueError("no phase samples to fit")
    n = len(pairs)
    mean_k = sum(k for k, _ in pairs) / n
    mean_t = sum(t for _, t in pairs) / n
    var = sum((k - mean_k) ** 2 for k, _ in pairs)
    if var == 0:
        return mean_t, 0.0
    slope = sum((k - mean_k) * (t - mean_t) for k, t in pairs) / var
    return mean_t - slope * mean_k, slope


def calibrate_thresholds(frontier_samples, all_samples, hysteresis: float = 0.05,
                         min_saving: float = 0.15):
    """(up, down) thresholds in seconds from measured phases of each mode.

    Each mode's phase time is modelled as ``a + b * k`` (``k``: vertices the
    phase starts from). "frontier" has the smaller fixed cost and the larger
    slope (it counts and lists what it updates); where the lines cross, both
    modes take the same time ``T``, and that time is the natural switch point:
    ``up = T * (1 + hysteresis)``, ``down = T * (1 - hysteresis)``.

    Degenerate cases: if the frontier mode is never slower, ``up`` is infinite
    (never switch); if it never saves at least ``min_saving`` of an all-vertex
    phase (``a_f > (1 - min_saving) * a_a``: the |V|-thread cost the seed
    avoids is too small on this GPU to pay for switching), both are 0 and the
    search runs all-vertex phases only.
    """
    a_f, b_f = fit_line(frontier_samples)
    a_a, b_a = fit_line(all_samples)
    if b_f <= b_a and a_f <= a_a:
        return math.inf, 0.0
    if a_f > (1 - min_saving) * a_a:
        return 0.0, 0.0
    crossing = (a_a - a_f) / (b_f - b_a)
    t = a_a + b_a * crossing
    return t * (1 + hysteresis), t * (1 - hysteresis)


FRONTIER_ONLY = (math.inf, 0.0)  # thresholds under which adaptive never leaves "frontier"
ALL_ONLY = (0.0, 0.0)  # ... and never leaves "all"


def pick_thresholds(switching, frontier_total: float, all_total: float,
                    switching_total: float | None, margin: float = 0.03):
    """The thresholds whose measured search was fastest: ``switching`` (the
    fitted ones, with ``switching_total`` seconds; None if they were not run),
    frontier phases only, or all-vertex phases only (seed 001's conventional
    method, kept unless another is faster by more than ``margin``: timing
    noise must not pick a slower policy for good). The fitted line model can
    put the switch where switching costs more than it saves (on an H200 the
    two modes' phase costs differ by a few µs: docs/decisions/cuda-sssp.md); a
    measured search decides."""
    options = [(frontier_total, FRONTIER_ONLY)]
    if switching_total is not None:
        options.append((switching_total, tuple(switching)))
    best_total, best = min(options, key=lambda option: option[0])
    return best if best_total < (1 - margin) * all_total else ALL_ONLY


def explain_thresholds(fitted, chosen, frontier_total: float, all_total: float,
                       switching_total: float | None) -> str:
    """Why calibration kept ``chosen``, in one line for the first trace row of
    an adaptive search: what the fit said (a switch point, or why it could
    not place one), what each timed search took, and what was kept."""
    def name(thresholds) -> str:
        if tuple(thresholds) == FRONTIER_ONLY:
            return "frontier phases only"
        if tuple(thresholds) == ALL_ONLY:
            return "all-vertex phases only"
        up, down = thresholds
        return f"switching at up {up * 1e6:.1f} us / down {down * 1e6:.1f} us"

    if tuple(fitted) == FRONTIER_ONLY:
        fit = "the fit found frontier phases never slower"
    elif tuple(fitted) == ALL_ONLY:
        fit = "the fit found frontier phases saving too little of an all-vertex phase to switch"
    else:
        fit = f"the fit put the switch at up {fitted[0] * 1e6:.1f} us / down {fitted[1] * 1e6:.1f} us"
    timed = f"all-vertex {all_total * 1e3:.2f} ms, frontier {frontier_total * 1e3:.2f} ms"
    if switching_total is not None:
        timed += f", switching {switching_total * 1e3:.2f} ms"
    return f"calibration: {fit}; timed {timed}; kept {name(chosen)}"


def size_class(n: int, m: int) -> tuple[int, int]:
    """Graphs with the same rounded log2 of vertices and arcs share thresholds."""
    return (max(int(n), 1).bit_length(), max(int(m), 1).bit_length())


class ThresholdCache:
    """Calibrated thresholds per (device, graph size class), for the process,
    each with the reason calibration gave for them."""

    def __init__(self):
        self._table: dict = {}
        self._reasons: dict = {}

    def get(self, key):
        return self._table.get(key)

    def reason(self, key) -> str:
        return self._reasons.get(key, "")

    def put(self, key, thresholds, reason: str = "") -> None:
        up, down = thresholds
        self._table[key] = (float(up), float(down))
        self._reasons[key] = reason

    def clear(self) -> None:
        self._table.clear()
        self._reasons.clear()
