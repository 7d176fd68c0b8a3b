"""SACK loss recovery, packet by packet (``sack_recovery``): ns-2.35's one-way
``Agent/TCP/Sack1`` against aqmlab's ``ns2_sack1`` and ns-3's RFC 6675 (limited transmit on,
as in the parking lot).

Segments 29, 31 and 33 lost (arrivals 30, 32, 34): Sack1 resends every hole below the highest
SACK block once, in order, as its pipe counter allows; RFC 6675 resends a hole only once three
segments above it are SACKed, yet resent 31 a dupack earlier (it counts pipe from the
scoreboard) and the flow delivered 12 segments fewer in the first second.

Segments 29 and 31 lost, then both retransmissions (arrivals 63, 64): the timeout drops
Sack1's SACK information, and the go-back-N after it resends 32, which the receiver holds;
RFC 6675 keeps the SACKed marks and skips it.
"""

from __future__ import annotations

import pytest

from tests.differential.scenarios import MARKS, events, one_flow, trace

pytestmark = MARKS


def sack(drops: tuple[int, ...], **tcp):
    return one_flow(drops, variant="sack", limited_transmit=True, **tcp)


@pytest.fixture(scope="module")
def runs():
    out = {}
    for drops in ((30, 32, 34), (30, 32, 63, 64)):
        for name, engine, tcp in (("ns2", "ns2", {}), ("ns3", "ns3", {}),
                                  ("rfc6675", "ns3", {"sack_recovery": "rfc6675"})):
            out[drops, name] = trace(sack(drops, **tcp), engine)
    return out


def delivered(ev) -> int:
    """Segments acknowledged in order by the end of the run."""
    return int(events(ev, "ack").seg.max())


@pytest.mark.parametrize("drops", [(30, 32, 34), (30, 32, 63, 64)])
def test_the_engines_retransmit_the_same_segments_at_the_same_instants(runs, drops):
    (r2, e2), (r3, e3) = runs[drops, "ns2"], runs[drops, "ns3"]
    x2, x3 = events(e2, "retx"), events(e3, "retx")
    assert list(x3.seg) == list(x2.seg)
    assert abs(x3.t - x2.t).max() < 1e-4  # ns-3 runs 23 us late from the start
    assert delivered(e3) == delivered(e2)
    for col in ("fast_recoveries", "timeouts", "retransmitted_packets"):
        assert r3.flows.iloc[0][col] == r2.flows.iloc[0][col], col


def test_every_hole_once_in_one_recovery(runs):
    for name in ("ns2", "ns3"):
        res, ev = runs[(30, 32, 34), name]
        assert list(events(ev, "retx").seg) == [29, 31, 33], name
        assert (res.flows.iloc[0].fast_recoveries, res.flows.iloc[0].timeouts) == (1, 0)
    assert delivered(runs[(30, 32, 34), "ns2"][1]) == 893 + 12


def test_rfc6675_recovers_otherwise(runs):
    ev2, ev = runs[(30, 32, 34), "ns2"][1], runs[(30, 32, 34), "rfc6675"][1]
    early = events(ev2, "retx").t[1] - events(ev, "retx").t[1]
    assert early == pytest.approx(0.000834, abs=1e-4)  # one dupack
    assert delivered(ev) == delivered(ev2) - 12


def test_go_back_n_after_a_timeout_resends_sacked_data(runs):
    for name in ("ns2", "ns3"):
        ev = runs[(30, 32, 63, 64), name][1]
        assert list(events(ev, "retx").seg) == [29, 31, 29, 31, 32], name
        assert list(events(ev, "timeout").seg) == [29], name
    assert list(events(runs[(30, 32, 63, 64), "rfc6675"][1], "retx").seg) == [29, 31, 29, 31]


def test_holes_after_a_timeout_are_full_tcps_only():
    """``sack_timeout = "holes"`` is read with Full-TCP's SACK only: the one-way Sack1 of a
    bulk flow still goes back N after the timeout, resending 32, which the receiver holds
    (aqmlab 0.8.5 at first let the two mix, and a Sack1 sender then resent one hole
    without end)."""
    _, ev = trace(sack((30, 32, 63, 64), sack_timeout="holes"), "ns3")
    assert list(events(ev, "retx").seg) == [29, 31, 29, 31, 32]
    assert list(events(ev, "timeout").seg) == [29]
