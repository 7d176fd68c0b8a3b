"""Scenario limits and identity: the cost model against measured runs, and quantities that
hash in one spelling (no ns-3)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from aqmlab.errors import ScenarioError
from aqmlab.scenario import Bulk, DropTail, Dumbbell, Link, RunControl, Scenario, Transfers
from aqmlab.scenario.limits import MAX_EVENTS, estimate

#: One stored run per traffic kind (aqmlab 0.2.3 quick profile, the median estimate/measured
#: ratio of its kind): scenario, ns-3 events measured, simulated end.
MEASURED = json.loads((Path(__file__).parent / "data" / "measured_runs.json").read_text())


@pytest.mark.parametrize("kind", sorted(MEASURED))
def test_event_estimate_bounds_measured_runs(kind):
    """The events model errs on the safe side, not by much: over the 193 stored runs it
    gave 1.00-1.49x the measured events (bulk 1.03-1.25, transfers 1.31-1.49, PackMime
    1.23-1.44, Mah 1.00-1.18); here each kind's median run."""
    run = MEASURED[kind]
    ratio = estimate(Scenario.from_dict(run["scenario"])).events / run["events"]
    assert 1.0 <= ratio <= 1.6, (run["name"], ratio)


def dumbbell(**run) -> Scenario:
    return Scenario(name="limits", topology=Dumbbell(senders=2), traffic=[Bulk(flows=2)],
                    run=RunControl(**run))


def test_the_events_limit_scales_with_duration():
    """Events grow with the simulated time: the limit falls between 1e5 s and 1e6 s of a
    10 Mb/s bulk dumbbell (~28,000 events per simulated second)."""
    per_s = estimate(dumbbell(duration="100s")).events / 100
    assert 2e4 < per_s < 4e4
    dumbbell(duration="1e5s")
    with pytest.raises(ScenarioError, match="run.force"):
        Scenario(name="limits", topology=Dumbbell(bottleneck=Link(rate="1Gbps", delay="1ms")),
                 traffic=[Bulk(flows=2)], run=RunControl(duration="1e5s"))
    assert MAX_EVENTS / per_s < 1e6


def test_finite_transfers_cost_what_they_carry():
    """A run of finite transfers ends with them: its events follow the bytes, not a long
    duration."""
    short = Scenario(name="t", traffic=[Transfers(count=1, size="1MB")],
                     run=RunControl(duration="1e5s"))
    assert estimate(short).events < 1e5


@pytest.mark.parametrize("path,spellings", [
    ("topology.bottleneck.rate", ["10Mbps", "10 Mbps", "10000kbps", 10_000_000, "1.25MB/s"]),
    ("topology.bottleneck.delay", ["20ms", "20 ms", "0.02s", 0.02, "20000us"]),
    ("run.duration", ["1s", "1000ms", 1, 1.0, "1 s"]),
    ("topology.forward_queue.limit", ["100p", "100 packets", "100pkts", 100]),
    ("tcp.rcv_window", ["1MB", "1000KB", "1000000B", "1000 kB"]),
])
def test_quantities_hash_in_one_spelling(path, spellings):
    """Issue 32: "10 Mbps" and "10Mbps", "1000ms" and "1s" gave different store keys."""
    base = dumbbell(duration="10s")
    keys = {base.replace(**{path: v}).key for v in spellings}
    assert len(keys) == 1, spellings


def test_spelling_is_kept_and_meaning_still_counts():
    """to_dict and TOML keep what the user wrote; other values, byte vs packet limits and
    names still make other keys."""
    sc = dumbbell(duration="10s").replace(**{"topology.bottleneck.rate": "10 Mbps"})
    assert sc.to_dict()["topology"]["bottleneck"]["rate"] == "10 Mbps"
    assert 'rate = "10 Mbps"' in sc.to_toml()
    assert sc.replace(**{"topology.bottleneck.rate": "11Mbps"}).key != sc.key
    packets = sc.replace(**{"topology.forward_queue": DropTail(limit=3000)})
    assert packets.replace(**{"topology.forward_queue.limit": "3000B"}).key != packets.key
    assert sc.replace(name="1s").key != sc.replace(name="1000ms").key
