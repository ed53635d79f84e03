"""The ``wavefront`` command line: graph500, bfs, sssp, info, convert, methods, plot.

Each subcommand is one ``run_<name>(args) -> exit status`` function;
:func:`main` parses the arguments and turns wavefront's exceptions into one
line on stderr (``wavefront: error: ...``) and the exit status a shell user
expects:

* 0   success;
* 1   the run failed (a result failed validation, the GPU ran out of memory,
  an output could not be written, an unexpected error);
* 2   a usage error or bad input (argparse's own errors, a missing or
  malformed file, a vertex out of range, unusable weights, an unknown
  method, ``--backend cuda`` where CUDA cannot run);
* 130 interrupted (Ctrl-C); 141 stdout was closed early (``| head``), as a
  process killed by SIGPIPE reports.

``--debug`` (or ``WAVEFRONT_DEBUG=1``) adds the traceback. NumPy is the only
heavy import before a subcommand runs: numba, CuPy, SciPy and rich load
inside the subcommands, so ``wavefront --help`` stays fast.
"""
from __future__ import annotations

import argparse
import inspect
import json
import os
import sys
import time
import uuid
from contextlib import contextmanager
from pathlib import Path

from . import __version__
from ._cli_common import CommandLineError, check_output
from .errors import (
    BackendUnavailableError,
    GraphFormatError,
    HierarchyFileError,
    HostMemoryError,
    MethodLimitError,
    OutputFormatError,
    UnknownMethodError,
    VertexError,
    WavefrontError,
    WeightError,
)
from .plot import NothingToPlotError
from .records import ResultFileError

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130
EXIT_BROKEN_PIPE = 141

RESULT_SUFFIXES = (".npz", ".csv", ".tsv")


BAD_INPUT = (
    CommandLineError,
    NothingToPlotError,
    ResultFileError,
    GraphFormatError,
    VertexError,
    WeightError,
    UnknownMethodError,
    BackendUnavailableError,
    HostMemoryError,
    OutputFormatError,
    HierarchyFileError,
    MethodLimitError,
)


def note(message: str) -> None:
    """A progress line on stderr, so stdout holds only results."""
    print(f"wavefront: {message}", file=sys.stderr, flush=True)


# -- argument types --------------------------------------------------------
def _number(kind, minimum, inclusive, what, finite=False):
    def parse(text):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not {what}") from None
        if value != value or (value < minimum if inclusive else value <= minimum) or (
                finite and value == float("inf")):
            raise argparse.ArgumentTypeError(f"{text!r} is not {what}")
        return value

    return parse


positive_float = _number(float, 0.0, False, "a positive number")
positive_finite_float = _number(float, 0.0, False, "a positive finite number", finite=True)
non_negative_float = _number(float, 0.0, True, "a non-negative number")
non_negative_int = _number(int, 0, True, "a non-negative integer")
positive_int = _number(int, 0, False, "a positive integer")


MAX_DPI = 1200  # a figure is about 10 x 6 inches: 12 000 pixels wide at most


def _dpi(text: str) -> int:
    value = positive_int(text)
    if value > MAX_DPI:
        raise argparse.ArgumentTypeError(f"{text!r} is more than {MAX_DPI} dots per inch")
    return value


def file_format(text: str) -> str:
    """A format name of wavefront.io (or a suffix naming one), checked at parse time."""
    from .io import FORMATS, SUFFIXES

    name = text.lower().lstrip(".")
    if name in FORMATS or f".{name}" in SUFFIXES:
        return name
    raise argparse.ArgumentTypeError(f"unknown format {text!r}; choose one of {', '.join(FORMATS)}")


