"""Duplicate ACKs around an ECN cut, as ns-2.35's one-way Reno agent counts them.

Pentikousis' ten 20 MiB downloads (``run.event_clock = "ns2"``, the study's default), three
rules of ns-2's ``RenoTcpAgent`` that the full profile's last runs apart came down to:

* After a timeout and an echo answered on a duplicate ACK, the third duplicate ACK runs
  ``dupack_action()``'s ECN branch: the head resent, ``dupwnd_ = 3``, and ``send_much()``
  lets the go-back-N resends out up to ``int(cwnd_) + dupwnd_`` (ns-3's CWR entered from
  LOSS ignored the duplicates).
* That branch leaves ``recover_`` where the ECN cut put it, so a later fast retransmit
  needs the cumulative ACK past the cut's highest segment only (aqmlab guarded up to the
  highest segment sent at the retransmission).
* An echo cutting cwnd below one segment re-arms the timer in ``newack()`` only: on a
  duplicate ACK the timer keeps running (aqmlab re-armed it).
"""

from __future__ import annotations

import functools

import numpy as np

from aqmlab.engines.flow_trace import flow_trace
from aqmlab.studies.setups import pentikousis
from tests.differential.packets import partings
from tests.differential.scenarios import MARKS

pytestmark = MARKS
FLOWS = range(10)
TOL = 1.5e-6


@functools.cache
def _events(engine: str, scheme: str, limit: int, seed: int, duration: str):
    sc = pentikousis.base("20MiB").replace(**{
        **pentikousis.scheme_arm(scheme, limit).changes, "topology.receivers": 10,
        "traffic[0].count": 10, "run.duration": duration, "run.sample_interval": None,
        "run.seed": seed, "run.engine": engine})
    return flow_trace(sc, FLOWS)[1]


def _both(*args):
    return _events("ns2", *args), _events("ns3", *args)


def _at(ev, flow: int, t: float):
    return ev[(ev.flow == flow) & (np.abs(ev.t - t) < 1e-6)]


def test_third_dupack_after_timeout_and_echo_resends_to_the_inflated_window():
    """Aggressive RED+ECN, limit 8, seed 5, flow 8: a timeout at 104.343776 s, an echo
    cuts cwnd to 0.5 at 104.348256 s, and at the third duplicate ACK (104.441696 s) both
    engines resend segments 1459-1461; the ten flows send the same packets to 105 s."""
    ev2, ev3 = _both("aggr-ecn", 8, 5, "105s")
    for ev in (ev2, ev3):
        assert _at(ev, 8, 104.348256).cwnd.iloc[-1] == 0.5
        at = _at(ev, 8, 104.441696)
        assert at[at.event == "retx"].seg.tolist() == [1459, 1460, 1461]
    assert all(np.isinf(partings(ev2, ev3, FLOWS, tol=TOL)))


def test_fast_retransmit_after_the_ecn_branch_needs_only_the_cuts_recover_point():
    """Conservative RED+ECN, limit 64, seed 1, flow 1: segment 9452 fast-retransmitted after
    an echo's cut (756.841869 s, no second cut), and the third duplicate ACK of 9457 at
    757.869710 s fast-retransmits 9457 with cwnd 5.515 -> 2.757 on both engines."""
    ev2, ev3 = _both("cons-ecn", 64, 1, "758s")
    for ev in (ev2, ev3):
        at = _at(ev, 1, 757.869710)
        assert at[at.event == "retx"].seg.tolist() == [9457]
        assert abs(at[at.event == "ack"].cwnd.iloc[-1] - 2.757) < 1e-3
    assert all(np.isinf(partings(ev2, ev3, FLOWS, tol=TOL)))


def test_an_echo_on_a_duplicate_ack_below_one_segment_leaves_the_timer():
    """Aggressive RED+ECN, limit 16, seed 4, flow 9: a timeout at 954.753563 s (back-off
    2), an echoing duplicate ACK cuts cwnd to 0.5 at 954.905990 s, and the next timeout
    comes 2 s after the first (956.753563 s), not after the echo, on both engines."""
    ev2, ev3 = _both("aggr-ecn", 16, 4, "957s")
    for ev in (ev2, ev3):
        assert _at(ev, 9, 954.905990).cwnd.iloc[-1] == 0.5
        later = ev[(ev.flow == 9) & (ev.event == "timeout") & (ev.t > 954.8)]
        assert abs(later.t.iloc[0] - 956.753563) < 1e-6
    assert all(np.isinf(partings(ev2, ev3, FLOWS, tol=TOL)))
