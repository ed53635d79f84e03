"""Reading and writing graph files: wavefront beside pyarrow.csv, pandas and SciPy.

    python benchmarks/io.py [--edges 20000000] [--vertices 2000000] [--scale 22] [--folder DIR]

Generates a weighted edge list of ``--edges`` random edges (uniform ids in
``[0, --vertices)``, integer weights in ``[1, 2**24)``) and writes it as
``.el``, ``.csv``, ``.gr``, ``.mtx`` and ``.el.gz``, plus an unweighted
Graph500 Kronecker edge list of SCALE ``--scale`` (``--scale 0`` skips it).
Each measurement runs in a fresh subprocess, after a warm-up read of a small
file of the same format (numba's cached kernels load there), and reports its wall time and
the process's peak RSS (``VmHWM``: unlike ``ru_maxrss`` it does not inherit
the parent's size across fork and exec; the files are generated in a
subprocess too, so the parent stays small):

* wavefront ``read_graph`` (parse + CSR build) and ``parse_arcs`` (parse only);
* wavefront ``write_graph`` of the graph read from ``.el`` (loaded from ``.wfb``);
* ``pyarrow.csv.read_csv`` (parse only) and ``write_csv`` of the very columns
  wavefront writes; pandas ``read_csv`` (C engine);
* ``scipy.io.mmread`` / ``mmwrite`` for ``.mtx``; SciPy's CSR build
  (``coo -> tocsr`` + ``sum_duplicates``) of the same arcs, symmetrized as
  wavefront builds them, timed alone.

One markdown table: each cell is ``wall seconds (CPU seconds, all threads) /
peak RSS MB (+ growth during the measured step)``; the best of ``--repeat``
runs by wall time. On a shared machine CPU seconds move less than wall time; "graph MB" is the built Graph's ``nbytes``, and "read RSS /
graph" wavefront's read growth over it (the interpreter, numpy, numba and
their caches before the read are not the read's memory).
"""
from __future__ import annotations

import argparse
import gzip
import importlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from benchmarks._common import reset_peak, status_mb  # noqa: E402

FORMATS = ("el", "csv", "gr", "mtx", "el.gz", "kron.el")
COLUMNS = (
    ("wf-read", "wavefront read"), ("wf-parse", "wavefront parse"), ("sp-build", "SciPy CSR build"),
    ("pa-read", "pyarrow read_csv"), ("pd-read", "pandas read_csv"), ("sp-mmread", "scipy mmread"),
    ("wf-write", "wavefront write"), ("pa-write", "pyarrow write_csv"), ("sp-mmwrite", "scipy mmwrite"),
)
# Which measurements apply to which file.
APPLIES = {
    "el": {"wf-read", "wf-parse", "sp-build", "pa-read", "pd-read", "wf-write", "pa-write"},
    "csv": {"wf-read", "wf-parse", "sp-build", "pa-read", "pd-read", "wf-write", "pa-write"},
    "gr": {"wf-read", "wf-parse", "sp-build", "pa-read", "pd-read", "wf-write", "pa-write"},
    "mtx": {"wf-read", "wf-parse", "sp-build", "pa-read", "sp-mmread", "wf-write", "pa-write", "sp-mmwrite"},
    "el.gz": {"wf-read", "wf-parse", "pa-read", "pd-read"},
    "kron.el": {"wf-read", "wf-parse", "sp-build", "pa-read", "pd-read"},
}
PRELOAD = {
    "pa-read": ("pyarrow.csv",), "pa-write": ("pyarrow", "pyarrow.csv"), "pd-read": ("pandas",),
    "sp-mmread": ("scipy.io",), "sp-mmwrite": ("scipy.io", "scipy.sparse"), "sp-build": ("scipy.sparse",),
}
HEADER_LINES = {"gr": 2, "mtx": 2}  # lines before the data in the generated files
WEIGHT_BOUND = 1 << 24


