"""An ECN-Echo on the ACK that ends the fast recovery of a loss found after an ECN cut is
answered, halving the window the duplicate ACKs inflated (``tcp.ecn_response =
"past_recover"``, with ``ecn_window = "half_window"``), packet by packet.

Pentikousis' ten aggressive RED+ECN downloads (limit 32, 2 MiB), seed 3, flow 5. An echo
at 84.848314 s cuts cwnd 8.139 -> 4.070, ssthresh 4 (ns-2.35 ecn(): recover_ = maxseq_,
segment 1285 the highest sent). Segment 1285 is lost; the third duplicate ACK (85.338874 s)
fast-retransmits it without a second cut (dupack_action() after an ECN cut: retransmit,
dupwnd_ = 3, return before reno_action's `recover_ = maxseq_`), and the inflated window
sends 1289-1291. The ACK of 1285-1288 at 85.588048 s echoes: its seqno is past recover_, so
ns-2.35 answers it, and as ecn() runs before recv() clears dupwnd_, slowdown() halves
windowd() = cwnd_ + dupwnd_: cwnd (4.070 + 3) / 2 = 3.535, ssthresh 3, nothing sent (3
outstanding); 1292 and 1293 leave at the next ACK (85.603621 s), the first with CWR.
aqmlab 0.7.5 took the recovery point from the fast retransmit (1291), hid that echo, kept
4.070 and sent 1292 at 85.588 s (then cut to 2.034 at 85.604 s): the runs parted there,
the only parting of seeds 1-5 once ``last_segment`` and ``transfer_close`` were modelled.
"""

from __future__ import annotations

import pandas as pd
import pytest

from tests.differential.packets import EngineTraces, data_counts, partings
from tests.differential.scenarios import MARKS, aggressive_ecn_clients

pytestmark = MARKS

FLOWS = list(range(10))


def _scenario(engine: str, response: str = "auto"):
    return aggressive_ecn_clients("120s", engine, **{"run.seed": 3,
                                                      "tcp.ecn_response": response})


TRACES = EngineTraces(_scenario, FLOWS)


def _flow5(ev: pd.DataFrame) -> pd.DataFrame:
    return ev[(ev.flow == 5) & (ev.t > 84.8) & (ev.t < 85.65)].reset_index(drop=True)


def test_ns2s_acks_echo_from_the_third_dupack_on():
    raw = TRACES.raw()
    acks = raw[(raw.fid == 5) & (raw.op == "r") & (raw.ptype == "ack") & (raw.t > 85.3) &
               (raw.t < 85.65)]
    assert list(acks.seq) == [1285, 1289, 1291]
    assert [f[0] for f in acks["flags"]] == ["C", "C", "C"]  # ECN-Echo
    data = raw[(raw.fid == 5) & (raw.op == "+") & (raw.ptype == "tcp") & (raw.t > 85.6) &
               (raw.t < 85.65)]
    assert list(data.seq) == [1293, 1294]  # numbered from 1: segments 1292, 1293
    assert [f[3] for f in data["flags"]] == ["A", "-"]  # CWR on the first


@pytest.mark.parametrize("engine", ["ns2", "ns3"])
def test_the_echo_ending_the_recovery_halves_the_inflated_window(engine):
    ev = _flow5(TRACES.events(engine))
    cut = ev[(ev.event == "ack") & (ev.seg == 1280)]
    assert cut.t.iloc[0] == pytest.approx(84.848314, abs=1e-5)
    assert cut.cwnd.iloc[0] == pytest.approx(4.070, abs=2e-3) and cut.ssthresh.iloc[0] == 4
    retx = ev[ev.event == "retx"]
    assert list(retx.seg) == [1285] and retx.t.iloc[0] == pytest.approx(85.338874, abs=1e-5)
    assert retx.cwnd.iloc[0] == pytest.approx(4.070, abs=2e-3)  # no second cut
    end = ev[(ev.event == "ack") & (ev.seg == 1289)]
    assert end.t.iloc[0] == pytest.approx(85.588048, abs=1e-5)
    assert end.cwnd.iloc[0] == pytest.approx((4.070 + 3) / 2, abs=2e-3)
    assert end.ssthresh.iloc[0] == 3
    sends = ev[(ev.event == "send") & (ev.t > 85.3)]
    assert list(sends.seg) == [1289, 1290, 1291, 1292, 1293]
    assert list(sends.t.round(6)) == [85.338874] * 3 + [85.603621] * 2


def test_ns3s_rule_cuts_the_flight():
    ev = _flow5(TRACES.events("ns3", "outside_cwr"))
    end = ev[(ev.event == "ack") & (ev.seg == 1289)]
    assert end.cwnd.iloc[0] == end.ssthresh.iloc[0]  # ns-3's EnterCwr: cwnd = ssthresh
    assert end.cwnd.iloc[0] != pytest.approx(3.535, abs=2e-3)


def test_the_runs_send_the_same_packets_to_the_end():
    ev2, ev3 = TRACES.events("ns2"), TRACES.events("ns3")
    parted = partings(ev2, ev3, FLOWS, tol=1e-5)
    assert parted == [float("inf")] * len(FLOWS), parted
    assert data_counts(ev2, FLOWS) == data_counts(ev3, FLOWS)
