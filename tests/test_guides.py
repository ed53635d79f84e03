"""The user guides' examples run, as the NetworkX and SciPy guides' do
(tests/test_networkx_backend.py, tests/test_csgraph.py).

* docs/guide/python.md and plots.md: ``>>>`` examples, through
  :func:`doctest.testfile`;
* docs/guide/cli.md: every ``$ command`` line of its ``console`` blocks runs
  in bash, in one scratch folder per page, with ``wavefront`` meaning this
  interpreter's ``python -m wavefront``; what it prints (stdout and stderr
  together, as a terminal shows them) is compared with the lines below it by
  doctest's own checker, so ``...`` matches the same way (times, paths).
  ``$ echo $?`` prints the previous command's status.
"""
from __future__ import annotations

import doctest
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
GUIDES = ROOT / "docs" / "guide"
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


@pytest.mark.parametrize("page", ["python.md", "plots.md"])
def test_guide_examples_run(page):
    if page == "plots.md":
        pytest.importorskip("matplotlib")
    result = doctest.testfile(str(GUIDES / page), module_relative=False, optionflags=FLAGS)
    assert result.attempted > 0 and result.failed == 0


def console_examples(text: str):
    """(command, expected output, line number) for each ``$`` line of the
    page's ``console`` blocks."""
    examples = []
    for block in re.finditer(r"^```console\n(.*?)^```", text, re.DOTALL | re.MULTILINE):
        first_line = text[: block.start()].count("\n") + 2
        command, expected, at = None, [], 0
        for offset, line in enumerate(block.group(1).splitlines()):
            if line.startswith("$ "):
                if command is not None:
                    examples.append((command, "".join(expected), at))
                command, expected, at = line[2:], [], first_line + offset
            else:
                expected.append(line + "\n")
        if command is not None:
            examples.append((command, "".join(expected), at))
    return examples


def test_console_parser():
    page = "text\n```console\n$ a\none\ntwo\n$ b\n```\n```python\n$ not run\n```\n"
    assert console_examples(page) == [("a", "one\ntwo\n", 3), ("b", "", 6)]


@pytest.mark.slow  # some 20 processes, each importing wavefront and numba's cache
def test_cli_guide_runs(tmp_path):
    page = GUIDES / "cli.md"
    examples = console_examples(page.read_text())
    assert len(examples) > 10
    shim = tmp_path / "bin"
    shim.mkdir()
    (shim / "wavefront").write_text(f'#!/bin/sh\nexec "{sys.executable}" -m wavefront "$@"\n')
    (shim / "wavefront").chmod(0o755)
    work = tmp_path / "work"
    work.mkdir()
    env = {**os.environ, "PATH": f"{shim}{os.pathsep}{os.environ.get('PATH', '')}",
           "PYTHONUNBUFFERED": "1",  # stdout and stderr interleave as on a terminal
           "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
           "COLUMNS": "100"}
    env.pop("WAVEFRONT_DEBUG", None)
    checker, status, failures = doctest.OutputChecker(), 0, []
    for command, expected, line in examples:
        done = subprocess.run(["bash", "-c", f"(exit {status}); {command}"], cwd=work, env=env, check=False,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              timeout=300)
        status = done.returncode
        if not checker.check_output(expected, done.stdout, FLAGS):
            failures.append(f"{page.name}:{line}: $ {command}\n--- expected\n{expected}"
                            f"--- got (status {status})\n{done.stdout}")
    assert not failures, "\n".join(failures)
