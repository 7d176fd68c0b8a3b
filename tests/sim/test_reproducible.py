"""A run is a function of its scenario: the same scenario run in two fresh processes gives
identical tables and event counts, for every TCP variant. The two processes use different
allocators (mimalloc and glibc's malloc), so heap contents differ between them and a read
of uninitialised memory shows up as a difference. This caught ns-3 3.44's TcpCubic copy
constructor leaving TcpFriendliness unset on accepted sockets (aqmlab/ns3/cpp/tcp_socket.h,
AqmTcpSocket::Fork)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from aqmlab.run import allocator
from aqmlab.scenario import Scenario
from aqmlab.scenario.tcp import TCP_VARIANTS

pytestmark = pytest.mark.ns3
EXAMPLES = Path(__file__).parents[2] / "examples"
TIMING = ["run_cpu_s", "wall_s", "build_wall_s"]


def overloaded_web(variant: str) -> Scenario:
    """Two-way web traffic at 105 %: losses, timeouts, and a server-side fork for every
    connection (each fork copies the listener's congestion control). Drop-tail, except
    DCTCP, which needs ECN and keeps the example's ARED+ECN."""
    sc = Scenario.load(EXAMPLES / "weigle_ecn_ared_105.toml").replace(
        **{"tcp.variant": variant, "run.duration": "12s", "run.warmup": "3s",
           "run.stop_after_responses": None, "run.sample_interval": "1s"})
    if variant == "dctcp":
        return sc
    droptail = {"kind": "droptail", "limit": "148p"}
    return sc.replace(**{"tcp.ecn": False, "topology.forward_queue": droptail,
                         "topology.reverse_queue": droptail})


def start_child(scenario: Scenario, out: Path, heap: str) -> subprocess.Popen:
    path = out.with_suffix(".toml")
    scenario.save(path)
    env = {**os.environ, allocator.ENV: heap}
    return subprocess.Popen([sys.executable, "-m", "aqmlab", "run", str(path), "--out", str(out)],
                            env=env, cwd=out.parent, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)


@pytest.mark.parametrize("variant", TCP_VARIANTS)
def test_same_scenario_same_results_in_fresh_processes(variant, tmp_path):
    sc = overloaded_web(variant)
    a, b = tmp_path / "a", tmp_path / "b"
    children = [start_child(sc, a, "mimalloc"), start_child(sc, b, "system")]
    for child in children:
        output = child.communicate(timeout=900)[0]
        assert child.returncode == 0, output
    requests = pd.read_parquet(a / "requests.parquet")
    assert len(requests) > 1000  # enough connections (and forks) to catch a stray read
    for table in ("requests", "flows", "queues", "queue_ts"):
        pd.testing.assert_frame_equal(pd.read_parquet(a / f"{table}.parquet"),
                                      pd.read_parquet(b / f"{table}.parquet"), obj=table)
    sa, sb = (pd.read_parquet(d / "summary.parquet").drop(columns=TIMING, errors="ignore")
              for d in (a, b))
    assert sa.events.iloc[0] == sb.events.iloc[0]
    pd.testing.assert_frame_equal(sa, sb)
