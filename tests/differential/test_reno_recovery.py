"""Reno's fast recovery, packet by packet (``fast_retransmit_guard``, ``reno_window``,
``timeout_ssthresh``).

Two losses in one window, segments 29 and 31 (arrivals 30 and 32): ns-2's Reno
fast-retransmits 29, leaves recovery on the partial ACK, and with ``bugFix_`` does not
fast-retransmit 31 on the next three duplicate ACKs: it waits for the timeout. aqmlab's Reno
until 0.2 (``fast_retransmit_guard = "timeout"``) fast-retransmitted it.

Segments 29 and 40 lost (arrivals 30 and 41), 29's retransmission too (arrival 61): during
the recovery ns-2 lets a new segment out for every duplicate ACK (its window is exactly half
the old one, 15.5, plus every dupack); ns-3's classic recovery counts the first two dupacks
only with limited transmit and so sent its first new segment two dupacks (1.7 ms) later.
"""

from __future__ import annotations

import pytest

from tests.differential.scenarios import MARKS, arrivals, events, one_flow, trace

pytestmark = MARKS


@pytest.fixture(scope="module")
def two_drops():
    out = {}
    for name, engine, tcp in (("ns2", "ns2", {}), ("ns3", "ns3", {}),
                              ("guard_timeout", "ns3", {"fast_retransmit_guard": "timeout"})):
        out[name] = trace(one_flow((30, 32), **tcp), engine)
    return out


@pytest.mark.parametrize("name", ["ns2", "ns3"])
def test_a_second_loss_in_the_window_waits_for_the_timeout(two_drops, name):
    res, ev = two_drops[name]
    f = res.flows.iloc[0]
    assert (f.fast_recoveries, f.timeouts, f.retransmitted_packets) == (1, 1, 2)
    assert list(events(ev, "retx").seg) == [29, 31]
    assert list(events(ev, "timeout").seg) == [31]


def test_the_engines_retransmit_at_the_same_instants(two_drops):
    t2, t3 = (events(two_drops[n][1], "retx").t for n in ("ns2", "ns3"))
    assert abs(t3 - t2).max() < 5e-5


def test_without_the_guard_reno_fast_retransmits_twice(two_drops):
    f = two_drops["guard_timeout"][0].flows.iloc[0]
    assert (f.fast_recoveries, f.timeouts) == (2, 0)


@pytest.fixture(scope="module")
def two_holes():
    out = {}
    for name, engine, tcp in (("ns2", "ns2", {}), ("ns3", "ns3", {}),
                              ("ns3_window", "ns3", {"reno_window": "ns3"})):
        out[name] = trace(one_flow((30, 41, 61), **tcp), engine)[1]
    return out


def first_new_send(ev):
    """When the first segment beyond the old window (60) left."""
    s = arrivals(ev)
    return float(s[s.seg == 60].t.iloc[0])


def test_every_duplicate_ack_lets_a_segment_out(two_holes):
    assert first_new_send(two_holes["ns2"]) == pytest.approx(0.16262, abs=2e-5)
    assert first_new_send(two_holes["ns3"]) == pytest.approx(first_new_send(two_holes["ns2"]),
                                                             abs=5e-5)
    # the rest of the recovery follows: the timeout's go-back-N is arrival 166 on both
    for ev in (two_holes["ns2"], two_holes["ns3"]):
        assert arrivals(ev).set_index("arrival").seg[166] == 29


def test_ns3s_window_sends_two_dupacks_later(two_holes):
    late = first_new_send(two_holes["ns3_window"]) - first_new_send(two_holes["ns2"])
    assert late == pytest.approx(2 * 0.000834, abs=1e-4)


@pytest.mark.parametrize("engine", ["ns2", "ns3"])
def test_a_timeout_halves_the_window_not_the_flight(engine):
    """NewReno, segment 29 and its fast retransmission lost: the timeout at 0.351 s sets
    ssthresh to half the 15-segment window, 7 (ns-2 slowdown); ns-3's rule, half the
    flight, gives 7.5."""
    ev = trace(one_flow((30, 61), variant="newreno"), engine)[1]
    after = events(ev, "ack")
    after = after[after.t > events(ev, "timeout").t[0]]
    assert after.ssthresh.iloc[0] == 7


def test_ns3s_timeout_halves_the_flight():
    ev = trace(one_flow((30, 61), variant="newreno", timeout_ssthresh="flight"), "ns3")[1]
    after = events(ev, "ack")
    after = after[after.t > events(ev, "timeout").t[0]]
    assert after.ssthresh.iloc[0] == 7.5


@pytest.fixture(scope="module")
def with_limited_transmit():
    """Limited transmit on: segment 29 and its fast retransmission (arrival 63) lost; the
    flow times out at 0.351 s while dupacks of the old window are still arriving."""
    out = {}
    for name, engine, tcp in (("ns2", "ns2", {}), ("ns3", "ns3", {}),
                              ("ignored", "ns3", {"dupacks_after_timeout": "ignored"})):
        out[name] = trace(one_flow((30, 63), limited_transmit=True, **tcp), engine)[1]
    return out


def test_after_a_timeout_two_dupacks_each_let_a_segment_out(with_limited_transmit):
    """ns-2's singledup_: the first two dupacks after the timeout send the next segments
    of the go-back-N (30 and 31, which the receiver holds already)."""
    for name in ("ns2", "ns3"):
        retx = events(with_limited_transmit[name], "retx")
        assert list(retx.seg) == [29, 29, 30, 31], name
    t2, t3 = (events(with_limited_transmit[n], "retx").t for n in ("ns2", "ns3"))
    assert abs(t3 - t2).max() < 5e-5


def test_ns3_ignores_dupacks_after_a_timeout(with_limited_transmit):
    assert list(events(with_limited_transmit["ignored"], "retx").seg) == [29, 29]
