"""The O(1) socket bookkeeping (aqmlab/engines/ns3/cpp/socket_tables.cc) changes speed, never
results: a run in a process without it (AQMLAB_SOCKET_TABLES=0, ns-3's own scans) gives the
same tables and event count as with it, and the wheel's own calls do bind to it."""

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
TIMING = ["run_cpu_s", "wall_s", "build_wall_s"]


def overloaded() -> Scenario:
    """Reno over ARED+ECN at 105 %, both ways: SYNs lost and retried, sockets piling up,
    client ports bound and released, forks on the servers."""
    return Scenario.load(EXAMPLES / "weigle_ecn_ared_105.toml").replace(
        **{"run.duration": "30s", "run.warmup": "5s", "run.stop_after_responses": None,
           "run.sample_interval": "1s"})


def run_in_child(scenario: Scenario, out: Path, tables: bool) -> None:
    path = out.with_suffix(".toml")
    scenario.save(path)
    env = {**os.environ, "AQMLAB_SOCKET_TABLES": "1" if tables else "0"}
    subprocess.run([sys.executable, "-m", "aqmlab", "run", str(path), "--out", str(out),
                    "--in-process"], check=True, env=env, cwd=out.parent,
                   capture_output=True, text=True)


def test_wheel_calls_bind_to_the_socket_tables(simulate):
    """Endpoints are allocated and freed only inside the wheel (TcpSocketBase ->
    TcpL4Protocol -> Ipv4EndPointDemux): nonzero counts there mean interposition works."""
    from aqmlab.engines.ns3 import native, socket_tables

    native.load()  # ns-3 and, before it, the socket tables
    if not socket_tables.active():
        pytest.skip("socket tables not loaded (no g++ or AQMLAB_SOCKET_TABLES=0)")
    before = socket_tables.calls()
    res = simulate(overloaded().replace(**{"run.duration": "10s", "run.warmup": "2s"}))
    after = socket_tables.calls()
    grew = {k: after[k] - before[k] for k in after}
    n = len(res.requests)
    assert n > 1000 and res.meta["socket_tables"] is True
    # every connection: a client socket bound and a server socket forked, each freed later
    assert grew["Allocate"] >= n and grew["AddSocket"] >= 2 * n
    assert grew["DeAllocate"] > 0 and grew["RemoveSocket"] > 0


def test_overloaded_web_identical_without_socket_tables(tmp_path):
    fast, slow = tmp_path / "fast", tmp_path / "slow"
    run_in_child(overloaded(), fast, True)
    run_in_child(overloaded(), slow, False)
    for table in ("requests", "flows", "queues", "queue_ts", "links"):
        pd.testing.assert_frame_equal(pd.read_parquet(fast / f"{table}.parquet"),
                                      pd.read_parquet(slow / f"{table}.parquet"))
    a, b = (pd.read_parquet(d / "summary.parquet") for d in (fast, slow))
    assert a.events.iloc[0] == b.events.iloc[0]
    assert len(pd.read_parquet(fast / "requests.parquet")) > 3000
    pd.testing.assert_frame_equal(a.drop(columns=TIMING, errors="ignore"),
                                  b.drop(columns=TIMING, errors="ignore"))
    meta = {d: json.loads((d / "meta.json").read_text()) for d in (fast, slow)}
    assert meta[fast]["socket_tables"] is True and meta[slow]["socket_tables"] is False
