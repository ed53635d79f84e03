"""Time the CUDA hybrid BFS's tuning variants (``BFSTuning`` objects: kernel constants, neighbour order, direction rules).

    PYTHONPATH=. python benchmarks/bfs_tune.py --scales 24,26 --roots 32 --json tune.json

One process, each graph built once. Per Graph500 SCALE (edgefactor 16,
unweighted, built on the GPU) and per variant it times the hybrid BFS (GAP
policy) from the same random roots as ``bfs_gpu.py`` does (whole public
call between two synchronizations; harmonic-mean GTEPS with Graph500 edge
counting, median ms), in two interleaved passes so the table shows the
run-to-run spread. Every search's levels must equal the first variant's.
It then isolates the largest bottom-up level of one search: frontier and
visited bitmaps are rebuilt from that search's levels, and the two kernels
(fig. 6 ``bottom_up_small``, fig. 4 ``bottom_up_large``) are timed with CUDA
events, checking that they find exactly the vertices of that level; so are
the grid-wide top-down levels of that search (frontier offsets, then the
edge-balanced kernel), writing the levels and leaving them out. Seattle
(``.data/seattle.gr.gz``, run last, clocks warm) reports the median ms over
``--road-roots`` roots per variant. Also the per-level trace of one search
with the first variant.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

import wavefront as wf  # noqa: E402
from benchmarks._common import pick_roots, timed_on_gpu  # noqa: E402
from wavefront.backends.cuda import bfs_bottom_up  # noqa: E402
from wavefront.backends.cuda import bfs_steps as steps  # noqa: E402
from wavefront.backends.cuda.abi import (  # noqa: E402
    BALANCED_BLOCK,
    BALANCED_CHUNK,
    BOTTOM_UP_BLOCK,
    BOTTOM_UP_LARGE_BLOCK,
    CNT_NEXT_COUNT,
)
from wavefront.backends.cuda.bfs_search import bottom_up_indices, packed_rows  # noqa: E402
from wavefront.backends.cuda.bfs_tuning import BFSTuning  # noqa: E402

# name -> the tuning it times (the defaults are the measured winners; what
# lost and by how much: docs/decisions/cuda-bfs.md)
VARIANTS = {
    "default": BFSTuning(),
    "no-td-override": BFSTuning(bottom_up_min_edges_ratio=0),  # bottom-up whatever the frontier's m_f
    "id": BFSTuning(neighbour_order="id"),
    "unroll1": BFSTuning(bottom_up_small_unroll=1),
    "unroll4": BFSTuning(bottom_up_small_unroll=4),
    "probe16": BFSTuning(bottom_up_large_probe=16),
    "no-stay": BFSTuning(stay_bottom_up=False),  # no "m_f > m_u + sweep: stays bottom-up"
    "csc-probe": BFSTuning(packed_first_probes=False),  # first probe through in_indptr and in_indices
    "no-ahead": BFSTuning(bottom_up_ahead=False),  # no bottom-up level queued ahead
    "fill-first": BFSTuning(results_whole_min_bytes=None),  # init_search fills the results
    "levels-first": BFSTuning(defer_top_down_levels=False),  # top-down steps write levels
    "no-single-block": BFSTuning(single_block=False),
}
DEFAULT_VARIANTS = "default,no-ahead,fill-first,levels-first"


def timed_search(graph, root, tuning):
    return timed_on_gpu(wf.bfs, graph, root, method="hybrid", tuning=tuning)


def time_variant(graph, roots, references, tuning):
    """(harmonic-mean GTEPS, median ms, all levels equal the references)."""
    timed_search(graph, roots[0], tuning)  # compiles the variant's kernels
    teps, seconds, agrees = [], [], True
    for root, reference in zip(roots, references):
        result, t = timed_search(graph, root, tuning)
        agrees &= bool((result.levels == reference).all())
        teps.append(graph.traversed_edges(result.parents >= 0) / t)
        seconds.append(t)
    return len(teps) / sum(1 / x for x in teps) / 1e9, statistics.median(seconds) * 1e3, agrees


def bitmap(mask, words):
    import cupy

    packed = cupy.zeros(words * 4, dtype=cupy.uint8)
    bits = cupy.packbits(mask, bitorder="little")
    packed[: bits.size] = bits
    return packed.view(cupy.uint32)


def isolate_bottom_up_level(graph, result, variant, reps=7):
    """(level, small ms, large ms, found == expected) for the trace's largest bottom-up level."""
    import cupy

    tuning = VARIANTS[variant]
    bottom_up_rows = [r for r in result.trace if r.kind == "bottom-up"]
    if not bottom_up_rows:
        return None
    level = max(bottom_up_rows, key=lambda r: r.edges).step
    ws = steps.workspace(graph)
    frontier = bitmap(result.levels == level - 1, ws.words)
    visited = bitmap((result.levels >= 0) & (result.levels < level), ws.words) | ws.unreachable
    expected = int((result.levels == level).sum())
    levels = result.levels.copy()
    parents = result.parents.copy()
    # As in the search: the first bottom-up level writes the results whole.
    whole = bfs_bottom_up.results_written_whole(graph, tuning) and level == bottom_up_rows[0].step
    in_indices = bottom_up_indices(graph, tuning)
    rows = packed_rows(graph, tuning, in_indices)
    suffix = "" if rows is None else "_first"
    small = steps.get_kernel("bfs_bottom_up.cu", "bottom_up_small" + suffix, ws.index64, tuning)
    large = steps.get_kernel("bfs_bottom_up.cu", "bottom_up_large" + suffix, ws.index64, tuning)
    common = dict(words=steps.i64(ws.words), level=np.int32(level), in_indices=in_indices,
                  out_indptr=graph.indptr, large=ws.large, frontier=frontier, visited=ws.visited,
                  next_frontier=ws.next_frontier, levels=levels, parents=parents, counters=ws.counters)
    if rows is None:
        args = tuple(bfs_bottom_up.BottomUpArgs(rows=graph.in_indptr, **common))
    else:
        args = tuple(bfs_bottom_up.PackedBottomUpArgs(
            rows=rows, undirected=np.int32(graph.in_indptr is graph.indptr), whole=np.int32(whole),
            n=steps.i64(graph.n), source=steps.i64(result.source), unreachable=ws.unreachable,
            frontier_levels=np.int32(0), **common))
    marks = [cupy.cuda.Event() for _ in range(3)]
    small_ms, large_ms, exact = [], [], True
    for _ in range(reps):
        ws.visited[...] = visited
        ws.next_frontier.fill(0)
        steps.reset_counters(ws)
        marks[0].record()
        small((steps.blocks(ws.words, BOTTOM_UP_BLOCK),), (BOTTOM_UP_BLOCK,), args)
        marks[1].record()
        large((steps.blocks(ws.words, BOTTOM_UP_LARGE_BLOCK),), (BOTTOM_UP_LARGE_BLOCK,), args)
        marks[2].record()
        marks[2].synchronize()
        small_ms.append(cupy.cuda.get_elapsed_time(marks[0], marks[1]))
        large_ms.append(cupy.cuda.get_elapsed_time(marks[1], marks[2]))
        exact &= int(steps.read_counters(ws)[CNT_NEXT_COUNT]) == expected
    return level, statistics.median(small_ms), statistics.median(large_ms), exact


