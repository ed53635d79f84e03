"""Shared fixtures; the ``gpu`` marker skips tests when no CUDA GPU answers."""
import pathlib

import pytest

SHARED_DATA = pathlib.Path(__file__).resolve().parents[1].parent / "shared" / "data"
LOCAL_DATA = pathlib.Path(__file__).resolve().parents[1] / ".data"


def pytest_collection_modifyitems(config, items):
    from wavefront.backends import cuda_status

    ok, reason = cuda_status()
    if ok:
        return
    skip = pytest.mark.skip(reason=f"no GPU: {reason}")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


def road_file(name: str) -> pathlib.Path:
    """A road network from ../shared/data (or .data/ on the device machine)."""
    for folder in (LOCAL_DATA, SHARED_DATA):
        p = folder / name
        if p.exists():
            return p
    pytest.skip(f"{name} not found in {LOCAL_DATA} or {SHARED_DATA}")
