"""The error a command-line argument raises, shared by wavefront.cli and its
subcommand modules (wavefront.graph500.cli).

It lives apart from wavefront.cli so that a subcommand can raise it without
importing the dispatcher that imports the subcommand.
"""
from __future__ import annotations

from .errors import WavefrontError


class CommandLineError(WavefrontError, ValueError):
    """An argument the CLI cannot act on (exit status 2)."""
