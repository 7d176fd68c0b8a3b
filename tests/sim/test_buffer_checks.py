"""Packet buffers' assertion helpers without their log tests (aqmlab/engines/ns3/cpp/
buffer_checks.cc, socket-tables library: Buffer::CheckInternalState, Buffer::Iterator::Check
and CheckNoZero) change cost, never results: they give ns-3 3.44's answers (true; the same
range tests on the same members), so every assertion asserts the same thing and a process
with AQMLAB_BUFFER_CHECKS=0 (ns-3's functions) simulates the same run."""

from __future__ import annotations

from pathlib import Path

import pytest

from aqmlab.scenario import Scenario
from tests.sim.identical import assert_same, simulate_in_child

pytestmark = pytest.mark.ns3
EXAMPLES = Path(__file__).parents[2] / "examples"


def test_web_identical_without_them(tmp_path):
    sc = Scenario.load(EXAMPLES / "weigle_droptail_80.toml").replace(
        **{"run.duration": "10s", "run.warmup": "2s"})
    fast, on = simulate_in_child(sc, tmp_path, "on", {})
    slow, off = simulate_in_child(sc, tmp_path, "off", {"AQMLAB_BUFFER_CHECKS": "0"})
    if not on["active"]:
        pytest.skip("socket-tables library not loaded (no g++)")
    assert on["buffer_checks_on"] == 1 and on["buffer_checks"] > 100_000
    assert off["buffer_checks_on"] == 0 and off["buffer_checks"] == 0
    assert fast.meta["buffer_checks"] is True and slow.meta["buffer_checks"] is False
    assert_same(slow, fast)

