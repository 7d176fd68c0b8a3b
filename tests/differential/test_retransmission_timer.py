"""The retransmission timer, packet by packet: ns-2.35 and aqmlab's ns-3 socket (default,
"auto") arm the same RTO at the same instant, and each of ns-3's own choices
(``rtt_sampling``, ``rto_clock``, ``rto_restart``) moves it.

Segment 29 (arrival 30) is lost and so is its fast retransmission (arrival 61, at 0.151 s),
so the flow times out. With min RTO 0 the RTO is the estimate: ns-2 times one segment per
round trip and counts in 10 ms ticks, floor(srtt + 4 rttvar) = 5 ticks, 50 ms after the
fast retransmit, which restarted the timer. Measured on ns-3: every-ACK samples 70 ms
(60 ms with the tick phase of aqmlab < 0.7.0: these samples straddle tick boundaries),
exact arithmetic 41.8 ms, both (ns-3's estimator) 38.7 ms; without the restart at the fast
retransmit the timer set by the last new ACK fires 35 ms after it.
"""

from __future__ import annotations

import pytest

from tests.differential.scenarios import MARKS, events, one_flow, trace

pytestmark = MARKS

DROPS = (30, 61)


@pytest.fixture(scope="module")
def runs():
    """name -> (seconds from the fast retransmit to the timeout, the timeouts)."""
    cases = {
        "ns2": ("ns2", {}),
        "ns3": ("ns3", {}),
        "every_ack": ("ns3", {"rtt_sampling": "every_ack"}),
        "exact": ("ns3", {"rto_clock": "exact"}),
        "ns3_estimator": ("ns3", {"rtt_sampling": "every_ack", "rto_clock": "exact"}),
        "no_restart": ("ns3", {"rto_restart": "new_ack"}),
    }
    out = {}
    for name, (engine, tcp) in cases.items():
        res, ev = trace(one_flow(DROPS, min_rto="0s", **tcp), engine)
        retx, to = events(ev, "retx"), events(ev, "timeout")
        assert retx.seg[0] == 29 and to.seg[0] == 29  # the fast retransmit, then its timeout
        out[name] = (to.t[0] - retx.t[0], res.flows.iloc[0])
    return out


def test_both_engines_time_out_one_tick_rto_after_the_fast_retransmit(runs):
    for name in ("ns2", "ns3"):
        rto, flow = runs[name]
        assert rto == pytest.approx(0.050, abs=1e-4), name
        assert (flow.timeouts, flow.fast_recoveries, flow.retransmitted_packets) == (1, 1, 2)


def test_every_ack_sampling_changes_the_rto(runs):
    assert runs["every_ack"][0] == pytest.approx(0.070, abs=1e-4)


def test_exact_arithmetic_changes_the_rto(runs):
    assert runs["exact"][0] == pytest.approx(0.0418, abs=5e-4)
    assert runs["ns3_estimator"][0] == pytest.approx(0.0387, abs=5e-4)


def test_without_the_restart_the_timer_of_the_last_new_ack_fires_earlier(runs):
    assert runs["no_restart"][0] == pytest.approx(0.035, abs=1e-3)
    assert runs["no_restart"][0] < runs["ns3"][0] - 0.01
