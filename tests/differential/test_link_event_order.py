"""The order of a transmission's end and its arrival (cpp/ns2_event_clock.h,
Ns2ClockSimulatorImpl::HintTransmission).

ns-2.35's LinkDelay::recv schedules a packet's arrival at the far node before the link's
end of transmission; ns-3's point-to-point device schedules its TransmitComplete before the
channel's Receive. On a zero-delay link both are due at once and run in scheduling order,
and so does anything they start at the same instant: Weigle's ARED 5 ms at 80 %, seed 3,
92.463910952 s, a request reached the router as the bottleneck finished a 40-byte packet,
two chains started 32 us earlier in the two orders. ns-2.35 started the next transmission
first (RED then counted one waiting packet: no early test for the following arrival), ns-3
enqueued first (two waiting, an early test and a number drawn), and the runs parted at
93.5 s.
"""

from __future__ import annotations

import pytest

from aqmlab.engines import ns2
from tests.differential.weigle_window import largest_gap

pytestmark = [pytest.mark.ns3, pytest.mark.ns2, pytest.mark.slow,
              pytest.mark.skipif(not ns2.available(), reason="ns-2 (`ns`) is not installed")]


def test_ared5_at_80_percent_seed_3_stays_with_ns2_past_the_link_tie():
    """Connections opened in the first 100 s: every response time as on ns-2.35 (with
    ns-3's order they part at 93.5 s)."""
    assert largest_gap(100.0, example_name="weigle_droptail_80", seed=3) < 1e-9
