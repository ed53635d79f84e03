"""``.wfb``: wavefront's own binary graph format, for caching big graphs.

Layout (little-endian)::

    header   magic b"WAVEFRNT", version u32, flags u32, n i64, m i64,
             num_input_edges i64 (-1: unknown), array count u32, 4 pad bytes
    table    per array: name 16s, dtype 8s (NumPy str, e.g. "<i8"),
             length i64, offset i64, crc32 u32, 4 pad bytes
    arrays   raw bytes, each at a 64-byte aligned offset

Arrays: ``indptr``, ``indices``, ``weights``, then for directed graphs
``in_indptr``, ``in_indices``, ``in_weights``, then ``input_degree`` and
``labels`` — each only when the Graph has it. Every array carries a CRC-32,
so truncation and corruption raise :class:`GraphFormatError`; a file round-trips
a Graph exactly (dtypes, CSC, input degrees, labels).
"""
from __future__ import annotations

import os
import struct
import zlib

import numpy as np

from ..errors import GraphFormatError
from ..graph.container import WEIGHT_DTYPES, Graph, index_dtype
from ._common import GZIP_MAGIC, Arcs, build, caller_arcs, read_bytes

MAGIC = b"WAVEFRNT"
VERSION = 1
DIRECTED = 1
_HEADER = struct.Struct("<8sIIqqqI4x")
_ENTRY = struct.Struct("<16s8sqqI4x")
ALIGN = 64
ARRAY_NAMES = (
    "indptr", "indices", "weights", "in_indptr", "in_indices", "in_weights", "input_degree", "labels",
)


def write_binary(graph, out) -> None:
    """Write ``graph`` (moved to the CPU) to the binary stream ``out``."""
    g = graph.to("cpu")
    arrays = {name: np.ascontiguousarray(a) for name, a in _arrays(g).items() if a is not None}
    table_end = _HEADER.size + _ENTRY.size * len(arrays)
    offset = _aligned(table_end)
    entries = []
    for name, a in arrays.items():
        dtype = a.dtype.newbyteorder("<")
        a = arrays[name] = a.astype(dtype, copy=False)
        entries.append(_ENTRY.pack(
            name.encode(), dtype.str.encode(), a.size, offset, zlib.crc32(a.data) & 0xFFFFFFFF
        ))
        offset = _aligned(offset + a.nbytes)
    num_input = -1 if g.num_input_edges is None else g.num_input_edges
    out.write(_HEADER.pack(
        MAGIC, VERSION, DIRECTED if g.directed else 0, g.n, g.m, num_input, len(arrays)
    ))
    out.write(b"".join(entries))
    position = table_end
    for a in arrays.values():
        out.write(b"\0" * (_aligned(position) - position))
        out.write(a.data)
        position = _aligned(position) + a.nbytes


def read_binary(path, *, directed=None, weighted=None, relabel=None, device="cpu"):
    """Read a ``.wfb`` file; options that differ from the stored graph rebuild it."""
    with open(path, "rb") as f:
        magic = f.read(2)
    if magic == GZIP_MAGIC:
        buffer = np.frombuffer(read_bytes(path), dtype=np.uint8)
    else:
        buffer = np.memmap(path, dtype=np.uint8, mode="r") if os.path.getsize(path) else np.empty(0, np.uint8)
    graph = _decode(buffer, path)
    del buffer
    stored_weighted = graph.weights is not None
    if weighted and not stored_weighted:
        raise GraphFormatError("weighted=True, but the file has no weights", path)
    unchanged = (
        (directed is None or directed == graph.directed)
        and (weighted is None or weighted == stored_weighted)
        and relabel is None
    )
    if unchanged:
        return graph.to(device)
    src, dst, w = caller_arcs(graph, each_edge_once=False)
    arcs = Arcs(src, dst, w, graph.n, graph.directed if directed is None else directed)
    return build(arcs, weighted=weighted, relabel=relabel, device=device, path=path)


def _decode(buffer: np.ndarray, path) -> Graph:
    if buffer.size < _HEADER.size:
        raise GraphFormatError("too short for a wavefront binary graph", path)
    magic, version, flags, n, m, num_input, count = _HEADER.unpack(buffer[: _HEADER.size].tobytes())
    if magic != MAGIC:
        raise GraphFormatError("not a wavefront binary graph (bad magic bytes)", path)
    if version != VERSION:
        raise GraphFormatError(f"binary format version {version}; this wavefront reads {VERSION}", path)
    if flags & ~DIRECTED or n < 0 or m < 0 or num_input < -1 or count > len(ARRAY_NAMES):
        raise GraphFormatError("corrupt header", path)
    table_end = _HEADER.size + _ENTRY.size * count
    if buffer.size < table_end:
        raise GraphFormatError("truncated array table", path)
    arrays = {}
    for k in range(count):
        start = _HEADER.size + _ENTRY.size * k
        raw_name, raw_dtype, length, offset, crc = _ENTRY.unpack(buffer[start:start + _ENTRY.size].tobytes())
        name = raw_name.rstrip(b"\0").decode("latin-1")
        dtype = _dtype(raw_dtype, name, path)
        if name not in ARRAY_NAMES or name in arrays or length < 0 or offset < table_end:
            raise GraphFormatError(f"corrupt array table entry {k}", path)
        end = offset + length * dtype.itemsize
        if end > buffer.size:
            raise GraphFormatError(
                f"truncated: array '{name}' ends at byte {end} but the file has {buffer.size}", path
            )
        chunk = buffer[offset:end]
        if zlib.crc32(chunk) & 0xFFFFFFFF != crc:
            raise GraphFormatError(f"checksum mismatch in array '{name}' (corrupt file)", path)
        arrays[name] = np.array(chunk.view(dtype), dtype=dtype.newbyteorder("="))  # detached from the file
    return _assemble(arrays, n, m, num_input, bool(flags & DIRECTED), path)


