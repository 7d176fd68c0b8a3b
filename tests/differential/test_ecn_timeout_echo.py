"""ECN echoes after a retransmission timeout, as ns-2.35's one-way agents answer them.

Pentikousis' ten downloads through aggressive RED+ECN (``run.event_clock = "ns2"``, the
study's default), two rules of ns-2's ``TcpAgent``:

* ``newack()`` ends the timer's back-off at an RTT sample unless the sender is "still in
  ECN-Echo with a congestion window of 1 packet" (``ecn_backoff_`` and *this* ACK echoing).
  ns-3 takes the sample (``EstimateRtt``) before it reads the ACK (``ReceivedAck``), and
  aqmlab 0.8.9 tested the previous ACK's echo: at limit 16 flow 4's ACK at 23.396 s, which
  does not echo, left the back-off at 4 (ns-2.35: 1), and at 596.94 s ns-2.35 timed out a
  second before ns-3 would have.
* ``ecn()`` answers an echo after a timeout whatever the ACK (``last_cwnd_action_ ==
  CWND_ACTION_TIMEOUT``), a duplicate one too: at limit 8 flow 0's duplicate ACK at
  1007.738 s, sent before the timeout's retransmission, echoed; ns-2.35 cut cwnd 1 -> 0.5,
  aqmlab 0.8.9 (ns-3's LOSS state) kept 1 and sent two segments at the next new ACK.
"""

from __future__ import annotations

import functools

import numpy as np

from aqmlab.engines.flow_trace import flow_trace
from aqmlab.studies.setups import pentikousis
from tests.differential.packets import partings
from tests.differential.scenarios import MARKS

pytestmark = MARKS
FLOWS = range(10)
TOL = 1.5e-6


@functools.cache
def _events(engine: str, limit: int, duration: str):
    sc = pentikousis.base("20MiB").replace(**{
        **pentikousis.scheme_arm("aggr-ecn", limit).changes, "topology.receivers": 10,
        "traffic[0].count": 10, "run.duration": duration, "run.sample_interval": None,
        "run.engine": engine})
    return flow_trace(sc, FLOWS)[1]


def _row(ev, flow: int, t: float, event: str):
    hit = ev[(ev.flow == flow) & (ev.event == event) & (np.abs(ev.t - t) < 1e-6)]
    assert len(hit), f"flow {flow} has no {event} at {t}"
    return hit.iloc[-1]


def test_a_sample_without_echo_ends_the_backoff():
    """Flow 4's ACK at 23.395921 s acknowledges its timed segment without an echo: the
    back-off goes from 4 to 1 on both engines."""
    for engine in ("ns2", "ns3"):
        ev = _events(engine, 16, "24s")
        before = ev[(ev.flow == 4) & (ev.t < 23.3959)].iloc[-1]
        assert before.backoff == 4
        assert _row(ev, 4, 23.395921, "ack").backoff == 1


def test_an_echo_on_a_duplicate_ack_after_a_timeout_halves_cwnd():
    """Flow 0 times out at 1007.733105 s (cwnd 1); the duplicate ACK at 1007.737585 s
    echoes and cwnd goes to 0.5 on both engines, and the ten flows send the same packets
    to 1008 s."""
    ev2, ev3 = _events("ns2", 8, "1008s"), _events("ns3", 8, "1008s")
    for ev in (ev2, ev3):
        assert _row(ev, 0, 1007.733105, "timeout").cwnd == 1.0
        assert _row(ev, 0, 1007.737585, "ack").cwnd == 0.5
    assert all(np.isinf(partings(ev2, ev3, FLOWS, tol=TOL)))
