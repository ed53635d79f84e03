"""Breadth-first search: the public entry point and its method registry.

``wavefront.bfs(graph, source, method="auto")`` runs on the device the graph
lives on. ``wavefront.methods("bfs", "cpu")`` lists the choices.
"""
from __future__ import annotations

import time

from .. import registry
from ..results import BFSResult, to_caller_ids
from .policy import GAPPolicy, LevelState, Seed000Policy, make_policy

__all__ = ["bfs", "BFSResult", "GAPPolicy", "Seed000Policy", "LevelState", "make_policy"]


def bfs(graph, source, method: str = "auto", **options) -> BFSResult:
    """Breadth-first search from ``source`` (a vertex id of the caller's).

    Common options, where the method supports them: ``policy`` (a
    :class:`~wavefront.bfs.policy.DirectionPolicy` or its name),
    ``alpha``/``beta``, ``depth_limit`` (stop after that many levels).
    Returns a :class:`~wavefront.results.BFSResult` whose arrays live on the
    graph's device.
    """
    run = registry.resolve("bfs", graph.device, method)
    internal = graph.internal_id(source)
    start = time.perf_counter()
    result = run(graph, internal, **options)
    result.seconds = time.perf_counter() - start
    return to_caller_ids(graph, result, int(source))
