"""Method registry: (kernel, device, method name) -> implementation.

Each backend package declares its methods in a plain ``METHODS`` dict of
``"module:function"`` strings, so listing methods imports nothing heavy and a
method's module (numba, CuPy) is imported only when it is first called.
``register`` adds methods at run time (plugins, experiments).
"""
from __future__ import annotations

import importlib
import sys

from .errors import UnknownMethodError

KERNELS = ("bfs", "sssp")
_BACKEND_PACKAGES = {"cpu": "wavefront.backends.cpu", "cuda": "wavefront.backends.cuda"}
_extra: dict = {}
# (kernel, device) -> (the _extra it was made with, its method table), made
# on first use and dropped by register(): every search resolves its method,
# and rebuilding the table (two imports and a copy) took ~5 us of a small
# graph's search. A table made with another _extra (a test swaps in its own)
# is made again.
_tables: dict = {}


def _declared(kernel: str, device: str) -> dict:
    cached = _tables.get((kernel, device))
    if cached is not None and cached[0] is _extra:
        return cached[1]
    if kernel not in KERNELS:
        raise ValueError(f"kernel must be one of {KERNELS}, got {kernel!r}")
    package = importlib.import_module(_BACKEND_PACKAGES[device])
    table = dict(package.METHODS.get(kernel, {}))
    table.update(_extra.get((kernel, device), {}))
    _tables[(kernel, device)] = (_extra, table)
    return table


def methods(kernel: str, device: str = "cpu") -> list[str]:
    """Names accepted by ``wavefront.<kernel>(..., method=...)`` on ``device``."""
    return sorted(_declared(kernel, device))


def register(kernel: str, device: str, name: str, function) -> None:
    """Add (or replace) a method: ``function(graph, source, **options) -> result``.

    ``function`` may be a callable or a ``"module:function"`` string.
    """
    if device not in _BACKEND_PACKAGES:
        raise ValueError(f"device must be one of {tuple(_BACKEND_PACKAGES)}, got {device!r}")
    _declared(kernel, device)  # validates kernel
    _extra.setdefault((kernel, device), {})[name] = function
    _tables.pop((kernel, device), None)


def resolve(kernel: str, device: str, name: str):
    """The callable behind a method name, importing its module on first use."""
    table = _declared(kernel, device)
    if name not in table:
        raise UnknownMethodError(
            f"no {kernel} method {name!r} for a graph on {device!r}; "
            f"choose one of {', '.join(sorted(table))}"
        )
    target = table[name]
    if callable(target):
        return target
    module, _, attr = target.partition(":")
    # The attribute is read at every call (a test or plug-in may replace it);
    # the module lookup is sys.modules' once imported.
    loaded = sys.modules.get(module)
    return getattr(loaded if loaded is not None else importlib.import_module(module), attr)
