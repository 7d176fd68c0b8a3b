"""Node::ChecksumEnabled reading the "ChecksumEnabled" global value directly
(aqmlab/engines/ns3/cpp/per_packet_memo.cc, socket-tables library) changes cost, never
results: it answers what ns-3's copy through the attribute checker answers, follows the
global value when it is set, and a process with AQMLAB_CHECKSUM_FLAG=0 (ns-3's function)
simulates the same run."""

from __future__ import annotations

from pathlib import Path

import pytest

from aqmlab.scenario import Scenario
from tests.sim.identical import assert_same, simulate_in_child

pytestmark = pytest.mark.ns3
EXAMPLES = Path(__file__).parents[2] / "examples"
ROOT = Path(__file__).parents[2]

def loaded():
    from aqmlab.engines.ns3 import native, socket_tables

    native.load()
    if not socket_tables.active():
        pytest.skip("socket-tables library not loaded (no g++ or AQMLAB_SOCKET_TABLES=0)")


def test_follows_the_global_value():
    from aqmlab.engines.ns3 import loader

    loaded()
    ns3 = loader.gbl().ns3
    assert ns3.Node.ChecksumEnabled() is False
    try:
        ns3.GlobalValue.Bind("ChecksumEnabled", ns3.BooleanValue(True))
        assert ns3.Node.ChecksumEnabled() is True
    finally:
        ns3.GlobalValue.Bind("ChecksumEnabled", ns3.BooleanValue(False))
    assert ns3.Node.ChecksumEnabled() is False


def test_identical_without_it(simulate, tmp_path):
    loaded()
    sc = Scenario.load(EXAMPLES / "parking_lot.toml").replace(
        **{"run.duration": "15s", "run.warmup": "3s"})
    fast = simulate(sc)
    slow, child = simulate_in_child(sc, tmp_path, "off", {"AQMLAB_CHECKSUM_FLAG": "0"})
    assert child["active"] is True
    assert fast.meta["checksum_flag"] is True and slow.meta["checksum_flag"] is False
    assert_same(slow, fast)
