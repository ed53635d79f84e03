"""Phases and relaxations of the distributed delta-stepping against the bucket width, on a CPU rank.

    PYTHONPATH=. python benchmarks/sssp_delta_phases.py --scales 16,18 --factors 1,2,4,8,16 --roots 4

The GPU one-column SSSP (``wavefront.distributed.gpu_sssp``) runs the CPU
ranks' bucket loop (``sssp2d``), so how many phases a search takes and how
many arcs it relaxes depend on the graph and delta alone. Each phase costs a
GPU rank a host round trip; each relaxation a little device time. Prints,
per SCALE and multiple of ``sssp2d.default_delta``, the light and heavy
phases and the arcs relaxed per arc of the graph (means over the Graph500
roots), the numbers docs/decisions/distributed.md weighs against a GPU
trace's split into fixed and per-arc cost.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks._common import number_list  # noqa: E402


def phases_and_arcs(graph, roots, delta) -> tuple[float, float, float]:
    """Mean light phases, heavy phases and arcs relaxed over ``roots``."""
    from wavefront.distributed import sssp2d

    light, heavy, arcs = [], [], []
    for root in roots:
        trace = sssp2d.sssp(graph, int(root), delta, measure_wait=False).trace
        kinds = [record.kind for record in trace]
        light.append(kinds.count("light"))
        heavy.append(kinds.count("heavy"))
        arcs.append(sum(record.examined for record in trace))
    return float(np.mean(light)), float(np.mean(heavy)), float(np.mean(arcs))


def main() -> None:
    import wavefront.distributed as wd
    from wavefront.distributed import sssp2d

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scales", type=number_list(int, minimum=0), default=[16, 18])
    parser.add_argument("--factors", type=number_list(float, minimum=0), default=[1.0, 2.0, 4.0, 8.0, 16.0])
    parser.add_argument("--roots", type=int, default=4)
    args = parser.parse_args()
    print("SCALE | delta (x default) | light phases | heavy phases | all | arcs relaxed per arc")
    for scale in args.scales:
        graph = wd.kronecker(scale, weighted=True)
        base = sssp2d.default_delta(graph)
        roots = wd.choose_roots(graph, args.roots)
        for factor in args.factors:
            light, heavy, arcs = phases_and_arcs(graph, roots, base * factor)
            print(f"{scale} | {base * factor:.4g} ({factor:g}x) | {light:.1f} | {heavy:.1f} | {light + heavy:.1f} | "
                  f"{arcs / graph.m:.2f}")


if __name__ == "__main__":
    main()
