"""GPU memory accounting: fail early, with numbers, instead of deep in CuPy."""
from __future__ import annotations

from ...errors import GPUMemoryError

# Headroom for CuPy's pool, kernel scratch and the CUDA context.
SAFETY_BYTES = 256 * 2**20


def free_bytes() -> int:
    """Free device memory plus what CuPy's pool holds but does not use."""
    import cupy

    free, _total = cupy.cuda.runtime.memGetInfo()
    pool = cupy.get_default_memory_pool()
    return int(free + pool.free_bytes())


def check_fits(what: str, needed_bytes: int) -> None:
    """Raise :class:`GPUMemoryError` if ``needed_bytes`` will not fit."""
    free = free_bytes()
    if needed_bytes + SAFETY_BYTES > free:
        raise GPUMemoryError(what, needed_bytes + SAFETY_BYTES, free)
