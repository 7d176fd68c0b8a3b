"""A TCP sender's next segment without ns-3's walk of its sent list (``TcpTxBuffer::NextSeg``
in aqmlab/engines/ns3/cpp/per_packet_memo.cc, socket-tables library) changes cost, never
results: while no sent segment is marked lost the walk finds nothing, and the answer is the
new data's, computed as ns-3 does. A process with AQMLAB_NEXT_SEG=0 (ns-3's NextSeg at every
call) simulates the same runs as one with the shortcut, and under AQMLAB_NEXT_SEG=verify
(both asked at every shortcut call) no answer differs. Reno without SACK (fast recovery,
timeouts: the head marked lost, the walk kept) and the parking lot's SACK flows (aqmlab's
Sack1 recovery) exercise both branches."""

from __future__ import annotations

from pathlib import Path

import pytest

from aqmlab.scenario import Scenario
from tests.sim.identical import assert_same, simulate_in_child

pytestmark = pytest.mark.ns3
EXAMPLES = Path(__file__).parents[2] / "examples"
ROOT = Path(__file__).parents[2]

def child(scenario: Scenario, tmp_path: Path, name: str, value: str):
    """Run `scenario` in a child process with AQMLAB_NEXT_SEG=`value`: Results, counters."""
    return simulate_in_child(scenario, tmp_path, name, {"AQMLAB_NEXT_SEG": value})


def qiu() -> Scenario:
    """Qiu's T1 dumbbell, 30 Reno flows: drop-tail losses, fast recoveries and timeouts."""
    return Scenario.load(EXAMPLES / "qiu_t1_dumbbell.toml").replace(
        **{"topology.senders": 30, "traffic[0].flows": 30, "run.duration": "30s",
           "run.warmup": "5s", "run.sample_interval": "1s"})


def parking_lot() -> Scenario:
    """The three-hop parking lot's SACK flows (Sack1 recovery, timeouts)."""
    return Scenario.load(EXAMPLES / "parking_lot.toml").replace(
        **{"run.duration": "15s", "run.warmup": "3s"})


@pytest.mark.parametrize("make", [qiu, parking_lot], ids=["qiu-reno", "parking-lot-sack"])
def test_identical_without_the_shortcut(simulate, tmp_path, make):
    from aqmlab.engines.ns3 import native, socket_tables

    native.load()
    if not socket_tables.active():
        pytest.skip("socket-tables library not loaded (no g++ or AQMLAB_SOCKET_TABLES=0)")
    sc = make()
    fast = simulate(sc)
    slow, off = child(sc, tmp_path, "off", "0")
    checked, verify = child(sc, tmp_path, "verify", "verify")
    assert off["active"] and off["next_seg"] == 0
    # the shortcut answered most calls, and ns-3's walk never disagreed with it
    assert verify["next_seg"] > fast.meta["events"] / 50
    assert verify["next_seg_disagreements"] == 0
    assert fast.queues.drops.sum() > 0
    assert fast.meta["next_seg"] is True and slow.meta["next_seg"] is False
    assert_same(slow, fast)
    assert_same(checked, fast)
