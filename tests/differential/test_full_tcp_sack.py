"""Full-TCP's SACK recovery, packet by packet (``tcp.sack_recovery = "full_tcp"``, the web
default with ``variant = "sack"``).

ns-2.35's SackFullTcpAgent is neither RFC 6675 (ns-3) nor the one-way Sack1. Outside a
recovery its window is tested against every segment sent and not cumulatively
acknowledged, SACKed ones included, so without limited transmit a duplicate ACK frees
nothing; in recovery pipe_ starts as the flight less the SACKed bytes (the fast
retransmission not counted), loses a segment per ACK (two per partial ACK) and gains what
is sent; a next recovery waits until the cumulative ACK passes recover_. One 300 B
request per test, 50 ms base RTT, initial window 2. Found by random drop lists for single
web connections on both engines (``test_random_drops.py``).
"""

from __future__ import annotations

import pytest

from aqmlab.engines import ns2
from tests.differential.planned import forward_drops, run

pytestmark = [pytest.mark.ns3, pytest.mark.ns2,
              pytest.mark.skipif(not ns2.available(), reason="ns-2 (`ns`) is not installed")]

SACK = {"variant": "sack"}
RFC6675 = {**SACK, "sack_recovery": "rfc6675"}


def _response_time(engine: str, tcp: dict, drops: tuple[int, ...], response: int) -> float:
    sc = forward_drops(drops, tcp, duration="30s")
    return float(run(sc, engine, [300], [response])[0].response_time_s.iloc[0])


def test_a_sack_frees_no_segment_outside_recovery():
    """A 5-segment response losing its first segment (arrival 2): the one dupack the
    second segment brings frees nothing on ns-2.35, whose retransmission timer resends it
    (1.206 s after the SYN, within 1 ms on both engines). RFC 6675 counts the SACKed
    segment out of the flight, sends new data on each SACK, reaches three dupacks and
    ends at 0.307 s."""
    ns2_ = _response_time("ns2", SACK, (2,), 6742)
    assert ns2_ == pytest.approx(1.206, abs=0.002)
    assert abs(_response_time("ns3", SACK, (2,), 6742) - ns2_) < 0.001
    assert _response_time("ns3", RFC6675, (2,), 6742) == pytest.approx(0.307, abs=0.002)


def test_pipe_counts_the_flight_less_the_sacked_bytes():
    """A 20-segment response losing segment 6 of a 7-segment flight and then the first
    new segment of the recovery (arrivals 7 and 17): pipe_ = 7 - 3 at the third dupack
    against int(cwnd_) = 3, so new segments leave on the fifth and sixth; both engines end
    the response at 0.419 s, within 1 ms. RFC 6675 ends it two round trips later."""
    ns2_ = _response_time("ns2", SACK, (7, 17), 28_319)
    assert ns2_ == pytest.approx(0.419, abs=0.002)
    assert abs(_response_time("ns3", SACK, (7, 17), 28_319) - ns2_) < 0.001
    rfc = _response_time("ns3", RFC6675, (7, 17), 28_319)
    assert rfc == pytest.approx(ns2_ + 0.098, abs=0.002)


def test_the_next_recovery_waits_past_the_recovery_point():
    """A 40-segment response losing segment 11 (arrival 13) and then the first segment
    sent after its fast retransmit (arrival 27): the ACK that ends the first recovery is
    exactly recover_ (maxseq_ at the fast retransmit), and ns-2.35's bug_fix_ wants
    highest_ack_ > recover_, so the three dupacks that follow start nothing and the
    retransmission timer resends the segment; both engines end at 1.568 s, within 1 ms.
    RFC 6675 fast-retransmits it and ends at 0.513 s."""
    ns2_ = _response_time("ns2", SACK, (13, 27), 56_473)
    assert ns2_ == pytest.approx(1.568, abs=0.002)
    assert abs(_response_time("ns3", SACK, (13, 27), 56_473) - ns2_) < 0.001
    assert _response_time("ns3", RFC6675, (13, 27), 56_473) == pytest.approx(0.513, abs=0.002)


