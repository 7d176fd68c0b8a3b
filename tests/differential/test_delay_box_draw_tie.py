"""A DelayBox draw and a used draw at the same instant (cpp/ns2_rng.h, Ns2Rng::CatchUp).

ns-3 counts an incoming packet's DelayBox draw when its link transmission starts, for the
instant it reaches the client's node, and consumes it before the next draw that is used.
ns-2.35 schedules that arrival when the transmission starts too (link/delay.cc), so at a
tie its DelayBox draw comes before RED's. Weigle's ARED 5 ms at 105 % load, seed 1: at
6.772585072 s one DelayBox entry and one RED arrival tied; consuming only earlier counted
draws gave RED the box's number and the engines parted at 6.7726 s (one early drop one
arrival apart) with the same number of draws on both sides.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from aqmlab import engines
from aqmlab.engines import ns2
from aqmlab.plan import make_plan
from aqmlab.results import tables
from aqmlab.studies.common import example
from aqmlab.studies.setups.weigle import weigle_arm

pytestmark = [pytest.mark.ns3, pytest.mark.ns2, pytest.mark.slow,
              pytest.mark.skipif(not ns2.available(), reason="ns-2 (`ns`) is not installed")]


def _responses(engine: str, until: float):
    sc = example("weigle_droptail_105").replace(**{
        "run.duration": "40s", "run.warmup": "0s", "run.stop_after_responses": None,
        "run.sample_interval": None, "topology.link_header": "none", "tcp.syn_options": "none",
        "topology.delay_box": "ns2", "run.random_stream": "ns2"})
    sc = sc.replace(**dict(weigle_arm("reno-ared5").changes))
    sc = engines.check(sc.replace(**{"run.engine": engine, "run.duration": f"{until + 2}s"}))
    plan = make_plan(sc)
    web = []
    for w in plan.web:
        keep = w.start_s < until
        web.append(dataclasses.replace(w, **{
            f.name: getattr(w, f.name)[keep] if isinstance(getattr(w, f.name), np.ndarray)
            else getattr(w, f.name) for f in dataclasses.fields(w)}))
    plan.web = web
    raw = engines.get(engine).simulate(sc, plan)
    return tables.requests_table(sc, plan, raw).reset_index(drop=True)


def test_ared5_at_105_percent_stays_with_ns2_past_the_tie():
    """Connections opened in the first 7 s: every response time as on ns-2.35."""
    r3, r2 = _responses("ns3", 7.0), _responses("ns2", 7.0)
    assert len(r3) == len(r2) and len(r3) > 1000
    done = r3.response_time_s.notna() & r2.response_time_s.notna()
    assert (r3.response_time_s.notna() == r2.response_time_s.notna()).all()
    d = (r3.response_time_s[done] - r2.response_time_s[done]).abs()
    assert d.max() < 1e-9
