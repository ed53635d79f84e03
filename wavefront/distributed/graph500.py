"""The distributed Graph500 run (BFS and SSSP kernels) over ``mpirun -n P`` CPU ranks.

The steps of the single-process driver (:mod:`wavefront.graph500.driver`),
each collective, timed on rank 0 between barriers as the reference times
them:

1. an untimed small run (generation, construction, one search per kernel
   and its validation) so numba's loading stays out of every timing;
2. ``graph_generation``: each rank generates its slice of the tuples, with
   their float32 weights when SSSP runs (:func:`.graph.kronecker_slice`; the
   graph is the same for any P);
3. ``construction_time`` (kernel 1): the edge exchange, the block builds
   (:func:`.graph.from_edges`) and the per-graph search structures (SSSP's
   joined block, :func:`.sssp2d.joined`; with ``backend="cuda"`` each
   block's move to its GPU, workspace and probe order, :func:`.gpu.to_gpu`,
   and for SSSP its weights and buffers there, :func:`.gpu_sssp.prepare`),
   as the single-process driver counts its ``prepare``;
4. the same 64 roots as the single-process driver (:func:`choose_roots`);
5. per kernel (BFS, then SSSP: kernel 3): one untimed warm-up search, then per
   root a timed search and its distributed validation (:mod:`.validate`);
   the first failure ends the run;
6. per kernel, an untimed re-run from the first root with the wait barrier
   on, whose per-rank level (phase) trace goes into the JSON.

With ``backend="cuda"`` the BFS runs on each rank's GPU (:mod:`.gpu`:
the node-local rank's device, device buffers over NCCL or staged through
MPI), and so does the SSSP (:mod:`.gpu_sssp`, on any grid). A ``DistributedTuning.cpu_share`` other
than 0 has each rank's host cores take that share of its block's bottom-up
work (``auto``: measured in the warm-up search); the report carries each
rank's share and, for ``auto``, the rates that chose it. Rank 0 prints the
reference's report (:mod:`wavefront.graph500.report`) with
``num_mpi_processes: P``; the other ranks print nothing on stdout.
"""
from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field

import numpy as np

from .. import __version__
from ..errors import ValidationError
from ..graph500.report import Graph500Report, KernelRun, ValidationFailure, field_line
from ..graph500.roots import (
    ROOT_STREAM,
    NoRootError,
    check_count_and_seed,
    require_roots,
)
from .bfs2d import METHOD, bfs
from .graph import from_edges, id_dtype, kronecker_slice
from .grid import ProcessGrid, cpu_grid_shape, gpu_grid_shape
from .launch import abort_on_error, use_threads
from .sssp2d import METHOD as SSSP_METHOD
from .sssp2d import joined, sssp
from .tuning import DistributedTuning
from .validate import load_routed_kernels, validate_bfs, validate_sssp

KERNELS = ("bfs", "sssp")
WARM_UP_SCALE = 10
# What --method may name in a distributed run: the CPU backend's BFS names,
# each a direction policy of the 2-D search, and its SSSP names that mean
# delta-stepping (the one distributed SSSP).
POLICIES = {"auto": None, "hybrid": None, "top-down": "top-down", "bottom-up": "bottom-up"}
SSSP_METHODS = ("auto", "delta-stepping")


@dataclass
class DistributedReport(Graph500Report):
    """The Graph500 report plus the grid and the construction breakdown."""

    grid: str = ""
    threads_per_rank: int = 1
    construction: dict = field(default_factory=dict)
    # CPU+GPU cooperation: {"requested": share or "auto", "ranks": [each rank's
    # gpu_cooperation.cpu_share_report]}; empty when no share was asked for.
    cpu_share: dict = field(default_factory=dict)

    def extra_lines(self) -> list[str]:
        lines = [
            field_line("process_grid", self.grid),
            field_line("threads_per_rank", f"{self.threads_per_rank:d}"),
        ]
        if self.cpu_share:
            shares = ", ".join(f"{rank['share']:.4g}" for rank in self.cpu_share.get("ranks", []))
            lines.append(field_line("cpu_share", f"{self.cpu_share['requested']} (per rank: {shares or '-'})"))
        return super().extra_lines() + lines

    def as_dict(self) -> dict:
        out = super().as_dict()
        out["distributed"] = {
            "process_grid": self.grid, "threads_per_rank": self.threads_per_rank,
            "construction": self.construction,
        }
        if self.cpu_share:
            out["distributed"]["cpu_share"] = self.cpu_share
        return out


