"""The Graph container: CSR (plus CSC for directed graphs) on the CPU or a GPU.

Conventions every backend relies on:

* ``indptr`` is int64 of length ``n + 1``; ``indices`` is int32 while
  ``n < 2**31`` and int64 beyond (see :func:`index_dtype`).
* ``m`` counts stored arcs. An undirected graph stores each edge in both
  directions, so ``m`` is twice its edge count. Self-loops are never stored;
  parallel arcs are merged by the builders (keeping the smallest weight).
* For an undirected graph the CSC *is* the CSR (``in_indptr is indptr``); a
  directed graph carries its own CSC for pull (bottom-up) steps.
* ``weights`` is None or one of float32, float64, int32, int64 (aligned with
  ``indices``; ``in_weights`` with ``in_indices``).
* ``input_degree[v]`` counts the input edge tuples (duplicates included,
  self-loops excluded) with an endpoint at ``v``: Graph500 counts traversed
  edges from these, not from the deduplicated CSR.
* ``labels`` (optional, int64) maps an internal vertex id to the caller's id,
  set when the builder relabelled vertices (by degree). Public entry points
  translate sources and results through it, so users only ever see their ids.
* ``node_keys`` (optional, :class:`~wavefront.graph.interchange.NodeKeys`):
  the caller's node keys when they were not ``0..n-1`` (a NetworkX graph's
  nodes); vertex arguments are then keys, and the caller's id of a vertex
  is its position among them.
"""
from __future__ import annotations

import numpy as np

from .._xp import array_module, check_device, device_of, to_device
from ._csr import INT32_LIMIT, csr_arrays, describe_bad_weight, index_dtype

__all__ = ["INT32_LIMIT", "WEIGHT_DTYPES", "Graph", "index_dtype"]

WEIGHT_DTYPES = (np.float32, np.float64, np.int32, np.int64)
# Derived entries that do not depend on the device and so travel with
# Graph.to: the contraction hierarchy (host arrays, seconds to minutes to build).
_PORTABLE_DERIVED = ("hierarchy",)


def _is_integral(value) -> bool:
    """Whether ``value`` reads as a vertex id: an integer, or a float with no fraction."""
    if isinstance(value, (bool, np.bool_)):
        return False
    try:
        return int(value) == value
    except (TypeError, ValueError, OverflowError):
        return False


def _read_only(array):
    """A read-only view of a NumPy array (the caller's own array keeps its
    flags); other arrays as they are. A graph's arrays are never changed in
    place: what is derived from them (a directed graph's in-arcs, a
    contraction hierarchy, GPU copies) would no longer match, and answers
    would be wrong without a word. Build a new graph instead."""
    if isinstance(array, np.ndarray) and array.flags.writeable:
        array = array.view()
        array.flags.writeable = False
    return array


