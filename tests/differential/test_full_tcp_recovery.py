"""Full-TCP's fast recovery, packet by packet: every duplicate ACK from the first frees a
segment (``tcp.reno_window = "full_tcp"``), and a second hole is fast-retransmitted after
the partial ACK (``tcp.fast_retransmit_guard = "timeout"``), both the web defaults.

ns-2.35's Full-TCP Reno sets cwnd_ = ssthresh_ + dupacks_ at the third duplicate ACK and
adds one per later dupack, against the raw flight (t_seqno_ - highest_ack_), and sends
only the fast retransmission at the third. One 300 B request and a 20-segment response
(28,362 B, 50 ms base RTT, initial window 2) whose fifth data segment (arrival 6 at the
forward bottleneck queue) is lost from a flight of ten: the five dupacks put cwnd_ at
3 + 5, so ns-2.35 sends a new segment on each of the fourth and fifth, and the response
ends 0.415 s after the SYN. ns-3's classic recovery (``"ns3"``) counts a dupack as a
segment gone only from the third on, sends nothing new in that round trip, and ends one
round trip (49 ms) later. Found by random drop lists for single web connections on both
engines.
"""

from __future__ import annotations

import pytest

from aqmlab.engines import ns2
from tests.differential.planned import forward_drops, run

pytestmark = [pytest.mark.ns3, pytest.mark.ns2,
              pytest.mark.skipif(not ns2.available(), reason="ns-2 (`ns`) is not installed")]

RESPONSE = 28_362  # 19 full segments and a 1382-byte tail


def _response_time(engine: str, tcp: dict | None = None) -> float:
    sc = forward_drops((6,), tcp, duration="30s")
    return float(run(sc, engine, [300], [RESPONSE])[0].response_time_s.iloc[0])


def test_dupacks_one_and_two_inflate_the_window():
    """Both engines end the response at 0.415 s, within 1 ms; ns-3's classic recovery
    ends it one round trip (49 ms) later."""
    ns2_, ns3 = _response_time("ns2"), _response_time("ns3")
    assert ns2_ == pytest.approx(0.415, abs=0.002)
    assert abs(ns3 - ns2_) < 0.001
    classic = _response_time("ns3", {"reno_window": "ns3"})
    assert classic == pytest.approx(ns2_ + 0.049, abs=0.002)


def _two_losses(engine: str, tcp: dict | None = None) -> float:
    sc = forward_drops((15, 16), tcp, duration="30s")
    return float(run(sc, engine, [300], [56_460])[0].response_time_s.iloc[0])


def test_a_second_hole_is_fast_retransmitted_after_the_partial_ack():
    """``fast_retransmit_guard = "timeout"`` (Full-TCP): a 40-segment response losing two
    consecutive segments (arrivals 15 and 16) of a 14-segment flight. The partial ACK of
    the first retransmission ends Full-TCP's Reno recovery; three dupacks of the segments
    sent meanwhile resend the second hole, and the response ends at 0.527 s on both
    engines, within 1 ms. With the one-way agents' guard (bugFix_ after a fast
    retransmit too) it waits for the timeout and ends after 1.5 s."""
    ns2_, ns3 = _two_losses("ns2"), _two_losses("ns3")
    assert ns2_ == pytest.approx(0.527, abs=0.002)
    assert abs(ns3 - ns2_) < 0.001
    assert _two_losses("ns3", {"fast_retransmit_guard": "fast_retransmit"}) > 1.5


def _long(engine: str, drops: tuple[int, ...], response: int) -> float:
    sc = forward_drops(drops, None, duration="60s")
    return float(run(sc, engine, [300], [response])[0].response_time_s.iloc[0])


def test_a_timeout_in_recovery_halves_the_inflated_window():
    """Full-TCP keeps a recovery's inflation in cwnd_: a 100-segment response losing
    segment 11 and its fast retransmission (arrivals 13 and 26) keeps sending on the
    duplicate ACKs up to the 74-segment receive window, and the timeout halves
    min(cwnd_, window_) = 74: ssthresh 37, so slow start runs through the rest of the
    response. Both engines end it at 1.521 s, within 1 ms (aqmlab 0.8.6 halved the
    uninflated cwnd, 6, into 3 and ended a round trip later, 1.569 s)."""
    ns2_ = _long("ns2", (13, 26), 141_873)
    assert ns2_ == pytest.approx(1.521, abs=0.002)
    assert abs(_long("ns3", (13, 26), 141_873) - ns2_) < 0.001


def test_duplicate_acks_after_a_timeout_open_the_window():
    """After a timeout Full-TCP counts duplicate ACKs on: the third starts no fast
    retransmit (bug_fix_) and each later one adds a segment to cwnd_ (extra_ack()). A
    141,873-byte response losing arrivals 13, 19, 26, 35, 39 and 54: the go-back-N
    retransmissions draw four duplicate ACKs at 2.543 s and ns-2.35 sends segment 68 at
    the fourth (cwnd 6 -> 7). Both engines end at 1.737 s, within 1 ms (aqmlab 0.8.6 sent
    it a round trip later, 1.740 s)."""
    drops = (13, 19, 26, 35, 39, 54)
    ns2_ = _long("ns2", drops, 141_873)
    assert ns2_ == pytest.approx(1.737, abs=0.002)
    assert abs(_long("ns3", drops, 141_873) - ns2_) < 0.001


def test_the_next_new_ack_deflates_the_window_to_ssthresh():
    """The third of those duplicate ACKs sets fastrecov_, so the next new ACK first brings
    cwnd_ down to ssthresh_ (pack_action()), then opens it. A 141,691-byte response losing
    arrivals 33, 41, 49, 52, 54 and 64: three duplicate ACKs at cwnd 4.25 over ssthresh 4,
    and the new ACK leaves 4 + 1/4 on ns-2.35 where 4.25 + 1/4.25 would send a segment a
    round trip early. Both engines end at 1.954 s, within 1 ms (without the deflation
    aqmlab ended 2.3 ms earlier)."""
    drops = (33, 41, 49, 52, 54, 64)
    ns2_ = _long("ns2", drops, 141_691)
    assert ns2_ == pytest.approx(1.954, abs=0.002)
    assert abs(_long("ns3", drops, 141_691) - ns2_) < 0.001
