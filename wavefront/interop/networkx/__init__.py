"""A NetworkX backend: ``nx.bfs_edges(G, s, backend="wavefront")`` and friends.

NetworkX finds it through the ``networkx.backends`` entry point
(``backend_interface``) and reads its description and default configuration
through ``networkx.backend_info`` (``_info.get_info``). NetworkX reads the
latter while it imports itself, so this package imports nothing until
``backend_interface`` is first asked for. The guide is docs/guide/networkx.md.
"""

__all__ = ["BackendInterface", "backend_interface"]


def __getattr__(name):
    if name in __all__:
        from . import interface

        return getattr(interface, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
