"""Seed 001 fig. 6 on the road-like graph: time per phase of bellman-ford
("conventional"), frontier ("selection") and adaptive ("proposal") from one
source, with the vertices each phase starts from and adaptive's switches.

    PYTHONPATH=. python benchmarks/plot_phases.py --out phases --png docs/sssp_phases.png \
        [--thresholds-us 23.6,21.3]

Generates ``road_like(--nodes)`` on the GPU, runs each method once untimed
(for adaptive this also calibrates its thresholds) and once traced, and
writes each traced search to ``--out/<method>.json`` as the same
``wavefront.search`` record ``wavefront sssp --json`` writes. The figure is
``wavefront plot``'s sssp-phases. ``--thresholds-us UP,DOWN`` gives
adaptive fixed thresholds instead of its calibration, which on an H200 now
keeps every phase all-vertex (docs/decisions/cuda-sssp.md): the figure then
shows no switch. Redraw saved records without a GPU with

    wavefront plot phases/bellman-ford.json phases/frontier.json phases/adaptive.json \\
        --figure sssp-phases -o docs/sssp_phases.png --force

The command line alone gives the same records from a graph file:
``wavefront sssp FILE --source 0 --backend cuda --method M --json M.json``.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

METHODS = {"bellman-ford": "conventional", "frontier": "selection", "adaptive": "proposal"}


def collect(nodes: int, seed: int, source: int, out: Path, thresholds=None) -> list[Path]:
    import numpy as np

    import wavefront as wf
    from wavefront.backends.cuda.sssp_harish import calibrated_thresholds
    from wavefront.generators import road_like
    from wavefront.graph500.driver import device_name
    from wavefront.records import dumps, search_record

    g = road_like(nodes, seed=seed, device="cuda")
    described = {"file": f"road_like({nodes:,}, seed={seed})", "vertices": g.n, "arcs": g.m,
                 "directed": g.directed, "weighted": g.weighted}
    paths = []
    for method, seed_name in METHODS.items():
        options = {"thresholds": thresholds} if method == "adaptive" and thresholds else {}
        wf.sssp(g, source, method=method, **options)  # warm-up; calibrates adaptive
        r = wf.sssp(g, source, method=method, **options).to("cpu")
        finite = r.distances[np.isfinite(r.distances)]
        summary = {"reached": r.num_reached, "max_distance": finite.max().item(),
                   "seconds": r.seconds}
        record = search_record("sssp", r, graph=described, summary=summary, options=options,
                               device=device_name("cuda"), version=wf.__version__)
        path = out / f"{method}.json"
        path.write_text(dumps(record))
        paths.append(path)
        kinds = {}
        for row in r.trace:
            kinds[row.kind] = kinds.get(row.kind, 0) + 1
        print(f"{method:<13} ({seed_name:<12}) {r.seconds * 1e3:8.2f} ms  {kinds}")
    up, down = thresholds or calibrated_thresholds(g, source)
    given = "given" if thresholds else "calibrated"
    print(f"adaptive thresholds up/down ({given}): {up * 1e6:.1f} / {down * 1e6:.1f} us")
    return paths


def thresholds_us(text: str) -> tuple[float, float]:
    try:
        up, down = (float(v) * 1e-6 for v in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected UP,DOWN in microseconds, got {text!r}") from None
    return up, down


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nodes", type=int, default=1_400_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--source", type=int, default=0)
    ap.add_argument("--out", type=Path, default=Path("phases"), help="folder for the JSON records")
    ap.add_argument("--png", type=Path, help="draw the figure here (overwrites)")
    ap.add_argument("--thresholds-us", type=thresholds_us, metavar="UP,DOWN",
                    help="adaptive's switch thresholds in microseconds (default: calibrated)")
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    paths = collect(args.nodes, args.seed, args.source, args.out, args.thresholds_us)
    if args.png:
        from wavefront import plot
        from wavefront.records import read_record

        traces = [read_record(p).traces[0] for p in paths]
        plot.save(plot.sssp_phases(*traces, title=f"Seed 001 fig. 6: {traces[0].context}"), args.png)
        print(f"wrote {args.png}")


if __name__ == "__main__":
    main()
