"""Scale-out over MPI: the process grid, transports, the 2-D partitioned BFS, distributed Graph500.

Start it with ``mpirun -n P``; every call below is collective (all ranks call
it with the same arguments). A script::

    import wavefront.distributed as wd

    grid = wd.ProcessGrid()                      # R x C from the MPI world
    graph = wd.kronecker(16, grid=grid)          # each rank generates its tuples
    result = wd.bfs(graph, source=0)             # 2-D direction-optimizing BFS
    summary = wd.validate_bfs(graph, result)     # each rank checks its own tuples
    full = result.gather()                       # BFSResult on rank 0, None elsewhere

runs with ``mpirun -n 4 python script.py``, and with ``python script.py``
as a world of one process (no mpi4py needed). ``wavefront graph500`` under
``mpirun`` with more than one rank (or with ``--distributed``) runs
:func:`run_graph500`.

Modules: :mod:`.transport` (the collectives, MPI or a world of one),
:mod:`.launch` (world detection, threads and GPU per rank, abort on error),
:mod:`.grid` (process grid and partition), :mod:`.graph` (distributed
construction), :mod:`.bfs2d` (the search), :mod:`.validate`,
:mod:`.graph500`. mpi4py and numba are imported only when used.
"""
from __future__ import annotations

from importlib import import_module

_EXPORTS = {
    "ProcessGrid": "grid",
    "Partition": "grid",
    "grid_shape": "grid",
    "Transport": "transport",
    "MPITransport": "transport",
    "SelfTransport": "transport",
    "world": "launch",
    "launched_by_mpi": "launch",
    "select_gpu": "launch",
    "use_threads": "launch",
    "DistributedGraph": "graph",
    "from_edges": "graph",
    "kronecker": "graph",
    "bfs": "bfs2d",
    "DistributedBFSResult": "bfs2d",
    "LevelRecord": "_trace",
    "PhaseRecord": "_trace",
    "DistributedTuning": "tuning",
    "validate_bfs": "validate",
    "validate_sssp": "validate",
    "sssp": "sssp2d",
    "DistributedSSSPResult": "sssp2d",
    "run_graph500": "graph500",
    "choose_roots": "graph500",
}

__all__ = list(_EXPORTS)


def __getattr__(name: str):
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f".{_EXPORTS[name]}", __name__), name)
