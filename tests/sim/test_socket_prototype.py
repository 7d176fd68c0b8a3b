"""Web clients' sockets copied from a prototype (AQMLAB_SOCKET_PROTOTYPE, cpp/tcp_socket.h
``MakeTcpSocketFrom``, cpp/web.h ``WebClient``) change cost, never results: a connection's
socket made by ns-3's copy constructor (the one a listener's Fork uses) from a socket that
``MakeTcpSocket`` built once per client starts in the same state as one built by
``MakeTcpSocket`` itself (``CreateObject``, every attribute's initial value, the profile's
attributes, RTT estimator, congestion control and recovery from factories). Each case runs
with the switch off, then on (in this process, ``SetSocketPrototype``), and compares the
event count, every table and the summary; the first also checks that the copies were made
(fewer objects built through ``ConstructSelf``, the object-memo library's count). The
cases cover the profiles the prototype serves: Full-TCP Reno with Nagle and ns-2's timer
(aqmlab's ns-2 NewReno), SACK with ECN over ARED (marks, ECN attributes), FreeBSD Reno with
timestamps and delayed ACKs (browsing users, which open through ``WebClient::OpenNow``), and
a variant that keeps ``MakeTcpSocket`` (CUBIC: not in ``SocketPrototypeFits``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from aqmlab.scenario import Scenario
from tests.sim.identical import assert_same, off_then_on

pytestmark = pytest.mark.ns3
EXAMPLES = Path(__file__).parents[2] / "examples"


def both(simulate, scenario):
    return off_then_on(simulate, scenario, "SocketPrototype")


def two_way_web() -> Scenario:
    """Weigle's two-way PackMime over drop-tail 148 (bench_vs_ns2's web-dt148), shortened:
    Reno with ns-2's Full-TCP rules, a client socket per connection on both clouds."""
    return Scenario.load(EXAMPLES / "weigle_droptail_80.toml").replace(
        **{"traffic[0].rate": 107.0, "traffic[1].rate": 107.0, "run.duration": "15s",
           "run.warmup": "5s", "run.stop_after_responses": None, "run.sample_interval": "1s"})


def test_two_way_web_identical_and_copied(simulate):
    from aqmlab.engines.ns3 import native, object_memo

    native.load()
    memo = object_memo.active() and object_memo.enabled().get("fast_construct", False)
    cpp = native.load()
    cpp.SetSocketPrototype(False)
    try:
        before = object_memo.calls()["construct"] if memo else 0
        slow = simulate(two_way_web())
        built_off = object_memo.calls()["construct"] - before if memo else 0
    finally:
        cpp.SetSocketPrototype(True)
    before = object_memo.calls()["construct"] if memo else 0
    fast = simulate(two_way_web())
    built_on = object_memo.calls()["construct"] - before if memo else 0
    assert len(fast.requests) > 1000 and fast.queues.drops.sum() > 0
    assert_same(slow, fast)
    if memo:
        # a socket built by CreateObject constructs the socket, its RTT estimator, its
        # congestion control and recovery through ConstructSelf; a copy none of them
        assert built_off - built_on > 3 * len(fast.requests) / 2


def test_sack_ecn_ared_web_identical(simulate):
    """SACK + ECN over ARED at 105 %: ECN attributes copied, marks and drops."""
    sc = Scenario.load(EXAMPLES / "weigle_ecn_ared_105.toml").replace(
        **{"run.duration": "12s", "run.warmup": "4s", "run.stop_after_responses": None,
           "run.sample_interval": "1s"})
    slow, fast = both(simulate, sc)
    q = fast.queues.iloc[0]
    assert len(fast.requests) > 1000 and q.marks > 0
    assert_same(slow, fast)


def test_browsing_with_timestamps_identical(simulate):
    """Christiansen's browsing users over RED (FreeBSD Reno: timestamps, delayed ACKs, a
    16 kB receive window)."""
    sc = Scenario.load(EXAMPLES / "christiansen_red_90.toml").replace(
        **{"run.duration": "15s", "run.warmup": "5s"})
    slow, fast = both(simulate, sc)
    assert len(fast.requests) > 500
    assert_same(slow, fast)


def test_variant_without_prototype_identical(simulate):
    """CUBIC keeps MakeTcpSocket per connection (its Fork is not vetted): same run."""
    sc = two_way_web().replace(**{"tcp.variant": "cubic", "run.duration": "8s"})
    slow, fast = both(simulate, sc)
    assert len(fast.requests) > 500
    assert_same(slow, fast)
