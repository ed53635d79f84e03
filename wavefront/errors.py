"""Exceptions raised by wavefront.

Every error a user can cause has its own type and a message that says what to
change. Each subclasses the builtin a Python user would catch for it
(``ValueError``, ``MemoryError``, ...) as well as :class:`WavefrontError`.
"""
from __future__ import annotations


class WavefrontError(Exception):
    """Base class of every wavefront error."""


class GraphFormatError(WavefrontError, ValueError):
    """A graph file is malformed. Names the file and, where known, the line."""

    def __init__(self, message: str, path=None, line: int | None = None):
        self.path = None if path is None else str(path)
        self.line = line
        self.reason = message
        where = self.path or "<input>"
        if line is not None:
            where = f"{where}:{line}"
        super().__init__(f"{where}: {message}")


class OutputFormatError(WavefrontError, ValueError):
    """The chosen output format cannot hold this graph (e.g. fractional weights in DIMACS)."""


class VertexError(WavefrontError, ValueError):
    """A vertex id (a source, a target) is outside the graph."""


class SourceArgumentError(WavefrontError, TypeError, ValueError):
    """A search was given both ``source`` and ``sources``, neither, or an empty ``sources``."""


class MultiSourceError(WavefrontError, ValueError):
    """The chosen method searches from one source only; the message names those that take several."""


class WeightError(WavefrontError, ValueError):
    """Edge weights are unusable for the request: negative, NaN or infinite."""


class UnknownMethodError(WavefrontError, ValueError):
    """The requested method is not registered for the graph's device."""


class MethodLimitError(WavefrontError, ValueError):
    """The graph is beyond what the chosen method can hold (the message names its limit and a method that can)."""


class HierarchyFileError(WavefrontError, ValueError):
    """A saved contraction hierarchy cannot be used: not a hierarchy file, damaged, or built for another graph.
    Names the file."""

    def __init__(self, message: str, path):
        self.path = str(path)
        self.reason = message
        super().__init__(f"{self.path}: {message}")


class InconsistentDistancesError(WavefrontError, RuntimeError):
    """A search's distances leave reached vertices with no in-arc that confirms them, so no parent can be named.
    ``count``: how many."""

    def __init__(self, count: int):
        self.count = int(count)
        super().__init__(
            f"{self.count} reached vertices have no in-neighbour whose distance and arc weight give theirs, so they "
            "have no parent: the graph's out-arcs and in-arcs disagree (arrays changed in place after the build, "
            "or given by hand; build a new graph instead), or this is a wavefront bug (please report it)")


class BackendUnavailableError(WavefrontError, RuntimeError):
    """A backend (CUDA, MPI) was requested but cannot run here."""


class GPUMemoryError(WavefrontError, MemoryError):
    """A graph or search does not fit in the GPU's free memory."""

    def __init__(self, what: str, needed_bytes: int, free_bytes: int, gpus: int | None = None,
                 grid: tuple[int, int] | None = None):
        self.needed_bytes = int(needed_bytes)
        self.free_bytes = int(free_bytes)
        # How many GPUs with this much free memory would hold it, split over
        # one MPI rank each, and on which R x C grid (wavefront.distributed.memory);
        # None: not known. GPU runs default to one column (R x 1).
        if grid is not None:
            gpus = grid[0] * grid[1]
        self.gpus_needed = gpus
        self.grid_needed = grid
        flag = f" --grid {grid[0]}x{grid[1]}" if grid is not None and grid[1] != 1 else ""
        split = (
            f"; split over {gpus} GPUs like this one it would fit (mpirun -n {gpus}, one rank per GPU{flag})"
            if gpus is not None and gpus > 1 else ""
        )
        super().__init__(
            f"{what} needs {needed_bytes / 2**30:.2f} GiB of GPU memory but only "
            f"{free_bytes / 2**30:.2f} GiB is free{split}; use a smaller graph, free GPU "
            f"memory, or run it with backend='cpu'"
        )


class HostMemoryError(WavefrontError, MemoryError):
    """A run would need more host memory than the machine has available."""

    def __init__(self, what: str, needed_bytes: int, available_bytes: int, advice: str = ""):
        self.needed_bytes = int(needed_bytes)
        self.available_bytes = int(available_bytes)
        super().__init__(
            f"{what} needs about {needed_bytes / 2**30:.2f} GiB of host memory but only "
            f"{available_bytes / 2**30:.2f} GiB is available" + (f"; {advice}" if advice else "")
        )


class ValidationError(WavefrontError, AssertionError):
    """A search result broke a Graph500 validation rule; ``rule`` names it."""

    def __init__(self, rule: str, message: str):
        self.rule = rule
        super().__init__(f"[{rule}] {message}")


def vertex_range(n: int) -> str:
    """How a message names a graph's vertex ids: "vertices 0..n-1", or "no
    vertices" for an empty graph (where "0..-1" would read as a range)."""
    return f"vertices 0..{n - 1}" if n > 0 else "no vertices"


def checked_vertex_id(vertex, n: int, what: str = "vertex") -> int:
    """``vertex`` as an id of a graph of ``n`` vertices: an integer in [0, n)
    (3.0 is taken, 1.5 refused, never truncated); else VertexError naming
    ``what``."""
    try:
        v = int(vertex)
    except (TypeError, ValueError) as exc:
        raise VertexError(f"{what} must be an integer (a vertex id), got {vertex!r}") from exc
    if isinstance(vertex, float) and vertex != v:
        raise VertexError(f"{what} must be an integer (a vertex id), got {vertex!r}")
    if not 0 <= v < n:
        raise VertexError(f"{what} {v} is out of range: the graph has {vertex_range(n)}")
    return v
