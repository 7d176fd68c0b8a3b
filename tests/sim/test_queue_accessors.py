"""The queue-accounting accessors without their log tests (aqmlab/engines/ns3/cpp/
queue_accessors.cc, socket-tables library: Ipv4QueueDiscItem::GetSize, QueueItem::GetPacket,
QueueSize's accessors and constructor, Ipv4Header::GetSerializedSize) change cost, never
results: they return what ns-3's return, from the same members, so a process with
AQMLAB_QUEUE_ACCESSORS=0 (ns-3's functions) simulates the same run."""

from __future__ import annotations

from pathlib import Path

import pytest

from aqmlab.scenario import Scenario
from tests.sim.identical import assert_same, simulate_in_child

pytestmark = pytest.mark.ns3
EXAMPLES = Path(__file__).parents[2] / "examples"


def test_web_identical_without_them(tmp_path):
    """Drop-tail queues in both directions (drops at the limit test QueueSize's sums)."""
    sc = Scenario.load(EXAMPLES / "weigle_droptail_105.toml").replace(
        **{"run.duration": "10s", "run.warmup": "2s"})
    fast, on = simulate_in_child(sc, tmp_path, "on", {})
    slow, off = simulate_in_child(sc, tmp_path, "off", {"AQMLAB_QUEUE_ACCESSORS": "0"})
    if not on["active"]:
        pytest.skip("socket-tables library not loaded (no g++)")
    assert on["queue_accessors_on"] == 1 and on["queue_size_units"] > 100_000
    assert off["queue_accessors_on"] == 0 and off["queue_size_units"] == 0
    assert fast.meta["queue_accessors"] is True and slow.meta["queue_accessors"] is False
    assert fast.queues.drops.sum() > 0
    assert_same(slow, fast)

