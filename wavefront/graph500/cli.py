"""``wavefront graph500``: arguments and the run function used by wavefront.cli.

Exit status: 0 when every search validated, 1 when one failed validation
(which search and rule go to stderr), 2 for bad arguments (argparse's own
exit, or the errors wavefront.cli maps to 2: an unknown method, an
unavailable backend, --energy without NVML, a JSON path in no folder).

Under ``mpirun`` with more than one rank, or with ``--distributed``, the run
is :mod:`wavefront.distributed.graph500`'s (the BFS kernel over a process grid).
"""
from __future__ import annotations

import argparse
from pathlib import Path

from .driver import DEFAULT_SEED, KERNELS

EXIT_OK = 0
EXIT_INVALID = 1


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} must be at least 1")
    return value


def _scale(text: str) -> int:
    from ..generators.kronecker import MAX_SCALE

    value = _positive_int(text)
    if value > MAX_SCALE:
        raise argparse.ArgumentTypeError(f"SCALE must be at most {MAX_SCALE}, got {value}")
    return value


def _seed(text: str) -> int:
    try:
        value = int(text, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if not 0 <= value < 2**64:
        raise argparse.ArgumentTypeError(f"the seed must lie in [0, 2**64), got {value}")
    return value


def _delta(text: str) -> float:
    import math

    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"delta must be a positive finite number, got {text!r}")
    return value


def _kernels(text: str) -> tuple:
    names = [k.strip() for k in text.split(",") if k.strip()]
    unknown = [k for k in names if k not in KERNELS]
    if unknown or not names:
        raise argparse.ArgumentTypeError(
            f"kernels must be a comma-separated list of {', '.join(KERNELS)}, got {text!r}"
        )
    return tuple(names)


def _cpu_share(text: str) -> float | str:
    """``--cpu-share``: "auto" or a number in [0, 1)."""
    from ..distributed.tuning import check_cpu_share

    try:
        return check_cpu_share(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _methods(text: str):
    """``NAME`` (every kernel) or ``bfs=NAME,sssp=NAME``."""
    if "=" not in text:
        return text
    out = {}
    for part in text.split(","):
        kernel, _, name = part.partition("=")
        kernel, name = kernel.strip(), name.strip()
        if kernel not in KERNELS or not name:
            raise argparse.ArgumentTypeError(
                f"--method takes NAME or KERNEL=NAME[,KERNEL=NAME] with KERNEL in "
                f"{', '.join(KERNELS)}; got {text!r}"
            )
        out[kernel] = name
    return out


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--scale", type=_scale, required=True, help="log2 of the number of vertices")
    parser.add_argument("--edgefactor", type=_positive_int, default=16,
                        help="input edges per vertex (default 16)")
    parser.add_argument("--roots", type=_positive_int, default=64,
                        help="number of search roots (default 64; fewer if the graph has fewer "
                        "non-isolated vertices)")
    parser.add_argument("--kernels", type=_kernels, default=KERNELS,
                        help="comma-separated kernels to run (default bfs,sssp)")
    parser.add_argument("--backend", choices=("auto", "cpu", "cuda"), default="auto",
                        help="where to run (default auto: CUDA when it works here, else the CPU)")
    parser.add_argument("--seed", type=_seed, default=DEFAULT_SEED,
                        help=f"generator and root seed (default {DEFAULT_SEED})")
    parser.add_argument("--method", type=_methods, default=None,
                        help="method name for every kernel, or bfs=NAME,sssp=NAME "
                        "(default: hybrid BFS, auto SSSP; see `wavefront methods`)")
    parser.add_argument("--energy", action="store_true",
                        help="measure GPU energy with NVML and report MTEPS/W (CUDA only)")
    parser.add_argument("--json", type=Path, dest="json_path", metavar="FILE",
                        help="also write every number, per-search times and one trace as JSON")
    parser.add_argument("--force", action="store_true", help="replace the --json file if it exists")
    parser.add_argument("--no-progress", dest="progress", action="store_false",
                        help="no progress bar on stderr")
    parser.add_argument("--distributed", action="store_true",
                        help="run the 2-D partitioned BFS over MPI ranks (implied under mpirun with "
                        "more than one rank; rank 0 prints the report)")
    parser.add_argument("--delta", type=_delta, default=None,
                        help="SSSP bucket width (delta-stepping, the SSSP method then; default: the method's "
                             "own, mean weight / mean degree scaled)")
    parser.add_argument("--grid", metavar="RxC", default=None,
                        help="process grid of a distributed run (default: one column P x 1; CPU ranks on "
                             "more than one host: the most square R x C = P)")
    parser.add_argument("--transport", choices=("auto", "nccl", "mpi"), default="auto",
                        help="how a distributed --backend cuda run moves device buffers: NCCL, or host "
                        "staging over MPI (auto: NCCL where no two ranks share a GPU)")
    parser.add_argument("--cpu-share", type=_cpu_share, default=None, metavar="auto|SHARE",
                        help="distributed --backend cuda runs: the share in [0, 1) of each GPU block's "
                        "bottom-up work that the rank's host cores take (seed 000's CPU+GPU cooperation); "
                        "auto measures both sides on the warm-up search (default 0: the GPU alone)")


def run_from_args(args) -> int:
    from .._cli_common import CommandLineError, check_output
    from ..backends import choose_backend
    from .driver import run_graph500
    from .memory import check_host_memory

    json_path = args.json_path
    if json_path is not None:
        check_output(json_path, args.force)
    if isinstance(args.method, dict):
        stray = [k for k in KERNELS if k in args.method and k not in args.kernels]
        if stray:
            named = " and ".join(f"{k}=" for k in stray)
            raise CommandLineError(
                f"--method: {named} names a method for a kernel not run (--kernels {','.join(args.kernels)}); "
                f"add {','.join(stray)} to --kernels or leave {named} out of --method"
            )
    from ..distributed.launch import mpi_world_size

    if args.distributed or args.grid is not None or mpi_world_size() > 1:
        from ..distributed.graph500 import run_from_args as run_distributed

        return EXIT_OK if run_distributed(args).valid else EXIT_INVALID
    if getattr(args, "cpu_share", None) is not None:
        raise CommandLineError(
            "--cpu-share splits the blocks of a distributed GPU run; add --distributed "
            "(or run under mpirun) with --backend cuda"
        )
    delta = getattr(args, "delta", None)
    if delta is not None:
        from .driver import with_delta

        try:
            with_delta(args.kernels, args.method, delta)
        except ValueError as exc:
            raise CommandLineError(f"--delta: {exc}") from None
    if choose_backend(args.backend)[0] == "cpu":  # a GPU run generates and builds on the GPU
        check_host_memory(args.scale, args.edgefactor)
    report = run_graph500(
        args.scale, edgefactor=args.edgefactor, roots=args.roots, kernels=args.kernels,
        backend=args.backend, seed=args.seed, method=args.method, energy=args.energy,
        json_path=json_path, progress=args.progress, delta=delta,
    )
    return EXIT_OK if report.valid else EXIT_INVALID
