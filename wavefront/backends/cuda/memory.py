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


def check_fits(what, needed_bytes: int) -> None:
    """Raise :class:`GPUMemoryError` if ``needed_bytes`` will not fit. ``what``
    names the allocation: a string, or a callable that returns one (formatted
    only for the error, so that a check before every search costs no repr)."""
    free = free_bytes()
    if needed_bytes + SAFETY_BYTES > free:
        raise GPUMemoryError(what() if callable(what) else what, needed_bytes + SAFETY_BYTES, free)
