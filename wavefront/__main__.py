"""``python -m wavefront``: the command line of :mod:`wavefront.cli`."""
import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
