"""What wavefront.cli and its subcommand modules (wavefront.graph500.cli)
share: the error an argument raises, and the checks of an output path.

It lives apart from wavefront.cli so that a subcommand can use it without
importing the dispatcher that imports the subcommand.
"""
from __future__ import annotations

from pathlib import Path

from .errors import WavefrontError


class CommandLineError(WavefrontError, ValueError):
    """An argument the CLI cannot act on (exit status 2)."""


def check_writable_folder(path: Path) -> None:
    """Refuse an output whose folder cannot take a new file, before any work:
    outputs are written to a temporary file beside ``path``, so create (and
    remove) one there now. Permission bits alone do not tell (root, /proc)."""
    import tempfile

    try:
        with tempfile.TemporaryFile(dir=path.parent or "."):
            pass
    except OSError as exc:
        raise CommandLineError(
            f"{path}: cannot write in the folder {path.parent} ({exc.strerror or exc})"
        ) from None


def check_output(path: Path, force: bool = False, inputs=()) -> None:
    """Refuse an output path before any work: a folder that is missing or
    cannot take a file, a directory, one of the run's ``inputs``, or (unless
    ``force``) a file that exists: a user's file is never replaced unasked."""
    folder = path.parent
    if not folder.is_dir():
        raise CommandLineError(f"{path}: the folder {folder} does not exist")
    if path.is_dir():
        raise CommandLineError(f"{path}: is a directory")
    if path.exists():
        for source in inputs:
            if source is not None and source.exists() and path.resolve() == source.resolve():
                raise CommandLineError(f"{path}: is the input file; write the output elsewhere")
        if not force:
            raise CommandLineError(f"{path} already exists; --force replaces it")
    check_writable_folder(path)
