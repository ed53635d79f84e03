"""Figures of search traces and Graph500 runs, drawn with matplotlib.

* :func:`bfs_levels`: BFS per level, the frontier, the edges examined and the
  time, coloured by direction (seed 002's level table as a figure);
* :func:`sssp_phases`: SSSP per phase, the frontier and the time, coloured by
  mode, with the adaptive method's switches marked (seed 001 fig. 6);
* :func:`teps_distribution`: the TEPS of every Graph500 search, per kernel,
  with the run's own quartiles, extremes and harmonic mean.

Each takes one or more traces (or TEPS samples) and returns a
``matplotlib.figure.Figure``; with several, the first is drawn in full and
the others over it for comparison. :func:`figures` draws every figure a list
of JSON records (:mod:`wavefront.records`) supports; ``wavefront plot`` is
its command line. Figures are built without pyplot, so no GUI backend or
global state is touched; matplotlib (the ``plot`` extra) is imported on first
use. Values are plotted as recorded (seconds, vertices, TEPS); the axes'
formatters add the units, and an axis goes logarithmic when its values span
more than :data:`LOG_SPAN` (a factor of about 30).
"""
from __future__ import annotations

import math

from .errors import BackendUnavailableError, WavefrontError
from .records import SearchTrace, TEPSSample

FIGURES = ("bfs-levels", "sssp-phases", "teps")
LOG_SPAN = 10**1.5
DIRECTION_COLOURS = {"top-down": "tab:blue", "bottom-up": "tab:orange"}
MODE_COLOURS = {"all": "tab:red", "frontier": "tab:green"}
# Kinds without a fixed colour (a single-direction method's name, delta-stepping's
# light and heavy phases), then the lines of compared traces, in this order.
KIND_COLOURS = ("tab:purple", "tab:brown", "tab:pink", "tab:gray", "tab:olive", "tab:cyan")
TRACE_COLOURS = ("black", "tab:red", "tab:purple", "tab:brown", "tab:cyan", "tab:olive")
TRACE_MARKERS = ("o", "s", "^", "v", "D", "P")
CONNECT_PHASES = 300  # one trace's points are joined by a line up to this many phases
SWITCH = "switch"  # the adaptive SSSP's list rebuild: a cost, not a phase of its own
DEFAULT_DPI = 120


class NothingToPlotError(WavefrontError, ValueError):
    """The inputs hold no data for a requested figure."""


def require_matplotlib():
    """matplotlib's Figure class, or BackendUnavailableError saying how to install it."""
    try:
        import matplotlib  # noqa: F401
        from matplotlib.figure import Figure
    except ImportError:
        raise BackendUnavailableError(
            "plotting needs matplotlib, which is not installed; pip install 'wavefront[plot]'"
        ) from None
    return Figure


# -- the figures -------------------------------------------------------------
def bfs_levels(*traces, title: str | None = None):
    """Frontier vertices, edges examined and seconds per BFS level.

    ``traces``: :class:`~wavefront.records.SearchTrace` objects or BFS
    results. The first is drawn as bars coloured by direction; the others as
    lines over it (say, top-down-only and bottom-up-only searches beside the
    hybrid, as seed 002 compares them). A level whose step does not count its
    edges (``edges == -1``) has no bar in the middle panel.
    """
    traces = _traces(traces, "bfs")
    Figure = require_matplotlib()
    fig = Figure(figsize=(8, 8.5), layout="constrained")
    axes = fig.subplots(3, 1, sharex=True)
    first, others = traces[0], traces[1:]
    colours = _kind_colours([r.kind for r in first.rows], DIRECTION_COLOURS)
    panels = (("frontier", "frontier (vertices)", ""), ("edges", "edges examined", ""),
              ("seconds", "time per level", "s"))
    # Gaps between hundreds of thin bars (a road network's levels) alias into stripes.
    width = 0.6 if len(first.rows) <= 40 else 1.0
    for ax, (name, label, unit) in zip(axes, panels):
        plotted = []
        for kind, colour in colours.items():
            steps, values = _series(first.rows, name, kind)
            ax.bar(steps, values, width=width, linewidth=0, color=colour,
                   label=f"{first.label}: {kind}", gid=f"bfs:0:{kind}")
            plotted += values
        for i, trace in enumerate(others, 1):
            steps, values = _series(trace.rows, name)
            ax.plot(steps, values, linestyle="--", linewidth=1, marker=_cycle(TRACE_MARKERS, i - 1),
                    markersize=5, color=_cycle(TRACE_COLOURS, i - 1), label=trace.label,
                    gid=f"bfs:{i}")
            plotted += values
        ax.set_ylabel(label)
        if not plotted:
            _note(ax, "not counted by this method")
        _value_axis(ax, "y", plotted, unit)
    handles, labels = axes[0].get_legend_handles_labels()
    own = [i for i, label in enumerate(labels) if label.startswith(f"{first.label}: ")]
    order = own + [i for i in range(len(labels)) if i not in own]  # the bars' key first
    axes[0].legend([handles[i] for i in order], [labels[i] for i in order], fontsize=8, loc="best")
    axes[-1].set_xlabel("BFS level")
    _integer_ticks(axes[-1].xaxis)
    fig.suptitle(title or f"BFS per level: {first.context or first.label}")
    return fig


