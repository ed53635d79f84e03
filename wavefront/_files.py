"""Files that appear whole or not at all: :func:`atomic_output`, shared by
the graph writers (:mod:`wavefront.io`) and the saved contraction
hierarchies (:mod:`wavefront.graph.hierarchy`). It imports nothing of
wavefront, so both may use it."""
from __future__ import annotations

import contextlib
import gzip
import os
import tempfile
from pathlib import Path


@contextlib.contextmanager
def atomic_output(path):
    """A binary file object for ``path`` that appears there only if the block succeeds.

    Writes go to a temporary file in the same folder (gzip-compressed when the
    name ends in ``.gz``), renamed over ``path`` at the end; on any error,
    Ctrl-C included, the temporary file is removed and an existing ``path``
    is left untouched.
    """
    path = Path(path)
    folder = path.parent if str(path.parent) else Path(".")
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as raw:
            if path.name.endswith(".gz"):
                stream = gzip.GzipFile(filename="", mode="wb", fileobj=raw, compresslevel=6, mtime=0)
            else:
                stream = contextlib.nullcontext(raw)
            with stream as sink:
                yield sink
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
