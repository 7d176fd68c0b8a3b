"""A request completed by a segment that fills a hole, answered at once
(``tcp.ack_rule = "full_tcp"``): ns-2's Full-TCP takes such a segment through its
reassembly path, which gives the bytes to the application before it owes the ACK, so the
response leaves first and the owed ACK follows in a packet of no data (after the
response's FIN, a copy of the FIN at its sequence number). ns-3 sent the response carrying
the ACK and nothing after it: one server-to-client packet less (found on Weigle's ARED
5 ms at 105 %, seed 2, 176.43 s: a 2,840-byte request whose first segment came last)."""

from __future__ import annotations

import pytest

from aqmlab.engines import ns2
from tests.differential.planned import arrivals, reverse_drops, run

pytestmark = [pytest.mark.ns3, pytest.mark.ns2,
              pytest.mark.skipif(not ns2.available(), reason="ns-2 (`ns`) is not installed")]

FORWARD = "R0->R1"
#: (request, response) bytes, one connection each. The client's first request segment is
#: lost (the third arrival at the reverse queue, after the SYN and the handshake ACK); the
#: second arrives first, and the first's retransmission, 1 s later, fills the hole. Two-
#: segment requests end with that fill; the three-segment one does not (its last segment
#: is still to come: the usual in-order path, the control).
CASES = [(2840, 148), (2840, 3000), (2840, 30_000), (4260, 148)]

#: Server-to-client packets on ns-2.35: the SYN/ACK, the duplicate ACK for the early
#: segment, the response (with its FIN when it fits the window), the packet the owed ACK
#: takes after it (hole fills only), and the ACK of the client's FIN (and of the later
#: request segments for the control, whose FIN goes with its response).
NS2_FORWARD = [5, 7, 26, 5]


def _forward(engine: str) -> list[int]:
    got = []
    for request, response in CASES:
        df, raw = run(reverse_drops((3,), duration="40s"), engine, [request], [response])
        assert df.completed.all()
        got.append(arrivals(raw)[FORWARD])
    return got


def test_the_owed_ack_follows_the_response_on_both_engines():
    """The same server-to-client packet counts on ns-2.35 and on ns-3; the fill's owed ACK
    is one packet more than the response needs."""
    assert _forward("ns2") == NS2_FORWARD
    assert _forward("ns3") == NS2_FORWARD


def test_the_packet_after_a_fin_sits_at_the_fins_number():
    """A 148-byte response fits one packet with its FIN; the owed ACK after it carries the
    FIN's sequence number (ns-2's FIN copy), which the closing client ignores: seven
    client-to-server packets on both engines (numbered one past the FIN, ns-3's own choice
    for an ACK after its FIN, it closes the client early and the server's last ACK draws a
    reset: eight), and the response ends within 20 us of ns-2.35's 2.1017 s."""
    got = {}
    for engine in ("ns2", "ns3"):
        df, raw = run(reverse_drops((3,), duration="40s"), engine, [2840], [148])
        got[engine] = (arrivals(raw), float(df.end_s.iloc[0]))
    assert got["ns2"][0] == {FORWARD: 5, "R1->R0": 7}
    assert got["ns3"][0] == got["ns2"][0]
    assert got["ns2"][1] == pytest.approx(2.1017, abs=0.0005)
    assert abs(got["ns3"][1] - got["ns2"][1]) < 20e-6