def sssp_phases(*traces, title: str | None = None):
    """Frontier vertices and seconds per SSSP phase, in the order they ran.

    ``traces``: :class:`~wavefront.records.SearchTrace` objects or SSSP
    results. One trace is drawn point by point in its modes' colours; several
    are drawn as one line each (a trace of one mode in that mode's colour).
    Where a search changes between the all-vertex and the frontier mode (the
    adaptive method's switch), a vertical line marks the first phase of the
    new mode. The list rebuild a switch to the frontier mode pays (a
    ``switch`` row) counts in the legend's total, not as a phase.
    """
    traces = _traces(traces, "sssp")
    Figure = require_matplotlib()
    fig = Figure(figsize=(10, 6.5), layout="constrained")
    axes = fig.subplots(2, 1, sharex=True)
    single = len(traces) == 1
    colours = _trace_colours(traces)
    panels = (("frontier", "frontier (vertices the phase starts from)", ""),
              ("seconds", "time per phase", "s"))
    for ax, (name, label, unit) in zip(axes, panels):
        plotted = []
        for i, trace in enumerate(traces):
            rows = _phases(trace.rows)
            values = [_value(r, name) for r in rows]
            total = f"{trace.seconds * 1e3:.3g} ms in all"
            if single:
                if len(rows) <= CONNECT_PHASES:
                    ax.plot(range(len(rows)), values, color="0.6", linewidth=0.6, zorder=1)
                for kind, colour in _kind_colours([r.kind for r in rows], MODE_COLOURS).items():
                    xs = [x for x, r in enumerate(rows) if r.kind == kind]
                    ax.scatter(xs, [values[x] for x in xs], s=9, color=colour, zorder=2,
                               label=f"{kind}: {_count(len(xs), 'phase')}", gid=f"sssp:0:{kind}")
            else:
                ax.plot(range(len(rows)), values, color=colours[i], linewidth=0.8,
                        label=f"{trace.label}: {total}", gid=f"sssp:{i}")
            plotted += [v for v in values if v is not None]
            for n, x in enumerate(_switches(rows)):
                ax.axvline(x, color="0.35" if single else colours[i], linestyle=":",
                           linewidth=0.9, alpha=0.8 if single else 0.5, zorder=0,
                           label=("mode switch" if single else f"{trace.label}: mode switch")
                           if n == 0 else None)
        ax.set_ylabel(label)
        _value_axis(ax, "y", plotted, unit)
    if single:
        axes[0].set_title(f"{traces[0].label}: {traces[0].seconds * 1e3:.3g} ms in all",
                          fontsize=9)
    axes[0].legend(fontsize=8, loc="best")
    axes[-1].set_xlabel("phase")
    phases = max(len(_phases(t.rows)) for t in traces)
    if phases < 5:  # matplotlib would centre a lone point in a +-0.05 range
        axes[-1].set_xlim(-0.5, phases - 0.5)
    _integer_ticks(axes[-1].xaxis)
    fig.suptitle(title or f"SSSP per phase: {traces[0].context or traces[0].label}")
    return fig