# -- generating the files -----------------------------------------------------------

def generate(folder: Path, edges: int, vertices: int, scale: int, seed: int = 1) -> dict:
    """Write the benchmark files (unless present) and return {format: path}."""
    from wavefront.io._common import write_rows

    rng = np.random.default_rng(seed)
    src = rng.integers(0, vertices, edges, dtype=np.int64)
    dst = rng.integers(0, vertices, edges, dtype=np.int64)
    weights = rng.integers(1, WEIGHT_BOUND, edges, dtype=np.int64)

    def pieces(a, b, w, rows=1 << 21):
        for lo in range(0, a.size, rows):
            yield a[lo:lo + rows], b[lo:lo + rows], None if w is None else w[lo:lo + rows]

    folder.mkdir(parents=True, exist_ok=True)
    files = {fmt: folder / f"big.{fmt}" for fmt in FORMATS if fmt != "kron.el"}
    heads = {
        "el": b"", "csv": b"", "el.gz": b"",
        "gr": f"c random graph\np sp {vertices} {edges}\n".encode(),
        "mtx": f"%%MatrixMarket matrix coordinate integer general\n{vertices} {vertices} {edges}\n".encode(),
    }
    for fmt, path in files.items():
        if path.exists() or fmt == "el.gz":
            continue
        start = time.perf_counter()
        with open(path, "wb") as out:
            out.write(heads[fmt])
            write_rows(out, pieces(src, dst, weights), edges,
                       prefix=b"a " if fmt == "gr" else b"", separator=b"," if fmt == "csv" else b" ",
                       shift=1 if fmt in ("gr", "mtx") else 0)
        print(f"wrote {path} ({path.stat().st_size / 1e6:.0f} MB) in {time.perf_counter() - start:.1f} s",
              file=sys.stderr)
    if not files["el.gz"].exists():
        with open(files["el"], "rb") as plain, gzip.open(files["el.gz"], "wb", compresslevel=1) as packed:
            shutil.copyfileobj(plain, packed, 16 << 20)
    if scale:
        files["kron.el"] = folder / f"kron{scale}.el"
        if not files["kron.el"].exists():
            from wavefront.generators.kronecker import kronecker_chunks

            with open(files["kron.el"], "wb") as out:
                for s, d, _ in kronecker_chunks(scale, 16, seed):
                    write_rows(out, pieces(s, d, None), s.size)
    return files


# -- one measurement, in its own process ---------------------------------------------

def _pyarrow_options(fmt: str):
    import pyarrow.csv as pcsv

    base = fmt.replace(".gz", "").replace("kron.", "")
    names = {"gr": ["a", "u", "v", "w"], "mtx": ["u", "v", "w"]}.get(base)
    if names is None:
        names = ["u", "v"] if fmt == "kron.el" else ["u", "v", "w"]
    return (
        pcsv.ReadOptions(column_names=names, skip_rows=HEADER_LINES.get(base, 0), block_size=16 << 20),
        pcsv.ParseOptions(delimiter="," if base == "csv" else " "),
    )


def _written_columns(graph, fmt: str):
    """The columns wavefront writes for ``fmt`` (ids already shifted), outside any timing."""
    from wavefront.io._common import caller_arcs

    src, dst, weights = caller_arcs(graph, each_edge_once=fmt != "gr")
    if fmt in ("gr", "mtx"):
        src, dst = src + 1, dst + 1
    return src, dst, weights


