"""A timeout keeps ssthresh when an ECN echo made the last window cut, however long ago
(``tcp.timeout_ssthresh = "window"``), packet by packet.

ns-2.35's TcpAgent::timeout() keeps ssthresh_ (slowdown(CLOSE_CWND_ONE)) when `highest_ack_
< recover_ && last_cwnd_action_ == CWND_ACTION_ECN`; Reno's timeout() (and Sack1's) set
recover_ = maxseq_ just before, so only the last action counts: an ECN cut with no fast
retransmit or timeout since. Pentikousis' five conservative RED+ECN downloads (limit 32,
20 MiB, seed 6), flow 3: an echo at 13.875 s (ACK 365) halves cwnd to 3.292, ssthresh 3;
the window of data ends and cwnd grows to 4.603 by 14.88 s; segment 376 is lost with two
dupacks, and the timeout at 15.880 s keeps ssthresh 3 on ns-2.35. aqmlab kept it only in
CWR (within the echo's window of data): ns-3 halved 4 segments to 2, went into congestion
avoidance at 16.32 s (cwnd 2.5 where ns-2 sent three segments at cwnd 3) and the runs
parted there. Flow 0's echo on a new ACK after a timeout (16.538 s) is the other case:
ns-2 cuts there too (see test_an_echo_after_a_timeout_halves_cwnd). Now the runs send the
same packets for the whole 20 s.
"""

from __future__ import annotations

import functools

import pytest

from aqmlab.engines.flow_trace import flow_trace
from aqmlab.studies.setups import pentikousis
from tests.differential.packets import partings
from tests.differential.scenarios import MARKS

pytestmark = MARKS

FLOWS = [0, 1, 2, 3, 4]


@functools.cache
def _events(engine: str):
    sc = pentikousis.base("20MiB").replace(**dict(pentikousis.scheme_arm("cons-ecn", 32).changes))
    sc = sc.replace(**{"run.engine": engine, "run.seed": 6, "run.duration": "20s",
                       "run.sample_interval": None})
    return flow_trace(sc, FLOWS)[1]


def _flow3(engine: str, t0: float, t1: float):
    ev = _events(engine)
    return ev[(ev.flow == 3) & (ev.t > t0) & (ev.t < t1)].reset_index(drop=True)


@pytest.mark.parametrize("engine", ["ns2", "ns3"])
def test_the_echo_window_ends_before_the_timeout(engine):
    ev = _flow3(engine, 13.87, 15.0)
    acks = ev[ev.event == "ack"]
    assert acks.seg.iloc[0] == 365 and acks.cwnd.iloc[0] == pytest.approx(3.292, abs=2e-3)
    assert (ev.ssthresh == 3).all()
    assert ev[ev.event == "retx"].empty and ev.event.isin(["timeout"]).sum() == 0
    # new data sent after the cut, acknowledged: the echo's window of data is over
    assert acks.seg.max() == 376 and ev[ev.event == "send"].seg.max() == 379
    assert ev.cwnd.iloc[-1] == pytest.approx(4.603, abs=2e-3)


@pytest.mark.parametrize("engine", ["ns2", "ns3"])
def test_the_timeout_keeps_ssthresh_3(engine):
    ev = _flow3(engine, 15.8, 16.33)
    timeout = ev[ev.event == "timeout"]
    assert list(timeout.seg) == [376] and list(timeout.ssthresh) == [3]
    assert timeout.t.iloc[0] == pytest.approx(15.879736, abs=1e-5)
    # (ns-3's retransmission row shows the socket before aqmlab's correction)
    assert (ev[ev.event != "retx"].ssthresh == 3).all()
    sent = ev[(ev.event == "send") & (ev.t > 16.3)]
    assert list(sent.seg) == [382, 383, 384]
    assert list(sent.cwnd) == pytest.approx([3.0] * 3)


@pytest.mark.parametrize("engine", ["ns2", "ns3"])
def test_an_echo_after_a_timeout_halves_cwnd(engine):
    """Flow 0: a timeout at 16.051 s (ssthresh 2); the second new ACK after it, at
    16.538 s, echoes ECN: ns-2's ecn() cuts after a timeout whatever recover_ (last action
    TIMEOUT), cwnd 2 -> 1, one segment out; ns-3's CWR entered from the loss state left
    cwnd = ssthresh = 2 (aqmlab's EcnHalvesWindow now applies from LOSS too)."""
    ev = _events(engine)
    ev = ev[(ev.flow == 0) & (ev.t > 16.0) & (ev.t < 16.92)].reset_index(drop=True)
    assert list(ev[ev.event == "timeout"].seg) == [377]
    acks = ev[ev.event == "ack"]
    assert list(acks.seg) == [382, 384, 385]
    assert list(acks.cwnd) == pytest.approx([2.0, 1.0, 2.0], abs=1e-3)
    assert (acks.ssthresh == 2).all()
    sent = ev[ev.event == "send"]
    assert list(sent.seg) == [382, 383, 384, 385, 386]
    assert sent.t.iloc[2] == pytest.approx(16.538297, abs=1e-5)
    assert sent.t.iloc[3] == pytest.approx(16.910830, abs=1e-5)


def test_the_runs_send_the_same_packets_for_20_s():
    ev2, ev3 = _events("ns2"), _events("ns3")
    parted = partings(ev2, ev3, FLOWS, tol=1e-5)
    assert min(parted) == float("inf"), parted