def teps_distribution(*samples, title: str | None = None):
    """TEPS of each Graph500 search, one row per kernel run.

    ``samples``: :class:`~wavefront.records.TEPSSample` objects. The box spans
    the run's own first and third quartile TEPS with its median, the
    whiskers its minimum and maximum (Graph500's statistics, as the run
    reported them); a dot per search; a diamond at the harmonic mean, the
    figure Graph500 ranks by.
    """
    samples = [s for s in samples]
    if not samples or not any(s.teps for s in samples):
        raise NothingToPlotError("no Graph500 searches to plot: write a run with graph500 --json")
    for s in samples:
        if not isinstance(s, TEPSSample):
            raise TypeError(f"expected TEPSSample objects, got {type(s).__name__}")
    Figure = require_matplotlib()
    import numpy as np

    fig = Figure(figsize=(8, 1.6 + 1.1 * len(samples)), layout="constrained")
    ax = fig.subplots()
    jitter = np.random.default_rng(0)  # fixed: the same file draws the same figure
    plotted = []
    for y, s in enumerate(samples):
        stats = {k: s.statistics.get(k) for k in
                 ("min", "firstquartile", "median", "thirdquartile", "max", "harmonic_mean")}
        if all(stats[k] is not None for k in ("min", "firstquartile", "median", "thirdquartile", "max")):
            ax.barh(y, stats["thirdquartile"] - stats["firstquartile"], left=stats["firstquartile"],
                    height=0.5, color="tab:blue", alpha=0.25, edgecolor="tab:blue",
                    label="quartiles, median, min-max" if y == 0 else None, gid=f"teps:{y}:box")
            ax.vlines(stats["median"], y - 0.25, y + 0.25, color="tab:blue", linewidth=2)
            ax.hlines([y, y], [stats["min"], stats["thirdquartile"]],
                      [stats["firstquartile"], stats["max"]], color="tab:blue", linewidth=1)
            ax.vlines([stats["min"], stats["max"]], y - 0.12, y + 0.12, color="tab:blue", linewidth=1)
        ax.scatter(s.teps, y + jitter.uniform(-0.18, 0.18, len(s.teps)), s=12, color="black",
                   alpha=0.6, zorder=3, label="one search" if y == 0 else None, gid=f"teps:{y}")
        plotted += list(s.teps)
        if stats["harmonic_mean"] is not None:
            hm = stats["harmonic_mean"]
            ax.scatter([hm], [y], marker="D", s=60, color="tab:red", edgecolor="white", zorder=4,
                       label="harmonic mean" if y == 0 else None, gid=f"teps:{y}:harmonic_mean")
            ax.annotate(_eng(hm, "TEPS"), (hm, y + 0.3), ha="center", va="top", fontsize=8,
                        color="tab:red")
    ax.set_yticks(range(len(samples)), [f"{s.label}\n{_count(len(s.teps), 'search')}" for s in samples])
    ax.set_ylim(len(samples) - 0.4, -0.6)  # the first run on top, room for the labels
    ax.set_xlabel("traversed edges per second (TEPS)")
    _value_axis(ax, "x", plotted, "TEPS")
    ax.legend(fontsize=8, loc="best")
    fig.suptitle(title or f"TEPS over the roots: {samples[0].context}")
    return fig


DRAW = {"bfs-levels": bfs_levels, "sssp-phases": sssp_phases, "teps": teps_distribution}


def figures(records, names=None) -> dict:
    """Every figure the records support (or those in ``names``), by name.

    ``records``: :class:`~wavefront.records.Record` objects. BFS traces from
    all records go into one ``bfs-levels`` figure, SSSP traces into one
    ``sssp-phases``, TEPS samples into one ``teps``; a name none of them
    supports raises :class:`NothingToPlotError`.
    """
    data = figure_inputs(records)
    return {name: DRAW[name](*data[name]) for name in figure_names(data, names)}


def figure_names(data: dict, names=None) -> list:
    """The figures to draw from :func:`figure_inputs`' ``data``: ``names``
    (checked), or by default every figure with data."""
    if names is None:
        names = [n for n in FIGURES if data[n]]
        if not names:
            raise NothingToPlotError("the inputs hold no trace rows and no Graph500 searches")
        return names
    names = list(dict.fromkeys(names))
    for name in names:
        if name not in DRAW:
            raise ValueError(f"unknown figure {name!r}; choose from {', '.join(FIGURES)}")
        if not data[name]:
            raise NothingToPlotError(f"no input has data for the {name} figure; it needs {_NEEDS[name]}")
    return names


def figure_inputs(records) -> dict:
    """The traces and TEPS samples of ``records``, by the figure that draws them."""
    data = {name: [] for name in FIGURES}
    for record in records:
        for trace in record.traces:
            if trace.rows:
                data["bfs-levels" if trace.kernel == "bfs" else "sssp-phases"].append(trace)
        data["teps"] += [s for s in record.teps if s.teps]
    return data


