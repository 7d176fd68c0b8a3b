"""A segment waiting in the sender's processing hold that an ACK covers before the hold's
timer fires never leaves (``tcp.held_acked = "dropped"``), as ns-2.35 picks the segments
only when its delayed send fires.

ns-2.35 (tcp.cc, overhead_) delays send_much() itself: when delsnd_timer_ fires it sends
from t_seqno_, which newack() moves past whatever an ACK acknowledges meanwhile. aqmlab's
socket chose the segments when it sent into the hold (hold_queue_disc.h), so a timeout's
resend of the head still left after the ACK of that very segment had arrived.

Qiu's T1, 100 flows, a T1 packet time of random processing, seed 3, flow 20: a timeout at
2.50235 s, the ACK of segment 1 at 2.504107 s, and at the release (2.504209 s) ns-2.35
sends segments 2 and 3; with "sent" aqmlab sent 1, 2 and 3 and the runs parted there.
"""

from __future__ import annotations

import functools

import numpy as np

from aqmlab.engines.flow_trace import flow_trace
from aqmlab.studies.setups import qiu
from tests.differential.packets import partings
from tests.differential.scenarios import MARKS

pytestmark = MARKS
FLOWS = range(100)
TOL = 1.5e-6
RELEASE = 2.504209


@functools.cache
def _events(engine: str, held_acked: str = "auto"):
    sc = qiu.base(4.0, 0.0).replace(**{
        "traffic[0].flows": 100, "topology.senders": 100, "run.sample_interval": None,
        "run.seed": 3, "traffic[0].processing_time": f"{qiu.SERVICE_S:.5f}s",
        "run.engine": engine, "tcp.held_acked": held_acked})
    return flow_trace(sc, FLOWS)[1]


def _sent_at_release(ev) -> list[int]:
    at = ev[(ev.flow == 20) & (np.abs(ev.t - RELEASE) < 1e-6) & ev.event.isin(["send", "retx"])]
    return [int(s) for s in at.seg]


def test_an_acknowledged_held_resend_does_not_leave():
    """At flow 20's release both engines send segments 2 and 3 (segment 1's ACK came
    first), and the hundred flows send the same packets to 4 s."""
    ev2, ev3 = _events("ns2"), _events("ns3")
    assert _sent_at_release(ev2) == [2, 3]
    assert _sent_at_release(ev3) == [2, 3]
    assert all(np.isinf(partings(ev2, ev3, FLOWS, tol=TOL)))


def test_with_sent_the_held_resend_leaves():
    """With "sent" (aqmlab until 0.8.10) the resend of segment 1 leaves with 2 and 3."""
    assert _sent_at_release(_events("ns3", "sent")) == [1, 2, 3]
