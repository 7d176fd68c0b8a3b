"""A DelayBox draw and a used draw at the same instant (cpp/ns2_rng.h, Ns2Rng::CatchUp).

ns-3 counts an incoming packet's DelayBox draw when its link transmission starts, for the
instant it reaches the client's node, with the uid the next event would get then; ns-2.35
schedules that arrival when the transmission starts too (link/delay.cc) and runs events
due at the same time in scheduling order, so the draw whose event was scheduled first
comes first. Weigle's ARED 5 ms at 105 % load, seed 1: at 6.772585072 s a DelayBox
arrival scheduled before a RED arrival tied with it (RED taking the box's number, the
engines parted at 6.7726 s); at 80 %, seed 3, 81.536832 s, RED's arrival was scheduled
first (114 us earlier, a 1,460-byte frame at 100 Mb/s) and drew first on ns-2.35, while
ns-3 with the box always first dropped a segment that ns-2.35 kept (81.5368 s).
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


def _responses(engine: str, until: float, example_name: str = "weigle_droptail_105",
               seed: int = 1):
    sc = example(example_name).replace(**{
        "run.seed": seed,
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


def test_ared5_at_80_percent_seed_3_stays_with_ns2_past_the_tie():
    """Connections opened in the first 82 s (seed 3, 80 %, where RED's arrival was scheduled
    first): every response time as on ns-2.35."""
    r3 = _responses("ns3", 82.0, "weigle_droptail_80", 3)
    r2 = _responses("ns2", 82.0, "weigle_droptail_80", 3)
    assert len(r3) == len(r2) and len(r3) > 10000
    assert (r3.response_time_s.notna() == r2.response_time_s.notna()).all()
    done = r3.response_time_s.notna()
    d = (r3.response_time_s[done] - r2.response_time_s[done]).abs()
    assert d.max() < 1e-9
