"""CUDA backend: CuPy orchestration of the CUDA C++ kernels in ``kernels/``.

Nothing here imports CuPy at module level; ``METHODS`` only names targets.
"""
METHODS = {
    "bfs": {
        "vertex-push": "wavefront.backends.cuda.bfs:vertex_push",
        "vertex-pull": "wavefront.backends.cuda.bfs:vertex_pull",
        "edge": "wavefront.backends.cuda.bfs:edge",
        "frontier": "wavefront.backends.cuda.bfs:frontier",
        "frontier-privatized": "wavefront.backends.cuda.bfs:frontier_privatized",
        "load-balanced": "wavefront.backends.cuda.bfs:load_balanced",
        "bottom-up": "wavefront.backends.cuda.bfs:bottom_up",
        "single-block": "wavefront.backends.cuda.bfs:single_block",
        "hybrid": "wavefront.backends.cuda.bfs:hybrid",
        "auto": "wavefront.backends.cuda.bfs:hybrid",
    },
    "sssp": {
        "bellman-ford": "wavefront.backends.cuda.sssp:bellman_ford",
        "frontier": "wavefront.backends.cuda.sssp:frontier",
        "adaptive": "wavefront.backends.cuda.sssp:adaptive",
        "delta-stepping": "wavefront.backends.cuda.sssp:delta_stepping",
        "regions": "wavefront.backends.cuda.sssp:regions",
        "hierarchy": "wavefront.backends.cuda.sssp:hierarchy",
        "auto": "wavefront.backends.cuda.sssp:auto",
    },
}