def _assemble(arrays, n, m, num_input, directed, path) -> Graph:
    expected = {"indptr": (np.int64, n + 1), "indices": (index_dtype(n), m)}
    if directed:
        expected.update(in_indptr=(np.int64, n + 1), in_indices=(index_dtype(n), m))
    for name, (dtype, length) in expected.items():
        a = arrays.get(name)
        if a is None or a.dtype != dtype or a.size != length:
            raise GraphFormatError(f"array '{name}' is missing or has the wrong type or size", path)
    optional = {"input_degree": (np.int64, n), "labels": (np.int64, n)}
    for name, (dtype, length) in optional.items():
        a = arrays.get(name)
        if a is not None and (a.dtype != dtype or a.size != length):
            raise GraphFormatError(f"array '{name}' has the wrong type or size", path)
    for name in ("weights", "in_weights"):
        a = arrays.get(name)
        if a is not None and (a.dtype not in WEIGHT_DTYPES or a.size != m):
            raise GraphFormatError(f"array '{name}' has the wrong type or size", path)
    pairs = [("indptr", "indices")] + ([("in_indptr", "in_indices")] if directed else [])
    for ptr_name, idx_name in pairs:
        ptr, idx = arrays[ptr_name], arrays[idx_name]
        if ptr[0] != 0 or ptr[-1] != m or (np.diff(ptr) < 0).any() or (
            idx.size and (idx.min() < 0 or idx.max() >= n)
        ):
            raise GraphFormatError(f"arrays '{ptr_name}'/'{idx_name}' do not form a valid CSR", path)
    labels = arrays.get("labels")
    if labels is not None and not np.array_equal(np.sort(labels), np.arange(n)):
        raise GraphFormatError("array 'labels' is not a permutation of the vertex ids", path)
    if directed and (arrays.get("weights") is None) != (arrays.get("in_weights") is None) or (
        directed and "weights" in arrays and arrays["weights"].dtype != arrays["in_weights"].dtype
    ):
        raise GraphFormatError("'weights' and 'in_weights' disagree", path)
    if directed and not _halves_agree(arrays):
        raise GraphFormatError("the in-arcs ('in_indptr', 'in_indices', 'in_weights') are not the out-arcs "
                               "reversed (a file edited or written by another tool?)", path)
    graph = Graph(
        arrays["indptr"], arrays["indices"], n=n, weights=arrays.get("weights"),
        directed=directed, in_indptr=arrays.get("in_indptr"), in_indices=arrays.get("in_indices"),
        in_weights=arrays.get("in_weights"), input_degree=arrays.get("input_degree"),
        num_input_edges=None if num_input < 0 else num_input, labels=labels,
    )
    graph.weight_problem = _weight_problem(graph, path)
    return graph


def _halves_agree(arrays) -> bool:
    """Whether a directed graph's in-arc CSR holds its out-arcs reversed, with
    their weights: equal order-free hashes of both arc lists (O(m), no sort)."""
    from ._kernels import arc_multiset_hash

    def bits(name):
        w = arrays.get(name)
        return np.empty(0, np.uint64) if w is None else w.view(np.uint32 if w.itemsize == 4 else np.uint64)

    out = arc_multiset_hash(arrays["indptr"], arrays["indices"], bits("weights"), False)
    back = arc_multiset_hash(arrays["in_indptr"], arrays["in_indices"], bits("in_weights"), True)
    return out == back


def _weight_problem(graph: Graph, path) -> str | None:
    """The file and its first unusable stored weight (negative, NaN or
    infinite), for the SSSP weight check to quote; None when all are usable
    (two reductions)."""
    from ..graph._csr import first_bad_weight

    k = first_bad_weight(None, None, graph.weights)
    return None if k is None else f"{path}: {graph.describe_arc(k)}"


def _arrays(g: Graph) -> dict:
    arrays = {"indptr": g.indptr, "indices": g.indices, "weights": g.weights}
    if g.directed:
        arrays.update(in_indptr=g.in_indptr, in_indices=g.in_indices, in_weights=g.in_weights)
    arrays.update(input_degree=g.input_degree, labels=g.labels)
    return arrays


def _dtype(raw: bytes, name: str, path) -> np.dtype:
    text = raw.rstrip(b"\0").decode("latin-1")
    allowed = {np.dtype(t).newbyteorder("<").str for t in (np.int32, np.int64, *WEIGHT_DTYPES)}
    if text not in allowed:
        raise GraphFormatError(f"array '{name}' has unsupported dtype {text!r}", path)
    return np.dtype(text)


def _aligned(offset: int) -> int:
    return -(-offset // ALIGN) * ALIGN