# -- parser ----------------------------------------------------------------
def build_parser() -> tuple[argparse.ArgumentParser, argparse.ArgumentParser]:
    """The full parser, and the graph500 subparser (filled in only when used)."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--debug", action="store_true", default=argparse.SUPPRESS,
        help="show the traceback of an error (also WAVEFRONT_DEBUG=1)",
    )

    reading = argparse.ArgumentParser(add_help=False)
    reading.add_argument("file", type=Path, help="graph file (.gr, .mtx, edge list, ...; plain or .gz)")
    reading.add_argument("--format", type=file_format, help="file format, when the suffix does not tell it")
    _add_direction(reading, "read the file as")

    searching = argparse.ArgumentParser(add_help=False)
    searching.add_argument(
        "--source", required=True,
        help="vertex to search from, counted from 0 (DIMACS vertex 1 is 0)",
    )
    searching.add_argument(
        "--method", default="auto", help="method name (see `wavefront methods`; default auto)"
    )
    searching.add_argument(
        "--backend", choices=("auto", "cpu", "cuda"), default="auto",
        help="where to run (default auto: CUDA when it works here, else the CPU)",
    )
    searching.add_argument("--trace", action="store_true", help="print the per-level trace table")
    searching.add_argument(
        "--output", type=Path,
        help="write the result: .npz (arrays) or .csv/.tsv (one row per vertex)",
    )
    searching.add_argument(
        "--json", type=Path, metavar="FILE",
        help="write the summary and the per-level trace as JSON (for `wavefront plot`; "
        "schema in docs/guide/plots.md)",
    )
    searching.add_argument("--force", action="store_true", help="replace --output and --json files that exist")

    parser = argparse.ArgumentParser(
        prog="wavefront",
        description="BFS, SSSP and the Graph500 benchmark on CPUs and GPUs.",
    )
    parser.add_argument("--version", action="version", version=f"wavefront {__version__}")
    parser.add_argument("--debug", action="store_true", help="show the traceback of an error")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    graph500 = sub.add_parser(
        "graph500", parents=[common], help="run the Graph500 benchmark (BFS and SSSP kernels)",
        description="Generate a Kronecker graph, build it (timed), run and validate "
        "BFS/SSSP from many roots, and print the Graph500 statistics block.",
    )

    bfs = sub.add_parser(
        "bfs", parents=[common, reading, searching], help="breadth-first search from a vertex",
        description="Breadth-first search from --source; prints vertices reached, depth and time.",
    )
    bfs.add_argument(
        "--policy", choices=("gap", "seed000"),
        help="direction-switch policy of the hybrid (default gap: alpha=15, beta=18; "
        "seed000: alpha=10, beta=14)",
    )
    bfs.add_argument("--alpha", type=positive_float, help="top-down -> bottom-up threshold")
    bfs.add_argument("--beta", type=positive_float, help="bottom-up -> top-down threshold")
    bfs.add_argument(
        "--depth-limit", type=non_negative_int, help="stop after this many levels"
    )
    bfs.set_defaults(run=run_bfs)

    sssp = sub.add_parser(
        "sssp", parents=[common, reading, searching], help="single-source shortest paths",
        description="Shortest paths from --source; unweighted graphs count hops.",
    )
    sssp.add_argument(
        "--cutoff", type=non_negative_float, help="leave vertices farther than this unreached"
    )
    sssp.add_argument("--delta", type=positive_finite_float, help="delta-stepping bucket width")
    sssp.add_argument(
        "--target", help="print the shortest path to this vertex (from 0) and its length"
    )
    sssp.add_argument(
        "--hierarchy", type=Path, metavar="FILE",
        help="the graph's contraction hierarchy (method auto or hierarchy): read from FILE if it exists "
        "(it must be this graph's), else built and written there for the next run",
    )
    sssp.set_defaults(run=run_sssp)

    info = sub.add_parser(
        "info", parents=[common, reading],
        help="size, degrees, weights, components and memory of a graph",
    )
    info.add_argument("--json", action="store_true", help="print JSON instead of text")
    info.set_defaults(run=run_info)

    convert = sub.add_parser(
        "convert", parents=[common], help="convert a graph file to another format",
        description="Read IN and write OUT; formats follow the suffixes unless --from/--to say.",
    )
    convert.add_argument("input", type=Path, metavar="IN")
    convert.add_argument("output", type=Path, metavar="OUT")
    convert.add_argument("--from", dest="format", type=file_format, help="format of IN")
    convert.add_argument("--to", dest="to_format", type=file_format, help="format of OUT")
    convert.add_argument("--force", action="store_true", help="replace OUT if it exists")
    _add_direction(convert, "read IN as")
    convert.set_defaults(run=run_convert)

    methods = sub.add_parser(
        "methods", parents=[common], help="list BFS/SSSP methods per backend and CUDA status"
    )
    methods.set_defaults(run=run_methods)

    from .plot import DEFAULT_DPI, FIGURES

    plot = sub.add_parser(
        "plot", parents=[common], help="draw PNG figures from the JSON of bfs/sssp/graph500 --json",
        description="Draw the figures a result file supports: bfs-levels (frontier, edges "
        "examined and time per BFS level, by direction), sssp-phases (frontier and time per "
        "SSSP phase, by mode, mode switches marked), teps (Graph500 TEPS over the roots, "
        "harmonic mean marked). The traces of several files share one figure, for comparison. "
        "Existing PNGs are kept unless --force is given.",
    )
    plot.add_argument("inputs", nargs="+", type=Path, metavar="RESULT.json",
                      help="files written by bfs --json, sssp --json or graph500 --json")
    plot.add_argument("--figure", action="append", choices=FIGURES,
                      help="draw only this figure (repeatable; default: every one the inputs support)")
    plot.add_argument("-o", "--output", type=Path,
                      help="folder for the PNGs (default: the first input's), or a .png name when "
                      "one figure is drawn; files are named INPUT-FIGURE.png")
    plot.add_argument("--force", action="store_true", help="overwrite existing PNGs")
    plot.add_argument("--title", help="the title of every figure drawn (default: what and where)")
    plot.add_argument("--dpi", type=_dpi, default=DEFAULT_DPI,
                      help=f"pixels per inch, 1 to {MAX_DPI} (default {DEFAULT_DPI})")
    plot.set_defaults(run=run_plot)
    return parser, graph500


def _add_direction(parser, verb: str) -> None:
    group = parser.add_mutually_exclusive_group()
    group.add_argument(
        "--directed", dest="directed", action="store_const", const=True, default=None,
        help=f"{verb} a directed graph",
    )
    group.add_argument(
        "--undirected", dest="directed", action="store_const", const=False,
        help=f"{verb} an undirected graph",
    )


def _subcommand_of(argv: list[str]) -> str | None:
    """The first positional token: the top-level options take no values."""
    return next((a for a in argv if not a.startswith("-")), None)


# -- helpers shared by the subcommands ---------------------------------------
def _existing_file(path: Path) -> None:
    if not path.exists():
        raise CommandLineError(f"{path}: no such file")
    if path.is_dir():
        raise CommandLineError(f"{path}: is a directory, not a graph file")


def _output_target(path: Path | None, suffixes=RESULT_SUFFIXES, force: bool = False, inputs=()) -> Path | None:
    """Check an output path before any work is done on its behalf
    (:func:`._cli_common.check_output`: never an input, never an existing
    file unless ``force``)."""
    if path is None:
        return None
    if suffixes and path.suffix.lower() not in suffixes:
        raise CommandLineError(
            f"{path}: cannot tell the output format; use a name ending in {', '.join(suffixes)}"
        )
    check_output(path, force, inputs)
    return path


@contextmanager
def naming_output(path: Path):
    """Write errors (a full disk, a vanished folder) name the user's path, not
    the temporary file's; they are failures of the machine (exit 1)."""
    try:
        yield
    except OSError as exc:
        if exc.filename == str(path):
            raise
        raise OSError(exc.errno, f"could not write {path}: {exc.strerror or exc}") from exc


