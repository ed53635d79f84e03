"""Compile-once cache for the CUDA C++ kernels in ``kernels/``.

Each ``.cu`` file is built with NVRTC through ``cupy.RawModule`` once per
(file, #defines, template instantiations, device) and reused for the life of
the process: never build a module per call. Tuning constants go in as
``#define``s; every kernel file gives each one an ``#ifndef`` default, so the
same file also compiles standalone with ``nvcc -arch=sm_90 -ptx`` (how CI
checks kernels without a GPU). The constants Python and CUDA share come from
:mod:`.abi` and are added to every build; the caller's defines (the
vertex-id width, a tuning object's choices) may not redefine them.
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from . import abi

KERNEL_DIR = Path(__file__).resolve().parent / "kernels"


@lru_cache(maxsize=None)
def _build(filename: str, defines: tuple, name_expressions: tuple, device_id: int, probe: bool = False):
    import cupy

    source = (KERNEL_DIR / filename).read_text()
    if probe:
        source += "\n" + abi.probe_source(filename, bool(dict(defines).get("WF_INDEX64", 0)))[0]
    options = ("-std=c++17", f"-I{KERNEL_DIR}") + tuple(_define(k, v) for k, v in defines)
    module = cupy.RawModule(
        code=source,
        options=options,
        name_expressions=name_expressions or None,
    )
    module.compile()  # compile now, so first-use cost never lands inside a timed search
    return module


def _define(name: str, value) -> str:
    # A negative value keeps its sign inside any expression it lands in.
    return f"-D{name}=({value})" if isinstance(value, int) and value < 0 else f"-D{name}={value}"


def module(filename: str, defines: dict | None = None, name_expressions=(), probe: bool = False):
    """The compiled ``cupy.RawModule`` for ``kernels/<filename>`` on the current
    device, built with the file's ABI constants plus ``defines``. ``probe``
    appends ``abi.probe_source`` (for the ABI test)."""
    defines = dict(defines or {})
    shared = abi.defines(filename, bool(defines.get("WF_INDEX64", 0)))
    clash = sorted(set(shared) & set(defines))
    if clash:
        raise ValueError(f"{clash} are ABI constants of {filename} (wavefront.backends.cuda.abi), not tuning")
    key = tuple(sorted({**shared, **defines}.items()))
    import cupy

    return _build(filename, key, tuple(name_expressions), cupy.cuda.Device().id, probe)


def kernel(filename: str, name: str, defines: dict | None = None, name_expressions=()):
    """One kernel (``extern "C"`` name or template instantiation) from a file."""
    mod = module(filename, defines, name_expressions)
    return mod.get_function(name)
