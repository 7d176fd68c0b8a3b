"""A resent FIN in LAST_ACK (``tcp.last_ack_fin = "ignore"``, the web default; "A resent FIN
in LAST_ACK" in cpp/tcp_socket.h): ns-2's Full-TCP drops every segment carrying a FIN once
it is in LAST_ACK, unanswered; ns-3 acknowledges a resent one. With a client's ACK and FIN
both lost, the server's resent last segment and FIN get one more packet from ns-3's client.
"""

from __future__ import annotations

import functools

import pytest

from aqmlab.engines import ns2
from aqmlab.kinds.tcp import mechanisms
from aqmlab.scenario import DropTail
from tests.differential.planned import MSS, run, scenario

pytestmark = [pytest.mark.ns3, pytest.mark.ns2,
              pytest.mark.skipif(not ns2.available(), reason="ns-2 (`ns`) is not installed")]


@functools.cache
def _packets(engine: str, response: int, last_ack_fin: str,
             closing_ack: str = "auto") -> tuple[float, dict[str, int]]:
    """One connection whose client's ACK of the response and FIN (reverse arrivals 4 and 5)
    are lost, 40 ms of extra delay each way in ns-2's DelayBox."""
    sc = scenario({"syn_options": "none", "last_ack_fin": last_ack_fin,
                   "closing_ack": closing_ack}, delay="0ms",
                  rtt="packmime").replace(**{
        "topology.link_header": "none", "topology.delay_box": "ns2",
        "topology.reverse_queue": DropTail(limit="1000p", drop_packets=(4, 5),
                                           drop_count="all")})
    df, raw = run(sc, engine, [300], [response], extra_delay=[0.04])
    assert df.completed.all(), engine
    return float(df.response_time_s.iloc[0]), {
        n: int(a) for n, a in zip(raw.probe_names, raw.queues["arrivals"], strict=True)}


def test_web_connections_ignore_a_resent_fin_by_default():
    """"auto" is "ignore" for Full-TCP (web) connections and "ack" otherwise."""
    tcp = scenario().tcp
    assert mechanisms.resolve(tcp, "last_ack_fin", one_way=False) == "ignore"
    assert mechanisms.resolve(tcp, "last_ack_fin", one_way=True) == "ack"


@pytest.mark.parametrize("response", [1000, 2 * MSS])
def test_ignoring_the_resent_fin_sends_ns2s_packets(response: int):
    """Each way, as many packets as ns-2.35, and the response at the same instant."""
    (t3, p3), (t2, p2) = _packets("ns3", response, "ignore"), _packets("ns2", response, "auto")
    assert p3 == p2 and abs(t3 - t2) < 1e-12


def test_ns3s_client_acknowledges_the_resent_fin():
    """With ns-3's rules ("ack", and a plain ACK after its FIN: ``closing_ack``) ns-3's
    client answers the server's resent segment and FIN: one packet more on the reverse
    bottleneck, the same on the forward one."""
    _, p3 = _packets("ns3", 1000, "ack", "plain")
    _, p2 = _packets("ns2", 1000, "auto")
    assert p3["R1->R0"] - p2["R1->R0"] == 1 and p3["R0->R1"] == p2["R0->R1"]