@contextmanager
def atomic_path(path: Path):
    """Yield a temporary name next to ``path``; rename it onto ``path`` only on
    success, so a failed or interrupted write never leaves a partial file.
    The temporary name ends with ``path``'s name, keeping its suffixes."""
    partial = path.with_name(f".wavefront-partial-{uuid.uuid4().hex[:12]}-{path.name}")
    try:
        yield partial
        os.replace(partial, path)
    finally:
        if partial.exists():
            partial.unlink()


def _read(args, path: Path):
    from .io import read_graph

    _existing_file(path)
    start = time.perf_counter()
    try:
        graph = read_graph(path, format=args.format, directed=args.directed)
    except OSError as exc:  # unreadable input is bad input, like a missing file
        raise CommandLineError(f"{path}: {exc.strerror or exc}") from exc
    kind = "directed" if graph.directed else "undirected"
    note(
        f"read {path} ({graph.n:,} vertices, {graph.m:,} arcs, {kind}) "
        f"in {time.perf_counter() - start:.2f} s"
    )
    return graph


def _pick_backend(kernel: str, args) -> tuple[str, str]:
    """Resolve --backend and check --method exists there, before any file is read."""
    from . import registry
    from .backends import choose_backend

    backend, reason = choose_backend(args.backend)
    if args.method not in registry.methods(kernel, backend):
        raise UnknownMethodError(
            f"no {kernel} method {args.method!r} on the {backend} backend; choose one of "
            f"{', '.join(registry.methods(kernel, backend))} (see `wavefront methods`)"
        )
    return backend, reason