def isolate_top_down_levels(graph, result, reps=7):
    """[(level, variant, offsets ms, kernel ms, found == expected)] for every
    grid-wide top-down level of the trace, writing the levels or leaving them."""
    import cupy

    ws = steps.workspace(graph)
    rows = [r for r in result.trace if r.kind == "top-down" and "single block" not in r.reason and r.edges]
    timings = []
    for row in rows:
        level = row.step
        frontier = cupy.flatnonzero(result.levels == level - 1).astype(ws.vid_dtype)
        count = frontier.size
        total = int((graph.indptr[frontier + 1] - graph.indptr[frontier]).sum())
        visited = bitmap((result.levels >= 0) & (result.levels < level), ws.words) | ws.unreachable
        expected = int((result.levels == level).sum())
        levels = result.levels.copy()
        parents = result.parents.copy()
        fn = steps.get_kernel("bfs_load_balanced.cu", "top_down_balanced_step", ws.index64)
        for write_levels in (1, 0):
            marks = [cupy.cuda.Event() for _ in range(3)]
            offsets_ms, kernel_ms, exact = [], [], True
            for _ in range(reps):
                ws.queue_in[:count] = frontier
                ws.visited[...] = visited
                steps.reset_counters(ws)
                marks[0].record()
                steps.frontier_offsets(graph, ws, count)
                marks[1].record()
                args = steps.TopDownBalancedArgs(
                    queue=ws.queue_in, count=steps.i64(count), offsets=ws.offsets, block_offsets=ws.block_offsets,
                    total_edges=steps.i64(total), level=np.int32(level), indptr=graph.indptr,
                    indices=graph.indices, levels=levels, parents=parents, visited=ws.visited,
                    next_queue=ws.queue_out, counters=ws.counters, write_levels=np.int32(write_levels),
                    degree_indptr=graph.indptr)
                fn((steps.blocks(total, BALANCED_CHUNK),), (BALANCED_BLOCK,), tuple(args))
                marks[2].record()
                marks[2].synchronize()
                offsets_ms.append(cupy.cuda.get_elapsed_time(marks[0], marks[1]))
                kernel_ms.append(cupy.cuda.get_elapsed_time(marks[1], marks[2]))
                exact &= int(steps.read_counters(ws)[CNT_NEXT_COUNT]) == expected
            timings.append((level, count, total, "levels" if write_levels else "no-levels",
                            statistics.median(offsets_ms), statistics.median(kernel_ms), exact))
    return timings


