"""A busy link's departures on ns-2's double clock itself, not on a sum of rounded steps
(``topology.tx_time = "ns2"`` at the femtosecond, aqmlab/engines/ns3/cpp/ns2_tx_clock.h).

ns-2.35 schedules a busy link's next departure at ``clock_ + txt`` in doubles
(LinkDelay::recv, Scheduler::schedule). On Qiu's T1 (502 bytes at 1,550,176 b/s) that step
is 2,590,673,575,129.54 fs while the time is in [8, 16) s and 2,590,673,575,127.77 fs in
[16, 32) s. aqmlab 0.7.0-0.7.2 rounded each double step to the femtosecond (..130 and
..128), so ns-3's bottleneck ran 0.46 and 0.23 fs a slot late: 2.4 ps by 14 s, 0.4 ps
more over a 2.5-s timer. Qiu's 100 flows, seed 6: flow 42's 2.5-s retransmission timer,
set by an ACK at 14.011813 s, expires at 16.51181306438836 s on both engines, when flow
59's ACK arrives, 965 slots later: ns-2.35 at 16.511813064388086 s (0.27 ps before the
timer), ns-3 0.14 ps after it. Both packets reach the full drop-tail queue in that order,
the first takes the one free place: on ns-2.35 42's retransmission of segment 10 is lost
(its next timeout at 21.51 s), on ns-3 59's segment 85 was, and the runs parted at
17.649 s (59's duplicate ACKs); over 500 s the timeouts per flow were 1.07 and 0.04. Now
the device keeps ns-2's double end of its busy period and ends each transmission at the
next double rounded to the femtosecond: the departures are ns-2's to half a femtosecond
however long the link stays busy, and the seed-6 runs send the same packets for 500 s.
"""

from __future__ import annotations

import functools
from fractions import Fraction

import pytest

from aqmlab.engines.flow_trace import flow_trace
from aqmlab.studies.setups import qiu
from tests.differential.packets import data_packets, parting_time
from tests.differential.scenarios import MARKS

FLOWS = 100
TOL = 1.5e-6  # both engines print times to the microsecond
RATE, SIZE = 1550176, 502  # Qiu's T1 at whole bits per second, a 460-byte segment's packet


@functools.cache
def _events(engine: str):
    sc = qiu.base(18.0, 0.0).replace(**{
        "traffic[0].flows": FLOWS, "run.sample_interval": None, "run.seed": 6,
        "run.engine": engine})
    return flow_trace(sc, range(FLOWS))[1]


def _both_engines(test):
    for mark in reversed(MARKS):
        test = mark(test)
    return test


@_both_engines
def test_the_tie_at_16_51_s_goes_as_on_ns2():
    """Flow 42's retransmission and flow 59's segment 85 leave at 16.511813 s; the
    retransmission is lost on both engines, and the 100 flows send the same packets for
    the 18 s (aqmlab 0.7.2: parted at 17.649 s, flow 59 resent 85, flow 42 sent on)."""
    ev2, ev3 = _events("ns2"), _events("ns3")
    for ev in (ev2, ev3):
        f42 = data_packets(ev, 42)
        retx = f42[(f42.t > 16.5118) & (f42.t < 16.5119)]
        assert list(retx.seg) == [10]
        assert not (f42.t > 16.52).any()  # its retransmission lost: nothing until 21.51 s
        f59 = data_packets(ev, 59)
        assert 85 not in set(f59.seg[f59.event == "retx"])  # 85, sent at the tie, arrived
    parted = {f: parting_time(data_packets(ev2, f), data_packets(ev3, f), tol=TOL)
              for f in range(FLOWS)}
    assert min(parted.values()) == float("inf"), min(parted.items(), key=lambda kv: kv[1])


@pytest.mark.ns3
def test_a_busy_link_departs_on_ns2s_doubles():
    """A thousand back-to-back T1 transmissions from the ACK that set flow 42's timer: each
    ends at ns-2's double time to the nearest femtosecond; rounding each double step
    instead loses 0.46 fs a slot before 16 s and 0.23 after (0.4 ps here)."""
    from aqmlab.engines.ns3 import native

    clock = native.load().Ns2BusyClock()
    clock.stepsPerSecond = 10**15
    txt = 8.0 * SIZE / RATE  # ns-2's LinkDelay::txtime
    t = 14.01181306438836  # ns-2.35's time of that ACK (a Trace callback's [$ns now])
    now = stepped = clock.Steps(t)
    assert now == round(Fraction(t) * 10**15)
    for _ in range(1000):
        now = clock.End(SIZE, RATE, now)
        nxt = t + txt  # ns-2: clock_ + txt, a double
        stepped += round(Fraction(nxt - t) * 10**15)  # aqmlab 0.7.2: the step rounded
        t = nxt
        assert now == round(Fraction(t) * 10**15)
    assert t > 16.5  # the busy period crossed into the [16, 32) binade
    assert 380 < stepped - now < 420  # femtoseconds the rounded steps lost
