"""A run is a function of its scenario: the same scenario run in two processes gives
identical tables and event counts, for every TCP variant. The two processes use different
allocators (mimalloc and glibc's malloc) and simulate the variants one after another in
opposite orders, so heap contents differ between them and each run follows a different
history: a read of uninitialised memory, or state left over by the previous simulation,
shows up as a difference. This caught ns-3 3.44's TcpCubic copy constructor leaving
TcpFriendliness unset on accepted sockets (aqmlab/ns3/cpp/tcp_socket.h,
AqmTcpSocket::Fork). One process per allocator rather than per run: the suite pays two
ns-3 start-ups instead of fourteen."""

from __future__ import annotations

import json
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


#: Each child simulates the scenario files it is given, in order, in this one process.
CHILD = """
import sys
from pathlib import Path
from aqmlab.run.worker import simulate_results
from aqmlab.scenario import Scenario
for path in map(Path, sys.argv[1:]):
    simulate_results(Scenario.load(path)).save(path.with_suffix(""))
"""


def start_child(paths: list[Path], heap: str) -> subprocess.Popen:
    env = {**os.environ, allocator.ENV: heap}
    env.update(allocator.preload_env(env))
    return subprocess.Popen([sys.executable, "-c", CHILD, *map(str, paths)], env=env,
                            cwd=paths[0].parent, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, dict[str, Path]]:
    """``{heap: {variant: folder}}``: every variant simulated under both allocators."""
    out: dict[str, dict[str, Path]] = {}
    children = []
    for heap, order in (("mimalloc", TCP_VARIANTS), ("system", TCP_VARIANTS[::-1])):
        folder = tmp_path_factory.mktemp(heap)
        paths = [folder / f"{v}.toml" for v in order]
        for v, path in zip(order, paths, strict=True):
            overloaded_web(v).save(path)
        out[heap] = {v: path.with_suffix("") for v, path in zip(order, paths, strict=True)}
        children.append(start_child(paths, heap))
    for child in children:
        output = child.communicate(timeout=1800)[0]
        assert child.returncode == 0, output
    return out


def test_the_two_processes_ran_on_different_allocators(runs):
    heaps = {h: json.loads((d["reno"] / "meta.json").read_text())["allocator"]
             for h, d in runs.items()}
    if allocator.library("mimalloc") is None:
        pytest.skip("mimalloc is not installed here: both processes use glibc's malloc")
    assert heaps == {"mimalloc": "mimalloc", "system": "system"}


@pytest.mark.parametrize("variant", TCP_VARIANTS)
def test_same_scenario_same_results_in_two_processes(variant, runs):
    a, b = runs["mimalloc"][variant], runs["system"][variant]
    requests = pd.read_parquet(a / "requests.parquet")
    assert len(requests) > 1000  # enough connections (and forks) to catch a stray read
    for table in ("requests", "flows", "queues", "queue_ts"):
        pd.testing.assert_frame_equal(pd.read_parquet(a / f"{table}.parquet"),
                                      pd.read_parquet(b / f"{table}.parquet"), obj=table)
    sa, sb = (pd.read_parquet(d / "summary.parquet").drop(columns=TIMING, errors="ignore")
              for d in (a, b))
    assert sa.events.iloc[0] == sb.events.iloc[0]
    pd.testing.assert_frame_equal(sa, sb)
