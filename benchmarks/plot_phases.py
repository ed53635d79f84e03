"""Seed 001 fig. 6 on the road-like graph: time per phase of bellman-ford
("conventional"), frontier ("selection") and adaptive ("proposal") from one
source, with the number of vertices each phase starts from (updated by the
phase before).

    PYTHONPATH=. python benchmarks/plot_phases.py --json phases.json --png docs/sssp_phases.png

Runs the three searches on the GPU and writes the traces to --json; draws the
PNG with matplotlib when it is installed. ``--from-json`` redraws a saved run
(no GPU needed).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

METHODS = {"bellman-ford": "conventional", "frontier": "selection", "adaptive": "proposal"}


def collect(nodes: int, seed: int, source: int) -> dict:
    import cupy

    import wavefront as wf
    from wavefront.generators import road_like

    g = road_like(nodes, seed=seed).to("cuda")
    props = cupy.cuda.runtime.getDeviceProperties(0)
    name = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
    runs = {}
    for method in METHODS:
        wf.sssp(g, source, method=method)  # warm-up; calibrates adaptive
        r = wf.sssp(g, source, method=method)
        runs[method] = {
            "seconds": r.seconds,
            "phases": [[row.kind, row.frontier, row.seconds] for row in r.trace],
        }
    from wavefront.backends.cuda.sssp_harish import calibrated_thresholds

    up, down = calibrated_thresholds(g, source)
    return {"gpu": name, "nodes": g.n, "arcs": g.m, "source": source, "runs": runs,
            "thresholds_us": [up * 1e6, down * 1e6]}


def plot(data: dict, png: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(10, 5))
    styles = {"bellman-ford": ("tab:red", "-"), "frontier": ("tab:green", "-"),
              "adaptive": ("tab:blue", ":")}
    for method, run in data["runs"].items():
        phases = [p for p in run["phases"] if p[0] != "switch"]
        color, line = styles[method]
        ax.plot([p[2] * 1e6 for p in phases], color=color, linestyle=line, linewidth=1,
                label=f"{METHODS[method]} ({method}): {run['seconds'] * 1e3:.1f} ms")
    ax.set_yscale("log")
    ax.set_xlabel("phase")
    ax.set_ylabel("time per phase (µs, host-measured)")
    up, down = data["thresholds_us"]
    if up != float("inf"):
        ax.axhline(up, color="gray", linewidth=0.5, linestyle="--")
        ax.axhline(down, color="gray", linewidth=0.5, linestyle="--")
    updated = ax.twinx()
    conventional = [p for p in data["runs"]["bellman-ford"]["phases"]]
    updated.plot([p[1] for p in conventional], color="black", linewidth=0.6, alpha=0.5,
                 label="updated nodes")
    updated.set_yscale("log")
    updated.set_ylabel("updated nodes (frontier of the phase)")
    lines = ax.get_legend_handles_labels()
    more = updated.get_legend_handles_labels()
    ax.legend(lines[0] + more[0], lines[1] + more[1], loc="upper right", fontsize=8)
    ax.set_title(f"Seed 001 fig. 6 on road_like({data['nodes']:,}) — {data['gpu']}")
    fig.tight_layout()
    fig.savefig(png, dpi=130)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nodes", type=int, default=1_400_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--source", type=int, default=0)
    ap.add_argument("--json", default="sssp_phases.json")
    ap.add_argument("--png")
    ap.add_argument("--from-json", action="store_true", help="redraw --json without a GPU")
    args = ap.parse_args(argv)
    if args.from_json:
        data = json.loads(Path(args.json).read_text())
    else:
        data = collect(args.nodes, args.seed, args.source)
        Path(args.json).write_text(json.dumps(data))
        for method, run in data["runs"].items():
            kinds = {}
            for kind, _, _ in run["phases"]:
                kinds[kind] = kinds.get(kind, 0) + 1
            print(f"{method:<13} {run['seconds'] * 1e3:8.2f} ms  {kinds}")
        print(f"thresholds up/down: {data['thresholds_us'][0]:.1f} / {data['thresholds_us'][1]:.1f} us")
    if args.png:
        try:
            plot(data, args.png)
        except ImportError:
            print("matplotlib is not installed: wrote the JSON only; redraw with --from-json")


if __name__ == "__main__":
    main()
