"""Machinery shared by the readers and writers.

Text is read by :mod:`._scan` (a numba parser over chunks of the stream);
this module holds what follows the parse and what precedes a write: the
build of the Graph, the graph's arcs in the caller's ids, formatting rows of
text (numba, with Arrow for float weights).

Writers go through :func:`atomic_output` (:mod:`wavefront._files`): a
temporary file in the target's folder, renamed over the target only once it
is complete.
"""
from __future__ import annotations

import gzip
import os
import zlib
from dataclasses import dataclass

import numpy as np

from .._files import atomic_output  # noqa: F401  (io's writers and wavefront.io.atomic_output)
from ..errors import GraphFormatError
from ..graph.build import from_edges
from ._progress import Meter
from ._scan import GZIP_MAGIC, kernels

ROWS_PER_PIECE = 1 << 21  # rows formatted at a time: bounds a write's scratch to ~100 MB


def read_bytes(path) -> bytes:
    """The file's bytes, gunzipped when it is gzip data (whatever its suffix)."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] != GZIP_MAGIC:
        return data
    try:
        return gzip.decompress(data)
    except (OSError, EOFError, zlib.error) as exc:
        raise GraphFormatError(f"corrupt or truncated gzip data ({exc})", path) from None


def check_vertex_count(n: int, path, line: int | None) -> None:
    """Refuse vertex counts whose arrays could not fit in this machine's memory."""
    try:
        memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):  # pragma: no cover - non-POSIX
        memory = 1 << 40
    needed = 24 * n  # indptr, input degrees and one per-vertex result array
    if needed > memory:
        raise GraphFormatError(
            f"{n} vertices would need {needed / 2**30:.1f} GiB for per-vertex arrays "
            f"alone, more than this machine's {memory / 2**30:.1f} GiB; "
            "renumber the vertex ids densely",
            path,
            line,
        )


@dataclass
class Arcs:
    """What a reader parsed: arcs ``src -> dst`` (int32 ids where they fit), weights or
    None, the vertex count and whether the graph is to be built directed."""

    src: np.ndarray
    dst: np.ndarray
    weights: np.ndarray | None
    n: int
    directed: bool


def build(arcs: Arcs, *, weighted, relabel, device, path, progress=True):
    """The Graph for parsed arcs, honouring the reader options common to all formats."""
    src, dst, weights, n, directed = arcs.src, arcs.dst, arcs.weights, arcs.n, arcs.directed
    if weighted is False:
        weights = None
    elif weighted and weights is None:
        raise GraphFormatError("weighted=True, but the file has no weights", path)
    if device != "cpu":
        from .._xp import to_device

        src, dst = to_device(src, device), to_device(dst, device)
        weights = to_device(weights, device)
    with Meter("building the graph", None, progress=progress):
        return from_edges(src, dst, weights=weights, n=n, directed=directed, relabel=relabel)


def caller_arcs(graph, *, each_edge_once: bool):
    """(src, dst, weights) of the graph's arcs in the caller's ids, on the CPU.

    ``each_edge_once`` keeps one arc per undirected edge (the smaller id
    first); directed graphs always give every arc.
    """
    g = graph.to("cpu")
    return _arcs(g, 0, g.n, each_edge_once)


def arc_pieces(graph, *, each_edge_once: bool, rows: int = ROWS_PER_PIECE):
    """:func:`caller_arcs` over consecutive vertex ranges of about ``rows`` arcs each."""
    g = graph.to("cpu")
    lo = 0
    while lo < g.n:
        hi = int(np.searchsorted(g.indptr, g.indptr[lo] + rows, side="right")) - 1
        hi = min(max(hi, lo + 1), g.n)
        yield _arcs(g, lo, hi, each_edge_once)
        lo = hi


def _arcs(g, lo: int, hi: int, each_edge_once: bool):
    start, stop = int(g.indptr[lo]), int(g.indptr[hi])
    src = np.repeat(np.arange(lo, hi, dtype=np.int64), np.diff(g.indptr[lo:hi + 1]))
    dst = g.indices[start:stop].astype(np.int64)
    weights = None if g.weights is None else g.weights[start:stop]
    if g.labels is not None:
        src, dst = g.labels[src], g.labels[dst]
    if each_edge_once and not g.directed:
        keep = src < dst
        src, dst = src[keep], dst[keep]
        weights = None if weights is None else weights[keep]
    return src, dst, weights


def write_rows(out, pieces, total: int, *, prefix: bytes = b"", separator: bytes = b" ",
               shift: int = 0, unit_weights: bool = False, meter=None) -> None:
    """Write ``PREFIX SRC+shift SEP DST+shift [SEP WEIGHT]`` lines for (src, dst, weights) pieces.

    ``total`` (the rows to come) lets ``meter`` estimate the bytes to come.
    Integer weights are written as integers; float weights in their shortest
    text that reads back to the same float64 (Arrow's formatter), with
    ".0" on integral ones so that they read back as floats. ``unit_weights``
    writes 1 where the graph has no weights.
    """
    import numba

    k = kernels()
    blocks = 4 * numba.get_num_threads()
    head = np.frombuffer(prefix, dtype=np.uint8)
    no_ints, no_offsets, no_text = np.empty(0, np.int64), np.zeros(1, np.int32), np.empty(0, np.uint8)
    done = written = 0
    for src, dst, weights in pieces:
        ints, offsets, text, mode = no_ints, no_offsets, no_text, k.NO_WEIGHT
        if weights is None and unit_weights:
            ints, mode = np.ones(src.size, np.int64), k.INTEGER
        elif weights is not None and weights.dtype.kind == "f":
            offsets, text = _float_text(weights)
            mode = k.NUMBER
        elif weights is not None:
            ints, mode = weights.astype(np.int64, copy=False), k.INTEGER
        with numba.parallel_chunksize(1):  # blocks handed out one at a time, as in the parser
            data = k.format_rows(head, src, dst, shift, ints, offsets, text, mode, separator[0], blocks)
        out.write(data)
        done += src.size
        written += data.size
        if meter is not None:
            meter.update(written, total=int(written / max(done, 1) * total))


def _float_text(weights: np.ndarray):
    """Arrow's shortest round-trip text of float64 values: (int32 offsets, bytes)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    strings = pc.cast(pa.array(weights.astype(np.float64, copy=False)), pa.string())
    _, offsets, data = strings.buffers()
    offsets = np.frombuffer(offsets, dtype=np.int32, count=len(strings) + 1)
    text = np.frombuffer(data, dtype=np.uint8) if data is not None else np.empty(0, np.uint8)
    return offsets, text