def test_after_a_timeout_only_holes_are_resent():
    """A 20-segment response losing segments 6, 7 and 10, then the fast retransmission
    of 6 and its first timeout retransmission, and the 26th packet to arrive (arrivals 7,
    8, 11, 14, 15, 26; the SYN/ACK is the first): after the second timeout ns-2.35's
    Full-TCP SACK rebuilds its scoreboard from the ACKs and resends the holes only
    (segment 7, then 10), skipping segment 8, which the receiver holds; going back N
    resends it, so the 26th arrival is another segment. Both engines end at 4.619 s,
    within 1 ms; with ``sack_timeout = "go_back_n"`` (Sack1's) the response ends 49 ms
    earlier."""
    drops = (7, 8, 11, 14, 15, 26)
    ns2_ = _response_time("ns2", SACK, drops, 28_267)
    assert ns2_ == pytest.approx(4.619, abs=0.002)
    assert abs(_response_time("ns3", SACK, drops, 28_267) - ns2_) < 0.001
    gbn = _response_time("ns3", {**SACK, "sack_timeout": "go_back_n"}, drops, 28_267)
    assert gbn == pytest.approx(ns2_ - 0.049, abs=0.002)


def test_nagle_holds_the_tail_at_a_partial_ack():
    """A 28,227-byte response (19 full segments and a 1,247-byte tail) losing segments
    11, 15 and 19 (arrivals 12, 16, 20): the recovery point is past segment 19, so the ACK
    that the resent segment 15 brings is partial, with no hole left to resend and only
    the short tail as new data, which Nagle holds on ns-2.35 while data is outstanding;
    segment 19 waits for the timeout and the response ends at 1.410 s on both engines,
    within 1 ms. (Sending the tail there, as ns-3's partial-ACK retransmission did, drew
    the dupacks that resent segment 19 a second earlier.)"""
    ns2_ = _response_time("ns2", SACK, (12, 16, 20), 28_227)
    assert ns2_ == pytest.approx(1.410, abs=0.002)
    assert abs(_response_time("ns3", SACK, (12, 16, 20), 28_227) - ns2_) < 0.001


def test_the_hole_pointer_follows_every_segment_sent_at_it():
    """A 40-segment response at 30 % loss (random drop list, seed 7, case 13): ns-2.35's
    h_seqno_, the point above which holes are sought after a timeout, moves past every
    segment sent at it in every state, so after an idle spell it runs with t_seqno_ and a
    later timeout goes back N over a SACKed segment (at 4.51 s, the first ACK after a
    timeout let ns-2.35 send two segments, the second one SACKed, not one). Both engines end at 11.183 s, within 1 ms; with the pointer
    moved only by hole retransmissions aqmlab ended at 21.183 s."""
    drops = (2, 3, 7, 22, 23, 25, 29, 31, 35, 38, 40, 45, 49, 53, 57, 58, 59, 61, 65, 66,
             70, 78, 80, 86, 91, 93, 94, 99, 100, 102, 107, 108, 110, 112, 114, 121, 124,
             126, 138, 139, 140, 142, 153, 161, 164, 165, 171, 176)
    ns2_ = _response_time("ns2", SACK, drops, 56_268)
    assert ns2_ == pytest.approx(11.183, abs=0.002)
    assert abs(_response_time("ns3", SACK, drops, 56_268) - ns2_) < 0.001


def test_the_window_after_a_recovery_counts_from_the_highest_segment_sent():
    """Outside a recovery Full-TCP's window is tested against t_seqno_ - highest_ack_, and
    t_seqno_ stays at the highest segment sent while the recovery resends holes below it.
    A 200-segment response losing arrivals 6, 11 and 13: the ACK that ends the recovery
    leaves segments 10-12 outstanding (11 and 12 SACKed) at cwnd 3.33, so nothing leaves
    until the next ACK, and both engines end at 1.349 s, within 1 ms (aqmlab 0.8.7 counted
    from the last hole resent and sent segment 13 an ACK early: 1.1 ms sooner)."""
    ns2_ = _response_time("ns2", SACK, (6, 11, 13), 283_986)
    assert ns2_ == pytest.approx(1.349, abs=0.002)
    assert abs(_response_time("ns3", SACK, (6, 11, 13), 283_986) - ns2_) < 0.001
