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


def _fill(engine: str, tcp: dict | None = None) -> tuple[dict[str, int], float]:
    df, raw = run(reverse_drops((3,), tcp, duration="40s"), engine, [2840], [148])
    return arrivals(raw), float(df.end_s.iloc[0])


def test_the_packet_after_a_fin_is_the_fin_again():
    """A 148-byte response fits one packet with its FIN; the owed ACK after it is a FIN
    again at the FIN's number (``closing_ack = "with_fin"``), which the closing client
    drops: seven client-to-server packets on both engines, and the response ends within
    20 us of ns-2.35's 2.1017 s. As ns-3's plain ACK one past the FIN
    (``closing_ack = "plain"``) it closes the client early, and the server's last ACK
    draws a reset: eight."""
    ns2_, ns3 = _fill("ns2"), _fill("ns3")
    assert ns2_[0] == {FORWARD: 5, "R1->R0": 7}
    assert ns3[0] == ns2_[0]
    assert ns2_[1] == pytest.approx(2.1017, abs=0.0005)
    assert abs(ns3[1] - ns2_[1]) < 20e-6
    assert _fill("ns3", {"closing_ack": "plain"})[0] == {FORWARD: 5, "R1->R0": 8}
