"""Backends: the only layer that knows a device exists.

``cpu`` (NumPy + numba) always works; ``cuda`` (CuPy + CUDA C++ kernels)
works when CuPy imports and a GPU answers. Neither is imported until used.
"""
from __future__ import annotations

from functools import lru_cache

from ..errors import BackendUnavailableError

BACKENDS = ("cpu", "cuda")


@lru_cache(maxsize=1)
def cuda_status() -> tuple[bool, str]:
    """(usable, reason): whether the CUDA backend can run here, and why not."""
    try:
        import cupy
    except Exception as exc:  # ImportError, or a broken CUDA install
        return False, f"CuPy is not importable ({type(exc).__name__}: {exc})"
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:
        return False, f"no usable CUDA device ({exc})"
    if count < 1:
        return False, "no CUDA device found"
    try:
        # A real launch: catches driver/runtime mismatches that import hides.
        value = int((cupy.arange(4, dtype=cupy.int64) * 2).sum())
        if value != 12:
            return False, "a test computation on the GPU returned a wrong value"
        name = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)["name"]
        name = name.decode() if isinstance(name, bytes) else name
    except Exception as exc:
        return False, f"the GPU failed a test launch ({exc})"
    return True, f"CUDA device 0: {name}"


def cuda_available() -> bool:
    return cuda_status()[0]


def require_cuda() -> None:
    ok, reason = cuda_status()
    if not ok:
        raise BackendUnavailableError(
            f"the CUDA backend cannot run here: {reason}. Install CuPy for your CUDA "
            "version (pip install 'wavefront[cuda13]' or '[cuda12]') on a machine with "
            "an NVIDIA GPU, or use backend='cpu'"
        )


def choose_backend(requested: str = "auto") -> tuple[str, str]:
    """Resolve ``auto``/``cpu``/``cuda`` to a backend name and a reason to print."""
    if requested == "cpu":
        return "cpu", "requested"
    if requested == "cuda":
        require_cuda()
        return "cuda", f"requested; {cuda_status()[1]}"
    if requested != "auto":
        raise ValueError(f"backend must be one of auto, cpu, cuda; got {requested!r}")
    ok, reason = cuda_status()
    if ok:
        return "cuda", f"auto: {reason}"
    return "cpu", f"auto: CUDA unavailable ({reason})"


def synchronize(device: str) -> None:
    """Wait until queued work on ``device`` is done (so a host timer is honest)."""
    if device == "cuda":
        import cupy

        cupy.cuda.get_current_stream().synchronize()


def prepare(graph, kernels=("bfs", "sssp")) -> None:
    """Build a backend's per-graph search structures now rather than in the
    first search (Graph500 counts them as part of construction, kernel 1).
    Every backend: the SSSP weight check and the bound on distances that
    sizes delta-stepping's buckets (both cached with the graph)."""
    if "sssp" in kernels and graph.weights is not None:
        from ..sssp import check_weights, longest_distance_bound

        check_weights(graph)
        longest_distance_bound(graph, graph.weights)
    if graph.device == "cuda" and "bfs" in kernels:
        from .cuda.bfs import prepare as prepare_bfs

        prepare_bfs(graph)
    if graph.device == "cuda" and "sssp" in kernels:
        from .cuda.sssp import prepare as prepare_sssp

        prepare_sssp(graph)
