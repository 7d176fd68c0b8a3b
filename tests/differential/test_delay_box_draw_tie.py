"""A DelayBox draw and a used draw at the same instant (cpp/ns2_rng.h, Ns2Rng::CatchUp).

ns-3 counts an incoming packet's DelayBox draw when its link transmission starts, for the
instant it reaches the client's node, with the uid the next event would get then; ns-2.35
schedules that arrival when the transmission starts too (link/delay.cc) and runs events
due at the same time in scheduling order, so the draw whose event was scheduled first
comes first. Weigle's ARED 5 ms at 105 % load, seed 1: at 6.772585072 s a DelayBox
arrival scheduled before a RED arrival tied with it (RED taking the box's number, the
engines parted at 6.7726 s); at 80 %, seed 3, 81.536832 s, RED's arrival was scheduled
first, 114 us before the box's (a 1,460-byte frame takes 117 us at 100 Mb/s, the box's
40-byte packet 3.2 us), and drew first on ns-2.35, while ns-3 with the box always first
dropped a segment that ns-2.35 kept (81.5368 s).
"""

from __future__ import annotations

import pytest

from aqmlab.engines import ns2
from tests.differential.weigle_window import largest_gap

pytestmark = [pytest.mark.ns3, pytest.mark.ns2, pytest.mark.slow,
              pytest.mark.skipif(not ns2.available(), reason="ns-2 (`ns`) is not installed")]


def test_ared5_at_105_percent_stays_with_ns2_past_the_tie():
    """Connections opened in the first 7 s: every response time as on ns-2.35."""
    assert largest_gap(7.0) < 1e-9


def test_ared5_at_80_percent_seed_3_stays_with_ns2_past_the_tie():
    """Connections opened in the first 82 s (seed 3, 80 %, where RED's arrival was scheduled
    first): every response time as on ns-2.35."""
    assert largest_gap(82.0, example_name="weigle_droptail_80", seed=3) < 1e-9