def measure(kind: str, fmt: str, path: str, wfb: str | None, tiny: str) -> dict:
    """Run one measurement; returns seconds and memory (MB)."""
    from wavefront.io import parse_arcs, read_graph, write_graph

    if kind in ("wf-read", "wf-parse"):
        # one untimed run of the same call: numba compiles (or loads) the kernels
        # for these dtypes and sizes (a small file takes other paths), then the
        # peak is reset to what is still held
        (read_graph if kind == "wf-read" else parse_arcs)(path)
        reset_peak()
    else:
        read_graph(tiny)  # warm-up on a small file of the same format
    graph_mb = None
    setup = None
    if kind in ("wf-write", "pa-write", "sp-mmwrite"):
        graph = read_graph(wfb)
        if kind != "wf-write":
            setup = _written_columns(graph, fmt)
    if kind == "sp-build":
        import pyarrow.csv as pcsv

        table = pcsv.read_csv(path, *_pyarrow_options(fmt))
        src, dst = table["u"].to_numpy(), table["v"].to_numpy()
        weights = table["w"].to_numpy() if "w" in table.column_names else np.ones(src.size, np.int8)
        del table
        if fmt in ("gr", "mtx"):
            src, dst = src - 1, dst - 1
        n = int(max(src.max(), dst.max())) + 1
        directed = fmt in ("gr", "mtx")
    for name in PRELOAD.get(kind, ()):  # imports stay out of the timing
        importlib.import_module(name)
    before = status_mb("VmRSS")
    out = tempfile.mktemp(dir=os.path.dirname(path), suffix="." + fmt)
    cpu = time.process_time()
    start = time.perf_counter()
    if kind == "wf-read":
        g = read_graph(path)
        graph_mb = g.nbytes / 2**20
    elif kind == "wf-parse":
        parse_arcs(path)
    elif kind == "wf-write":
        write_graph(graph, out)
    elif kind == "pa-read":
        import pyarrow.csv as pcsv

        pcsv.read_csv(path, *_pyarrow_options(fmt))
    elif kind == "pa-write":
        import pyarrow as pa
        import pyarrow.csv as pcsv

        columns = {"u": setup[0], "v": setup[1]}
        if setup[2] is not None:
            columns["w"] = setup[2]
        pcsv.write_csv(pa.table(columns), out, pcsv.WriteOptions(
            include_header=False, delimiter="," if fmt == "csv" else " ", quoting_style="none"))
    elif kind == "pd-read":
        import pandas as pd

        base = fmt.replace(".gz", "").replace("kron.", "")
        pd.read_csv(path, sep="," if base == "csv" else " ", header=None, engine="c",
                    skiprows=HEADER_LINES.get(base, 0), comment="#" if base != "gr" else None)
    elif kind == "sp-mmread":
        import scipy.io

        scipy.io.mmread(path)
    elif kind == "sp-mmwrite":
        import scipy.io
        import scipy.sparse as sp

        src, dst, weights = setup
        n = graph.n
        matrix = sp.coo_array((weights if weights is not None else np.ones(src.size), (src - 1, dst - 1)),
                              shape=(n, n))
        scipy.io.mmwrite(out, matrix)
    elif kind == "sp-build":
        import scipy.sparse as sp

        if not directed:
            src, dst = np.concatenate([src, dst]), np.concatenate([dst, src])
            weights = np.concatenate([weights, weights])
        keep = src != dst
        csr = sp.coo_array((weights[keep], (src[keep], dst[keep])), shape=(n, n)).tocsr()
        csr.sum_duplicates()
    seconds = time.perf_counter() - start
    cpu = time.process_time() - cpu
    if os.path.exists(out):
        os.unlink(out)
    peak = status_mb("VmHWM")
    return {"seconds": seconds, "cpu": cpu, "peak_mb": peak, "before_mb": before, "graph_mb": graph_mb}