def kronecker_rows(scale, args, variants, out):
    import cupy

    from wavefront.backends.cuda.bfs import prepare

    graph = wf.kronecker(scale, seed=args.seed, device="cuda", weighted=False)
    t0 = time.perf_counter()
    prepare(graph)  # the default neighbour order's sorted CSC included
    cupy.cuda.get_current_stream().synchronize()
    print(f"SCALE {scale}: prepared in {time.perf_counter() - t0:.2f} s", flush=True)
    roots = pick_roots(graph, args.roots, args.seed + scale)
    references = [timed_search(graph, r, VARIANTS[variants[0]])[0].levels for r in roots]
    for rep in range(args.passes):
        for name in variants:
            gteps, ms, agrees = time_variant(graph, roots, references, VARIANTS[name])
            row = {"scale": scale, "variant": name, "pass": rep, "gteps": gteps, "ms_median": ms, "agrees": agrees}
            out.append(row)
            print(f"SCALE {scale} pass {rep} {name:16s} {gteps:7.1f} GTEPS {ms:6.3f} ms agrees={agrees}", flush=True)
    sample = timed_search(graph, roots[0], VARIANTS[variants[0]])[0]
    for row in sample.trace:
        print(f"SCALE {scale} trace level {row.step:3d} {row.kind:9s} frontier {row.frontier:>10,} "
              f"edges {row.edges:>13,} {row.seconds * 1e3:7.3f} ms", flush=True)
    for name in variants:
        levels = timed_search(graph, roots[0], VARIANTS[name])[0].trace
        print(f"SCALE {scale} trace {name:16s} " + " ".join(f"{r.kind[0]}{r.seconds * 1e3:.3f}" for r in levels),
              flush=True)
    for level, count, total, scan, offsets_ms, kernel_ms, exact in isolate_top_down_levels(graph, sample):
        out.append({"scale": scale, "td_level": level, "scan": scan, "offsets_ms": offsets_ms,
                    "kernel_ms": kernel_ms, "exact": exact})
        print(f"SCALE {scale} TD level {level} (frontier {count:,}, {total:,} edges) {scan:15s} offsets "
              f"{offsets_ms:.3f} ms kernel {kernel_ms:.3f} ms exact={exact}", flush=True)
    for name in variants:
        isolated = isolate_bottom_up_level(graph, sample, name)
        if isolated is None:
            print(f"SCALE {scale}: the sample search ran no bottom-up level")
            break
        level, small_ms, large_ms, exact = isolated
        out.append({"scale": scale, "variant": name, "bu_level": level, "small_ms": small_ms,
                    "large_ms": large_ms, "exact": exact})
        print(f"SCALE {scale} BU level {level} {name:16s} small {small_ms:.3f} ms large {large_ms:.3f} ms "
              f"exact={exact}", flush=True)
    del graph, references, sample
    cupy.get_default_memory_pool().free_all_blocks()


