"""TCP options built directly and transmission times remembered
(aqmlab/engines/ns3/cpp/per_packet_memo.cc, in the socket-tables library) change speed, never
results: the wheel's header deserialization and point-to-point devices go through them, and
a process without them (AQMLAB_FAST_OPTIONS=0 AQMLAB_TX_TIME_MEMO=0) simulates the same run."""

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


def browsing() -> Scenario:
    """Christiansen's users over RED 30/90: timestamps and SACK blocks on the segments."""
    return Scenario.load(EXAMPLES / "christiansen_red_90.toml").replace(
        **{"run.duration": "12s", "run.warmup": "4s"})


def test_identical_without_the_memo(simulate, tmp_path):
    from aqmlab.engines.ns3 import native, socket_tables

    native.load()
    if not socket_tables.active():
        pytest.skip("socket-tables library not loaded (no g++ or AQMLAB_SOCKET_TABLES=0)")
    before = socket_tables.per_packet_memo_calls()
    fast = simulate(browsing())
    grew = {k: v - before[k] for k, v in socket_tables.per_packet_memo_calls().items()}
    # options of every deserialized header; a transmission time per packet sent on a link
    assert grew["options"] > fast.meta["events"] / 10
    assert grew["tx_times"] > fast.meta["events"] / 10
    toml = tmp_path / "browsing.toml"
    browsing().save(toml)
    out = tmp_path / "off"
    subprocess.run([sys.executable, "-m", "aqmlab", "run", str(toml), "--out", str(out),
                    "--in-process"], check=True, cwd=tmp_path, capture_output=True, text=True,
                   env={**os.environ, "AQMLAB_FAST_OPTIONS": "0", "AQMLAB_TX_TIME_MEMO": "0"})
    assert json.loads((out / "meta.json").read_text())["events"] == fast.meta["events"]
    for name in ("flows", "queues", "queue_ts", "links", "requests"):
        pd.testing.assert_frame_equal(pd.read_parquet(out / f"{name}.parquet"),
                                      getattr(fast, name), check_exact=True)
