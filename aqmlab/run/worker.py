"""Code that runs inside a worker process: simulate one scenario, return its Results.

The worker imports ns-3 (through ``aqmlab.ns3``) on first use and keeps it for every later
run; each run resets ns-3's global state first. The task's stderr goes to a file chosen by
the parent, so that if ns-3 aborts the process the parent can report what it printed.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from aqmlab.results import tables
from aqmlab.results.results import Results, provenance
from aqmlab.run import allocator
from aqmlab.scenario import Scenario


def warm_up() -> None:
    """Import ns-3 and JIT aqmlab's C++ now (pool initializer)."""
    from aqmlab.ns3 import native  # noqa: PLC0415

    native.load()


def simulate_results(scenario: Scenario) -> Results:
    """Simulate in this process and return tidy Results (ns-3 errors abort the process)."""
    from aqmlab.ns3 import native, socket_tables, speedups  # noqa: PLC0415
    from aqmlab.ns3.session import simulate  # noqa: PLC0415
    from aqmlab.plan import make_plan  # noqa: PLC0415

    raw = simulate(scenario)
    plan = make_plan(scenario)
    flows = tables.flows_table(scenario, plan, raw)
    queues = tables.queues_table(scenario, plan, raw)
    links = tables.links_table(raw)
    requests = tables.requests_table(scenario, plan, raw)
    summary = tables.summary_table(scenario, flows, queues, links, raw, requests,
                                   plan=plan)
    meta: dict[str, Any] = {**provenance(), "key": scenario.key, "seed": scenario.run.seed,
                            "run": scenario.run.run, **raw.stats, "pid": os.getpid(),
                            "peak_rss_mb": peak_rss_mb(),
                            "socket_tables": socket_tables.active(),  # speed, not results
                            **speedups.active(native.load()),
                            "allocator": allocator.active()}
    return Results(scenario=scenario, flows=flows, queues=queues, links=links,
                   queue_ts=tables.queue_ts_table(raw), summary=summary, meta=meta,
                   requests=requests)


#: Test hook: a comma-separated list of scenario keys (or hashes) whose runs make ns-3 itself
#: abort (``NS_FATAL_ERROR`` -> ``std::terminate``) before simulating. It exists so that the
#: tests can prove crash isolation with a real ns-3 abort; never set it otherwise.
TEST_ABORT_ENV = "AQMLAB_TEST_ABORT_KEY"


def _test_abort_hook(scenario: Scenario) -> None:
    keys = os.environ.get(TEST_ABORT_ENV, "")
    if not keys or not {scenario.key, scenario.hash} & set(keys.split(",")):
        return
    from aqmlab.ns3 import loader, native  # noqa: PLC0415

    native.load()
    ns = loader.gbl().ns3
    print(f"{TEST_ABORT_ENV} matches {scenario.key}: asking ns-3 to abort", file=sys.stderr,
          flush=True)
    ns.Config.SetDefault("ns3::AqmlabTestAbort::Trigger", ns.StringValue("1"))  # NS_FATAL


def peak_rss_mb() -> float:
    """High-water mark of this process's resident memory (VmHWM), in MiB; 0 if unknown."""
    try:
        for line in open("/proc/self/status", encoding="ascii"):
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def task(scenario_dict: dict, stderr_path: str | None) -> Results:
    """Pool task: run one scenario with fd 2 sent to ``stderr_path``."""
    scenario = Scenario.from_dict(scenario_dict)
    if stderr_path is None:
        _test_abort_hook(scenario)
        return simulate_results(scenario)
    sys.stderr.flush()
    saved = os.dup(2)
    fd = os.open(stderr_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.dup2(fd, 2)
    os.close(fd)
    try:
        _test_abort_hook(scenario)
        return simulate_results(scenario)
    finally:
        sys.stderr.flush()
        os.dup2(saved, 2)
        os.close(saved)
