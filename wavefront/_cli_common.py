"""What wavefront.cli and its subcommand modules (wavefront.graph500.cli)
share: the error an argument raises, and the check of an output's folder.

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
