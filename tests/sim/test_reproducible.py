"""A run is a function of its scenario: the same scenario run in two worker processes gives
identical tables and event counts, for every TCP variant. The two workers run on different
allocators (a pool on mimalloc, the default, and one with AQMLAB_ALLOCATOR=system, glibc's
malloc) and simulate the variants one after another in opposite orders, so heap contents
differ between them and each run follows a different history: a read of uninitialised
memory, or state left over by the previous simulation, shows up as a difference. This
caught ns-3 3.44's TcpCubic copy constructor leaving TcpFriendliness unset on accepted
sockets (aqmlab/engines/ns3/cpp/tcp_socket.h, AqmTcpSocket::Fork). It also shows that the
allocator changes speed, never results (aqmlab.workers.allocator)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from aqmlab.scenario import TCP_VARIANTS, Scenario
from aqmlab.workers import allocator
from aqmlab.workers.pool import WorkerPool

pytestmark = pytest.mark.ns3

VARIANTS = tuple(TCP_VARIANTS)  # every registered variant, in registry order
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


def simulate_in_pools() -> dict[str, dict[str, object]]:
    """``{heap: {variant: Results}}``: every variant in one worker per allocator."""
    pools = {heap: WorkerPool(1, env={allocator.ENV: heap}) for heap in ("mimalloc", "system")}
    out: dict[str, dict[str, object]] = {heap: {} for heap in pools}
    try:
        for heap, order in (("mimalloc", VARIANTS), ("system", VARIANTS[::-1])):
            for variant in order:
                pools[heap].submit(variant, overloaded_web(variant).to_dict())
        while any(pool.pending for pool in pools.values()):
            for heap, pool in pools.items():
                for o in pool.poll(timeout=1.0):
                    assert o.ok, f"{heap} {o.job_id}: {o.error}{o.stderr}"
                    out[heap][o.job_id] = o.results
    finally:
        for pool in pools.values():
            pool.close()
    return out


@pytest.fixture(scope="module")
def runs() -> dict[str, dict[str, object]]:
    return simulate_in_pools()


def test_the_two_workers_ran_on_different_allocators(runs):
    if allocator.library("mimalloc") is None:
        pytest.skip("mimalloc is not installed here: both workers use glibc's malloc")
    assert {h: {r.meta["allocator"] for r in d.values()} for h, d in runs.items()} == {
        "mimalloc": {"mimalloc"}, "system": {"system"}}
    assert len({r.meta["pid"] for r in runs["mimalloc"].values()}) == 1  # one process each


@pytest.mark.parametrize("variant", VARIANTS)
def test_same_scenario_same_results_in_two_workers(variant, runs):
    a, b = runs["mimalloc"][variant], runs["system"][variant]
    assert len(a.requests) > 1000  # enough connections (and forks) to catch a stray read
    for table in ("requests", "flows", "queues", "queue_ts", "links"):
        pd.testing.assert_frame_equal(getattr(a, table), getattr(b, table), obj=table)
    assert a.meta["events"] == b.meta["events"]
    pd.testing.assert_frame_equal(a.summary.drop(columns=TIMING, errors="ignore"),
                                  b.summary.drop(columns=TIMING, errors="ignore"))
