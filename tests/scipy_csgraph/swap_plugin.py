"""pytest plugin: run SciPy's own csgraph tests with wavefront's functions swapped in.

Load it with ``-p swap_plugin`` (this folder on ``sys.path``) and collect
SciPy's installed test modules with ``--pyargs``::

    PYTHONPATH=tests/scipy_csgraph python -m pytest -p swap_plugin --pyargs \\
        scipy.sparse.csgraph.tests.test_shortest_path scipy.sparse.csgraph.tests.test_traversal

Before collection, each function that :mod:`wavefront.csgraph` implements
replaces SciPy's in ``scipy.sparse.csgraph``, so the test modules' own
``from scipy.sparse.csgraph import dijkstra, ...`` (and the parametrize
lists built from those names) bind wavefront's. The functions wavefront does
not implement (``johnson``, ``yen``, ``depth_first_tree``, ...) stay SciPy's.
Each swapped function counts its calls, so the runner can prove the swap
happened. ``WAVEFRONT_SCIPY_REPORT=<file>`` writes a JSON report there:
outcomes per test and the call counts.

Every test must pass, or be listed in :data:`XFAIL` with the reason
(applied as strict xfails: one that starts passing fails the run, so the
list cannot go stale).
"""
from __future__ import annotations

import functools
import json
import os
from collections import Counter

import pytest

SWAPPED = ("breadth_first_order", "breadth_first_tree", "dijkstra", "bellman_ford", "shortest_path")
TEST_MODULES = (
    "scipy.sparse.csgraph.tests.test_shortest_path",
    "scipy.sparse.csgraph.tests.test_traversal",
)

# "<test module>::<test name with parameters>" -> why it is expected to fail.
XFAIL: dict[str, str] = {}

CALLS: Counter = Counter()
OUTCOMES: dict[str, str] = {}


def _counting(name, function):
    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        CALLS[name] += 1
        return function(*args, **kwargs)

    return wrapper


def pytest_configure(config):
    import scipy.sparse.csgraph as scipy_csgraph

    import wavefront.csgraph as ours

    for name in SWAPPED:
        setattr(scipy_csgraph, name, _counting(name, getattr(ours, name)))


def node_key(item) -> str:
    return f"{item.module.__name__.rsplit('.', 1)[-1]}::{item.name}"


def pytest_collection_modifyitems(config, items):
    for item in items:
        reason = XFAIL.get(node_key(item))
        if reason:
            item.add_marker(pytest.mark.xfail(reason=reason, strict=True))


def pytest_runtest_logreport(report):
    # The call phase decides, unless setup or teardown failed or skipped.
    if report.when == "call" or report.outcome != "passed":
        outcome = "xfailed" if hasattr(report, "wasxfail") and report.skipped else report.outcome
        if report.when == "call" or report.nodeid not in OUTCOMES:
            OUTCOMES[report.nodeid] = outcome


def pytest_sessionfinish(session, exitstatus):
    path = os.environ.get("WAVEFRONT_SCIPY_REPORT")
    if path:
        with open(path, "w", encoding="utf-8") as out:
            json.dump({"outcomes": OUTCOMES, "calls": dict(CALLS), "xfail": XFAIL}, out, indent=1)
