"""ns-2's retransmission timeout converted to a Time only when it changes
(aqmlab/engines/ns3/cpp/tcp_socket.h, RtoMemo) changes cost, never results: the same double
gives the same Time, so a run with the memo (the default) equals the run with
AQMLAB_RTO_MEMO off, table for table, on the sockets that compute ns-2's timer (Qiu's Reno
flows: back-offs, samples per timed segment; the parking lot's SACK flows)."""

from __future__ import annotations

from pathlib import Path

import pytest

from aqmlab.scenario import Scenario
from tests.sim.identical import assert_same, off_then_on

pytestmark = pytest.mark.ns3
EXAMPLES = Path(__file__).parents[2] / "examples"


def both(simulate, scenario):
    return off_then_on(simulate, scenario, "RtoMemo")


def test_qiu_reno_identical(simulate):
    sc = Scenario.load(EXAMPLES / "qiu_t1_dumbbell.toml").replace(
        **{"topology.senders": 30, "traffic[0].flows": 30, "run.duration": "30s",
           "run.warmup": "5s", "run.sample_interval": "1s"})
    slow, fast = both(simulate, sc)
    assert fast.queues.drops.sum() > 0
    assert fast.meta["rto_memo"] is True and slow.meta["rto_memo"] is False
    assert_same(slow, fast)


def test_parking_lot_sack_identical(simulate):
    sc = Scenario.load(EXAMPLES / "parking_lot.toml").replace(
        **{"run.duration": "15s", "run.warmup": "3s"})
    slow, fast = both(simulate, sc)
    assert fast.flows.timeouts.sum() > 0
    assert_same(slow, fast)
