"""Worker processes: determinism across processes, crash isolation, timeouts."""

from __future__ import annotations

import os

import pandas as pd
import pytest

from aqmlab.errors import SimulationCrashed, SimulationTimeout
from aqmlab.run.engine import LocalEngine
from aqmlab.scenario import Bulk, Dumbbell, Link, Red, RunControl, Scenario, Tcp

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
    engine = LocalEngine(workers=1)
    try:
        a = engine.run(scenario(1))
        b = engine.run(scenario(2))  # another simulation in between, same worker
        c = engine.run(scenario(1))
    finally:
        engine.close()
    d = simulate(scenario(1))  # this (pytest) process
    assert a.meta["pid"] == c.meta["pid"] != os.getpid()
    for table in ("flows", "queues", "links", "queue_ts"):
        pd.testing.assert_frame_equal(a.table(table), c.table(table))
        pd.testing.assert_frame_equal(a.table(table), d.table(table))
    assert a.meta["events"] == c.meta["events"] == d.meta["events"]
    assert not b.flows.bytes_delivered.equals(a.flows.bytes_delivered)  # seeds matter


def test_a_crashing_worker_is_reported_and_replaced():
    engine = LocalEngine(workers=1, warm=False)
    try:
        fut = engine._executor().submit(os.abort)
        with pytest.raises(SimulationCrashed, match="died"):
            engine.result(scenario(), fut, engine._logdir / "none")
        res = engine.run(scenario(duration="2s"))  # a new worker takes over
        assert res.summary.iloc[0].events > 0
    finally:
        engine.close()


def test_timeout_kills_the_run():
    engine = LocalEngine(workers=1)
    try:
        with pytest.raises(SimulationTimeout, match="exceeded"):
            engine.run(scenario(duration="5000s"), timeout=3)
    finally:
        engine.close()