def _method_options(kernel: str, backend: str, method: str, given: dict) -> dict:
    """The options the user set, refused by name if the method cannot take them."""
    from . import registry

    options = {k: v for k, v in given.items() if v is not None}
    try:
        parameters = inspect.signature(registry.resolve(kernel, backend, method)).parameters
    except (TypeError, ValueError):  # a callable without a signature: let it decide
        return options
    if any(p.kind is p.VAR_KEYWORD for p in parameters.values()):
        return options
    refused = [k for k in options if k not in parameters]
    if refused:
        flags = ", ".join("--" + k.replace("_", "-") for k in refused)
        raise CommandLineError(f"{kernel} method {method!r} on {backend} does not take {flags}")
    return options


def _vertex(graph, text: str, what: str) -> int:
    """A vertex id from the command line, checked against ``graph``."""
    try:
        vertex = int(text)
    except ValueError:
        raise VertexError(f"{what} must be an integer vertex id, got {text!r}") from None
    try:
        graph.internal_id(vertex)
    except VertexError as exc:
        raise VertexError(f"{what}: {exc}") from exc
    return vertex


def _print_trace(trace, title: str) -> None:
    from rich.console import Console

    Console(file=sys.stdout, soft_wrap=False).print(trace.table(title=title))


def _prepare_search(kernel: str, args):
    """Backend, output path and graph for bfs/sssp, failing fast on bad input."""
    backend, reason = _pick_backend(kernel, args)
    _output_target(args.output, force=args.force, inputs=(args.file,))
    _output_target(args.json, suffixes=(), force=args.force, inputs=(args.file,))
    if args.output is not None and args.json is not None and args.output.resolve() == args.json.resolve():
        raise CommandLineError(f"{args.output}: --output and --json name the same file")
    graph = _read(args, args.file)
    source = _vertex(graph, args.source, "--source")
    if backend != graph.device:
        graph = graph.to(backend)
    note(f"{kernel} on {backend} ({reason})")
    return graph, source, backend


