"""CPU backend: numba-parallel BFS and SSSP steps; also the tests' oracles.

``METHODS`` maps public method names to ``module:function`` targets, each
called as ``f(graph, source, **options)`` with an internal source id.
"""
METHODS = {
    "bfs": {
        "auto": "wavefront.backends.cpu.bfs:hybrid",
        "top-down": "wavefront.backends.cpu.bfs:top_down",
        "bottom-up": "wavefront.backends.cpu.bfs:bottom_up",
        "hybrid": "wavefront.backends.cpu.bfs:hybrid",
    },
    "sssp": {
        "auto": "wavefront.backends.cpu.sssp:auto",
        "dijkstra": "wavefront.backends.cpu.sssp:dijkstra",
        "delta-stepping": "wavefront.backends.cpu.sssp:delta_stepping",
        "hierarchy": "wavefront.backends.cpu.sssp_phast:hierarchy",
    },
}
