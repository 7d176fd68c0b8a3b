"""A web client's port is free again only when both ends of its connection are gone
(cpp/web.h, PortPool; the server's fork holds it through AqmTcpSocket::SetOnFork).

The pool cycles through its ports; a port whose client socket has closed while the
server's socket lives on (TIME_WAIT, LAST_ACK) must not be handed out: a SYN from it would
reach that old socket instead of the listener and never be answered, which ns-2's
per-connection agents never see (Weigle's ARED 5 ms at 105 %, seed 2, 1137.04 s).
"""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.ns3

PROBE = r"""
namespace aqmlab_test_port_pool
{
/// Three ports; the first connection's client closes while its server still holds the port.
inline std::vector<int> Cycle()
{
    aqmlab::PortPool pool;
    pool.lo = pool.next = 20000;
    pool.hi = 20003;
    std::vector<int> got;
    const uint16_t a = pool.Take(); // client of connection 1
    pool.Hold(a);                   // its server's fork
    got.push_back(a);
    got.push_back(pool.Take());     // 20001
    got.push_back(pool.Take());     // 20002
    pool.Release(a);                // the client's socket is destroyed; the server's lives
    got.push_back(pool.Take());     // nothing free: 0
    pool.Release(a);                // the server's socket is destroyed too
    got.push_back(pool.Take());     // 20000 again
    return got;
}
} // namespace aqmlab_test_port_pool
"""


def test_a_port_held_by_the_server_is_not_reused():
    from aqmlab.engines.ns3 import loader, native

    native.load()
    loader.cppdef(PROBE)
    got = list(loader.gbl().aqmlab_test_port_pool.Cycle())
    assert got == [20000, 20001, 20002, 0, 20000]
