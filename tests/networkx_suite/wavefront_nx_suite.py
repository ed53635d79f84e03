"""pytest plugin: NetworkX's own tests against the ``wavefront`` backend.

``tests/test_networkx_backend.py`` runs NetworkX's test modules in a
subprocess with ``NETWORKX_TEST_BACKEND=wavefront`` and
``NETWORKX_FALLBACK_TO_NX=True`` (NetworkX's conftest then converts every
input graph and calls the backend for each function it implements, falling
back to NetworkX's own code for the rest and for what ``can_run`` declines),
loading this plugin with ``-p wavefront_nx_suite``. The plugin

* marks the tests in :data:`KNOWN_FAILURES` as strict xfails, with the reason;
* counts, per test, the wavefront functions that ran and the calls
  ``can_run`` declined (with its reason), so the report shows how much of
  the suite wavefront really answered rather than NetworkX's fallback;
* writes the outcome counts and those tallies as JSON to the file named by
  ``WAVEFRONT_NX_SUITE_REPORT`` and prints them after the run.
"""
from __future__ import annotations

import collections
import json
import os

import pytest

# "module::Class::test" (module as NetworkX's dotted name) -> why the test is
# expected to fail with the wavefront backend. Empty: every test passes.
KNOWN_FAILURES: dict[str, str] = {}

_calls = collections.Counter()  # wavefront function -> calls over the run
_declined = collections.Counter()  # (function, can_run's reason) -> calls
_current: set = set()  # wavefront functions called by the running test
_tests_run_by_wavefront: list = []


def _test_key(item) -> str:
    return f"{item.module.__name__}::{item.nodeid.split('::', 1)[1]}"


def _counting(name, function):
    def wrapper(*args, **kwargs):
        _calls[name] += 1
        _current.add(name)
        return function(*args, **kwargs)

    wrapper.__name__ = name
    wrapper.__wrapped__ = function
    return staticmethod(wrapper)


def _recording(can_run):
    def wrapper(name, args, kwargs):
        answer = can_run(name, args, kwargs)
        if answer is not True:
            _declined[(name, answer if isinstance(answer, str) else "not implemented")] += 1
        return answer

    return staticmethod(wrapper)


def pytest_configure(config):
    from wavefront.interop.networkx import BackendInterface
    from wavefront.interop.networkx._info import FUNCTIONS

    for name in FUNCTIONS:
        setattr(BackendInterface, name, _counting(name, getattr(BackendInterface, name)))
    BackendInterface.can_run = _recording(BackendInterface.can_run)


def pytest_collection_modifyitems(config, items):
    for item in items:
        reason = KNOWN_FAILURES.get(_test_key(item))
        if reason:
            item.add_marker(pytest.mark.xfail(reason=reason, strict=True))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    _current.clear()
    try:
        return (yield)
    finally:
        if _current:
            _tests_run_by_wavefront.append(_test_key(item))


def pytest_terminal_summary(terminalreporter):
    stats = terminalreporter.stats
    outcomes = {
        key: len([r for r in stats.get(key, []) if getattr(r, "when", "call") in ("call", "setup")])
        for key in ("passed", "failed", "error", "skipped", "xfailed", "xpassed")
    }
    report = {
        "outcomes": outcomes,
        "known_failures": KNOWN_FAILURES,
        "tests_running_wavefront": len(_tests_run_by_wavefront),
        "calls": dict(sorted(_calls.items())),
        "declined": [
            {"function": f, "reason": r, "calls": n} for (f, r), n in sorted(_declined.items())
        ],
    }
    path = os.environ.get("WAVEFRONT_NX_SUITE_REPORT")
    if path:
        with open(path, "w", encoding="utf-8") as out:
            json.dump(report, out, indent=1)
    write = terminalreporter.write_line
    write("")
    write(f"wavefront backend: outcomes {outcomes}")
    write(f"wavefront backend: {len(_tests_run_by_wavefront)} tests ran wavefront functions")
    write("wavefront backend: calls " + ", ".join(f"{k}={v}" for k, v in report["calls"].items()))
    for entry in report["declined"]:
        write(f"wavefront backend: declined {entry['function']} x{entry['calls']}: {entry['reason']}")
