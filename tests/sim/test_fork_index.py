"""The fork index (aqmlab/engines/ns3/cpp/socket_tables.cc, socket-tables library) changes
speed, never results: a server's forked socket gets its endpoint from the five-argument
``Ipv4EndPointDemux::Allocate``, whose duplicate test (same local address and port, same
peer) ns-3 answers by scanning every endpoint of the node; with the index it looks up the
(local port, peer) key, kept exact through ``Ipv4EndPoint::SetPeer``. A process with
``AQMLAB_FORK_INDEX=0`` (ns-3's scan) simulates the same run, table for table."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from aqmlab.scenario import Scenario
from tests.sim.identical import assert_same, simulate_in_child

pytestmark = pytest.mark.ns3
EXAMPLES = Path(__file__).parents[2] / "examples"


def two_way_web() -> Scenario:
    """Weigle's two-way PackMime over drop-tail 148 at 80 %: a fork per connection on both
    clouds, client ports bound, connected (SetPeer) and released, SYNs and data dropped."""
    return Scenario.load(EXAMPLES / "weigle_droptail_80.toml").replace(
        **{"traffic[0].rate": 107.0, "traffic[1].rate": 107.0, "run.duration": "20s",
           "run.warmup": "5s", "run.stop_after_responses": None, "run.sample_interval": "1s"})


def test_wheel_forks_go_through_the_index(simulate):
    from aqmlab.engines.ns3 import native, socket_tables

    native.load()
    if not socket_tables.active():
        pytest.skip("socket-tables library not loaded (no g++ or AQMLAB_SOCKET_TABLES=0)")
    if os.environ.get("AQMLAB_FORK_INDEX") == "0":
        pytest.skip("AQMLAB_FORK_INDEX=0 in this process")
    before = socket_tables.calls()
    res = simulate(two_way_web().replace(**{"run.duration": "8s", "run.warmup": "2s"}))
    grew = {k: v - before[k] for k, v in socket_tables.calls().items()}
    n = len(res.requests)
    assert n > 500
    # a forked server socket per accepted connection (most requests of the table), a
    # SetPeer per connect and per fork
    assert grew["ForkAllocate"] > n / 2 and grew["SetPeer"] > n


def test_two_way_web_identical_without_the_fork_index(simulate, tmp_path):
    from aqmlab.engines.ns3 import native, socket_tables

    native.load()
    if not socket_tables.active():
        pytest.skip("socket-tables library not loaded (no g++ or AQMLAB_SOCKET_TABLES=0)")
    sc = two_way_web()
    fast = simulate(sc)
    scan, _ = simulate_in_child(sc, tmp_path, "off", {"AQMLAB_FORK_INDEX": "0"})
    assert len(fast.requests) > 2000 and fast.queues.drops.sum() > 0
    assert_same(scan, fast)
