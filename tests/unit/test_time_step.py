"""ns-3's time step (aqmlab.engines.ns3.native): femtoseconds unless the environment says
otherwise, and runs the int64 clock cannot reach are refused before any simulator starts."""

from __future__ import annotations

import pytest

from aqmlab.engines import ns3
from aqmlab.engines.ns3 import native
from aqmlab.errors import NativeCodeError, ScenarioError
from aqmlab.scenario import Bulk, Dumbbell, RunControl, Scenario


def _scenario(duration: str) -> Scenario:
    return Scenario(topology=Dumbbell(senders=1), traffic=[Bulk(flows=1)],
                    run=RunControl(duration=duration))


def test_femtoseconds_by_default_reach_about_9000_s(monkeypatch):
    monkeypatch.delenv("AQMLAB_TIME_RESOLUTION", raising=False)
    assert native.resolution() == "fs"
    assert 9000 < native.max_duration_s() < 9223
    ns3.check(_scenario("5400s"))  # Christiansen's 90 minutes
    with pytest.raises(ScenarioError, match=r"run.duration .*at most 9023 s on ns-3 at its fs"):
        ns3.check(_scenario("9100s"))


def test_a_coarser_step_allows_longer_runs(monkeypatch):
    monkeypatch.setenv("AQMLAB_TIME_RESOLUTION", "ps")
    assert native.max_duration_s() > 9e6
    ns3.check(_scenario("9100s"))
    monkeypatch.setenv("AQMLAB_TIME_RESOLUTION", "as")
    with pytest.raises(NativeCodeError, match="AQMLAB_TIME_RESOLUTION='as'"):
        native.resolution()