class Graph:
    """A graph in compressed sparse row form, on the CPU (NumPy) or a GPU (CuPy).

    A CPU graph's arrays are read-only, and no graph's arrays can be replaced:
    what is derived from them (a directed graph's in-arcs, a contraction
    hierarchy, a GPU copy) is kept with the graph, so a graph with other arcs
    or weights is a new graph.

    Build one with :meth:`from_edges`, :meth:`from_scipy`,
    :meth:`from_networkx`, :meth:`from_cupy` or :func:`wavefront.read_graph`;
    move it with :meth:`to`; hand it back with :meth:`to_scipy` or
    :meth:`to_networkx`.
    """

    def __init__(
        self,
        indptr,
        indices,
        *,
        n: int,
        weights=None,
        directed: bool = False,
        in_indptr=None,
        in_indices=None,
        in_weights=None,
        input_degree=None,
        num_input_edges: int | None = None,
        labels=None,
        check: bool = True,
    ):
        self.n = int(n)
        self.directed = bool(directed)
        self._indptr = _read_only(indptr)
        self._indices = _read_only(indices)
        self._weights = _read_only(weights)
        if self.directed:
            self._in = (_read_only(in_indptr), _read_only(in_indices), _read_only(in_weights))
        else:
            self._in = None
        self.input_degree = _read_only(input_degree)
        self.num_input_edges = None if num_input_edges is None else int(num_input_edges)
        self._labels = _read_only(labels)
        self._inverse_labels = None
        self.node_keys = None  # the caller's node keys, when not 0..n-1 (from_networkx)
        self._weights_checked = None  # cached result of the SSSP weight check
        # Where the first unusable input weight came from, as the caller knows
        # it (file and line, or the input edge and its position); set by the
        # builders, quoted by the SSSP weight check.
        self.weight_problem: str | None = None
        # Backend-owned derived data (COO, bitmaps, degree masks, ...), built
        # once per graph on first use; keys are "<backend>.<what>".
        self.derived: dict = {}
        if check:
            self._check()

    # -- structure -------------------------------------------------------
    def _check(self) -> None:
        n = self.n
        if n < 0:
            raise ValueError(f"n must be non-negative, got {n}")
        if self.indptr.dtype != np.int64 or self.indptr.shape != (n + 1,):
            raise ValueError(f"indptr must be int64 of length n+1={n + 1}")
        if self.indices.dtype != index_dtype(n):
            raise ValueError(
                f"indices must be {np.dtype(index_dtype(n)).name} for n={n}, "
                f"got {self.indices.dtype}"
            )
        if self.weights is not None:
            if self.weights.dtype not in WEIGHT_DTYPES:
                raise ValueError(f"unsupported weight dtype {self.weights.dtype}")
            if self.weights.shape != self.indices.shape:
                raise ValueError("weights must align with indices")
        if self.directed:
            ip, ix, w = self._in
            if ip is None or ix is None:
                raise ValueError("a directed graph needs its CSC (in_indptr, in_indices)")
            if ix.shape != self.indices.shape:
                raise ValueError("CSC and CSR must hold the same number of arcs")
            if (w is None) != (self.weights is None):
                raise ValueError("in_weights must be given exactly when weights are")
        devices = {device_of(a) for a in self._arrays().values() if a is not None}
        if len(devices) > 1:
            raise ValueError("all arrays of a Graph must live on one device")

    # The arrays are not rebound either: what is derived from them stays with the graph.
    indptr = property(lambda self: self._indptr)
    indices = property(lambda self: self._indices)
    weights = property(lambda self: self._weights)
    labels = property(lambda self: self._labels)

    @property
    def m(self) -> int:
        """Stored arcs (an undirected edge counts twice)."""
        return int(self.indices.shape[0])

    @property
    def device(self) -> str:
        return device_of(self.indptr)

    @property
    def weighted(self) -> bool:
        return self.weights is not None

    @property
    def in_indptr(self):
        return self._in[0] if self.directed else self.indptr

    @property
    def in_indices(self):
        return self._in[1] if self.directed else self.indices

    @property
    def in_weights(self):
        return self._in[2] if self.directed else self.weights

    @property
    def xp(self):
        """The array module of this graph's arrays (numpy or cupy)."""
        return array_module(self.indptr)

    def degree(self):
        """Out-degree of every vertex (int64, on the graph's device)."""
        return self.xp.diff(self.indptr)

    def in_degree(self):
        return self.xp.diff(self.in_indptr)

    @property
    def nbytes(self) -> int:
        return sum(int(a.nbytes) for a in self._arrays().values() if a is not None)

    def _arrays(self) -> dict:
        arrays = {
            "indptr": self.indptr,
            "indices": self.indices,
            "weights": self.weights,
            "input_degree": self.input_degree,
            "labels": self.labels,
        }
        if self.directed:
            arrays.update(in_indptr=self._in[0], in_indices=self._in[1], in_weights=self._in[2])
        return arrays

    # -- devices ---------------------------------------------------------
    def to(self, device: str) -> Graph:
        """A copy of this graph on ``"cpu"`` or ``"cuda"`` (self if already there).
        A contraction hierarchy already built or loaded for this graph goes
        with it: it is host arrays made from the CSR and weights the copy shares."""
        check_device(device)
        if device == self.device:
            return self
        if device == "cuda":
            from ..backends import require_cuda

            require_cuda()
            from ..backends.cuda.memory import check_fits

            check_fits("moving the graph to the GPU", self.nbytes)
        moved = {k: to_device(a, device) for k, a in self._arrays().items()}
        graph = Graph(
            moved["indptr"],
            moved["indices"],
            n=self.n,
            weights=moved["weights"],
            directed=self.directed,
            in_indptr=moved.get("in_indptr"),
            in_indices=moved.get("in_indices"),
            in_weights=moved.get("in_weights"),
            input_degree=moved["input_degree"],
            num_input_edges=self.num_input_edges,
            labels=moved["labels"],
            check=False,
        )
        graph.weight_problem = self.weight_problem
        graph.node_keys = self.node_keys
        for key in _PORTABLE_DERIVED:
            if key in self.derived:
                graph.derived[key] = self.derived[key]
        return graph

    # -- vertex ids ------------------------------------------------------
    def describe_arc(self, arc: int) -> str:
        """Stored arc number ``arc`` as "arc (u, v) has weight w", in the
        caller's vertex ids: how a message names a bad weight that no builder
        traced back to its input."""
        u = int((self.indptr[1:] <= arc).sum())  # the row holding the arc
        v = int(self.indices[arc])
        if self.labels is not None:
            u, v = int(self.labels[u]), int(self.labels[v])
        return f"arc ({u}, {v}) has weight {self.weights[arc].item()}"

    def internal_id(self, vertex) -> int:
        """The internal id of a caller's vertex (an id, or a key of
        :attr:`node_keys`); raises VertexError if absent."""
        v = self.caller_id(vertex)
        if self.labels is None:
            return v
        return int(self.inverse_labels[v])

    def caller_id(self, vertex) -> int:
        """The caller's id of a vertex argument: the id itself, checked, or
        the position of a node key; raises VertexError if absent."""
        from ..errors import checked_vertex_id

        if self.node_keys is not None:
            return self.node_keys.id_of(vertex)
        return checked_vertex_id(vertex, self.n)

    def internal_ids(self, vertices, name: str = "sources") -> np.ndarray:
        """The internal ids (a host int64 array) of a list or array of the caller's vertices.

        Raises VertexError for the first entry that is not an integer (or a
        node key) or not in the graph, naming it and its position as ``name[i]``.
        """
        return self.to_internal(self.caller_ids(vertices, name))

    def to_internal(self, ids) -> np.ndarray:
        """Caller ids (checked, host int64) -> internal ids (host int64)."""
        ids = np.asarray(ids, dtype=np.int64)
        if self.labels is None:
            return ids
        xp = self.xp
        return to_device(self.inverse_labels[xp.asarray(ids)], "cpu").astype(np.int64, copy=False)

    def caller_ids(self, vertices, name: str = "sources") -> np.ndarray:
        """:meth:`caller_id` of each of ``vertices`` (a host int64 array); a
        VertexError names the first bad entry and its position as ``name[i]``."""
        from ..errors import VertexError, vertex_range

        if self.node_keys is not None:
            return np.array([self.node_keys.id_of(key, f"{name}[{i}] =") for i, key in enumerate(vertices)],
                            dtype=np.int64)
        values = np.asarray(to_device(vertices, "cpu") if hasattr(vertices, "__cuda_array_interface__")
                            else vertices)
        if values.ndim != 1:
            values = values.ravel()
        kind = values.dtype.kind
        if kind == "f":
            bad = ~np.isfinite(values) | (values != np.floor(values))
        elif kind in "iu":
            bad = np.zeros(values.shape, dtype=bool)
        else:  # a mixed list: ids one by one, as internal_id reads a single one
            bad = np.array([not _is_integral(v) for v in values], dtype=bool)
        if bad.any():
            i = int(np.argmax(bad))
            value = values[i].item() if isinstance(values[i], np.generic) else values[i]
            raise VertexError(f"{name}[{i}] must be an integer vertex id, got {value!r}")
        if kind not in "iu":
            values = np.array([int(v) for v in values], dtype=object)
        outside = (values < 0) | (values >= self.n)
        if outside.any():
            i = int(np.argmax(outside))
            raise VertexError(
                f"{name}[{i}] = {int(values[i])} is out of range: the graph has {vertex_range(self.n)}"
            )
        return values.astype(np.int64)

    @property
    def inverse_labels(self):
        """Caller id -> internal id (None when the graph was not relabelled)."""
        if self.labels is None:
            return None
        if self._inverse_labels is None:
            xp = self.xp
            inv = xp.empty_like(self.labels)
            inv[self.labels] = xp.arange(self.n, dtype=self.labels.dtype)
            self._inverse_labels = inv
        return self._inverse_labels

    # -- Graph500 edge counting -------------------------------------------
    def traversed_edges(self, reached) -> int:
        """Input edge tuples inside the set ``reached`` (a boolean mask).

        Graph500 divides this by the search time to get TEPS. For an
        undirected graph a search's component is closed, so every tuple with
        one endpoint reached has both reached and is counted through the
        per-vertex ``input_degree`` (each tuple adds one to both endpoints).
        Without input tuples it falls back to the stored arcs. ``reached`` is
        indexed by the caller's vertex ids, as results are; on a relabelled
        graph it is mapped to the internal order first.
        """
        if self.labels is not None:
            reached = reached[self.labels]
        if self.input_degree is not None:
            total = int(self.input_degree[reached].sum())
        else:
            total = int(self.degree()[reached].sum())
        return total if self.directed else total // 2

    # -- construction shortcuts -------------------------------------------
    @classmethod
    def from_edges(
        cls, src, dst, weights=None, n=None, directed=False, *, relabel: str | None = None
    ) -> Graph:
        """Build a graph from edge arrays; see :func:`wavefront.graph.build.from_edges`."""
        # Graph, not cls: build.from_edges has always returned a plain Graph.
        graph = Graph(**csr_arrays(src, dst, weights=weights, n=n, directed=directed, relabel=relabel))
        graph.weight_problem = describe_bad_weight(src, dst, weights)
        return graph

    @classmethod
    def from_scipy(cls, matrix, directed: bool = True, **options) -> Graph:
        """Build from a SciPy sparse matrix or array (entry (i, j) is an arc i -> j).

        As ``scipy.sparse.csgraph`` reads it: stored entries are arcs (an
        explicit zero is a zero-weight arc), repeated entries of a COO
        matrix are summed. ``options`` go to :meth:`from_edges` (``relabel``).
        """
        import scipy.sparse as sp

        coo = sp.coo_matrix(matrix)
        if coo.shape[0] != coo.shape[1]:
            raise ValueError(f"adjacency matrix must be square, got shape {coo.shape}")
        coo.sum_duplicates()  # what SciPy's own conversion to CSR does
        return cls.from_edges(
            coo.row, coo.col, weights=coo.data, n=coo.shape[0], directed=directed, **options
        )

    @classmethod
    def from_networkx(cls, G, weight: str | None = "weight", default=1, *,
                      relabel: str | None = None) -> Graph:
        """Build from a NetworkX graph, with the NetworkX backend's conversion.

        * ``weight``: the edge attribute holding weights (None: unweighted);
          ``default``: the weight of an edge without it (NetworkX's Dijkstra
          uses 1). Edges whose attribute is None are left out, as NetworkX's
          weighted searches hide them. Weights stay ints when every one is.
        * Directed and undirected graphs keep their kind; a multigraph's
          parallel edges become one arc of the smallest weight; self-loops
          are dropped (no search needs them).
        * Nodes other than exactly ``0..n-1`` are renumbered in ``G``'s node
          order and kept in :attr:`node_keys`: a search then takes keys
          (``wf.sssp(g, "a")``, ``sources=["a", "b"]``), its result arrays
          are indexed by the node's position in ``G.nodes``, and
          :meth:`keyed` gives them back by key.

        >>> import networkx as nx, wavefront as wf
        >>> G = nx.Graph([("a", "b", {"weight": 2}), ("b", "c", {"weight": 1})])
        >>> g = wf.Graph.from_networkx(G)
        >>> r = wf.sssp(g, "a")
        >>> g.keyed(r.distances)
        {'a': 0.0, 'b': 2.0, 'c': 3.0}
        """
        from .interchange import networkx_edges

        src, dst, weights, n, directed, keys = networkx_edges(G, weight, default)
        graph = cls.from_edges(src, dst, weights, n=n, directed=directed, relabel=relabel)
        graph.node_keys = keys
        return graph

    @classmethod
    def from_cupy(cls, data, dst=None, weights=None, *, n: int | None = None, directed: bool | None = None,
                  relabel: str | None = None) -> Graph:
        """Build on the GPU from CuPy data, which never leaves it.

        ``data`` is a ``cupyx.scipy.sparse`` matrix (read as :meth:`from_scipy`
        reads SciPy's: entry (i, j) an arc i -> j, directed unless
        ``directed=False``), or CuPy ``src`` and ``dst`` arrays with optional
        ``weights`` (read as :meth:`from_edges`: undirected unless
        ``directed=True``). Host arrays raise TypeError: use
        :meth:`from_edges` or :meth:`from_scipy` for those.
        """
        from .interchange import cupy_edges, is_cupy_sparse

        matrix = is_cupy_sparse(data)
        src, dst, weights, n = cupy_edges(data, dst, weights, n)
        if directed is None:
            directed = matrix
        return cls.from_edges(src, dst, weights, n=n, directed=directed, relabel=relabel)

    def to_scipy(self, ids: str = "internal"):
        """The CSR as a ``scipy.sparse.csr_array`` on the CPU (weights as
        stored; unit float64 weights for an unweighted graph).

        ``ids="internal"`` (the default) keeps the stored order, which on a
        relabelled graph is not the caller's; ``ids="caller"`` permutes rows
        and columns back to the caller's ids (the ids results use).
        """
        import scipy.sparse as sp

        if ids not in ("internal", "caller"):
            raise ValueError(f"ids must be 'internal' or 'caller', got {ids!r}")
        g = self.to("cpu")
        data = g.weights if g.weights is not None else np.ones(g.m, dtype=np.float64)
        matrix = sp.csr_array((data, g.indices, g.indptr), shape=(g.n, g.n))
        if ids == "caller" and g.labels is not None:
            order = g.inverse_labels  # caller id -> internal row
            matrix = matrix[order][:, order]
        return matrix

    def to_networkx(self, weight: str | None = "weight"):
        """A NetworkX ``Graph`` (``DiGraph`` when directed) in the caller's ids,
        or the node keys the graph was built with; weights under the edge
        attribute ``weight`` (None: no attribute). Merged parallel edges
        and dropped self-loops stay merged and dropped."""
        from .interchange import to_networkx

        return to_networkx(self, weight)

    def keys_of(self, ids) -> list:
        """The caller's vertices (node keys, or ids) of an array of vertex ids."""
        ids = to_device(ids, "cpu")
        return np.asarray(ids).tolist() if self.node_keys is None else self.node_keys.keys_of(ids)

    def keyed(self, values, where=None) -> dict:
        """``{vertex: value}`` from an array indexed by vertex id (a result's
        ``levels`` or ``distances``), keyed by node key when the graph has
        :attr:`node_keys`; ``where`` (a boolean mask, e.g. ``result.reached``)
        keeps only those vertices."""
        values = to_device(values, "cpu")
        ids = np.arange(self.n) if where is None else np.flatnonzero(to_device(where, "cpu"))
        return dict(zip(self.keys_of(ids), values[ids].tolist()))

    def __repr__(self) -> str:
        kind = "directed" if self.directed else "undirected"
        w = f", weights={self.weights.dtype}" if self.weights is not None else ""
        rel = ", relabelled" if self.labels is not None else ""
        return f"Graph(n={self.n}, m={self.m}, {kind}{w}{rel}, device={self.device!r})"
