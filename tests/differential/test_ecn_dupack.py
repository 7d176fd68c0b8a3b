"""An ECN-Echo on a duplicate ACK is answered (``tcp.ecn_dupack = "answered"``), packet by
packet.

Pentikousis' ten aggressive RED+ECN downloads (limit 32, 2 MiB), seed 7, flow 7. An echo at
23.325833 s cuts cwnd 6.401 -> 3.201 (ns-2.35 ecn(): recover_ = maxseq_, segment 259).
Segment 262 is lost; the ACK of 261 (23.902047 s) carries no echo, the first duplicate of
it (24.166794 s) does. ns-2.35's recv() calls ecn() for every ACK before the duplicate
test, and 262 > recover_ (260 in ns-2's numbering from 1): the echo is answered, cwnd
3.513 -> 1.757, ssthresh 2 (recover_ now segment 264); the second echoing duplicate
(24.174580 s) is not. No third duplicate comes: the timeout at 24.902047 s keeps ssthresh
2, and after it the window grows 1, 2, 2.5: two segments (267, 268) leave at 25.397088 s.
ns-3 reads ECE on new ACKs only (``ecn_dupack = "ignored"``): cwnd stayed 3.513, the
timeout left ssthresh 3, slow start took cwnd to 3 and three segments left at 25.397 s,
where the runs parted (with ``last_segment``, ``transfer_close`` and the recover_ of
``ecn_response``).

The same run, flow 0: the third duplicate ACK of segment 795 (64.875505 s) echoes. ns-2.35
answers the echo first (cwnd 4.104 -> 2.052, ssthresh 2, recover_ = maxseq_), then the
duplicate: dupack_action() after an ECN cut retransmits without a second cut, dupwnd_ 3,
so int(2.052) + 3 = 5 segments of window let segment 799 out with the retransmission.
With both, the ten downloads send the same packets for the whole run (to 113 s).
"""

from __future__ import annotations

import pandas as pd
import pytest

from tests.differential.packets import EngineTraces, partings
from tests.differential.scenarios import MARKS, aggressive_ecn_clients

pytestmark = MARKS

FLOWS = list(range(10))


def _scenario(engine: str, dupack: str = "auto"):
    return aggressive_ecn_clients("70s", engine, **{"run.seed": 7, "tcp.ecn_dupack": dupack})


TRACES = EngineTraces(_scenario, FLOWS)


def _flow7(ev: pd.DataFrame) -> pd.DataFrame:
    return ev[(ev.flow == 7) & (ev.t > 23.9) & (ev.t < 25.4)].reset_index(drop=True)


def test_ns2s_duplicate_acks_echo():
    raw = TRACES.raw()
    acks = raw[(raw.fid == 7) & (raw.op == "r") & (raw.ptype == "ack") & (raw.t > 23.9) &
               (raw.t < 24.2)]
    assert list(acks.seq) == [262, 262, 262]
    assert [f[0] for f in acks["flags"]] == ["-", "C", "C"]  # the duplicates echo


@pytest.mark.parametrize("engine", ["ns2", "ns3"])
def test_the_echo_on_the_first_duplicate_ack_is_answered(engine):
    ev = _flow7(TRACES.events(engine))
    acks = ev[ev.event == "ack"]
    assert list(acks.seg[:3]) == [262, 262, 262]
    assert list(acks.t[:3].round(6)) == [23.902047, 24.166794, 24.174580]
    assert acks.cwnd.iloc[0] == pytest.approx(3.513, abs=2e-3)
    assert list(acks.cwnd[1:3]) == pytest.approx([3.513 / 2] * 2, abs=2e-3)
    assert list(acks.ssthresh[1:3]) == [2, 2]
    timeout = ev[ev.event == "timeout"]
    assert timeout.t.iloc[0] == pytest.approx(24.902047, abs=1e-5)
    assert timeout.ssthresh.iloc[0] == 2
    late = ev[(ev.event == "send") & (ev.t > 25.39)]
    assert list(late.seg) == [267, 268]


@pytest.mark.parametrize("engine", ["ns2", "ns3"])
def test_an_echo_on_the_third_duplicate_ack_cuts_before_the_fast_retransmit(engine):
    ev = TRACES.events(engine)
    ev = ev[(ev.flow == 0) & (ev.t > 64.85) & (ev.t < 64.88)].reset_index(drop=True)
    acks = ev[ev.event == "ack"]
    assert list(acks.seg) == [795] * 3
    assert list(acks.cwnd) == pytest.approx([4.104, 4.104, 2.052], abs=2e-3)
    retx = ev[ev.event == "retx"]
    assert list(retx.seg) == [795] and retx.t.iloc[0] == pytest.approx(64.875505, abs=1e-5)
    assert retx.cwnd.iloc[0] == pytest.approx(2.052, abs=2e-3) and retx.ssthresh.iloc[0] == 2
    assert list(ev[ev.event == "send"].seg) == [799]


def test_ns3s_rule_ignores_it():
    ev = _flow7(TRACES.events("ns3", "ignored"))
    acks = ev[ev.event == "ack"]
    assert list(acks.cwnd[:3]) == pytest.approx([3.513] * 3, abs=2e-3)
    late = ev[(ev.event == "send") & (ev.t > 25.39)]
    assert list(late.seg) == [267, 268, 269]


def test_the_runs_send_the_same_packets_for_70_s():
    ev2, ev3 = TRACES.events("ns2"), TRACES.events("ns3")
    parted = partings(ev2, ev3, FLOWS, tol=1e-5)
    assert parted == [float("inf")] * len(FLOWS), parted
