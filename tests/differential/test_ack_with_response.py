"""A request whose last segment is a full one, answered at once by a response of a segment
or more (``tcp.ack_rule = "full_tcp"``): ns-2's Full-TCP owes that segment an ACK at once,
but decides it at output, after the application has read the request, so the response's
first segment carries it. ns-3 sent a pure ACK from its receive path and the response one
time step later (found on Weigle's 80 % load, seed 4, a 4,260-byte request at 6.956 s)."""

from __future__ import annotations

import pytest

from aqmlab.engines import ns2
from tests.differential.planned import arrivals, run, scenario

pytestmark = [pytest.mark.ns3, pytest.mark.ns2,
              pytest.mark.skipif(not ns2.available(), reason="ns-2 (`ns`) is not installed")]

FORWARD = "R0->R1"
#: (request, response) bytes, one connection each, 1 s apart on an idle path: requests of
#: one and three full segments, responses of one, two and three segments (never a short
#: tail alone, which Nagle's owed-ACK rule already sent with the ACK).
CASES = [(1420, 1420), (1420, 2840), (1420, 3000), (4260, 3000)]


#: Server-to-client packets on ns-2.35 per case: the SYN/ACK, a pure ACK for each request
#: segment but the last (nothing to send yet), the response's segments, the last with the
#: FIN unless the FIN does not fit the initial window of two segments (2,840 bytes: the
#: FIN follows alone), and the ACK of the client's FIN.
NS2_FORWARD = [3, 5, 5, 7]


def _forward(engine: str, tcp: dict | None = None) -> list[int]:
    got = []
    for request, response in CASES:
        df, raw = run(scenario(tcp), engine, [request], [response])
        assert df.completed.all()
        got.append(arrivals(raw)[FORWARD])
    return got


def test_the_response_carries_the_requests_ack_on_both_engines():
    """No pure ACK before the response: the expected server-to-client packets on ns-2.35
    and on ns-3 (without the rule ns-3 sends one packet more in every case)."""
    assert _forward("ns2") == NS2_FORWARD
    assert _forward("ns3") == NS2_FORWARD


def test_ns3s_rule_sends_a_pure_ack_first():
    """ns-3's own rule (``ack_rule = "segments"``, ns-3 only) acknowledges the full
    segment from its receive path: one packet more in each case."""
    tcp = {"ack_rule": "segments", "owed_ack": "pure"}
    assert _forward("ns3", tcp) == [n + 1 for n in NS2_FORWARD]
