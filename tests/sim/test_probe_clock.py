"""Queue probes that convert the time to seconds once per time step
(aqmlab/engines/ns3/cpp/probes.h, ProbeClock) change cost, never results: a time step has
one value in seconds, so the queue-length integrals, the idle periods and ns-2's RED
average re-derived by the probe are the same doubles, and a run with the memo (the default)
equals the run with AQMLAB_PROBE_CLOCK off, table for table."""

from __future__ import annotations

from pathlib import Path

import pytest

from aqmlab.scenario import Scenario
from tests.sim.identical import assert_same, off_then_on

pytestmark = pytest.mark.ns3
EXAMPLES = Path(__file__).parents[2] / "examples"


def both(simulate, scenario):
    return off_then_on(simulate, scenario, "ProbeClock")


def test_qiu_droptail_identical(simulate):
    """Qiu's T1 dumbbell: both directions probed, queue-length integrals and samples."""
    sc = Scenario.load(EXAMPLES / "qiu_t1_dumbbell.toml").replace(
        **{"topology.senders": 30, "traffic[0].flows": 30, "run.duration": "30s",
           "run.warmup": "5s", "run.sample_interval": "1s"})
    slow, fast = both(simulate, sc)
    assert fast.queues.avg_qlen_pkts.iloc[0] > 0
    assert fast.meta["probe_clock"] is True and slow.meta["probe_clock"] is False
    assert_same(slow, fast)


def test_red_browsing_identical(simulate):
    """Christiansen's users over RED: the probe's own RED average and its idle periods."""
    sc = Scenario.load(EXAMPLES / "christiansen_red_90.toml").replace(
        **{"run.duration": "12s", "run.warmup": "4s"})
    slow, fast = both(simulate, sc)
    assert fast.queues.red_avg_pkts.notna().any()
    assert_same(slow, fast)
