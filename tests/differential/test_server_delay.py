"""PackMime's server delay (ns-2.35's PackMimeHTTP think time) drawn by aqmlab into the plan
and waited by both engines' servers, so replayed runs can include it."""

from __future__ import annotations

import numpy as np
import pytest

from aqmlab.engines import ns2
from tests.differential.planned import run, scenario

pytestmark = [pytest.mark.ns3, pytest.mark.ns2,
              pytest.mark.skipif(not ns2.available(), reason="ns-2 (`ns`) is not installed")]

DELAYS = [0.0, 0.02, 0.05, 0.1]


def test_each_response_waits_its_planned_server_delay_on_both_engines():
    """One-segment responses on an idle path: each takes its server delay longer than the
    one without (within 0.1 ms), on both engines, which agree within 1 ms."""
    n = len(DELAYS)
    times = {}
    for engine in ("ns3", "ns2"):
        df, _ = run(scenario(), engine, [300] * n, [500] * n, server_delay=DELAYS)
        rt = df.response_time_s.to_numpy()
        assert rt - rt[0] == pytest.approx(DELAYS, abs=1e-4), engine
        times[engine] = rt
    assert np.abs(times["ns3"] - times["ns2"]).max() < 0.001
