"""A held segment is timed, and an idle retransmission timer armed, when it leaves the
sender's processing hold (``tcp.processing_timing = "output"``), not when the socket sends it.

ns-2.35 delays send_much() itself when a sender has a processing time (tcp.cc, overhead_:
delsnd_timer_ U(0, overhead_)); when that timer fires, output() sends what the window allows
and there times the first new segment (rtt_ts_) and arms the retransmission timer if none
is pending or all data sent was acknowledged (force_set_rtx_timer; newtimer() cancelled it
at that ACK). aqmlab's hold (hold_queue_disc.h) delays the packet below the socket, which
had timed it and armed the timer when it sent it, up to one processing time earlier.

* One flow, first segment lost (5 ms processing, shared ns-2 draws): ns-2.35's RTO (200
  ms) runs from segment 0's departure, 2.78 ms after the handshake's ACK; with "socket"
  ns-3's ran from that ACK and fired 2.78 ms early.
* Qiu's T1, 10 flows, a T1 packet time of processing, seed 2: with "socket" flow 2 timed
  segment 1 from its ACK's arrival (0.413047 s), 2 ticks of 100 ms where ns-2.35 counted 1
  from its departure (0.414637 s); its RTO stayed a tick longer and its timeout came at
  5.09 s, not 4.99 s. With "output" the ten flows send the same packets at the same
  instants (the traces' microsecond) for the whole 6 s, seeds 1 and 2.
"""

from __future__ import annotations

import functools

import pytest

from aqmlab.engines.flow_trace import flow_trace
from aqmlab.studies.setups import qiu
from tests.differential.packets import data_packets, parting_time
from tests.differential.scenarios import MARKS, one_flow

pytestmark = MARKS
TOL = 1.5e-6
TOL_NS2_VAR = 1e-5  # ns-2's traced variables (the timeout's back-off) are printed to 10 us


def _timeouts(ev, flow: int = 0) -> list[float]:
    return [float(t) for t in ev.t[(ev.flow == flow) & (ev.event == "timeout")]]


@functools.cache
def _one(engine: str, timing: str = "auto"):
    sc = one_flow((1,), "1s").replace(**{
        "traffic[0].processing_time": "5ms", "run.engine": engine,
        "tcp.processing_timing": timing})
    return flow_trace(sc, [0])[1]


def test_the_timer_of_a_held_first_segment_starts_when_it_leaves():
    ev2 = _one("ns2")
    sent = float(data_packets(ev2, 0).t[0])  # segment 0 leaves the hold
    handshake = float(ev2.t[(ev2.event == "ack") & (ev2.seg == 0)].iloc[0])  # packet 0's ACK
    assert sent - handshake > 1e-3
    [t2, *_] = _timeouts(ev2)
    assert t2 == pytest.approx(sent + 0.2, abs=TOL_NS2_VAR)
    ev3 = _one("ns3")
    assert _timeouts(ev3)[0] == pytest.approx(t2, abs=TOL_NS2_VAR)
    assert parting_time(data_packets(ev2, 0), data_packets(ev3, 0), tol=TOL) == float("inf")
    # from the socket's send, at the handshake's ACK: the hold's 2.78 ms early
    assert _timeouts(_one("ns3", "socket"))[0] == pytest.approx(handshake + 0.2, abs=TOL)


@functools.cache
def _qiu(engine: str, seed: int, timing: str = "auto"):
    n = 10
    sc = qiu.base(6.0, 0.0).replace(**{
        "topology.senders": n, "traffic[0].flows": n, "run.sample_interval": None,
        "traffic[0].processing_time": f"{qiu.SERVICE_S:.5f}s", "run.seed": seed,
        "run.engine": engine, "tcp.processing_timing": timing})
    return flow_trace(sc, list(range(n)))[1]


def _first_parting(ev2, ev3) -> float:
    return min(parting_time(data_packets(ev2, f), data_packets(ev3, f), tol=TOL)
               for f in range(10))


@pytest.mark.parametrize("seed", [1, 2])
def test_qiu_ten_flows_send_the_same_packets(seed):
    assert _first_parting(_qiu("ns2", seed), _qiu("ns3", seed)) == float("inf")


def test_timing_from_the_socket_lengthens_flow_2s_rto():
    ev2, ev3 = _qiu("ns2", 2), _qiu("ns3", 2, "socket")
    assert _timeouts(ev2, 2)[0] == pytest.approx(4.98977, abs=TOL_NS2_VAR)
    assert _timeouts(ev3, 2)[0] == pytest.approx(5.089775, abs=TOL)
    assert _first_parting(ev2, ev3) == pytest.approx(4.991181, abs=TOL)
