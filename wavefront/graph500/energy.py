"""GPU energy for GreenGraph500 (MTEPS/W), read through NVML.

:class:`EnergyMeter` measures one window (a ``with`` block). Joules come from
the GPU's total-energy counter (``nvmlDeviceGetTotalEnergyConsumption``, mJ,
Volta and later) when the driver offers it; otherwise from integrating power
samples (``nvmlDeviceGetPowerUsage``) that a background thread takes every
``interval`` seconds, trapezoid rule. Samples are taken in both cases and
reported, so the two can be compared.

``pynvml`` (package nvidia-ml-py) is imported only here, only when energy is
asked for; without it, or without an NVIDIA GPU, :func:`open_meter` raises
:class:`~wavefront.errors.BackendUnavailableError` saying what is missing.
"""
from __future__ import annotations

import threading
import time
from dataclasses import asdict, dataclass

from ..errors import BackendUnavailableError

DEFAULT_INTERVAL = 0.005


@dataclass(frozen=True)
class EnergyMeasurement:
    seconds: float
    joules: float
    source: str  # "energy counter" or "power sampling"
    samples: int
    peak_watts: float

    @property
    def average_watts(self) -> float:
        return self.joules / self.seconds if self.seconds > 0 else float("nan")

    def as_dict(self) -> dict:
        return {**asdict(self), "average_watts": self.average_watts}


def _nvml():
    try:
        import pynvml
    except ImportError as exc:
        raise BackendUnavailableError(
            "--energy reads GPU power through NVML, but its Python bindings are not "
            "installed: pip install nvidia-ml-py (or wavefront[cuda12]/[cuda13])"
        ) from exc
    try:
        pynvml.nvmlInit()
    except Exception as exc:  # NVMLError_LibraryNotFound, DriverNotLoaded, ...
        raise BackendUnavailableError(
            f"--energy needs an NVIDIA GPU and driver, but NVML did not start ({exc})"
        ) from exc
    return pynvml


def _current_gpu_handle(pynvml):
    """The NVML handle of CuPy's current device (matched by PCI bus id, since
    CUDA_VISIBLE_DEVICES can renumber devices), else NVML device 0."""
    try:
        import cupy

        bus_id = cupy.cuda.Device().pci_bus_id
        return pynvml.nvmlDeviceGetHandleByPciBusId(bus_id)
    except Exception:
        if pynvml.nvmlDeviceGetCount() < 1:
            raise BackendUnavailableError("--energy needs an NVIDIA GPU; NVML sees none") from None
        return pynvml.nvmlDeviceGetHandleByIndex(0)


def open_meter(interval: float = DEFAULT_INTERVAL) -> "EnergyMeter":
    """An :class:`EnergyMeter` on the current GPU, or BackendUnavailableError."""
    pynvml = _nvml()
    return EnergyMeter(pynvml, _current_gpu_handle(pynvml), interval)


class EnergyMeter:
    """Energy used by one GPU over ``with`` windows; see the module docstring."""

    def __init__(self, pynvml, handle, interval: float = DEFAULT_INTERVAL):
        self._nvml = pynvml
        self._handle = handle
        self.interval = float(interval)
        self._stop = threading.Event()
        self._samples: list[tuple[float, float]] = []
        self._thread = None
        self._counter_start = None
        self._started = 0.0
        self.measurement: EnergyMeasurement | None = None

    def _energy_mj(self):
        try:
            return self._nvml.nvmlDeviceGetTotalEnergyConsumption(self._handle)
        except Exception:  # NVMLError_NotSupported on older GPUs
            return None

    def _sample(self) -> None:
        watts = self._nvml.nvmlDeviceGetPowerUsage(self._handle) / 1000.0
        self._samples.append((time.perf_counter(), watts))

    def _sampler(self) -> None:
        while not self._stop.wait(self.interval):
            self._sample()

    def __enter__(self) -> "EnergyMeter":
        self._samples = []
        self._stop.clear()
        self._sample()
        self._counter_start = self._energy_mj()
        self._started = time.perf_counter()
        self._thread = threading.Thread(target=self._sampler, name="wavefront-energy", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc_info) -> None:
        seconds = time.perf_counter() - self._started
        counter_end = self._energy_mj()
        self._stop.set()
        self._thread.join()
        self._sample()
        if self._counter_start is not None and counter_end is not None:
            joules, source = (counter_end - self._counter_start) / 1000.0, "energy counter"
        else:
            joules, source = integrate(self._samples), "power sampling"
        self.measurement = EnergyMeasurement(
            seconds=seconds,
            joules=joules,
            source=source,
            samples=len(self._samples),
            peak_watts=max(w for _, w in self._samples),
        )

    def close(self) -> None:
        self._nvml.nvmlShutdown()


def integrate(samples) -> float:
    """Joules from (seconds, watts) samples by the trapezoid rule."""
    joules = 0.0
    for (t0, w0), (t1, w1) in zip(samples, samples[1:]):
        joules += 0.5 * (w0 + w1) * (t1 - t0)
    return joules