def _warm_up(graph, kernel: str, method: str, options: dict) -> float:
    """One-time costs (numba loading its kernels, CUDA compiling them and the
    graph's search structures) paid before the timed search; returns their
    seconds, reported as ``setup_seconds`` beside the search's own. The
    method runs once on a two-vertex graph with ``graph``'s array types."""
    import numpy as np

    from . import bfs, sssp
    from .backends import prepare, synchronize
    from .graph.container import Graph

    def like(array, values):
        return None if array is None else np.asarray(values, dtype=array.dtype)

    start = time.perf_counter()
    if graph.directed:
        arrays = dict(indptr=like(graph.indptr, [0, 1, 1]), indices=like(graph.indices, [1]),
                      weights=like(graph.weights, [1]), in_indptr=like(graph.in_indptr, [0, 0, 1]),
                      in_indices=like(graph.in_indices, [0]), in_weights=like(graph.in_weights, [1]))
    else:  # an undirected CSR stores each edge both ways
        arrays = dict(indptr=like(graph.indptr, [0, 1, 2]), indices=like(graph.indices, [1, 0]),
                      weights=like(graph.weights, [1, 1]))
    tiny = Graph(n=2, directed=graph.directed, check=False, **arrays).to(graph.device)
    prepare(tiny, (kernel,))
    (bfs if kernel == "bfs" else sssp)(tiny, 0, method=method, **options)
    prepare(graph, (kernel,))
    synchronize(graph.device)
    return time.perf_counter() - start


# -- result files ------------------------------------------------------------
def write_result(path: Path, source: int, parents, value_name: str, values) -> None:
    """Write a search result atomically to .npz, .csv or .tsv.

    ``.npz`` holds ``source``, ``parents`` and ``<value_name>s`` (``levels``
    or ``distances``). Text files have a header row and one row per vertex:
    ``vertex``, ``<value_name>``, ``parent``; unreached vertices read -1
    (level, parent) or inf (distance). Floats are written to read back exactly.
    """
    import numpy as np

    suffix = path.suffix.lower()
    with naming_output(path), atomic_path(path) as partial:
        if suffix == ".npz":
            with open(partial, "wb") as f:
                np.savez(f, source=np.int64(source), parents=parents, **{value_name + "s": values})
            return
        sep = "," if suffix == ".csv" else "\t"
        # %r of a float64 is its shortest exact form; 9 digits pin down a float32.
        value_format = {"i": "%d", "u": "%d"}.get(values.dtype.kind) or (
            "%.9g" if values.dtype == np.float32 else "%r"
        )
        row = sep.join(["%d", value_format, "%d"]) + "\n"
        n, chunk = values.shape[0], 1 << 16
        with open(partial, "w", encoding="ascii", newline="\n") as f:
            f.write(sep.join(["vertex", value_name, "parent"]) + "\n")
            for lo in range(0, n, chunk):
                hi = min(lo + chunk, n)
                rows = zip(range(lo, hi), values[lo:hi].tolist(), parents[lo:hi].tolist())
                f.write("".join(row % r for r in rows))


def write_json_record(path: Path, kernel: str, args, graph, result, options: dict,
                      summary: dict) -> None:
    """Write the search's ``wavefront.search`` record (wavefront.records) atomically."""
    from .graph500.driver import device_name
    from .records import dumps, search_record

    described = {"file": str(args.file), "vertices": graph.n, "arcs": graph.m,
                 "directed": graph.directed, "weighted": graph.weighted}
    record = search_record(kernel, result, graph=described, summary=summary, options=options,
                           device=device_name(result.backend), version=__version__)
    with naming_output(path), atomic_path(path) as partial:
        partial.write_text(dumps(record), encoding="utf-8")
    note(f"wrote {path}")


