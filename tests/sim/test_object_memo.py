"""The object-system memos (aqmlab/engines/ns3/cpp/object_memo.cc) change speed, never results: the
wheel's own object construction and trace connections bind to them, and a process without
them (AQMLAB_FAST_CONSTRUCT=0 AQMLAB_TRACE_MEMO=0: ns-3's scans) simulates the same runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from aqmlab.scenario import Scenario
from tests.sim.identical import assert_same, simulate_in_child

pytestmark = pytest.mark.ns3
EXAMPLES = Path(__file__).parents[2] / "examples"


def browsing() -> Scenario:
    """Christiansen's users over RED: a socket per object fetched, timestamps on every
    segment (an option Object per deserialized header)."""
    return Scenario.load(EXAMPLES / "christiansen_red_90.toml").replace(
        **{"run.duration": "15s", "run.warmup": "5s"})


def test_wheel_calls_bind_to_the_memos(simulate):
    """Objects built and traces connected inside the wheel (sockets, buffers, TCP options)
    go through the memos: nonzero counts prove the interposition. A socket copy's eleven
    TcpSocketState connections are either looked up in the trace memo or, with
    AQMLAB_QUIET_TCB, not made at all; together they come to over ten per fetched object."""
    from aqmlab.engines.ns3 import native, object_memo

    native.load()
    if not object_memo.active():
        pytest.skip("object memo not loaded (no g++, or both switches at 0)")
    before = object_memo.calls()
    res = simulate(browsing())
    grew = {k: v - before[k] for k, v in object_memo.calls().items()}
    assert res.meta["fast_construct"] is True and res.meta["trace_memo"] is True
    # per fetched object: two sockets (client, forked server) with their parts, options
    assert grew["construct"] > 10 * len(res.requests)
    assert grew["trace_hits"] > 0
    assert grew["trace_hits"] + grew["quiet_tcb"] > 10 * len(res.requests)


def test_identical_without_the_memos(simulate, tmp_path):
    scan, _ = simulate_in_child(browsing(), tmp_path, "off",
                                {"AQMLAB_FAST_CONSTRUCT": "0", "AQMLAB_TRACE_MEMO": "0"})
    assert scan.meta["fast_construct"] is False and scan.meta["trace_memo"] is False
    fast = simulate(browsing())
    assert len(fast.requests) > 1000
    assert_same(scan, fast)