_NEEDS = {
    "bfs-levels": "a BFS trace: bfs --json, or graph500 --json with the bfs kernel",
    "sssp-phases": "an SSSP trace: sssp --json, or graph500 --json with the sssp kernel",
    "teps": "graph500 --json",
}


def save(figure, path, dpi: int = DEFAULT_DPI) -> None:
    """Write ``figure`` to ``path`` as PNG, ``figsize`` x ``dpi`` pixels."""
    figure.savefig(path, dpi=dpi, format="png")


# -- helpers -----------------------------------------------------------------
def _traces(traces, kernel: str) -> list:
    out = []
    for t in traces:
        if not isinstance(t, SearchTrace):
            t = SearchTrace.from_result(t)
        if t.kernel != kernel:
            raise ValueError(f"a {t.kernel} trace ({t.label}) cannot go into a {kernel} figure")
        out.append(t)
    if not out or not any(t.rows for t in out):
        raise NothingToPlotError(f"no {kernel} trace rows to plot")
    return out


def _value(row, name: str):
    if name == "edges":
        return row.edges if row.edges >= 0 else None  # -1: the step does not count them
    return getattr(row, name)


def _series(rows, name: str, kind: str | None = None):
    """(steps, values) of ``rows`` (of one kind), leaving out uncounted values."""
    pairs = [(r.step, _value(r, name)) for r in rows if kind is None or r.kind == kind]
    pairs = [(s, v) for s, v in pairs if v is not None]
    return [s for s, _ in pairs], [v for _, v in pairs]


def _phases(rows) -> list:
    return [r for r in rows if r.kind != SWITCH]


def _switches(rows) -> list:
    """Positions (among the phases) where the search changed mode between the
    adaptive method's two modes."""
    return [x for x in range(1, len(rows))
            if rows[x].kind != rows[x - 1].kind and {rows[x].kind, rows[x - 1].kind} <= set(MODE_COLOURS)]


def _kind_colours(kinds, fixed: dict) -> dict:
    """A colour per kind, in order of first appearance; known kinds keep theirs."""
    out, spare = {}, iter(KIND_COLOURS * (len(kinds) // len(KIND_COLOURS) + 1))
    for kind in dict.fromkeys(kinds):
        out[kind] = fixed.get(kind) or next(spare)
    return out


def _trace_colours(traces) -> list:
    """One colour per compared trace; a trace of one mode takes that mode's."""
    out, used, spare = [], set(), iter(("tab:blue",) + TRACE_COLOURS * len(traces))
    for trace in traces:
        kinds = {r.kind for r in _phases(trace.rows)}
        colour = MODE_COLOURS.get(kinds.pop()) if len(kinds) == 1 else None
        while colour is None or colour in used:
            colour = next(spare)
        used.add(colour)
        out.append(colour)
    return out


def _cycle(options, i: int):
    return options[i % len(options)]


def _value_axis(ax, which: str, values, unit: str) -> None:
    """Log scale when ``values`` span more than LOG_SPAN; engineering units."""
    from matplotlib.ticker import EngFormatter, LogLocator, MaxNLocator, NullFormatter

    axis = ax.yaxis if which == "y" else ax.xaxis
    positive = [v for v in values if v is not None and v > 0]
    if positive and max(positive) / min(positive) > LOG_SPAN:
        (ax.set_yscale if which == "y" else ax.set_xscale)("log")
        decades = math.log10(max(positive) / min(positive))
        axis.set_major_locator(LogLocator(base=10, subs=(1.0,) if decades > 3 else (1.0, 2.0, 5.0)))
        axis.set_minor_formatter(NullFormatter())
    elif not unit:  # a count: from 0, ticks on whole numbers (no "500 m" vertices)
        if which == "y":
            ax.set_ylim(bottom=0)
        else:
            ax.set_xlim(left=0)
        axis.set_major_locator(MaxNLocator(integer=True, min_n_ticks=1))
    axis.set_major_formatter(EngFormatter(unit=unit))


def _integer_ticks(axis) -> None:
    from matplotlib.ticker import MaxNLocator

    axis.set_major_locator(MaxNLocator(integer=True, min_n_ticks=1))


def _note(ax, text: str) -> None:
    ax.text(0.5, 0.5, text, transform=ax.transAxes, ha="center", va="center", color="0.4")


def _eng(value: float, unit: str) -> str:
    from matplotlib.ticker import EngFormatter

    return EngFormatter(unit=unit, places=1)(value)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}es" if noun.endswith("h") else f"{n} {noun}s"