# -- subcommands -------------------------------------------------------------
def run_bfs(args) -> int:
    from . import bfs

    graph, source, backend = _prepare_search("bfs", args)
    options = _method_options(
        "bfs", backend, args.method,
        {"policy": args.policy, "alpha": args.alpha, "beta": args.beta,
         "depth_limit": args.depth_limit},
    )
    setup = _warm_up(graph, "bfs", args.method, options)
    result = bfs(graph, source, method=args.method, **options)
    edges = graph.traversed_edges(result.reached)
    result = result.to("cpu")
    print(f"source: {source}")
    print(f"vertices: {graph.n}")
    print(f"reached: {result.num_reached}")
    print(f"depth: {result.depth}")
    print(f"edges: {edges}")
    print(f"seconds: {result.seconds:.6f}")
    print(f"setup_seconds: {setup:.6f}")
    if result.seconds > 0:
        print(f"MTEPS: {edges / result.seconds / 1e6:.3f}")
    print(f"method: {result.method or args.method}")
    print(f"backend: {backend}")
    if args.trace:
        _print_trace(result.trace, f"bfs from {source}")
    if args.output is not None:
        write_result(args.output, source, result.parents, "level", result.levels)
        note(f"wrote {args.output}")
    if args.json is not None:
        summary = {"reached": result.num_reached, "depth": result.depth, "edges": int(edges),
                   "seconds": result.seconds, "setup_seconds": setup,
                   "TEPS": edges / result.seconds if result.seconds > 0 else None}
        write_json_record(args.json, "bfs", args, graph, result, options, summary)
    return EXIT_OK


def run_sssp(args) -> int:
    import numpy as np

    from . import path, sssp

    if args.hierarchy is not None:  # before the graph is read
        _hierarchy_target(args.hierarchy, args.method)
    graph, source, backend = _prepare_search("sssp", args)
    target = None if args.target is None else _vertex(graph, args.target, "--target")
    options = _method_options("sssp", backend, args.method,
                              {"cutoff": args.cutoff, "delta": args.delta})
    hierarchy_seconds = 0.0 if args.hierarchy is None else _hierarchy_file(graph, args.hierarchy)
    setup = hierarchy_seconds + _warm_up(graph, "sssp", args.method, options)
    result = sssp(graph, source, method=args.method, **options).to("cpu")
    finite = result.distances[np.isfinite(result.distances)]
    print(f"source: {source}")
    print(f"vertices: {graph.n}")
    print(f"reached: {result.num_reached}")
    print(f"max_distance: {finite.max()}")
    print(f"seconds: {result.seconds:.6f}")
    print(f"setup_seconds: {setup:.6f}")
    print(f"method: {result.method or args.method}")
    print(f"backend: {backend}")
    if target is not None:
        print(f"target: {target}")
        if result.parents[target] < 0:
            print("distance: inf")
            print(f"path: none ({target} is not reachable from {source})")
        else:
            route = path(result, target)
            print(f"distance: {result.distances[target]}")
            print(f"hops: {len(route) - 1}")
            print("path: " + " -> ".join(map(str, route.tolist())))
    if args.trace:
        _print_trace(result.trace, f"sssp from {source}")
    if args.output is not None:
        write_result(args.output, source, result.parents, "distance", result.distances)
        note(f"wrote {args.output}")
    if args.json is not None:
        summary = {"reached": result.num_reached, "max_distance": finite.max().item(),
                   "seconds": result.seconds, "setup_seconds": setup}
        write_json_record(args.json, "sssp", args, graph, result, options, summary)
    return EXIT_OK


def _hierarchy_target(path: Path, method: str) -> None:
    """Check ``--hierarchy FILE`` before any work: a method that uses it, and
    a file to read or a place to write one."""
    if method not in ("auto", "hierarchy"):
        raise CommandLineError(f"--hierarchy is for --method auto or hierarchy, not {method!r}")
    if path.is_dir():
        raise CommandLineError(f"{path}: is a directory (--hierarchy takes a file)")
    if not path.exists():
        _output_target(path, suffixes=())


def _hierarchy_file(graph, path: Path) -> float:
    """``--hierarchy FILE``: the graph's contraction hierarchy read from
    ``path``, or built and written there when no file is; returns the seconds
    it took (part of the setup, not of the search)."""
    from .graph.hierarchy import load_hierarchy, save_hierarchy

    start = time.perf_counter()
    if path.exists():
        h = load_hierarchy(graph, path)
        note(f"read the hierarchy ({h.levels} levels, {h.arcs:,} arcs) from {path} in "
             f"{time.perf_counter() - start:.2f} s")
    else:
        with naming_output(path):
            h = save_hierarchy(graph, path)
        note(f"built the hierarchy ({h.levels} levels, {h.arcs:,} arcs) in {h.seconds:.2f} s; wrote {path}")
    return time.perf_counter() - start


