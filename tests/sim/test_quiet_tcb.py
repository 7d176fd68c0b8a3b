"""Sockets' copies without TcpSocketBase's eleven connections of their TcpSocketState's values
to forwarders (aqmlab/engines/ns3/cpp/object_memo.cc and tcp_socket.h, AQMLAB_QUIET_TCB)
change cost, never results: the forwarders only fire the socket's own trace sources of the
same names, which nothing in aqmlab connects to, so a process with AQMLAB_QUIET_TCB=0
(every connection made) simulates the same run; looking one of those sources up on a socket
type while it is on stops the run instead of tracing nothing."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from aqmlab.scenario import Scenario
from tests.sim.identical import assert_same, simulate_in_child

pytestmark = pytest.mark.ns3
EXAMPLES = Path(__file__).parents[2] / "examples"
ROOT = Path(__file__).parents[2]


def test_web_identical_without_it(tmp_path):
    """Two-way PackMime: every connection's sockets are copies (prototype, listener's Fork)."""
    sc = Scenario.load(EXAMPLES / "weigle_droptail_80.toml").replace(
        **{"run.duration": "10s", "run.warmup": "2s"})
    fast, on = simulate_in_child(sc, tmp_path, "on", {})
    slow, off = simulate_in_child(sc, tmp_path, "off", {"AQMLAB_QUIET_TCB": "0"})
    if on["construct"] == 0:
        pytest.skip("object-memo library not loaded (no g++)")
    assert on["quiet_tcb"] >= 11 * 1000 and on["quiet_tcb"] % 11 == 0
    assert off["quiet_tcb"] == 0
    assert fast.meta["quiet_tcb"] is True and slow.meta["quiet_tcb"] is False
    assert_same(slow, fast)


PROBE = r"""
import sys
from aqmlab.engines.ns3 import loader, native
cpp = native.load()
ns3 = loader.gbl().ns3
loader.cppdef('''
namespace aqmlab_test_quiet_tcb {
inline void Count(uint32_t, uint32_t) {}
inline bool Connect(ns3::Ptr<ns3::Node> node) {
    ns3::Ptr<aqmlab::AqmTcpSocket> proto = ns3::CreateObject<aqmlab::AqmTcpSocket>();
    proto->SetNode(node);
    ns3::Ptr<aqmlab::AqmTcpSocket> copy = ns3::CopyObject<aqmlab::AqmTcpSocket>(proto);
    return copy->TraceConnectWithoutContext("CongestionWindow", ns3::MakeCallback(&Count));
}
}
''')
node = ns3.CreateObject["ns3::Node"]()
ns3.InternetStackHelper().Install(node)
print("connected", loader.gbl().aqmlab_test_quiet_tcb.Connect(node))
"""


def test_tracing_a_forwarded_source_stops_the_run(tmp_path):
    """With the switch on, connecting a socket's CongestionWindow fails loudly; off, it
    connects."""
    import os

    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT),
                                                        os.environ.get("PYTHONPATH", "")])}
    on = subprocess.run([sys.executable, "-c", PROBE], cwd=tmp_path, capture_output=True,
                        text=True, env=env)
    if "connected True" in on.stdout:
        pytest.skip("object-memo library not loaded (no g++)")
    assert on.returncode != 0 and "AQMLAB_QUIET_TCB" in on.stderr
    off = subprocess.run([sys.executable, "-c", PROBE], cwd=tmp_path, capture_output=True,
                         text=True, env={**env, "AQMLAB_QUIET_TCB": "0"})
    assert off.returncode == 0 and "connected True" in off.stdout