def choose_roots(graph, count: int = 64, seed: int = 1) -> np.ndarray:
    """The roots :func:`wavefront.graph500.roots.choose_roots` picks from the
    whole tuple list, found from the owners' degrees (collective).

    A vertex is eligible when a non-self-loop tuple touches it, i.e. when its
    deduplicated degree is at least 1. NumPy's ``choice`` without replacement
    draws positions from the population size alone, so drawing positions and
    mapping them to the owners' eligible vertices gives the same roots.
    """
    count, seed = check_count_and_seed(count, seed)
    world = graph.world
    existing = max(0, min(graph.part.piece, graph.n - graph.first_vertex))
    eligible = np.flatnonzero(graph.degree[:existing] > 0) + graph.first_vertex
    counts = world.allgather(np.array([eligible.shape[0]], dtype=np.int64))
    offset, total = int(counts[: world.rank].sum()), int(counts.sum())
    take = min(int(count), total)
    positions = np.random.default_rng([seed, ROOT_STREAM]).choice(
        total, size=take, replace=False, shuffle=True
    )
    mine = (positions >= offset) & (positions < offset + eligible.shape[0])
    roots = np.zeros(take, dtype=np.int64)
    roots[mine] = eligible[positions[mine] - offset]
    return world.allreduce(roots)


def _timed(world, run, *args, **kwargs):
    """``run(*args, **kwargs)`` between barriers; the seconds rank 0 measures (all ranks done)."""
    world.barrier()
    start = time.perf_counter()
    out = run(*args, **kwargs)
    world.barrier()
    return out, time.perf_counter() - start


def _prepare(graph, kernels, backend: str = "cpu", transport: str = "auto", tuning=None):
    """The per-graph search structures a kernel builds on first use (kernel
    1's share); the GPU block with ``backend="cuda"`` (else None), with the
    host copy of its CPU rows when ``tuning`` asks for a CPU share, and its
    SSSP weights and buffers when SSSP runs."""
    if "sssp" in kernels:
        from .sssp2d import longest_distance

        longest_distance(graph)  # collective: the bound delta-stepping's buckets are sized by
    if "sssp" in kernels and backend != "cuda":
        joined(graph)
    if backend == "cuda":
        from .gpu import to_gpu
        from .gpu_cooperation import prepare_cooperation

        block = to_gpu(graph, transport=transport)
        prepare_cooperation(block, tuning)
        if "sssp" in kernels:
            from .gpu_sssp import prepare

            prepare(block)
        return block
    return None


def _warm_up_alone(grid, scale, edgefactor, seed, policy, kernels, backend, tuning, run_scale) -> None:
    """Rank 0's part of :func:`_warm_up` of ``grid``, in a world of one while
    the others wait: the small run, and the validator's kernels only more
    than one rank runs, in the dtypes of a run of SCALE ``run_scale``."""
    from .grid import Partition
    from .transport import SelfTransport

    _warm_up(ProcessGrid(world=SelfTransport(), set_threads=False), scale, edgefactor, seed, policy, kernels,
             backend, "mpi", tuning, run_scale)
    load_routed_kernels(Partition.of(1 << run_scale, grid.rows, grid.cols), id_dtype(1 << run_scale))