def graph_summary(graph) -> dict:
    """Size, weights, degrees, components and memory of a graph, as plain values."""
    import numpy as np
    import scipy.sparse as sp
    from scipy.sparse.csgraph import connected_components

    g = graph.to("cpu")
    summary = {
        "vertices": g.n,
        "arcs": g.m,
        "edges": g.m if g.directed else g.m // 2,
        "directed": g.directed,
        "weighted": g.weighted,
    }
    if g.weighted:
        w = g.weights
        summary["weight_dtype"] = str(w.dtype)
        if w.dtype.kind == "f":  # NaN and infinite weights are counted, not reported as the extremes
            finite = g.xp.isfinite(w)
            summary["weight_nonfinite"] = int(w.size - int(finite.sum()))
            w = w[finite]
        summary["weight_min"] = w.min().item() if w.size else None
        summary["weight_max"] = w.max().item() if w.size else None
    out_degree = g.degree()
    degrees = {"degree": out_degree} if not g.directed else {
        "out_degree": out_degree, "in_degree": g.in_degree()
    }
    for name, d in degrees.items():
        summary[name] = {
            "min": int(d.min()) if g.n else 0,
            "mean": float(d.mean()) if g.n else 0.0,
            "median": float(np.median(d)) if g.n else 0.0,
            "max": int(d.max()) if g.n else 0,
        }
    total_degree = out_degree + (g.in_degree() if g.directed else 0)
    summary["isolated_vertices"] = int((total_degree == 0).sum())
    structure = sp.csr_array(
        (np.ones(g.m, dtype=np.int8), g.indices, g.indptr), shape=(g.n, g.n)
    )
    kinds = ("weak", "strong") if g.directed else ("weak",)
    for kind in kinds:
        count, labels = connected_components(structure, directed=g.directed, connection=kind)
        key = "components" if not g.directed else f"{kind}_components"
        summary[key] = {
            "count": int(count),
            "giant_size": int(np.bincount(labels).max()) if g.n else 0,
        }
    summary["memory_bytes"] = g.nbytes
    return summary


def _summary_lines(summary: dict) -> list[str]:
    lines = []
    for key, value in summary.items():
        if isinstance(value, dict):
            value = ", ".join(f"{k} {_human(v)}" for k, v in value.items())
        elif key == "memory_bytes":
            key, value = "memory", f"{value / 2**20:.2f} MiB ({value:,} bytes)"
        else:
            value = _human(value)
        lines.append(f"{key}: {value}")
    return lines


def _human(value) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)


def run_info(args) -> int:
    graph = _read(args, args.file)
    summary = graph_summary(graph)
    if args.json:
        print(json.dumps({"file": str(args.file), **summary}, indent=2, allow_nan=False))
    else:
        print(f"file: {args.file}")
        print("\n".join(_summary_lines(summary)))
    return EXIT_OK


def run_convert(args) -> int:
    from .io import write_graph

    if args.input.resolve() == args.output.resolve():
        raise CommandLineError(f"{args.output}: IN and OUT are the same file")
    _output_target(args.output, suffixes=(), force=args.force)
    graph = _read(args, args.input)
    start = time.perf_counter()
    with naming_output(args.output):
        write_graph(graph, args.output, format=args.to_format)  # atomic: see wavefront.io
    note(f"wrote {args.output} in {time.perf_counter() - start:.2f} s")
    return EXIT_OK


def run_methods(args) -> int:
    from . import registry
    from .backends import BACKENDS, cuda_status

    for kernel in registry.KERNELS:
        print(f"{kernel}:")
        for backend in BACKENDS:
            names = registry.methods(kernel, backend)
            print(f"  {backend}: {', '.join(names) if names else '(none yet)'}")
    ok, reason = cuda_status()
    print(f"cuda: {'available' if ok else 'unavailable'} ({reason})")
    return EXIT_OK


