"""Properties of the GPUs the CUDA backend launches on, queried once per device.

CuPy's ``Device.attributes`` reads every attribute the driver has; a search
that needs the SM count (``auto``'s SSSP rule, the grid-levels launch) reads
it from here, once per device.
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
