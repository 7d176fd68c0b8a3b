"""The SPF link-record index (aqmlab/engines/ns3/cpp/spf_index.cc, in the socket-tables library)
changes the set-up's speed, never the routes: global routing uses it while it computes the
routes of a parking lot, and a process without it (AQMLAB_SPF_INDEX=0) simulates the
same run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from aqmlab.scenario import Scenario

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
    toml = tmp_path / "lot.toml"
    parking_lot().save(toml)
    out = tmp_path / "off"
    subprocess.run([sys.executable, "-m", "aqmlab", "run", str(toml), "--out", str(out),
                    "--in-process"], check=True, cwd=tmp_path, capture_output=True, text=True,
                   env={**os.environ, "AQMLAB_SPF_INDEX": "0"})
    assert json.loads((out / "meta.json").read_text())["events"] == fast.meta["events"]
    for name in ("flows", "queues", "queue_ts", "links"):
        pd.testing.assert_frame_equal(pd.read_parquet(out / f"{name}.parquet"),
                                      getattr(fast, name), check_exact=True)
