"""CWR on the first segment after a window cut, a retransmission too (``tcp.cwr_flag =
"next_segment"``), packet by packet.

Pentikousis' five conservative RED+ECN downloads (limit 32, 2 MiB, seed 1), flow 4. An ECN
echo at 16.289 s (ACK 373) halves cwnd 6.516 -> 3.258 (ssthresh 3) with segments 374-376
in flight: the window is full, nothing new is sent. Segment 374 was lost; 375 and 376 give
two duplicate ACKs, and the timeout at 17.397 s resends 374 with cwnd 1, ssthresh kept at 3
(ns-2 timeout(): an ECN cut was the last action, slowdown(CLOSE_CWND_ONE)). ns-2.35 puts CWR
on that retransmission (slowdown() set cong_action_, output() sends it on the next packet,
SetCWRonRetransmit_ true), so its sink stops echoing and the ACK of 374-376 at 17.620644 s
carries no ECN-Echo: cwnd 2, ssthresh 3, and at 17.8075 s three segments at cwnd 3. ns-3
sets CWR only on new data: its receiver went on echoing, that ACK echoed again and ns-3
entered CWR from the loss state (ssthresh max(2, flight / 2) = 2), grew cwnd in congestion
avoidance (3.564 at 17.8075 s) and the runs parted at 18.24 s (with ecn_window's cut from
the loss state, ``cwr_flag = "new_data"`` now cuts cwnd to 1 there). With the ns-2 rule
they part after 51 s, after flow 3's transfer has ended (50.84 s).

ns-3's clock runs a few microseconds behind ns-2's here, so times are compared within
10 us.
"""

from __future__ import annotations

import pandas as pd
import pytest

from aqmlab.studies.setups import pentikousis
from tests.differential.packets import EngineTraces, partings
from tests.differential.scenarios import MARKS

pytestmark = MARKS

FLOWS = [0, 1, 2, 3, 4]


def _scenario(engine: str, cwr_flag: str = "auto"):
    sc = pentikousis.base("2MiB").replace(**dict(pentikousis.scheme_arm("cons-ecn", 32).changes))
    # ns-3's CWR rule is shown with the cwnd floor of its time (ecn_cwnd_floor): without
    # it the second cut leaves cwnd 0.5 and the sender waits for its timer
    floor = "one_segment" if cwr_flag == "new_data" else "auto"
    return sc.replace(**{"run.engine": engine, "tcp.cwr_flag": cwr_flag,
                         "tcp.ecn_cwnd_floor": floor})


TRACES = EngineTraces(_scenario, FLOWS)


def _flow4(ev: pd.DataFrame, t0: float, t1: float) -> pd.DataFrame:
    return ev[(ev.flow == 4) & (ev.t > t0) & (ev.t < t1)].reset_index(drop=True)


@pytest.mark.parametrize("engine", ["ns2", "ns3"])
def test_an_echo_then_a_timeout_in_the_same_window(engine):
    ev = _flow4(TRACES.events(engine), 16.28, 17.40)
    acks = ev[ev.event == "ack"]
    assert list(acks.seg) == [373, 374, 374, 374]           # the echo, a new ACK, 2 dupacks
    assert acks.cwnd.iloc[0] == pytest.approx(6.516 / 2, abs=2e-3)
    assert (acks.ssthresh == 3).all()
    assert ev[ev.event == "send"].empty                     # the cut window was full
    retx = ev[ev.event == "retx"]
    assert list(retx.seg) == [374] and retx.t.iloc[0] == pytest.approx(17.39691, abs=1e-5)


def test_ns2_puts_cwr_on_the_retransmission_and_its_sink_stops_echoing():
    raw = TRACES.raw()
    mine = raw[raw.fid == 4]
    sent = mine[(mine.op == "+") & (mine.ptype == "tcp") & (mine.seq == 375)]  # segment 374
    assert list(sent.t.round(5)) == [16.2256, 17.39691]
    assert [f[3] == "A" for f in sent["flags"]] == [False, True]   # CWR (cong_action) on the retx
    acks = mine[(mine.op == "r") & (mine.ptype == "ack") & (mine.t > 16.28) & (mine.t < 17.63)]
    assert list(acks.seq) == [373, 374, 374, 374, 377]
    assert [f[0] == "C" for f in acks["flags"]] == [True] * 4 + [False]  # ECN-Echo until the CWR


@pytest.mark.parametrize("engine", ["ns2", "ns3"])
def test_the_ack_of_the_retransmission_leaves_ssthresh_3(engine):
    ev = _flow4(TRACES.events(engine), 17.6, 17.81)
    ack = ev[ev.event == "ack"]
    assert list(ack.seg) == [377, 379]
    assert ack.t.iloc[0] == pytest.approx(17.620644, abs=1e-5)
    assert list(ack.ssthresh) == [3, 3]
    assert list(ack.cwnd) == pytest.approx([2, 3], abs=1e-3)   # slow start up to ssthresh
    assert list(ev[ev.event == "send"].seg) == [377, 378, 379, 380, 381]


def test_ns3s_rule_echoes_again_and_cuts_once_more():
    """Without CWR on the retransmission the ACK of 374-376 echoes ECN again: a second
    cut after the timeout (the first echo after a timeout, ecn_window's cut from the loss
    state): cwnd 1, ssthresh 2, and one segment out where ns-2 sends two."""
    ev = _flow4(TRACES.events("ns3", "new_data"), 17.6, 17.9)
    ack = ev[ev.event == "ack"]
    assert ack.t.iloc[0] == pytest.approx(17.620644, abs=1e-5)
    assert list(ack.seg) == [377, 378]
    assert list(ack.ssthresh) == [2, 2]
    assert list(ack.cwnd) == pytest.approx([1, 2], abs=1e-3)
    assert list(ev[ev.event == "send"].seg) == [377, 378, 379]


def test_the_runs_now_part_after_51_s():
    ev2, ev3 = TRACES.events("ns2"), TRACES.events("ns3")
    parted = partings(ev2, ev3, FLOWS, tol=1e-5)
    assert min(parted) > 51.0, parted
