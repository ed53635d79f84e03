"""Search sources: the ``source=`` / ``sources=`` argument rules and the seed protocol.

The public entry points (``wavefront.bfs``, ``wavefront.sssp``) accept one
``source`` or a set of ``sources`` (a multi-source search: levels and
distances to the *nearest* source). They hand a backend method its seeds in
internal ids:

* one seed: a plain ``int``, exactly as a single-source call always has, so
  every method (a registered plugin included) runs it;
* several seeds: a 1-D int64 NumPy array of distinct ids, only to a method
  marked with :func:`multi_source`. Such a method seeds every one at level or
  distance 0 with itself as parent, in its own initialisation (no
  super-source graph is built).

This module imports NumPy and the errors only, so backends and entry points
can share it without a cycle.
"""
from __future__ import annotations

import numpy as np

from . import registry
from ._xp import is_cupy_array, to_numpy
from .errors import MultiSourceError, SourceArgumentError


def multi_source(function):
    """Mark a backend method as able to search from several seeds at once."""
    function.multi_source = True
    return function


def accepts_sources(function) -> bool:
    """Whether ``function`` was marked with :func:`multi_source`."""
    return bool(getattr(function, "multi_source", False))


def seed_array(source) -> np.ndarray:
    """The seeds a backend method received (an int or an array) as a 1-D int64 array."""
    if isinstance(source, int):  # one seed, as start_search hands it
        return np.array((source,), dtype=np.int64)
    return np.atleast_1d(np.asarray(source, dtype=np.int64))


def caller_sources(source, sources) -> tuple[list, bool]:
    """Check the ``source``/``sources`` arguments; return (the caller's ids, multi).

    Exactly one of the two must be given; ``sources`` must be a non-empty
    iterable. Repeats are dropped (a set of seeds), first occurrence first.
    Range checks are the graph's: see :meth:`Graph.internal_ids`.
    """
    if source is not None and sources is not None:
        raise SourceArgumentError(
            "pass either source=<vertex> or sources=[<vertices>], not both"
        )
    if source is None and sources is None:
        raise SourceArgumentError(
            "a search needs a start: pass source=<vertex> or sources=[<vertices>]"
        )
    if sources is None:
        return [source], False
    if isinstance(sources, (str, bytes)) or not np.iterable(sources):
        raise SourceArgumentError(
            f"sources must be a list or array of vertex ids, got {type(sources).__name__}; "
            "for one vertex pass source=<vertex>"
        )
    if is_cupy_array(sources) or isinstance(sources, np.ndarray):
        values = to_numpy(sources).ravel()  # arrays stay arrays: no per-element Python objects
    else:
        values = list(sources)
    if len(values) == 0:
        raise SourceArgumentError("sources is empty: give at least one vertex to start from")
    return values, True


def start_search(kernel: str, graph, method: str, source, sources):
    """What an entry point needs to run a search: (method, internal seeds, caller's seeds).

    The internal seeds are an ``int`` for one source and a 1-D int64 array
    of distinct ids for several (see the module docstring); the caller's
    seeds, in the same form, go to :func:`wavefront.results.to_caller_ids`
    (on a graph with node keys, the keys' vertex ids). A repeated source
    counts once. Raises :class:`SourceArgumentError`,
    :class:`~wavefront.errors.VertexError` (naming the vertex and, for
    ``sources``, its position) or :class:`MultiSourceError`.
    """
    values, multi = caller_sources(source, sources)
    run = registry.resolve(kernel, graph.device, method)
    if not multi:
        caller = graph.caller_id(source)
        return run, caller if graph.labels is None else int(graph.inverse_labels[caller]), caller
    caller = graph.caller_ids(values, name="sources")
    _, first = np.unique(caller, return_index=True)
    if first.size < caller.size:
        caller = caller[np.sort(first)]
    internal = graph.to_internal(caller)
    if internal.size == 1:
        return run, int(internal[0]), int(caller[0])
    if not accepts_sources(run):
        raise unsupported(kernel, graph.device, method, capable_methods(kernel, graph.device))
    return run, internal, caller


def capable_methods(kernel: str, device: str) -> list[str]:
    """The methods of ``kernel`` on ``device`` that take several sources."""
    capable = []
    for name in registry.methods(kernel, device):
        try:
            function = registry.resolve(kernel, device, name)
        except ImportError:  # a method whose backend cannot load here
            continue
        if accepts_sources(function):
            capable.append(name)
    return capable


def unsupported(kernel: str, device: str, method: str, capable: list[str]) -> MultiSourceError:
    """The error for a method that cannot take several sources, naming those that can."""
    if capable:
        advice = f"use one of: {', '.join(capable)}"
    else:
        advice = f"no {kernel} method on {device!r} can; run one search per source"
    return MultiSourceError(
        f"the {kernel} method {method!r} on {device!r} searches from one source only; {advice}"
    )


__all__ = [
    "accepts_sources", "caller_sources", "capable_methods", "multi_source", "seed_array",
    "start_search", "unsupported",
]
