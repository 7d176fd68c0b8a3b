"""FINs while closing (``tcp.closing_ack = "with_fin"`` and ``tcp.early_fin = "acked"``,
the web defaults; "FINs while closing" in cpp/tcp_socket.h). Once its FIN is out,
ns-2's Full-TCP sends every ACK that leaves with all data out as a FIN again, at the FIN's
sequence number, and a receiver missing data before a FIN acknowledges it at once.
ns-3 sends a plain ACK past its FIN, and notes an early FIN silently.
"""

from __future__ import annotations

import functools

import pytest

from aqmlab.engines import ns2
from aqmlab.kinds.tcp import mechanisms
from aqmlab.scenario import DropTail
from tests.differential.planned import arrivals, run, scenario

pytestmark = [pytest.mark.ns3, pytest.mark.ns2,
              pytest.mark.skipif(not ns2.available(), reason="ns-2 (`ns`) is not installed")]

FORWARD, REVERSE = "R0->R1", "R1->R0"  # server -> client, client -> server


@functools.cache
def _lost_response(engine: str, **tcp: str) -> tuple[float, dict[str, int]]:
    """A 500-byte response and its FIN (one packet, the 2nd forward arrival) are lost: the
    client's request timer resends the request (1 s), which the server, in FIN_WAIT_1,
    acknowledges as its own timer resends the response."""
    sc = scenario({"syn_options": "none", **tcp}).replace(**{
        "topology.link_header": "none",
        "topology.forward_queue": DropTail(limit="100p", drop_packets=(2,), drop_count="all")})
    df, raw = run(sc, engine, [300], [500])
    assert df.completed.all(), engine
    return float(df.response_time_s.iloc[0]), arrivals(raw)


def test_web_connections_take_full_tcps_closing_by_default():
    """"auto" is Full-TCP's rule for web connections and ns-3's for one-way agents."""
    tcp = scenario().tcp
    assert mechanisms.resolve(tcp, "closing_ack", one_way=False) == "with_fin"
    assert mechanisms.resolve(tcp, "early_fin", one_way=False) == "acked"
    assert mechanisms.resolve(tcp, "closing_ack", one_way=True) == "plain"
    assert mechanisms.resolve(tcp, "early_fin", one_way=True) == "queued"


def test_the_servers_ack_is_a_fin_that_the_client_answers():
    """ns-2.35's client sends one packet more than ns-3's plain rules give: the duplicate
    ACK of the server's early FIN. With both Full-TCP rules ns-3 sends ns-2.35's packets
    each way and ends the response at the same instant; either rule alone loses that
    packet (a plain ACK, or an early FIN noted silently)."""
    t2, p2 = _lost_response("ns2")
    t3, p3 = _lost_response("ns3")
    assert p3 == p2 and abs(t3 - t2) < 1e-12
    for rule in ({"closing_ack": "plain"}, {"early_fin": "queued"}):
        t, p = _lost_response("ns3", **rule)
        assert p[REVERSE] == p2[REVERSE] - 1 and p[FORWARD] == p2[FORWARD], rule
        assert abs(t - t2) < 1e-12, rule
