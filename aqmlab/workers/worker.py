"""Code that runs inside a worker process: simulate one scenario, return its Results.

The worker imports ns-3 (through :mod:`aqmlab.engines.ns3`) once, at start-up, and keeps it
for every later run; each run resets the simulator's global state first. The task's stderr
goes to a file chosen by the parent, so that if the simulator aborts the process the
parent can report what it printed.
"""

from __future__ import annotations

import os
import sys

from aqmlab import engines
from aqmlab.engines import ns3
from aqmlab.results.results import Results
from aqmlab.scenario import Scenario
from aqmlab.workers import allocator

__all__ = ["warm_up", "task", "TEST_ABORT_ENV"]


def warm_up() -> None:
    """Import ns-3 and JIT aqmlab's C++ now (a worker's start-up, not a run's cost)."""
    ns3.warm_up()


def simulate(scenario: Scenario) -> Results:
    """Simulate in this process (an engine abort ends the process) and record the
    allocator the process runs on."""
    res = engines.simulate(scenario)
    res.meta["allocator"] = allocator.active()
    return res


#: Test hook: a comma-separated list of scenario keys (or hashes) whose runs make ns-3 itself
#: abort (``NS_FATAL_ERROR`` -> ``std::terminate``) before simulating. It exists so that the
#: tests can prove crash isolation with a real ns-3 abort; never set it otherwise.
TEST_ABORT_ENV = "AQMLAB_TEST_ABORT_KEY"


def _test_abort_hook(scenario: Scenario) -> None:
    keys = os.environ.get(TEST_ABORT_ENV, "")
    if not keys or not {scenario.key, scenario.hash} & set(keys.split(",")):
        return
    print(f"{TEST_ABORT_ENV} matches {scenario.key}: asking ns-3 to abort", file=sys.stderr,
          flush=True)
    ns3.test_abort()


def task(scenario_dict: dict, stderr_path: str | None) -> Results:
    """One run: ``scenario_dict`` simulated with fd 2 sent to ``stderr_path``."""
    scenario = Scenario.from_dict(scenario_dict)
    if stderr_path is None:
        _test_abort_hook(scenario)
        return simulate(scenario)
    sys.stderr.flush()
    saved = os.dup(2)
    fd = os.open(stderr_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.dup2(fd, 2)
    os.close(fd)
    try:
        _test_abort_hook(scenario)
        return simulate(scenario)
    finally:
        sys.stderr.flush()
        os.dup2(saved, 2)
        os.close(saved)
