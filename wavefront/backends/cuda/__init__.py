"""CUDA backend: CuPy orchestration of the CUDA C++ kernels in ``kernels/``.

Nothing here imports CuPy at module level; ``METHODS`` only names targets.
"""
METHODS = {
    "bfs": {},
    "sssp": {},
}
