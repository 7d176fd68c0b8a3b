"""The SPF link-record index (aqmlab/engines/ns3/cpp/spf_index.cc, in the socket-tables library)
changes the set-up's speed, never the routes: global routing uses it while it computes the
routes of a parking lot, and a process without it (AQMLAB_SPF_INDEX=0) simulates the
same run."""

from __future__ import annotations

from pathlib import Path

import pytest

from aqmlab.scenario import Scenario
from tests.sim.identical import assert_same, simulate_in_child

pytestmark = pytest.mark.ns3
EXAMPLES = Path(__file__).parents[2] / "examples"


def parking_lot() -> Scenario:
    """Four routers in a chain with senders and receivers at each: SPF from every node."""
    return Scenario.load(EXAMPLES / "parking_lot.toml").replace(
        **{"run.duration": "5s", "run.warmup": "1s", "run.sample_interval": "0.5s"})


def test_routes_identical_without_the_index(simulate, tmp_path):
    from aqmlab.engines.ns3 import native, socket_tables

    native.load()
    if not socket_tables.active():
        pytest.skip("socket-tables library not loaded (no g++ or AQMLAB_SOCKET_TABLES=0)")
    before = socket_tables.spf_index_calls()
    fast = simulate(parking_lot())
    after = socket_tables.spf_index_calls()
    assert after["records"] - before["records"] > 100  # the SPF read its records here
    scan, _ = simulate_in_child(parking_lot(), tmp_path, "off", {"AQMLAB_SPF_INDEX": "0"})
    assert_same(scan, fast)
