"""A new segment waiting in the sender's processing hold that the window no longer admits
when the hold's timer fires goes back to the unsent data (``tcp.held_beyond_window =
"unsent"``), as ns-2.35 tests the window only when its delayed send fires.

ns-2.35 (tcp.cc, overhead_) delays send_much() itself: when delsnd_timer_ fires it sends
while t_seqno_ <= highest_ack_ + window(). aqmlab's socket commits a segment to the hold
when its window opens; a new ACK that ends a fast recovery meanwhile deflates the window
(ns-2 zeroes dupwnd_), and ns-2.35 then sends nothing.

Qiu's T1, 100 flows, drop-tail 400, 10-ms random processing (``many_flows_regimes``' random
regime), seed 1: with "sent" the engines part before 5 s (at 0.8.11 flow 6 sent segment 69
at 3.7448 s, committed on a duplicate ACK's inflated window); with "unsent" all 100 flows
send ns-2.35's packets for the whole 200 s of the study's runs (checked once; 8 s here).
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


@functools.cache
def _events(engine: str, held: str = "auto"):
    sc = qiu.base(8.0, 0.0).replace(**{
        "traffic[0].flows": 100, "topology.senders": 100, "run.sample_interval": None,
        "run.seed": 1, "topology.forward_queue.limit": "400p",
        "traffic[0].processing_time": "10ms", "run.engine": engine,
        "tcp.held_beyond_window": held})
    return flow_trace(sc, FLOWS)[1]


def test_held_segments_beyond_the_window_stay_unsent_as_on_ns2():
    """With "unsent" (the default) the hundred flows send ns-2.35's packets for 8 s."""
    ev2, ev3 = _events("ns2"), _events("ns3")
    assert len(ev3) > 5000
    assert all(np.isinf(partings(ev2, ev3, FLOWS, tol=TOL)))


def test_with_sent_they_leave_and_the_runs_part():
    """With "sent" (aqmlab until 0.8.11) the runs part between 3 and 8 s."""
    parted = np.array(partings(_events("ns2"), _events("ns3", "sent"), FLOWS, tol=TOL))
    assert 3.0 < parted.min() < 8.0
