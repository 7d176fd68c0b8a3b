"""Offered-load calibration on the unconstrained (100 Mb/s) network."""

from __future__ import annotations

import pytest

from aqmlab.run.engine import LocalEngine
from aqmlab.scenario import DropTail, Dumbbell, Link, PackMime, RunControl, Scenario, Tcp
from aqmlab.workload.calibration import calibrate, rate_for_load

pytestmark = pytest.mark.ns3


def web_scenario() -> Scenario:
    return Scenario(
        name="calib",
        topology=Dumbbell(senders=1, receivers=1, bottleneck=Link(rate="10Mbps", delay="0ms"),
                          access=Link(rate="100Mbps", delay="0ms"),
                          forward_queue=DropTail(limit="148p")),
        tcp=Tcp(variant="sack", mss=1420),
        traffic=[PackMime(rate=1, lrd=False)],
        run=RunControl(duration="40s", warmup="10s", sample_interval=None))


def test_calibration_is_monotone_accurate_and_reproducible(tmp_path):
    """Loads 0.3 and 0.6: the fitted rates increase with load, running them gives the
    nominal load within 15 % (30 s of heavy-tailed traffic is noisy), and a second
    calibration gives the identical table (fixed seeds)."""
    engine = LocalEngine(workers=2)
    try:
        a = calibrate(web_scenario(), [0.3, 0.6], engine=engine, out=tmp_path / "c.csv")
        b = calibrate(web_scenario(), [0.3, 0.6], engine=engine)
    finally:
        engine.close()
    assert a.rate.is_monotonic_increasing and a.rate.iloc[0] > 0
    assert a.measured_load.to_numpy() == pytest.approx([0.3, 0.6], rel=0.15)
    assert a.equals(b)
    assert rate_for_load(tmp_path / "c.csv", 0.45) == pytest.approx(a.rate.mean())
