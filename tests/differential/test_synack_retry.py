"""A bulk flow's listener resends its SYN/ACK only in answer to a duplicate SYN
(``tcp.synack_retry = "none"``), never on a timer.

ns-2.35's one-way TCPSink keeps no state and never sends on a timer. ns-3's listener (a
fork in SYN_RCVD) resends its SYN/ACK after ConnTimeout (3 s) while the handshake's ACK is
missing, and an opener already ESTABLISHED that receives a SYN-bearing segment resets cwnd
to the initial window and ssthresh to its initial value (TcpSocketBase::DoForwardUp). Qiu's
T1 dumbbell, 100 Reno flows, seed 2: flow 14's first data segment (carrying the handshake's
ACK, ``handshake_ack = "with_data"``) is dropped at the bottleneck; the SYN/ACK comes again
at 4.77 s, so at 6.057 s ns-3 is in slow start (segments 3 and 4) where ns-2.35, ssthresh 2
after its RTO at 4.52 s, sends segment 3 alone. In seeds 3 and 6 the extra 42-byte SYN/ACK
on the reverse T1 delays another flow's ACK by 33 us (parting at ~4.8 s). Without the timer
the handshake completes on the sender's retransmitted data, as on ns-2; a lost SYN/ACK is
repaired by the opener's SYN retry, which the listener answers at once (``dup_syn =
"answer"``).
"""

from __future__ import annotations

import functools

import numpy as np
import pytest

from aqmlab.engines.flow_trace import flow_trace
from aqmlab.scenario import DropTail
from aqmlab.studies.setups import qiu
from tests.differential.packets import data_packets, parting_time
from tests.differential.scenarios import MARKS, qiu_flows

pytestmark = MARKS
TOL = 1.5e-6


@functools.cache
def _hundred(engine: str, synack: str = "auto"):
    sc = qiu.base(9.0, 0.0).replace(**{
        "traffic[0].flows": 100, "run.sample_interval": None, "run.seed": 2,
        "run.engine": engine, "tcp.synack_retry": synack})
    return flow_trace(sc, list(range(100)))[1]


def _parting(ev2, ev3) -> np.ndarray:
    return np.array([parting_time(data_packets(ev2, f), data_packets(ev3, f), tol=TOL)
                     for f in range(100)])


def _sent_near(ev, t: float) -> list[int]:
    d = data_packets(ev, 14)
    return [int(s) for s in d.seg[(d.t > t - 1e-3) & (d.t < t + 1e-3)]]


def test_without_the_timer_a_hundred_flows_send_the_same_packets_for_eight_seconds():
    ev2, ev3 = _hundred("ns2"), _hundred("ns3")
    parting = _parting(ev2, ev3)
    assert parting.min() > 8.0, (parting.argmin(), parting.min())
    assert _sent_near(ev2, 6.057) == _sent_near(ev3, 6.057) == [3]


def test_ns3s_synack_timer_puts_flow_14_in_slow_start():
    ev2, ev3 = _hundred("ns2"), _hundred("ns3", "timer")
    parting = _parting(ev2, ev3)
    assert parting.argmin() == 14
    assert 6.05 < parting.min() < 6.06
    assert _sent_near(ev3, 6.057) == [3, 4]


def test_a_lost_synack_is_repaired_by_the_syn_retry():
    """The SYN/ACK (ns-2: packet 0's ACK), the first packet on the reverse bottleneck, is
    lost: the opener retries its SYN (ns-2: packet 0) at the initial RTO, 3 s, and the
    listener answers it at once; the first data leaves 3.43 s in on both engines."""
    def first_data(engine: str, synack: str = "auto") -> float:
        sc = qiu_flows(1, 5.0, engine, **{
            "tcp.synack_retry": synack,
            "topology.reverse_queue": DropTail(limit="1000p", drop_packets=(1,),
                                               drop_count="all")})
        ev = flow_trace(sc, [0])[1]
        return float(data_packets(ev, 0).t[0])

    t2 = first_data("ns2")
    assert t2 > 3.0
    assert first_data("ns3") == pytest.approx(t2, abs=TOL)
    assert first_data("ns3", "timer") == pytest.approx(t2, abs=TOL)
