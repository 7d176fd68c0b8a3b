"""Worker processes run on mimalloc (aqmlab.run.allocator) and that changes speed, never
results: an overloaded web run in a pool worker on mimalloc and one on glibc's malloc
(AQMLAB_ALLOCATOR=system) give the same tables and event count."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from aqmlab.run import allocator
from aqmlab.run.pool import WorkerPool
from aqmlab.scenario import Scenario

pytestmark = pytest.mark.ns3
EXAMPLES = Path(__file__).parents[2] / "examples"
TIMING = ["run_cpu_s", "wall_s", "build_wall_s"]


def run_in_pool(scenario: Scenario, choice: str):
    pool = WorkerPool(1, env={allocator.ENV: choice})
    try:
        pool.submit("run", scenario.to_dict())
        out: list = []
        while not out:
            out = pool.poll(timeout=600)
    finally:
        pool.close()
    assert out[0].ok, out[0].error + out[0].stderr
    return out[0].results


@pytest.mark.skipif(allocator.library("mimalloc") is None, reason="mimalloc not installed")
def test_web_run_identical_on_mimalloc_and_glibc():
    sc = Scenario.load(EXAMPLES / "weigle_ecn_ared_105.toml").replace(
        **{"run.duration": "20s", "run.warmup": "5s", "run.stop_after_responses": None,
           "run.sample_interval": "1s"})
    fast, slow = run_in_pool(sc, "mimalloc"), run_in_pool(sc, "system")
    assert fast.meta["allocator"] == "mimalloc" and slow.meta["allocator"] == "system"
    assert len(fast.requests) > 2000
    for table in ("requests", "flows", "queues", "queue_ts", "links"):
        pd.testing.assert_frame_equal(getattr(fast, table), getattr(slow, table))
    assert fast.meta["events"] == slow.meta["events"]
    pd.testing.assert_frame_equal(fast.summary.drop(columns=TIMING, errors="ignore"),
                                  slow.summary.drop(columns=TIMING, errors="ignore"))
