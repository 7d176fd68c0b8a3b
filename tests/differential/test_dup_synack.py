"""An established opener acknowledges a duplicate SYN/ACK (``tcp.dup_synack = "ack"``,
Full-TCP's, the web default).

ns-2.35's Full-TCP trims the SYN of a SYN/ACK that arrives once it is established as an
old segment, and a completely duplicate segment sets TF_ACKNOW: it answers with an ACK.
ns-3 ignores such a SYN/ACK. One 300 B request and a 20-segment response (50 ms base RTT)
whose client loses its first SYN, its handshake ACK and its request, and the request's
first retransmission (arrivals 1, 3, 4 and 6 at the reverse bottleneck queue): the
server's SYN/ACK retry (13.025 s) meets the client's request timer (13.05 s). ns-2.35
answers the SYN/ACK with an ACK, so the retried request is the sixth arrival and is lost;
its next retry, 12 s later, ends the response at 24.41 s. Ignoring the SYN/ACK, the retried
request is the fifth arrival, passes, and the response ends 12 s earlier. Found by random
drop lists on the reverse path of single web connections.
"""

from __future__ import annotations

import pytest

from aqmlab.engines import ns2
from tests.differential.planned import reverse_drops, run

pytestmark = [pytest.mark.ns3, pytest.mark.ns2,
              pytest.mark.skipif(not ns2.available(), reason="ns-2 (`ns`) is not installed")]

RESPONSE = 28_264


def _response_time(engine: str, tcp: dict | None = None) -> float:
    sc = reverse_drops((1, 3, 4, 6), tcp, duration="60s")
    return float(run(sc, engine, [300], [RESPONSE])[0].response_time_s.iloc[0])


def test_the_duplicate_synack_is_acknowledged():
    """Both engines end the response at 24.41 s, within 1 ms; ignoring the duplicate
    SYN/ACK (ns-3's rule) ends it at 12.42 s."""
    ns2_, ns3 = _response_time("ns2"), _response_time("ns3")
    assert ns2_ == pytest.approx(24.413, abs=0.002)
    assert abs(ns3 - ns2_) < 0.001
    assert _response_time("ns3", {"dup_synack": "ignore"}) == pytest.approx(12.415, abs=0.002)