def _warm_up(grid, scale, edgefactor, seed, policy, kernels, backend="cpu", transport="auto", tuning=None,
             run_scale=None) -> None:
    """Load every numba kernel the run uses on a small graph, untimed.

    Rank 0 goes first, alone (a world of one), while the others wait: ranks
    compiling one kernel at the same time race on numba's cache files (numba
    issue #4807); after it, the others load what rank 0 wrote. Rank 0 also
    loads, alone, the validator's kernels that only more than one rank runs
    (:func:`.validate.load_routed_kernels`). The small graph's tuples take
    the id dtype of the run's SCALE (``run_scale``, default ``scale``), so
    the edge exchange and the validator specialize for the run's arrays
    here, not in kernel 1 or the first validation.
    """
    from ..generators.kronecker import _NUMBA_MIN_TUPLES, kronecker_edges, plan

    run_scale = scale if run_scale is None else run_scale
    if grid.size > 1:
        if grid.rank == 0:
            _warm_up_alone(grid, scale, edgefactor, seed, policy, kernels, backend, tuning, run_scale)
        grid.world.barrier()
    # The generator's compiled path, which it takes from _NUMBA_MIN_TUPLES
    # tuples on: asked at a SCALE whose plan holds that many at this
    # edgefactor, and never for more tuples than the plan holds.
    least = -(-_NUMBA_MIN_TUPLES // edgefactor)  # vertices giving that many tuples
    warm = max(scale, 12, (least - 1).bit_length())
    kronecker_edges(warm, edgefactor, seed, np, 0, min(_NUMBA_MIN_TUPLES, plan(warm, edgefactor, seed).num_tuples))
    edges = kronecker_slice(scale, edgefactor, seed, grid, weighted="sssp" in kernels)
    ids = id_dtype(1 << run_scale)
    small = from_edges(edges.src.astype(ids, copy=False), edges.dst.astype(ids, copy=False), 1 << scale, grid,
                       tuple_offset=edges.first, weights=edges.weights)
    del edges
    block = _prepare(small, kernels, backend, transport, tuning)
    roots = choose_roots(small, 1, seed)
    if not len(roots):  # every tuple a self-loop: the run itself says so (require_roots)
        return
    root = int(roots[0])
    if "bfs" in kernels:
        if block is None:
            result = bfs(small, root, policy)
        else:
            from .gpu import bfs as gpu_bfs

            # With a CPU share this loads its numba kernels too (rank 0 first).
            result = gpu_bfs(block, root, policy, tuning=tuning)
        validate_bfs(small, result, small.traversed_edges(result.reached))
    if "sssp" in kernels:
        if block is None:
            result = sssp(small, root)
            validate_sssp(small, result, small.traversed_edges(result.reached))
        else:
            from . import gpu_sssp

            result = gpu_sssp.sssp(block, root, tuning=tuning)
            gpu_sssp.validate(small, result, small.traversed_edges(result.reached))


def run_graph500(
    scale: int,
    edgefactor: int = 16,
    roots: int = 64,
    seed: int = 1,
    policy=None,
    grid: ProcessGrid | None = None,
    json_path=None,
    stream=None,
    log=None,
    kernels=KERNELS,
    delta: float | None = None,
    tuning=None,
    backend: str = "cpu",
    transport: str = "auto",
) -> DistributedReport:
    """Run the distributed Graph500 kernels (collective; ``mpirun -n P python ...``).

    ``kernels``: "bfs" and/or "sssp" (reported in that order); ``policy``:
    the BFS direction policy (a name or object, default GAP's); ``delta``:
    the SSSP bucket width (default :func:`.sssp2d.default_delta`); ``tuning``:
    a :class:`~.tuning.DistributedTuning`; ``grid``: the process grid (default
    :class:`ProcessGrid` of the MPI world: one column on GPUs,
    :func:`.grid.gpu_grid_shape`; on CPU ranks one column on one host, the
    most square across hosts, :func:`.grid.cpu_grid_shape`); ``backend``: "cpu" or "cuda" (the
    BFS and SSSP on the blocks' GPUs, device buffers over ``transport``: "auto", "nccl"
    or "mpi"). Rank 0 prints the report to
    ``stream`` (stdout), notes to ``log`` (stderr) and writes ``json_path``;
    every rank returns the report.
    """
    if grid is None:
        from .launch import host_count
        from .launch import world as launch_world

        world = launch_world()
        shape = gpu_grid_shape(world.size) if backend == "cuda" else cpu_grid_shape(world.size, host_count(world))
        grid = ProcessGrid(*shape, world=world)
    world = grid.world
    stream = sys.stdout if stream is None else stream
    log = sys.stderr if log is None else log
    check_count_and_seed(roots, seed)
    if isinstance(kernels, str):
        kernels = kernels.split(",")
    if not kernels or set(kernels) - set(KERNELS):
        raise ValueError(f"kernels must be among {', '.join(KERNELS)}; got {list(kernels)}")
    kernels = tuple(k for k in KERNELS if k in set(kernels))
    if backend not in ("cpu", "cuda"):
        raise ValueError(f"backend must be 'cpu' or 'cuda', got {backend!r}")
    if backend == "cpu" and tuning is not None and tuning.cpu_share != 0:
        raise ValueError(
            f"cpu_share={tuning.cpu_share!r} splits GPU blocks with the host cores; CPU ranks "
            "(backend='cpu') do all their work on the host already: use backend='cuda' or cpu_share=0"
        )
    # Bad arguments raise here, on every rank alike, not inside abort_on_error
    # (where a ValueError would end the job with a traceback on each rank).
    from ..bfs.policy import make_policy
    from ..generators.kronecker import plan
    from ..graph500.driver import with_delta

    plan(scale, edgefactor, seed)  # scale, edgefactor and seed
    make_policy(policy)
    with_delta(kernels, None, delta)  # a positive finite delta, and SSSP to take it
    if backend == "cuda":
        from ..backends import require_cuda

        require_cuda()  # before any collective: every rank raises it alike
    from ..errors import GPUMemoryError, MethodLimitError

    _check_host_memory(world, scale, edgefactor, kernels, backend, (grid.rows, grid.cols))
    # Every rank raises these alike: GPUMemoryError in check_graph_fits, a
    # delta too small for the graph's distances in sssp2d.checked_delta, and
    # a graph of self-loops alone in require_roots.
    with abort_on_error(world, collective=(GPUMemoryError, MethodLimitError, NoRootError)):
        threads = use_threads(world)
        report = _run(grid, scale, edgefactor, roots, seed, policy, threads, log if world.rank == 0 else None,
                      kernels, delta, tuning, backend, transport)
        if world.rank == 0:
            stream.write(report.text())
            stream.flush()
            if json_path is not None:
                report.write_json(json_path)
    return report


def _check_host_memory(world, scale: int, edgefactor: int, kernels, backend: str, shape) -> None:
    """Refuse a run whose ranks would not fit in their nodes' memory, on every
    rank at once (collective): an over-large SCALE otherwise ends with the
    kernel's OOM killer ending a rank mid-generation. The estimate is the
    run's own: BFS alone keeps unweighted tuples and no SSSP structures
    (:mod:`wavefront.graph500.memory`).
    Every rank checks every node's (ranks there, memory available) in rank
    order, so all raise the same HostMemoryError."""
    from ..graph500.memory import available_bytes, check_distributed_host_memory

    nodes = world.allgather_object((world.node_local().size, available_bytes()))
    for ranks_here, available in nodes:
        check_distributed_host_memory(scale, edgefactor, world.size, ranks_here, available, kernels, backend, shape)


def _run(grid, scale, edgefactor, num_roots, seed, policy, threads, log, kernels, delta, tuning, backend,
         transport) -> DistributedReport:
    from ..graph500.driver import device_name

    world = grid.world
    say = (lambda text: print(f"wavefront graph500: {text}", file=log, flush=True)) if log else (lambda text: None)
    say(f"distributed over {world.size} MPI ranks, {grid.rows}x{grid.cols} grid, {threads} threads per rank")
    _warm_up(grid, min(scale, WARM_UP_SCALE), edgefactor, seed, policy, kernels, backend, transport, tuning, scale)

    weighted = "sssp" in kernels
    edges, generation = _timed(world, kronecker_slice, scale, edgefactor, seed, grid, weighted)

    def construct(edges):
        graph = from_edges(edges.src, edges.dst, 1 << scale, grid, tuple_offset=edges.first, weights=edges.weights)
        start = time.perf_counter()
        block = _prepare(graph, kernels, backend, transport, tuning)
        graph.timings["prepare"] = time.perf_counter() - start
        return graph, block

    (graph, block), construction = _timed(world, construct, edges)
    del edges
    if "sssp" in kernels and delta is not None:
        from .sssp2d import checked_delta

        checked_delta(graph, delta)  # collective: too small a delta fails here, not after the BFS kernel
    root_list = require_roots(choose_roots(graph, num_roots, seed), scale, edgefactor, seed)  # collective
    say(
        f"SCALE {scale}, {graph.n:,} vertices, {graph.num_input_edges:,} input edges, {len(root_list)} roots; "
        f"generation {generation:.3f} s, construction {construction:.3f} s"
    )
    breakdown = world.allreduce(np.array(list(graph.timings.values())), op="max")
    exchanged = world.allreduce(np.array([graph.exchange_bytes], dtype=np.int64))
    report = DistributedReport(
        scale=scale, edgefactor=edgefactor, seed=seed, roots=[int(r) for r in root_list],
        graph_generation=generation, construction_time=construction, backend=backend,
        backend_reason=f"distributed over {world.size} MPI ranks"
        + ("" if block is None else f", one GPU each, device buffers over {block.transport}"),
        device=device_name(backend),
        version=__version__, kernels={}, num_mpi_processes=world.size,
        grid=f"{grid.rows}x{grid.cols}", threads_per_rank=threads,
        construction={**{f"{k}_seconds_max": float(v) for k, v in zip(graph.timings, breakdown)},
                      "exchange_bytes_total": int(exchanged[0])},
    )
    if block is None:
        def search_bfs(root, wait):
            return bfs(graph, root, policy, measure_wait=wait, tuning=tuning)
    else:
        from .gpu import bfs as gpu_bfs

        def search_bfs(root, wait):
            return gpu_bfs(block, root, policy, measure_wait=wait, tuning=tuning)
    if block is None:
        def search_sssp(root, wait):
            return sssp(graph, root, delta, measure_wait=wait)
        check_sssp = validate_sssp
    else:
        from . import gpu_sssp

        def search_sssp(root, wait):
            return gpu_sssp.sssp(block, root, delta, measure_wait=wait, tuning=tuning)
        check_sssp = gpu_sssp.validate
    searches = {
        "bfs": (METHOD, search_bfs, validate_bfs),
        "sssp": (SSSP_METHOD, search_sssp, check_sssp),
    }
    for kernel in kernels:
        method, search, validate = searches[kernel]
        run = KernelRun(kernel=kernel, method=method)
        report.kernels[kernel] = run
        failure = _timed_searches(world, graph, root_list, run, search, validate, say)
        if failure is not None:
            report.failure = failure
            say(report.failure.describe())
            return report
        run.trace = search(int(root_list[0]), True).gather_trace() or []
        if kernel == "bfs" and block is not None and tuning is not None and tuning.cpu_share != 0:
            from .gpu_cooperation import cpu_share_report

            ranks = world.allgather_object(cpu_share_report(block, tuning))
            report.cpu_share = {"requested": tuning.cpu_share, "ranks": ranks}
    return report


def _timed_searches(world, graph, root_list, run, search, validate, say) -> ValidationFailure | None:
    """One untimed warm-up search (the workspace's first touch), then per root
    a timed search and its validation, each said as it ends (a large run's
    searches and validations take minutes)."""
    search(int(root_list[0]), False)
    for i, root in enumerate(int(r) for r in root_list):
        result, seconds = _timed(world, search, root, False)
        if run.kernel == "bfs":
            run.method = f"{METHOD}({result.policy})"
        else:
            run.method = f"{SSSP_METHOD}(delta={result.delta:.4g})"
        nedge = graph.traversed_edges(result.reached)
        try:
            summary, checked = _timed(world, validate, graph, result, nedge)
        except ValidationError as exc:
            return ValidationFailure(run.kernel, i, root, exc.rule, str(exc))
        run.roots.append(root)
        run.times.append(seconds)
        run.nedges.append(nedge)
        run.validate_times.append(checked)
        say(f"{run.kernel} root {i + 1}/{len(root_list)}: search {seconds * 1e3:.2f} ms, validated in {checked:.2f} s")
        run.depths.append(summary.depth)
        run.reached.append(summary.reached)
    return None


def _method(args, kernel):
    method = args.method.get(kernel) if isinstance(args.method, dict) else args.method
    return method


def run_from_args(args) -> DistributedReport:
    """``wavefront graph500`` under ``mpirun`` (or with ``--distributed``): the
    parsed arguments of :mod:`wavefront.graph500.cli`, checked for what a
    distributed run supports, then :func:`run_graph500`."""
    from .._cli_common import CommandLineError
    from ..errors import BackendUnavailableError, UnknownMethodError
    from ..graph500.driver import with_delta
    from .grid import parse_grid

    kernels = tuple(k for k in KERNELS if k in args.kernels)
    backend = "cuda" if args.backend == "cuda" else "cpu"  # auto: CPU ranks (a GPU run is asked for by name)
    cpu_share = getattr(args, "cpu_share", None)
    if cpu_share is not None and backend != "cuda":
        raise CommandLineError(
            f"--cpu-share hands part of each GPU block's bottom-up work to the host cores; it needs "
            f"--backend cuda (--backend {args.backend} runs CPU ranks, which do all their work on the host)"
        )
    if args.energy:
        raise BackendUnavailableError("--energy is not measured in a distributed run; run it in one process")
    bfs_method, sssp_method = _method(args, "bfs"), _method(args, "sssp")
    both = "" if isinstance(args.method, dict) or len(kernels) == 1 else " (or name one per kernel, e.g. bfs=hybrid)"
    if "bfs" in kernels and bfs_method is not None and bfs_method not in POLICIES:
        raise UnknownMethodError(
            f"no distributed bfs method {bfs_method!r}; choose one of {', '.join(POLICIES)}{both}"
        )
    if "sssp" in kernels and sssp_method is not None and sssp_method not in SSSP_METHODS:
        raise UnknownMethodError(
            f"no distributed sssp method {sssp_method!r}; choose one of {', '.join(SSSP_METHODS)}{both}"
        )
    try:
        shape = parse_grid(args.grid) if getattr(args, "grid", None) else None
    except ValueError as exc:
        raise CommandLineError(f"--grid: {exc}") from None
    try:
        grid = ProcessGrid(*shape) if shape is not None else None
    except ValueError as exc:
        raise CommandLineError(f"--grid: {exc}") from None
    tuning = None if cpu_share is None else DistributedTuning(cpu_share=cpu_share)
    delta = getattr(args, "delta", None)
    try:
        with_delta(kernels, None, delta)  # its rules (the distributed SSSP methods are all delta-stepping)
    except ValueError as exc:
        raise CommandLineError(f"--delta: {exc}") from None
    return run_graph500(
        args.scale, edgefactor=args.edgefactor, roots=args.roots, seed=args.seed,
        policy=POLICIES.get(bfs_method), grid=grid, json_path=args.json_path, kernels=kernels,
        backend=backend, transport=args.transport, tuning=tuning, delta=delta,
    )
