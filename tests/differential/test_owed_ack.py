"""An ACK the web server owes carries the short tail Nagle holds (``tcp.owed_ack``).

ns-2.35's Full-TCP sends an owed ACK (TF_ACKNOW) through foutput(), which puts in it the
data the window allows and sends it past Nagle's test ("send now if ... we owe peer an
ACK"). One 300 B request and a 2-segment response (1420 + 1316 B, 50 ms base RTT) whose
first segment (arrival 2 at the forward bottleneck queue) is lost: Nagle holds the short
second segment while the first is unacknowledged, and the client, which saw no ACK of its
request, sends it again 1 s later. ns-2.35 answers that duplicate with the held segment
(and the server's own timeout resends the first just after), so the response ends 1.103 s
after the SYN; with a pure ACK (ns-3's rule, "pure") the tail waited for the ACK of the
retransmission, one round trip more (1.153 s). Found by random drop lists for single web
connections on both engines.
"""

from __future__ import annotations

import pytest

from aqmlab.engines import ns2
from tests.differential.planned import forward_drops, run

pytestmark = [pytest.mark.ns3, pytest.mark.ns2,
              pytest.mark.skipif(not ns2.available(), reason="ns-2 (`ns`) is not installed")]

RESPONSE = 2736  # one full segment and a 1316-byte tail


def _response_time(engine: str, tcp: dict | None = None) -> float:
    sc = forward_drops((2,), tcp, duration="30s")
    return float(run(sc, engine, [300], [RESPONSE])[0].response_time_s.iloc[0])


def test_the_repeated_request_is_answered_with_the_held_tail():
    """Both engines end the response at 1.103 s, within 1 ms; a pure ACK ends it one
    round trip (50 ms) later."""
    ns2_, ns3 = _response_time("ns2"), _response_time("ns3")
    assert ns2_ == pytest.approx(1.103, abs=0.002)
    assert abs(ns3 - ns2_) < 0.001
    assert _response_time("ns3", {"owed_ack": "pure"}) == pytest.approx(ns2_ + 0.05, abs=0.002)
