"""What NetworkX reads about the ``wavefront`` backend before importing it.

NetworkX calls :func:`get_info` (the ``networkx.backend_info`` entry point)
while it imports itself, for every installed backend, to fill
``nx.config.backends.wavefront`` and the "Additional backends" notes in its
docstrings. So this module imports nothing. (Python still runs the
``wavefront`` package's ``__init__`` first, which loads NumPy and the core
but neither numba nor CuPy; only a separate top-level module, as
nx-cugraph's ``_nx_cugraph``, would avoid that.)
"""

# NetworkX name -> the arguments the backend declines (``can_run``; empty:
# none beyond the weights, see WEIGHT_NOTE and docs/guide/networkx.md). The
# backend interface is built from these names, so this is the one list of them.
FUNCTIONS = {
    # Traversal
    "bfs_edges": "Not with sort_neighbors.",
    "bfs_tree": "Not with sort_neighbors.",
    "bfs_predecessors": "Not with sort_neighbors.",
    "bfs_successors": "Not with sort_neighbors.",
    "bfs_layers": "",
    "descendants_at_distance": "",
    "generic_bfs_edges": (
        "Only with neighbors=None or the graph's own neighbors, successors or "
        "predecessors method."
    ),
    # Unweighted shortest paths
    "single_source_shortest_path_length": "",
    "single_source_shortest_path": "",
    "single_target_shortest_path_length": "",
    "single_target_shortest_path": "",
    "bidirectional_shortest_path": "",
    "has_path": "Not with source or target None (NetworkX then looks for paths from or to every node).",
    "shortest_path": (
        "Not the all-pairs form, and with a weight not method='bellman-ford' "
        "(its paths break ties in Bellman-Ford's own visiting order)."
    ),
    "shortest_path_length": "Not the all-pairs form.",
    # Dijkstra and Bellman-Ford, for finite non-negative int or float weights
    "single_source_dijkstra": "",
    "single_source_dijkstra_path": "",
    "single_source_dijkstra_path_length": "",
    "dijkstra_predecessor_and_distance": "",
    "multi_source_dijkstra": "",
    "multi_source_dijkstra_path_length": "",
    "multi_source_dijkstra_path": "",
    "dijkstra_path": "",
    "dijkstra_path_length": "",
    "bidirectional_dijkstra": "",
    "bellman_ford_path_length": "Not with None weights (NetworkX raises TypeError on them).",
    "single_source_bellman_ford_path_length": (
        "Not with None weights (NetworkX raises TypeError on them)."
    ),
}

WEIGHT_NOTE = (
    "The weight must name an edge attribute (not a function) whose values are "
    "finite, non-negative ints or floats; otherwise the backend declines the call."
)

WEIGHTED = {
    "shortest_path", "shortest_path_length", "single_source_dijkstra",
    "single_source_dijkstra_path", "single_source_dijkstra_path_length",
    "dijkstra_predecessor_and_distance", "multi_source_dijkstra",
    "multi_source_dijkstra_path_length", "multi_source_dijkstra_path", "dijkstra_path",
    "dijkstra_path_length", "bidirectional_dijkstra",
    "bellman_ford_path_length", "single_source_bellman_ford_path_length",
}

# nx.config.backends.wavefront: where and how the searches run.
DEFAULT_CONFIG = {
    "device": "cpu",  # "cpu" (numba), "cuda" (CuPy) or "auto" (CUDA when a GPU answers)
    # wavefront.bfs / wavefront.sssp method; "auto" on the CPU means the
    # serial searches (the backend's queue BFS; Dijkstra), see _search.levels.
    "bfs_method": "auto",
    "sssp_method": "auto",
    # should_run declines graphs with fewer nodes than this when NetworkX
    # picks backends itself (backend_priority): converting a small graph costs
    # more than NetworkX's own search. backend="wavefront" always runs.
    "min_nodes": 200,
}


def get_info() -> dict:
    """The ``networkx.backend_info`` entry point (fresh dicts each call)."""
    functions = {}
    for name, note in FUNCTIONS.items():
        docs = " ".join(part for part in (note, WEIGHT_NOTE if name in WEIGHTED else "") if part)
        functions[name] = {"additional_docs": docs or "Same results as NetworkX."}
    return {
        "backend_name": "wavefront",
        "project": "wavefront",
        "package": "wavefront",
        "short_summary": "BFS and shortest paths on wavefront's CPU (numba) and CUDA searches.",
        "default_config": dict(DEFAULT_CONFIG),
        "functions": functions,
    }
