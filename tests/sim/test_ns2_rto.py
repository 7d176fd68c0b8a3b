"""ns-2.35's timer arithmetic as aqmlab's socket runs it (aqmlab/engines/ns3/cpp/ns2_rto.h),
checked by hand against tcp.cc's rtt_update/rtt_timeout/rtt_backoff with T_SRTT_BITS 3,
T_RTTVAR_BITS 2, the clock's phase at 0 and a 125 ms tick (a binary fraction, so that the
tick arithmetic is exact in floating point; ns-2 does the same fmod on doubles)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.ns3

TICK = 0.125


@pytest.fixture(scope="module")
def clock():
    from aqmlab.engines.ns3 import native

    def make():
        c = native.load().Ns2RtoClock()
        c.tick, c.boot, c.rtxcur = TICK, 0.0, 3.0
        return c

    return make


def test_samples_count_tick_boundaries_and_set_floor_srtt_plus_4_rttvar(clock):
    c = clock()
    assert c.Timeout(0.0, 60.0) == pytest.approx(3.0)  # rtxcur_init_ before any sample
    c.Sample(10.3, 0.3)  # sent at 10.0: boundaries 10.125, 10.25 -> 2 ticks
    assert (c.tSrtt, c.tRttvar) == (16, 4)  # srtt 2 ticks << 3, rttvar 1 tick << 2
    assert c.rtxcur == pytest.approx(6 * TICK)  # ((4 << 3) + 16) >> 3
    c.Sample(20.55, 0.55)  # 4 ticks: delta 2, srtt8 18; |2| - (4 >> 2) = 1, rttvar4 5
    assert (c.tSrtt, c.tRttvar) == (18, 5)
    assert c.rtxcur == pytest.approx(7 * TICK)  # (40 + 18) >> 3


def test_min_rto_clamps_before_the_backoff_and_max_rto_caps(clock):
    c = clock()
    c.Sample(10.05, 0.05)  # 0 ticks counts as 1: rtxcur 3 ticks
    assert c.rtxcur == pytest.approx(3 * TICK)
    assert c.Timeout(1.0, 60.0) == pytest.approx(1.0)
    for expected in (2.0, 4.0, 8.0, 16.0, 32.0, 60.0, 60.0):
        c.Backoff(1.0, 60.0)
        assert c.Timeout(1.0, 60.0) == pytest.approx(expected)


def test_after_the_fourth_backoff_srtt_is_cleared_and_restarts_from_the_next_sample(clock):
    c = clock()
    c.Sample(10.3, 0.3)
    for _ in range(4):
        c.Backoff(0.0, 60.0)
    assert (c.backoff, c.tSrtt, c.tRttvar) == (16, 0, 4 + 2)
    c.Sample(20.625, 0.625)  # a fresh estimate: srtt 5 ticks, rttvar 2.5 ticks
    assert (c.tSrtt, c.tRttvar) == (40, 10)
    assert c.rtxcur == pytest.approx(15 * TICK)


def test_a_timeout_is_at_least_two_ticks(clock):
    c = clock()
    c.rtxcur = 0.1
    assert c.Timeout(0.0, 60.0) == pytest.approx(2 * TICK)
