"""Both engines put the same packets on the wire at the same instants: a one-way flow's
packets carry ns-3's 2 PPP bytes on ns-2 too (42-byte headers), so every data packet and
ACK takes exactly as long on both; the handshake alone differs (ns-3's SYN carries options,
about 11 us). One Reno flow with two losses, a fast retransmit and a timeout: the first
1000 segments leave in the same order within 50 us."""

from __future__ import annotations

from tests.differential.scenarios import MARKS, arrivals, one_flow, trace

pytestmark = MARKS


def test_the_first_1000_segments_leave_at_the_same_instants():
    sc = one_flow((30, 32), duration="1.5s")
    s2, s3 = (arrivals(trace(sc, e)[1]).head(1000) for e in ("ns2", "ns3"))
    assert len(s2) == len(s3) == 1000
    assert (s2.seg.to_numpy() == s3.seg.to_numpy()).all()
    assert abs(s2.t.to_numpy() - s3.t.to_numpy()).max() < 5e-5
