"""Breadth-first search: the public entry point and its method registry.

``wavefront.bfs(graph, source, method="auto")`` runs on the device the graph
lives on; ``wavefront.bfs(graph, sources=[...])`` searches from a set of
sources at once. ``wavefront.methods("bfs", "cpu")`` lists the choices.
"""
from __future__ import annotations

import time

from .._sources import start_search
from ..results import BFSResult, to_caller_ids
from .policy import GAPPolicy, LevelState, Seed000Policy, make_policy

__all__ = ["bfs", "BFSResult", "GAPPolicy", "Seed000Policy", "LevelState", "make_policy"]


def bfs(graph, source=None, method: str = "auto", *, sources=None, **options) -> BFSResult:
    """Breadth-first search from ``source`` (a vertex id of the caller's), or
    from every vertex of ``sources`` at once (levels to the nearest source).

    Give exactly one of ``source`` and ``sources``; otherwise, or for an
    empty ``sources``, it raises :class:`~wavefront.errors.SourceArgumentError`.
    A vertex outside the graph raises :class:`~wavefront.errors.VertexError`
    (for ``sources``, naming its position); a method that searches from one
    source only raises :class:`~wavefront.errors.MultiSourceError`.

    Common options, where the method supports them: ``policy`` (a
    :class:`~wavefront.bfs.policy.DirectionPolicy` or its name),
    ``alpha``/``beta``, ``depth_limit`` (stop after that many levels; None,
    ``float("inf")`` or any limit past the graph's depth: no limit).
    Returns a :class:`~wavefront.results.BFSResult` whose arrays live on the
    graph's device.
    """
    run, internal, caller = start_search("bfs", graph, method, source, sources)
    start = time.perf_counter()
    result = run(graph, internal, **options)
    result.seconds = time.perf_counter() - start
    return to_caller_ids(graph, result, caller)
