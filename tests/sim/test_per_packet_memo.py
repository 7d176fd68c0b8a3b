"""TCP options built directly and transmission times remembered
(aqmlab/engines/ns3/cpp/per_packet_memo.cc, in the socket-tables library) change speed, never
results: the wheel's header deserialization and point-to-point devices go through them, and
a process without them (AQMLAB_FAST_OPTIONS=0 AQMLAB_TX_TIME_MEMO=0) takes neither and
simulates the same run."""

from __future__ import annotations

from pathlib import Path

import pytest

from aqmlab.scenario import Scenario
from tests.sim.identical import assert_same, simulate_in_child

pytestmark = pytest.mark.ns3
EXAMPLES = Path(__file__).parents[2] / "examples"


def browsing() -> Scenario:
    """Christiansen's users over RED 30/90: timestamps and SACK blocks on the segments."""
    return Scenario.load(EXAMPLES / "christiansen_red_90.toml").replace(
        **{"run.duration": "12s", "run.warmup": "4s"})


def test_identical_without_the_memo(simulate, tmp_path):
    from aqmlab.engines.ns3 import native, socket_tables

    native.load()
    if not socket_tables.active():
        pytest.skip("socket-tables library not loaded (no g++ or AQMLAB_SOCKET_TABLES=0)")
    before = socket_tables.per_packet_memo_calls()
    fast = simulate(browsing())
    grew = {k: v - before[k] for k, v in socket_tables.per_packet_memo_calls().items()}
    # options of every deserialized header; a transmission time per packet sent on a link
    assert grew["options"] > fast.meta["events"] / 10
    assert grew["tx_times"] > fast.meta["events"] / 10
    slow, off = simulate_in_child(browsing(), tmp_path, "off",
                                  {"AQMLAB_FAST_OPTIONS": "0", "AQMLAB_TX_TIME_MEMO": "0"})
    assert off["active"] and off["options"] == 0 and off["tx_times"] == 0  # the old paths ran
    assert_same(slow, fast)
