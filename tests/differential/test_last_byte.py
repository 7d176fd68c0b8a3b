"""The application's last byte as a segment of its own (``tcp.last_byte = "full_tcp"``):
ns-2's Full-TCP lets a segment start only below curseq_, which it takes for one past the
last byte written though it is that byte's number, so a segment holding only that byte (a
response of k x 1,420 + 1 bytes) leaves only in a forced output: a new ACK of everything
sent, an owed ACK (up to the delayed-ACK tick), a timeout. Found on Weigle's ARED 5 ms at
105 %, seed 3: a 1,421-byte response whose two segments were both lost; the go-back-N
ACK stopped at the last byte, which ns-3 resent at once and ns-2.35 at its next timeout,
2 s later."""

from __future__ import annotations

import pytest

from aqmlab.engines import ns2
from tests.differential.planned import forward_drops, run

pytestmark = [pytest.mark.ns3, pytest.mark.ns2,
              pytest.mark.skipif(not ns2.available(), reason="ns-2 (`ns`) is not installed")]

NS3_RULE = {"last_byte": "ns3"}


def _end(engine: str, drops: tuple[int, ...], response: int, tcp: dict | None = None) -> float:
    df, _ = run(forward_drops(drops, tcp, duration="40s"), engine, [204], [response])
    assert df.completed.all()
    return float(df.end_s.iloc[0])


def test_a_resent_last_byte_waits_for_the_timeout():
    """A 204-byte request, a 1,421-byte response, the server's first segment (forward
    arrival 2) and its last byte (3, sent with the ACK of the client's resent request)
    lost: after the first segment's timeout the client's ACK stops at the last byte.
    ns-2.35 resends it at the next timeout (the response ends at 4.152 s); so does ns-3
    with the rule (within 20 us), and without it ns-3 ends 2 s earlier."""
    ns2_ = _end("ns2", (2, 3), 1421)
    assert ns2_ == pytest.approx(4.1518, abs=0.0005)
    assert abs(_end("ns3", (2, 3), 1421) - ns2_) < 20e-6
    assert _end("ns3", (2, 3), 1421, NS3_RULE) == pytest.approx(ns2_ - 2.0, abs=0.001)


def test_a_one_byte_response_waits_for_the_requests_ack():
    """A one-byte response written as the 204-byte request arrives (1.075 s) leaves with
    that request's delayed ACK, at the 0.1-s tick (1.1 s; ends 1.125 s) on ns-2.35 and on
    ns-3 with the rule; ns-3's own rule sends it at once (ends 1.100 s)."""
    ns2_ = _end("ns2", (), 1)
    assert ns2_ == pytest.approx(1.1250, abs=0.0005)
    assert abs(_end("ns3", (), 1) - ns2_) < 20e-6
    assert _end("ns3", (), 1, NS3_RULE) == pytest.approx(1.1004, abs=0.0005)


def test_a_longer_tail_is_not_held():
    """The control: with a 2,841-byte response the same two arrivals are its two full
    segments, and the last byte leaves when everything before it is acknowledged, under
    either rule: all three runs end within 20 us."""
    ends = [_end("ns2", (2, 3), 2841), _end("ns3", (2, 3), 2841),
            _end("ns3", (2, 3), 2841, NS3_RULE)]
    assert max(ends) - min(ends) < 20e-6