def run_one(kind: str, fmt: str, path: Path, wfb: Path, tiny: Path, repeat: int) -> dict | None:
    best = None
    for _ in range(repeat):
        done = subprocess.run(
            [sys.executable, __file__, "--measure", kind, fmt, str(path), str(wfb), str(tiny)],
            capture_output=True, text=True, check=False,
        )
        if done.returncode != 0:
            print(f"{kind} {fmt} failed:\n{done.stderr[-2000:]}", file=sys.stderr)
            return None
        result = json.loads(done.stdout.strip().splitlines()[-1])
        if best is None or result["seconds"] < best["seconds"]:
            best = result
    print(f"{fmt:8} {kind:10} {best['seconds']:7.2f} s {best['cpu']:7.2f} cpu-s {best['peak_mb']:7.0f} MB",
          file=sys.stderr)
    return best


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edges", type=int, default=20_000_000)
    parser.add_argument("--vertices", type=int, default=None, help="default: edges / 10")
    parser.add_argument("--scale", type=int, default=22, help="Kronecker SCALE (0: none)")
    parser.add_argument("--folder", type=Path, default=None, help="where the files go (kept)")
    parser.add_argument("--repeat", type=int, default=1, help="best of this many runs")
    parser.add_argument("--only", nargs="*", default=None, help="formats to measure")
    parser.add_argument("--measure", nargs=5, help=argparse.SUPPRESS)
    parser.add_argument("--generate", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.measure:
        print(json.dumps(measure(*args.measure)))
        return 0
    vertices = args.vertices or max(args.edges // 10, 2)
    folder = args.folder or Path(tempfile.mkdtemp(prefix="wavefront-io-"))
    folder.mkdir(parents=True, exist_ok=True)
    if args.generate:
        generate(folder / "warm", 2000, 200, min(args.scale, 8))
        files = generate(folder, args.edges, vertices, args.scale)
        wfb = folder / "big.wfb"
        if not wfb.exists():
            import wavefront as wf

            wf.write_graph(wf.read_graph(files["el"]), wfb)
        print(json.dumps({fmt: str(path) for fmt, path in files.items()}))
        return 0

    made = subprocess.run(
        [sys.executable, __file__, "--generate", "--folder", str(folder), "--edges", str(args.edges),
         "--vertices", str(vertices), "--scale", str(args.scale)],
        stdout=subprocess.PIPE, text=True, check=True,
    )
    files = {fmt: Path(path) for fmt, path in json.loads(made.stdout.strip().splitlines()[-1]).items()}
    wfb = folder / "big.wfb"
    rows = []
    for fmt in args.only or FORMATS:
        if fmt not in files:
            continue
        tiny = folder / "warm" / files[fmt].name.replace("kron" + str(args.scale), "kron" + str(min(args.scale, 8)))
        cells = {kind: run_one(kind, fmt, files[fmt], wfb, tiny, args.repeat)
                 for kind, _ in COLUMNS if kind in APPLIES[fmt]}
        rows.append((fmt, files[fmt].stat().st_size, cells))

    import numba

    print(f"\n{args.edges:,} random weighted edges on {vertices:,} vertices; Kronecker SCALE {args.scale} "
          f"(edgefactor 16, unweighted). {os.cpu_count()} cores, numba {numba.get_num_threads()} threads. "
          "Cells: wall s (CPU s) / peak RSS MB (+growth during the step), best of "
          f"{args.repeat} by wall time.\n")
    print("| file | MB | " + " | ".join(title for _, title in COLUMNS) + " | graph MB | read RSS / graph |")
    print("|---" * (len(COLUMNS) + 4) + "|")
    for fmt, size, cells in rows:
        shown = []
        for kind, _ in COLUMNS:
            c = cells.get(kind)
            shown.append("–" if c is None else f"{c['seconds']:.2f} ({c['cpu']:.2f}) s / "
                         f"{c['peak_mb']:.0f} (+{c['peak_mb'] - c['before_mb']:.0f})")
        read = cells.get("wf-read")
        graph = "–" if not read or not read["graph_mb"] else f"{read['graph_mb']:.0f}"
        ratio = "–" if graph == "–" else f"{(read['peak_mb'] - read['before_mb']) / read['graph_mb']:.2f}"
        print(f"| {fmt} | {size / 1e6:.0f} | " + " | ".join(shown) + f" | {graph} | {ratio} |")
    if args.folder is None:
        shutil.rmtree(folder)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
