"""The object NetworkX loads for ``backend="wavefront"``.

NetworkX looks up each dispatchable function by name on it, asks
``can_run`` whether this backend gives NetworkX's exact result for the
arguments (a string says why not, and NetworkX's own code runs instead when
falling back is allowed), and, when it picks backends itself
(``nx.config.backend_priority``), asks ``should_run`` whether converting the
graph is worth it.
"""
from __future__ import annotations

import inspect
from functools import cache

from . import convert, generic, traversal, unweighted, weighted
from ._info import FUNCTIONS, WEIGHTED
from ._search import config

_MODULES = (traversal, unweighted, weighted, generic)
_NEIGHBOR_METHODS = {"neighbors", "successors", "predecessors"}


def _find(name):
    for module in _MODULES:
        if hasattr(module, name):
            return getattr(module, name)
    raise AttributeError(f"no wavefront implementation of NetworkX's {name}")


@cache
def _signature(name) -> inspect.Signature:
    return inspect.signature(_find(name))


def can_run(name, args, kwargs):
    """True, or why this backend does not run ``name`` with these arguments."""
    if name not in FUNCTIONS:
        return False
    try:
        bound = _signature(name).bind(*args, **kwargs)
    except TypeError:
        return True  # the function raises NetworkX's TypeError itself
    bound.apply_defaults()
    arguments = bound.arguments
    G = arguments["G"]
    if arguments.get("sort_neighbors") is not None:
        return "sort_neighbors orders neighbours by a user function"
    neighbors = arguments.get("neighbors")
    if neighbors is not None and not (
        getattr(neighbors, "__self__", None) is G
        and getattr(neighbors, "__name__", None) in _NEIGHBOR_METHODS
    ):
        return "neighbors is a user function, not the graph's own neighbour order"
    if name == "has_path" and (arguments["source"] is None or arguments["target"] is None):
        # None is never a node: NetworkX's has_path then asks shortest_path for
        # all the paths from the source (to the target), and says True if it got any.
        return "has_path with source or target None asks NetworkX for paths from or to every node"
    if name in ("shortest_path", "shortest_path_length"):
        reason = generic.declined(
            arguments["source"], arguments["target"], arguments["weight"], arguments["method"],
            paths=name == "shortest_path",
        )
        if reason:
            return reason
        if arguments["weight"] is None:
            return True
    if name in WEIGHTED:
        bellman_ford = "bellman_ford" in name or arguments.get("method") == "bellman-ford"
        return convert.weight_problem(G, arguments["weight"], none_ok=not bellman_ford) or True
    return True


def should_run(name, args, kwargs):
    """Whether converting the graph pays off: not for small graphs, unless
    converted already (then searching here costs nothing extra)."""
    G = args[0] if args else kwargs.get("G")
    if isinstance(G, convert.BackendGraph) or convert.cached_graphs(G):
        return True
    limit = config().min_nodes
    if len(G) < limit:
        return f"a graph of {len(G)} nodes (< min_nodes={limit}) is quicker in NetworkX than converted"
    return True


class BackendInterface:
    """NetworkX's backend interface for wavefront (see the module docs)."""

    convert_from_nx = staticmethod(convert.convert_from_nx)
    convert_to_nx = staticmethod(convert.convert_to_nx)
    can_run = staticmethod(can_run)
    should_run = staticmethod(should_run)


for _name in FUNCTIONS:
    setattr(BackendInterface, _name, staticmethod(_find(_name)))
del _name

backend_interface = BackendInterface()
