"""The O(1) socket bookkeeping (aqmlab/engines/ns3/cpp/socket_tables.cc) changes speed, never
results: a run in a process without it (AQMLAB_SOCKET_TABLES=0, ns-3's own scans) gives the
same tables and event count as with it, and the wheel's own calls do bind to it."""

from __future__ import annotations

from pathlib import Path

import pytest

from aqmlab.scenario import Scenario
from tests.sim.identical import assert_same, simulate_in_child

pytestmark = pytest.mark.ns3
EXAMPLES = Path(__file__).parents[2] / "examples"


def overloaded() -> Scenario:
    """Reno over ARED+ECN at 105 %, both ways: SYNs lost and retried, sockets piling up,
    client ports bound and released, forks on the servers."""
    return Scenario.load(EXAMPLES / "weigle_ecn_ared_105.toml").replace(
        **{"run.duration": "30s", "run.warmup": "5s", "run.stop_after_responses": None,
           "run.sample_interval": "1s"})


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
    """A process with AQMLAB_SOCKET_TABLES=0 runs ns-3's own scans (its meta says so) and
    simulates the same overloaded run, table for table, as a process with the tables."""
    fast, on = simulate_in_child(overloaded(), tmp_path, "fast", {"AQMLAB_SOCKET_TABLES": "1"})
    slow, off = simulate_in_child(overloaded(), tmp_path, "slow", {"AQMLAB_SOCKET_TABLES": "0"})
    assert len(fast.requests) > 3000
    assert on["active"] is True and off["active"] is False
    assert fast.meta["socket_tables"] is True and slow.meta["socket_tables"] is False
    assert_same(slow, fast)