def road_rows(args, variants, out):
    from wavefront.backends.cuda.bfs import prepare

    path = ROOT / ".data" / "seattle.gr.gz"
    if not path.exists():
        print(f"{path} not found: no road timing")
        return
    graph = wf.read_graph(path, weighted=False, device="cuda")
    prepare(graph)
    roots = pick_roots(graph, args.road_roots, args.seed)
    references = [wf.bfs(graph, r, method="hybrid", tuning=VARIANTS[variants[0]]).levels for r in roots]
    for rep in range(args.passes):
        for name in variants:
            _, ms, agrees = time_variant(graph, roots, references, VARIANTS[name])
            out.append({"graph": "seattle", "variant": name, "pass": rep, "ms_median": ms, "agrees": agrees})
            print(f"seattle pass {rep} {name:16s} {ms:6.3f} ms median over {len(roots)} roots agrees={agrees}",
                  flush=True)


def summary(rows, variants):
    print("\nvariant           " + "".join(f"S{s} GTEPS (ms)           " for s in sorted({r['scale'] for r in rows if 'scale' in r})))
    for name in variants:
        cells = []
        for scale in sorted({r["scale"] for r in rows if "scale" in r}):
            timed = [r for r in rows if r.get("scale") == scale and r.get("variant") == name and "gteps" in r]
            iso = next((r for r in rows if r.get("scale") == scale and r.get("variant") == name and "small_ms" in r), None)
            ok = all(r["agrees"] for r in timed) and (iso is None or iso["exact"])
            text = "/".join(f"{r['gteps']:.0f}" for r in timed) + " (" + "/".join(f"{r['ms_median']:.2f}" for r in timed) + ")"
            if iso:
                text += f" bu {iso['small_ms']:.2f}+{iso['large_ms']:.2f}"
            cells.append(f"{text}{'' if ok else ' WRONG'}".ljust(40))
        print(f"{name:16s}  " + "".join(cells))
    for row in (r for r in rows if "td_level" in r):
        print(f"S{row['scale']} TD level {row['td_level']} {row['scan']:15s}: offsets {row['offsets_ms']:.3f} + "
              f"kernel {row['kernel_ms']:.3f} ms" + ("" if row["exact"] else " WRONG"))
    for name in variants:
        road = [r for r in rows if r.get("graph") == "seattle" and r["variant"] == name]
        if road:
            print(f"seattle {name:16s} " + "/".join(f"{r['ms_median']:.3f}" for r in road) + " ms median"
                  + ("" if all(r["agrees"] for r in road) else " WRONG"))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scales", default="24,26")
    parser.add_argument("--roots", type=int, default=32)
    parser.add_argument("--road-roots", type=int, default=16)
    parser.add_argument("--passes", type=int, default=2)
    parser.add_argument("--variants", default=DEFAULT_VARIANTS, help=f"comma-separated, of {', '.join(VARIANTS)}")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    variants = args.variants.split(",")
    unknown = [v for v in variants if v not in VARIANTS]
    if unknown:
        parser.error(f"unknown variants {unknown}; choose from {', '.join(VARIANTS)}")
    rows: list[dict] = []
    for scale in (int(s) for s in args.scales.split(",") if s):
        kronecker_rows(scale, args, variants, rows)
    road_rows(args, variants, rows)
    summary(rows, variants)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
