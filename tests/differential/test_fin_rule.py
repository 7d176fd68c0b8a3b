"""Full-TCP's FIN (``tcp.fin_rule = "full_tcp"``, the web default; "Full-TCP's FIN" in
cpp/tcp_socket.h): ns-2's Full-TCP puts its FIN on the segment that empties its buffer
only if nothing is outstanding as it leaves, else sends it alone once everything is
acknowledged, and the client acknowledges that bare FIN before sending its own. ns-3 puts
the FIN on the last segment: one packet fewer each way for a response of whole segments.
ns-2's DelayBox ends a flow when its FIN leaves (``topology.delay_box = "ns2"``), so where
the FIN goes decides which packets still get the connection's delay.
"""

from __future__ import annotations

import functools

import pytest

from aqmlab.engines import ns2
from aqmlab.scenario import DropTail
from tests.differential.planned import MSS, run, scenario

pytestmark = [pytest.mark.ns3, pytest.mark.ns2,
              pytest.mark.skipif(not ns2.available(), reason="ns-2 (`ns`) is not installed")]

RESPONSES = (1000, 2 * MSS, 3 * MSS, 2 * MSS + 500, 10 * MSS)


@functools.cache
def _packets(engine: str, response: int, fin: str) -> tuple[float, dict[str, int]]:
    sc = scenario({"syn_options": "none", "fin_rule": fin}).replace(
        **{"topology.link_header": "none"})
    df, raw = run(sc, engine, [300], [response])
    assert df.completed.all(), engine
    return float(df.response_time_s.iloc[0]), {
        n: int(a) for n, a in zip(raw.probe_names, raw.queues["arrivals"], strict=True)}


@pytest.mark.parametrize("response", RESPONSES)
def test_full_tcps_fin_sends_ns2s_packets(response: int):
    """Each way, as many packets as ns-2.35, and the response at the same instant."""
    (t3, p3), (t2, p2) = _packets("ns3", response, "full_tcp"), _packets("ns2", response, "auto")
    assert p3 == p2 and abs(t3 - t2) < 1e-12


def test_ns3s_fin_rides_the_last_whole_segment():
    """With ns-3's FIN a response of whole segments sends one packet fewer each way (no
    bare FIN, no ACK of it); one with a short tail, held by Nagle until everything is
    acknowledged, leaves quiet and carries the FIN on both."""
    for response in (2 * MSS, 3 * MSS, 10 * MSS):
        _, p3 = _packets("ns3", response, "ns3")
        _, p2 = _packets("ns2", response, "auto")
        assert {k: p2[k] - p3[k] for k in p2} == {k: 1 for k in p2}
    assert _packets("ns3", 2 * MSS + 500, "ns3")[1] == _packets("ns2", 2 * MSS + 500, "auto")[1]


def _dropped(engine: str, fin: str) -> float:
    """A 10-segment response whose 9th segment is lost (one duplicate ACK: a timeout),
    30 ms of extra delay each way in ns-2's DelayBox."""
    sc = scenario({"syn_options": "none", "fin_rule": fin}, delay="0ms", rtt="packmime").replace(
        **{"topology.link_header": "none", "topology.delay_box": "ns2",
           "topology.forward_queue": DropTail(limit="1000p", drop_packets=(9,),
                                              drop_count="all")})
    df, _ = run(sc, engine, [300], [10 * MSS], extra_delay=[0.03])
    assert df.completed.all(), engine
    return float(df.response_time_s.iloc[0])


def test_a_retransmission_after_ns3s_fin_skips_the_delay_box():
    """With Full-TCP's FIN the lost segment's retransmission comes before the FIN and is
    delayed as on ns-2.35; after ns-3's FIN, which left on the last segment, DelayBox has
    ended the flow and the retransmission reaches the client 30 ms sooner."""
    t2 = _dropped("ns2", "auto")
    assert abs(_dropped("ns3", "full_tcp") - t2) < 1e-12
    assert t2 - _dropped("ns3", "ns3") == pytest.approx(0.03, abs=1e-9)
