"""The window increase of a cumulative ACK that ends slow start (``increase_per_ack``).

A 3-segment window (``rcv_window`` 3000 B): segment 9 (arrival 10) is lost, its two
duplicate ACKs cannot fast-retransmit, and the timeout at 0.324 s sets cwnd 1, ssthresh 2.
The retransmission's ACK covers segments 9-11: ns-2's opencwnd makes one slow-start
increase, cwnd 2; ns-3's TcpNewReno spends one of the three segments in slow start and the
other two in a congestion-avoidance step, cwnd 2.5, and its window reaches three segments
one ACK earlier: segment 16 leaves a round trip (25 ms) sooner. This is the state of Qiu's
T1 flows after most of their timeouts (ssthresh 2), where a loss in a 3-segment flight
leaves two duplicate ACKs, not three.
"""

from __future__ import annotations

import pytest

from tests.differential.scenarios import MARKS, arrivals, events, one_flow, trace

pytestmark = MARKS


@pytest.fixture(scope="module")
def small_window():
    out = {}
    for name, engine, tcp in (("ns2", "ns2", {}), ("ns3", "ns3", {}),
                              ("split", "ns3", {"increase_per_ack": "split"})):
        out[name] = trace(one_flow((10,), rcv_window=3000, **tcp), engine)[1]
    return out


def cwnd_after_hole_filled(ev):
    """cwnd after the ACK of the timeout's retransmission (12 segments acknowledged)."""
    acks = events(ev, "ack")
    return float(acks[acks.seg == 12].cwnd.iloc[0])


def sent_at(ev, seg: int) -> float:
    s = arrivals(ev)
    return float(s[s.seg == seg].t.iloc[0])


@pytest.mark.parametrize("name", ["ns2", "ns3"])
def test_the_ack_ending_slow_start_makes_one_increase(small_window, name):
    ev = small_window[name]
    assert list(events(ev, "timeout").seg) == [9]
    assert events(ev, "timeout").t[0] == pytest.approx(0.3243, abs=1e-4)
    assert cwnd_after_hole_filled(ev) == 2


def test_the_engines_send_at_the_same_instants(small_window):
    s2, s3 = (arrivals(small_window[n]).set_index("arrival") for n in ("ns2", "ns3"))
    n = min(len(s2), len(s3))
    assert n > 80  # the whole second
    assert (s2.seg[:n] == s3.seg[:n]).all()
    assert abs(s2.t[:n] - s3.t[:n]).max() < 5e-5


def test_ns3s_split_adds_a_congestion_avoidance_step(small_window):
    assert cwnd_after_hole_filled(small_window["split"]) == 2.5
    early = sent_at(small_window["ns2"], 16) - sent_at(small_window["split"], 16)
    assert early == pytest.approx(0.0242, abs=5e-4)
