"""``aqmlab.run``'s worker process (a Runner over the WorkerPool): determinism across
processes, crash isolation with ns-3's message, timeouts."""

from __future__ import annotations

import os

import pandas as pd
import pytest

from aqmlab.errors import SimulationCrashed, SimulationTimeout
from aqmlab.scenario import Bulk, Dumbbell, Link, Red, RunControl, Scenario, Tcp
from aqmlab.workers import Runner
from aqmlab.workers.worker import TEST_ABORT_ENV

pytestmark = pytest.mark.ns3


def scenario(seed: int = 1, duration: str = "5s") -> Scenario:
    return Scenario(
        name="det",
        topology=Dumbbell(senders=3, sender_delays=["1ms", "10ms", "30ms"],
                          bottleneck=Link(rate="5Mbps", delay="10ms"),
                          forward_queue=Red(limit="50p", min_th=5, max_th=15)),
        tcp=Tcp(variant="newreno"), traffic=[Bulk(flows=6, start_spread="1s")],
        run=RunControl(duration=duration, seed=seed))


def test_same_seed_same_results_in_one_process_and_across_processes(simulate):
    runner = Runner(workers=1)
    try:
        a = runner.run(scenario(1))
        b = runner.run(scenario(2))  # another simulation in between, same worker
        c = runner.run(scenario(1))
    finally:
        runner.close()
    d = simulate(scenario(1))  # this (pytest) process
    assert a.meta["pid"] == c.meta["pid"] != os.getpid()
    for table in ("flows", "queues", "links", "queue_ts"):
        pd.testing.assert_frame_equal(a.table(table), c.table(table))
        pd.testing.assert_frame_equal(a.table(table), d.table(table))
    assert a.meta["events"] == c.meta["events"] == d.meta["events"]
    assert not b.flows.bytes_delivered.equals(a.flows.bytes_delivered)  # seeds matter


def test_an_ns3_abort_fails_its_run_alone_with_ns3s_message():
    """A real ns-3 abort (NS_FATAL_ERROR) in one run raises SimulationCrashed naming the
    run and quoting ns-3's own message; the run queued behind it still completes, on a new
    worker."""
    doomed = scenario(duration="2s")
    runner = Runner(workers=1, env={TEST_ABORT_ENV: doomed.key})
    try:
        bad = runner.submit(doomed)
        good = runner.submit(scenario(seed=2, duration="2s"))
        with pytest.raises(SimulationCrashed) as err:
            bad.result()
        assert doomed.key in str(err.value) and "ns-3: " in str(err.value)
        assert "died" in str(err.value)
        assert good.result().summary.iloc[0].events > 0
    finally:
        runner.close()


def test_timeout_kills_the_run():
    runner = Runner(workers=1)
    try:
        with pytest.raises(SimulationTimeout, match="exceeded"):
            runner.run(scenario(duration="5000s"), timeout=3)
    finally:
        runner.close()
