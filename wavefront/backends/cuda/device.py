"""Properties of the GPUs the CUDA backend launches on, queried once per device.

CuPy's ``Device.attributes`` reads every attribute the driver has; a search
that needs the SM count (``auto``'s SSSP rule, the grid-levels launch) or
the shared memory a block may opt into (the single-block BFS, the region
SSSP) reads it from here, once per device.
"""
from __future__ import annotations

from functools import cache


def sm_count() -> int:
    """The current device's number of streaming multiprocessors."""
    import cupy

    return _sm_count(cupy.cuda.Device().id)


@cache
def _sm_count(device_id: int) -> int:
    import cupy

    return int(cupy.cuda.Device(device_id).attributes["MultiProcessorCount"])


def dynamic_shared_limit(kernel) -> int:
    """The most dynamic shared memory one block of ``kernel`` (a CuPy
    RawKernel) may take on the current device: the block's opt-in maximum
    (227 KiB on an H100 or H200) less the kernel's static shared memory."""
    import cupy

    return _shared_optin(cupy.cuda.Device().id) - int(kernel.shared_size_bytes)


def opt_in_dynamic_shared(kernel) -> int:
    """Let ``kernel`` take all the dynamic shared memory the current GPU
    allows a block (:func:`dynamic_shared_limit`), and return that many
    bytes; 0 where the GPU refuses the opt-in past the default. Raised,
    never lowered: callers that share one kernel object may each launch it
    with the most they were told."""
    import cupy

    limit = dynamic_shared_limit(kernel)
    try:
        kernel.max_dynamic_shared_size_bytes = max(kernel.max_dynamic_shared_size_bytes, limit)
    except cupy.cuda.driver.CUDADriverError:
        return 0
    return limit


@cache
def _shared_optin(device_id: int) -> int:
    import cupy

    return int(cupy.cuda.Device(device_id).attributes["MaxSharedMemoryPerBlockOptin"])
