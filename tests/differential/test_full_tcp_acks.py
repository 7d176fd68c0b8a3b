"""The receiver's ACK rule (``tcp.ack_rule``): ns-2's Full-TCP acknowledges at once only a
full segment's worth of new bytes; a shorter segment's ACK waits for data or a FIN to carry
it, or for the next tick of the delayed-ACK clock (multiples of ``delack_timeout``,
100 ms). ns-3 acknowledges every segment at once, and defers a response by one time step,
so its server sends a pure ACK before every response."""

from __future__ import annotations

import pytest

from aqmlab.engines import ns2
from tests.differential.planned import arrivals, run, scenario

pytestmark = [pytest.mark.ns3, pytest.mark.ns2,
              pytest.mark.skipif(not ns2.available(), reason="ns-2 (`ns`) is not installed")]

#: Four one-segment exchanges (300 B request, 500 B response) on an idle 50 ms path, 1 s
#: apart from t = 1 s. The request reaches the server 75.4 ms after the SYN; the server
#: answers after its delay. With delays 0 and 10 ms the response carries the request's
#: ACK; with 50 and 90 ms the 100-ms tick (t = k + 0.1) comes first: a pure ACK.
SERVER_DELAY = [0.0, 0.010, 0.050, 0.090]
N = len(SERVER_DELAY)
FORWARD, REVERSE = "R0->R1", "R1->R0"


def _arrivals(engine: str, rule: str) -> dict[str, int]:
    # ns-3's rule with ns-3's pure ACK: Full-TCP's owed ACK (owed_ack "with_data") would
    # carry a response written in the same instant, as ns-2's foutput() does
    tcp = {"ack_rule": rule} if rule == "full_tcp" else {"ack_rule": rule, "owed_ack": "pure"}
    df, raw = run(scenario(tcp), engine, [300] * N, [500] * N, server_delay=SERVER_DELAY)
    assert df.completed.all()
    return arrivals(raw)


def test_full_tcp_rule_sends_the_same_packets_on_both_engines():
    """Server to client: SYN/ACK, data + FIN, ACK of the client's FIN, plus the tick's pure
    ACK for the two late responses: 3 x 4 + 2 = 14 packets. Client to server: SYN, ACK,
    request, ACK of the data + FIN, FIN: 5 x 4 = 20. The same on ns-3 and ns-2.35."""
    for engine in ("ns3", "ns2"):
        got = _arrivals(engine, "full_tcp")
        assert got[FORWARD] == 3 * N + 2, engine
        assert got[REVERSE] == 5 * N, engine


def test_ns3s_rule_acknowledges_every_request_at_once():
    """ns-3's rule (ns-3 only: ns-2's Full-TCP cannot do it) sends the request's ACK before
    every response: 4 x 4 = 16 packets forward; the client's side is unchanged (the FIN on
    the response makes it ACK at once under both rules)."""
    got = _arrivals("ns3", "segments")
    assert got[FORWARD] == 4 * N
    assert got[REVERSE] == 5 * N