def run_plot(args) -> int:
    from . import plot
    from .records import read_record

    plot.require_matplotlib()  # before any file is read: the one fix is an install
    records = [read_record(path) for path in args.inputs]
    data = plot.figure_inputs(records)
    targets = _plot_targets(args, plot.figure_names(data, args.figure))
    for name, path in targets.items():
        figure = plot.DRAW[name](*data[name], title=args.title)
        with naming_output(path), atomic_path(path) as partial:
            plot.save(figure, partial, dpi=args.dpi)
        print(path)
    return EXIT_OK


def _plot_targets(args, names: list) -> dict:
    """The PNG each figure goes to, every one checked before any is drawn:
    its folder takes files, and it does not exist yet unless --force."""
    out, stem = args.output, args.inputs[0].stem
    if out is not None and out.suffix.lower() == ".png" and not out.is_dir():
        if len(names) != 1:
            raise CommandLineError(
                f"{out}: one file name for {len(names)} figures ({', '.join(names)}); "
                "give a folder, or choose one with --figure"
            )
        targets = {names[0]: out}
    else:
        folder = args.inputs[0].parent if out is None else out
        if not folder.is_dir():
            raise CommandLineError(
                f"{folder}: no such folder (--output takes a folder, or a .png name for one figure)"
            )
        targets = {name: folder / f"{stem}-{name}.png" for name in names}
    for path in targets.values():
        _output_target(path, suffixes=(".png",), force=True)  # existing PNGs: refused together below
    existing = [str(path) for path in targets.values() if path.exists()]
    if existing and not args.force:
        raise CommandLineError(f"{', '.join(existing)} already exists; --force overwrites")
    return targets


def _run_graph500(args) -> int:
    from .graph500.cli import run_from_args

    return int(run_from_args(args))


# -- entry point -------------------------------------------------------------
def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status (see the module docstring)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    parser, graph500 = build_parser()
    debug = "--debug" in argv or os.environ.get("WAVEFRONT_DEBUG", "") not in ("", "0")
    try:
        if _subcommand_of(argv) == "graph500":
            from .graph500.cli import add_arguments

            add_arguments(graph500)
            graph500.set_defaults(run=_run_graph500)
        try:
            args = parser.parse_args(argv)
        except SystemExit as exc:  # --help, --version, or argparse's usage error (2)
            return EXIT_OK if exc.code is None else int(exc.code)
        if args.command is None:
            parser.print_help(sys.stderr)
            return EXIT_USAGE
        status = args.run(args)
        sys.stdout.flush()  # a closed pipe fails here, inside the handler
        return status
    except KeyboardInterrupt:
        print("wavefront: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        _silence_stdout()
        return EXIT_BROKEN_PIPE
    except BAD_INPUT as exc:
        return _report(exc, debug, EXIT_USAGE)
    except Exception as exc:
        return _report(exc, debug, EXIT_FAILED)


# The library's messages name its parameters; on the command line the same
# choices are flags.
_API_TO_FLAGS = (
    ("use backend='cpu'", "use --backend cpu"),
    ("run it with backend='cpu'", "run it with --backend cpu"),
    ("pass format= one of", "give the format with --format (convert: --from for IN, --to for OUT), one of"),
)


def command_line_message(message: str) -> str:
    """``message`` with the library's parameter names replaced by the CLI's flags."""
    for api, flag in _API_TO_FLAGS:
        message = message.replace(api, flag)
    return message


def _report(exc: BaseException, debug: bool, status: int) -> int:
    if debug:
        import traceback

        traceback.print_exc()
    message = command_line_message(str(exc)) if isinstance(exc, (WavefrontError, OSError)) else (
        f"{type(exc).__name__}: {exc}"
    )
    hint = "" if debug or status == EXIT_USAGE else " (run with --debug for the traceback)"
    print(f"wavefront: error: {message}{hint}", file=sys.stderr)
    return status


def _silence_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's final flush cannot fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # stdout without a file descriptor
        pass
