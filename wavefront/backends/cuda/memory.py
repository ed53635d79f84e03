"""GPU memory accounting: fail early, with numbers, instead of deep in CuPy."""
from __future__ import annotations

from ...errors import GPUMemoryError

# Headroom for CuPy's pool, kernel scratch and the CUDA context.
SAFETY_BYTES = 256 * 2**20


def pool_free_bytes() -> int:
    """What CuPy's pool holds but does not use (no driver call)."""
    import cupy

    return int(cupy.get_default_memory_pool().free_bytes())


def free_bytes() -> int:
    """Free device memory plus what CuPy's pool holds but does not use."""
    import cupy

    free, _total = cupy.cuda.runtime.memGetInfo()
    return int(free) + pool_free_bytes()


def check_fits(what, needed_bytes: int) -> None:
    """Raise :class:`GPUMemoryError` if ``needed_bytes`` will not fit. ``what``
    names the allocation: a string, or a callable that returns one (formatted
    only for the error, so that a check before every search costs no repr).
    What CuPy's pool already holds unused is counted first: a search that
    reuses the memory of the one before costs no driver query (~20 µs)."""
    needed = needed_bytes + SAFETY_BYTES
    if needed <= pool_free_bytes():
        return
    free = free_bytes()
    if needed > free:
        raise GPUMemoryError(what() if callable(what) else what, needed, free)


def allocate(what, needed_bytes: int, make):
    """``make()`` (CuPy allocations of about ``needed_bytes``), raising
    :func:`check_fits`'s :class:`GPUMemoryError` (what, needed, free) if CuPy
    runs out of memory. Nothing is queried when they fit: for allocations a
    search makes every time (its results), the check before them cost a
    driver query (~9 µs, H100) on every search whose previous results were
    still held."""
    import cupy

    try:
        return make()
    except cupy.cuda.memory.OutOfMemoryError:
        check_fits(what, needed_bytes)
        raise
