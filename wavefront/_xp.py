"""Array-module helpers: the one place outside ``backends`` that sees CuPy.

Nothing here imports CuPy unless a CuPy array is already in hand or the caller
asks for the CUDA device explicitly.
"""
from __future__ import annotations

import numpy as np

DEVICES = ("cpu", "cuda")


def is_cupy_array(a) -> bool:
    return type(a).__module__.split(".")[0] == "cupy"


def array_module(*arrays):
    """NumPy or CuPy, whichever owns the arrays (NumPy when none is CuPy's)."""
    for a in arrays:
        if a is not None and is_cupy_array(a):
            import cupy

            return cupy
    return np


def device_of(a) -> str:
    return "cuda" if is_cupy_array(a) else "cpu"


def check_device(device: str) -> str:
    if device not in DEVICES:
        raise ValueError(f"device must be one of {DEVICES}, got {device!r}")
    return device


def to_device(a, device: str):
    """Move one array to ``"cpu"`` (NumPy) or ``"cuda"`` (CuPy); None stays None."""
    if a is None:
        return None
    check_device(device)
    if device == "cpu":
        return a.get() if is_cupy_array(a) else np.asarray(a)
    try:
        import cupy
    except ImportError as exc:  # pragma: no cover - depends on the machine
        from .errors import BackendUnavailableError

        raise BackendUnavailableError(
            "CuPy is not installed: pip install 'wavefront[cuda13]' (or [cuda12])"
        ) from exc
    return cupy.asarray(a)


def to_numpy(a):
    return to_device(a, "cpu")
