"""Weigle's two-way web workload cut to the connections opened before a time, on either
engine: the fixture of the differential tests that hold whole web runs to ns-2.35's packets
(every response time equal) past a mechanism found in the quick profile's runs."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd

from aqmlab import engines
from aqmlab.plan import make_plan
from aqmlab.results import tables
from aqmlab.studies.common import example
from aqmlab.studies.setups.weigle import weigle_arm


def responses(engine: str, until: float, *, example_name: str = "weigle_droptail_105",
              seed: int = 1, arm: str = "reno-ared5") -> pd.DataFrame:
    """The requests table of ``example_name`` with Weigle's ``arm`` on ``engine``, seed
    ``seed``, keeping only the connections opened before ``until`` (s), run to ``until`` +
    2 s."""
    sc = example(example_name).replace(**{
        "run.seed": seed, "run.duration": "40s", "run.warmup": "0s",
        "run.stop_after_responses": None, "run.sample_interval": None,
        "topology.link_header": "none", "tcp.syn_options": "none",
        "topology.delay_box": "ns2", "run.random_stream": "ns2"})
    sc = sc.replace(**dict(weigle_arm(arm).changes))
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


def largest_gap(until: float, **kwargs) -> float:
    """The largest difference in response time (s) between the engines over the
    connections opened before ``until`` (inf if one completed where the other did not);
    asserts that both opened the same connections, more than 1,000 of them."""
    r3, r2 = responses("ns3", until, **kwargs), responses("ns2", until, **kwargs)
    assert len(r3) == len(r2) and len(r3) > 1000
    if not (r3.response_time_s.notna() == r2.response_time_s.notna()).all():
        return float("inf")
    done = r3.response_time_s.notna()
    return float((r3.response_time_s[done] - r2.response_time_s[done]).abs().max())
