"""No answer to an ECN-Echo on the ACK that ends a Reno fast recovery (``tcp.ecn_response =
"past_recover"``), packet by packet.

Pentikousis' ten aggressive RED+ECN downloads (limit 32, 2 MiB, seed 1, first 60 s), flow 6.
The third duplicate ACK at 59.097796 s starts a fast retransmit of segment 670 (cwnd 5.206
-> 2.603, ssthresh 2; dupack_action() sets recover_ = maxseq_, segment 674). The ACK of
segments 670-674 at 59.331396 s ends the recovery and carries ECN-Echo. ns-2.35's ecn()
answers only `seqno > recover_` (or the first echo after a timeout), so it does nothing,
and recv_newack_helper() opens no window on an echoing ACK: cwnd stays 2.603 and segments
675 and 676 go out. ns-3 enters CWR at any new echoing ACK outside CWR, fast recovery
included, and cut cwnd to ssthresh = 2 (``ecn_response = "outside_cwr"``; with aqmlab
0.7.5's ``ecn_cwnd_floor`` the runs first parted here, at 60.38 s).
"""

from __future__ import annotations

import pandas as pd
import pytest

from tests.differential.packets import EngineTraces, partings
from tests.differential.scenarios import MARKS, aggressive_ecn_clients

pytestmark = MARKS

FLOWS = list(range(10))


def _scenario(engine: str, response: str = "auto"):
    return aggressive_ecn_clients("60s", engine, **{"tcp.ecn_response": response})


TRACES = EngineTraces(_scenario, FLOWS)


def _flow6(ev: pd.DataFrame) -> pd.DataFrame:
    return ev[(ev.flow == 6) & (ev.t > 59.0) & (ev.t < 59.34)].reset_index(drop=True)


def test_ns2s_ack_ending_the_recovery_echoes_ecn():
    raw = TRACES.raw()
    ack = raw[(raw.fid == 6) & (raw.op == "r") & (raw.ptype == "ack") &
              ((raw.t - 59.331396).abs() < 1e-5)]
    assert list(ack.seq) == [675]  # ns-2 numbers the data from 1 and ack["flags"].iloc[0][0] == "C"


@pytest.mark.parametrize("engine", ["ns2", "ns3"])
def test_the_echo_ending_a_fast_recovery_is_not_answered(engine):
    ev = _flow6(TRACES.events(engine))
    retx = ev[ev.event == "retx"]
    assert list(retx.seg) == [670] and retx.t.iloc[0] == pytest.approx(59.097796, abs=1e-5)
    acks = ev[ev.event == "ack"]
    end = acks[acks.seg == 675]
    assert end.t.iloc[0] == pytest.approx(59.331396, abs=1e-5)
    assert end.cwnd.iloc[0] == pytest.approx(2.603, abs=2e-3)     # kept, not opened
    assert end.ssthresh.iloc[0] == 2
    assert list(ev[ev.event == "send"].seg) == [675, 676]


def test_ns3s_rule_cuts_to_ssthresh():
    ev = _flow6(TRACES.events("ns3", "outside_cwr"))
    end = ev[(ev.event == "ack") & (ev.seg == 675)]
    assert end.cwnd.iloc[0] == pytest.approx(2.0)


def test_the_runs_send_the_same_packets_for_60_s():
    ev2, ev3 = TRACES.events("ns2"), TRACES.events("ns3")
    parted = partings(ev2, ev3, FLOWS, tol=1e-5)
    assert parted == [float("inf")] * len(FLOWS), parted
