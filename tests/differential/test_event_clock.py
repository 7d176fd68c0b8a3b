"""ns-2.35's double-precision event clock on ns-3 (``run.event_clock = "ns2"``,
aqmlab/engines/ns3/cpp/ns2_event_clock.h).

Pentikousis' ten 10-MiB downloads through drop-tail 4 put every time on one lattice of link
times and 1-s timer periods. At 514.055477 s flow 7's retransmission timer expires at the
same femtosecond at which flow 6's ACK reaches the server, in exact arithmetic. ns-3 runs
the event scheduled first (the timer: flow 7's retransmission leaves before flow 6's two
segments); ns-2.35's doubles (0.11 ps apart from 512 s on) put the ACK first. From there
the runs differ: flow 6 loses segments 4780 and 4781 on ns-2.35 only. With ns-2's clock
both engines send the same packets, and 20-MiB runs drop the same 12,180 packets.
"""

from __future__ import annotations

import functools

import numpy as np

from aqmlab.engines.flow_trace import flow_trace
from aqmlab.studies.setups import pentikousis, qiu
from tests.differential.packets import data_counts, partings
from tests.differential.scenarios import MARKS

pytestmark = MARKS
FLOWS = range(10)
TOL = 1.5e-6


@functools.cache
def _events(engine: str, clock: str = "exact"):
    sc = pentikousis.base("10MiB").replace(**{
        **pentikousis.scheme_arm("dt", 4).changes, "topology.receivers": 10,
        "traffic[0].count": 10, "run.duration": "516s", "run.sample_interval": None,
        "run.engine": engine, "run.event_clock": clock})
    return flow_trace(sc, FLOWS)[1]


def test_exact_steps_run_the_timer_first_and_part_at_514_s():
    """At 514.055477 s flow 7's timeout retransmission (segment 5862 from 0) and flow 6's
    segments 4767-4768 leave the server in the same microsecond: on ns-3's exact clock the
    retransmission first, on ns-2.35 last; the flows then part before 514.2 s (without
    the mechanism the engines differ here)."""
    ev2, ev3 = _events("ns2"), _events("ns3", "exact")
    parted = np.array(partings(ev2, ev3, FLOWS, tol=TOL))
    assert 514.0 < parted.min() < 514.2
    assert int(parted.argmin()) in (6, 7)

    def position(ev, flow, seg, event):
        """Where in the trace's event order ``flow`` sends ``seg`` after 514 s."""
        hit = ev[(ev.flow == flow) & (ev.seg == seg) & (ev.event == event) & (ev.t > 514.0)]
        return int(np.flatnonzero(ev.index.isin(hit.index[:1]))[0])

    for ev in (ev2, ev3):  # the same microsecond on both engines
        same = ev.t.round(6) == 514.055477
        assert set(ev[same & ev.flow.isin([6, 7])].seg) == {4767, 4768, 5862}
    assert position(ev2, 6, 4767, "send") < position(ev2, 7, 5862, "retx")
    assert position(ev3, 7, 5862, "retx") < position(ev3, 6, 4767, "send")


def test_ns2_clock_sends_every_packet_as_ns235():
    """With ``event_clock = "ns2"`` the ten flows send the same data packets at the same
    microseconds as on ns-2.35 for the whole 516 s."""
    ev2, ev3 = _events("ns2"), _events("ns3", "ns2")
    assert all(np.isinf(partings(ev2, ev3, FLOWS, tol=TOL)))
    assert data_counts(ev3, FLOWS) == data_counts(ev2, FLOWS)
    assert sum(data_counts(ev2, FLOWS)) > 60_000


@functools.cache
def _aggr_ecn_events(engine: str, clock: str):
    sc = pentikousis.base("20MiB").replace(**{
        **pentikousis.scheme_arm("aggr-ecn", 8).changes, "topology.receivers": 10,
        "traffic[0].count": 10, "run.duration": "12s", "run.sample_interval": None,
        "run.engine": engine, "run.event_clock": clock})
    return flow_trace(sc, FLOWS)[1]


def test_events_a_femtosecond_apart_run_in_ns2_order():
    """Before 8 s ns-2's doubles are finer than the femtosecond: at 22.7 ms an ACK reaches
    router R1 0.003 fs after the end of the transmission before it, and ns-2.35 sends it
    later (the link was idle). Ordered by their doubles, the ten aggressive-RED+ECN
    downloads (limit 8) send the same packets as ns-2.35 for 12 s (ordered by femtosecond
    steps, aqmlab 0.8.9's clock, they parted at 8.8 s)."""
    ev2, ev3 = _aggr_ecn_events("ns2", "exact"), _aggr_ecn_events("ns3", "ns2")
    assert all(np.isinf(partings(ev2, ev3, FLOWS, tol=TOL)))
    assert data_counts(ev3, FLOWS) == data_counts(ev2, FLOWS)


@functools.cache
def _qiu(engine: str, clock: str):
    sc = qiu.base(19.5, 0.0).replace(**{
        "traffic[0].flows": 600, "topology.senders": 600, "run.sample_interval": None,
        "run.seed": 1, "run.engine": engine, "run.event_clock": clock})
    return flow_trace(sc, range(600))[1]


def test_qius_600_flows_send_ns235s_packets_on_its_clock():
    """Qiu's T1 with 600 flows, seed 1 (the many-flows studies' default clock is ns-2's):
    flow 535's retransmission of segment 5 at 18.061867 s is acknowledged at 19.194672 s
    on ns-2.35 and on ns-2's clock, 19.197263 s (a packet time later) on the exact clock;
    on ns-2's clock the 600 flows send the same packets to 19.5 s."""
    ev2, ev3 = _qiu("ns2", "ns2"), _qiu("ns3", "ns2")
    exact = _qiu("ns3", "exact")
    for ev, t in ((ev2, 19.194672), (ev3, 19.194672), (exact, 19.197263)):
        acks = ev[(ev.flow == 535) & (ev.event == "ack") & (ev.seg == 7)]
        assert abs(acks.t.iloc[0] - t) < TOL
    assert all(np.isinf(partings(ev2, ev3, range(600), tol=TOL)))
