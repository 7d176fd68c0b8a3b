"""A queue probe that skips its time integration when simulated time has not moved since the
last one (AQMLAB_PROBE_NOW_MEMO, cpp/probes.h ``QueueProbe::Integrate``) changes cost, never
results: a packet passing a queue changes the disc's and the device's packet and byte counts
at one instant, and the integrations over zero time it skips would have added +0.0 to the
queue-length areas. Each case runs with the switch off, then on (in this process,
``SetProbeNowMemo``), and compares the event count, every table (the queues' average
lengths come from the areas; ``queue_ts`` samples every second) and the summary."""

from __future__ import annotations

from pathlib import Path

import pytest

from aqmlab.scenario import Scenario
from tests.sim.identical import assert_same, off_then_on

pytestmark = pytest.mark.ns3
EXAMPLES = Path(__file__).parents[2] / "examples"


def both(simulate, scenario):
    return off_then_on(simulate, scenario, "ProbeNowMemo")


def test_two_way_web_drop_tail_identical(simulate):
    """Two-way PackMime over drop-tail 148 (bench_vs_ns2's web-dt148), shortened: queues
    on both directions of the bottleneck, drops, the average length over the warm-up."""
    sc = Scenario.load(EXAMPLES / "weigle_droptail_80.toml").replace(
        **{"traffic[0].rate": 107.0, "traffic[1].rate": 107.0, "run.duration": "15s",
           "run.warmup": "5s", "run.stop_after_responses": None, "run.sample_interval": "1s"})
    slow, fast = both(simulate, sc)
    assert fast.queues.drops.sum() > 0 and len(fast.queue_ts) > 0
    assert_same(slow, fast)


def test_red_browsing_identical(simulate):
    """Christiansen's browsing users over RED (the probe's RED average beside the areas)."""
    sc = Scenario.load(EXAMPLES / "christiansen_red_90.toml").replace(
        **{"run.duration": "15s", "run.warmup": "5s", "run.sample_interval": "1s"})
    slow, fast = both(simulate, sc)
    assert_same(slow, fast)


def test_phase_locked_bulk_identical(simulate):
    """Qiu's T1 dumbbell, bulk Reno flows (same-nanosecond arrivals and departures)."""
    sc = Scenario.load(EXAMPLES / "qiu_t1_dumbbell.toml").replace(
        **{"run.duration": "20s", "run.warmup": "5s", "run.sample_interval": "1s"})
    slow, fast = both(simulate, sc)
    assert_same(slow, fast)
