"""An ECN cut below one segment, and the wait for the retransmission timer
(``tcp.ecn_cwnd_floor = "none"``), packet by packet.

Pentikousis' ten aggressive RED+ECN downloads (limit 32, 2 MiB, seed 1, first 20 s), flow 6.
At 15.351057 s the ACK of segment 134, the only one in flight (cwnd 1.803), echoes ECN:
ns-2.35's ecn() -> slowdown(CLOSE_CWND_HALF) leaves cwnd_ = 0.902 (no floor under cwnd_),
window() is 0 and nothing is sent; newack() -> newtimer() arms the retransmission timer
because cwnd_ < 1 although nothing is outstanding, and when it expires one RTO later
(16.351057 s) timeout() sets cwnd_ = 1, keeps ssthresh and the back-off (no outstanding
data) and send_much() sends segment 135 (RFC 3168 6.1.2). ns-3 floors the cut at one
segment and sent 135 at once: with ``ecn_cwnd_floor = "one_segment"`` (aqmlab before
0.7.5) this was where the runs first parted; with ns-2's rule they part after 59 s (a
Reno fast recovery ended by an echoing ACK).
"""

from __future__ import annotations

import functools

import pandas as pd
import pytest

from aqmlab.engines.flow_trace import flow_trace
from tests.differential.packets import partings
from tests.differential.scenarios import MARKS, aggressive_ecn_clients

pytestmark = MARKS

FLOWS = list(range(10))


def _scenario(engine: str, floor: str = "auto"):
    return aggressive_ecn_clients("20s", engine, **{"tcp.ecn_cwnd_floor": floor})


@functools.cache
def _events(engine: str, floor: str = "auto") -> pd.DataFrame:
    return flow_trace(_scenario(engine, floor), FLOWS)[1]


def _flow6(ev: pd.DataFrame) -> pd.DataFrame:
    return ev[(ev.flow == 6) & (ev.t > 15.0) & (ev.t < 16.4)].reset_index(drop=True)


@pytest.mark.parametrize("engine", ["ns2", "ns3"])
def test_an_echo_at_cwnd_below_two_waits_for_the_timer(engine):
    ev = _flow6(_events(engine))
    assert list(ev.event) == ["ack", "send"]
    ack, send = ev.iloc[0], ev.iloc[1]
    assert ack.t == pytest.approx(15.351057, abs=1e-5) and ack.seg == 135  # all acked
    assert ack.cwnd == pytest.approx(1.803 / 2, abs=2e-3)                  # below one
    assert ack.ssthresh == 2
    assert send.seg == 135 and send.t == pytest.approx(16.351057, abs=1e-5)  # one RTO on
    assert send.cwnd == pytest.approx(1.0) and send.ssthresh == 2 and send.backoff == 1


def test_ns3s_floor_sends_at_once():
    ev = _flow6(_events("ns3", "one_segment"))
    assert list(ev.event[:2]) == ["send", "ack"]
    assert ev.t.iloc[0] == pytest.approx(15.351057, abs=1e-5) and ev.seg.iloc[0] == 135
    assert ev.cwnd.iloc[1] == pytest.approx(1.0)


def test_the_runs_no_longer_part_in_the_first_20_s():
    ev2, ev3 = _events("ns2"), _events("ns3")
    parted = partings(ev2, ev3, FLOWS, tol=1e-5)
    assert parted == [float("inf")] * len(FLOWS), parted
