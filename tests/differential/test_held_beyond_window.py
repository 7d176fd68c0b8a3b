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

A timeout while a new segment waits in the hold: ns-2.35 resets t_seqno_ to highest_ack_ + 1
and its delayed send then sends only the head. The RTT-bias runs of 8 flows through RED-1
(run 1, seed 1): at 18.496 s flow 7 timed out with segment 525 held; with "sent" aqmlab
sent 525 and the head 483 at the release (18.497653 s), ns-2.35 483 alone; with "unsent"
the held segment waits for go-back-N, and the 21 RED-1 RTT-bias runs send ns-2.35's
packets for their 200 s (checked once; 20 s here).
"""

from __future__ import annotations

import functools

import numpy as np

from aqmlab.engines.flow_trace import flow_trace
from aqmlab.studies.setups import qiu
from aqmlab.studies.setups.qiu import red_config, rtt_scenario
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


@functools.cache
def _rtt_events(engine: str, held: str = "auto"):
    sc, arms = rtt_scenario(qiu.base(200.0, 20.0), 20.0, None, 1)
    sc = sc.replace(**arms[0].changes, **{
        "topology.forward_queue": red_config("red1", 160), "run.engine": engine,
        "tcp.held_beyond_window": held})
    return flow_trace(sc, range(8))[1]


def test_after_a_timeout_a_held_new_segment_waits_for_go_back_n():
    """At flow 7's release after its timeout both engines send only segment 483 (the
    head), and the 8 flows send the same packets for 20 s; with "sent" segment 525 left
    too and the runs part there."""
    ev2, ev3, sent = _rtt_events("ns2"), _rtt_events("ns3"), _rtt_events("ns3", "sent")

    def at_release(ev) -> list[int]:
        at = ev[(ev.flow == 7) & (np.abs(ev.t - 18.497653) < 1e-6)
                & ev.event.isin(["send", "retx"])]
        return sorted(int(s) for s in at.seg)

    assert at_release(ev2) == at_release(ev3) == [483]
    assert at_release(sent) == [483, 525]
    assert all(np.isinf(partings(ev2, ev3, range(8), tol=TOL)))
    assert 18.4 < min(partings(ev2, sent, range(8), tol=TOL)) < 18.6
