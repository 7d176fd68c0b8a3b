"""A transfer ends without a FIN (``tcp.transfer_close = "none"``), packet by packet.

Pentikousis' ten aggressive RED+ECN downloads (limit 32, 2 MiB, seed 1), flow 2. Its last
segment, 1436, leaves at 89.310076 s and completes the download at the client at
89.499033 s. ns-2.35's one-way agents have no FIN: the DelAck sink holds that segment's
ACK for its 100 ms timer like any other (the ACK reaches the server at 89.620316 s) and
nothing follows it. ns-3's Sender closed the socket after its last Send, so the FIN rode
on segment 1436: the client acknowledged it at once (89.520316 s) and its own FIN, a
second 42-byte packet, followed on the reverse bottleneck (89.520534 s), which the server
acknowledged on the forward path (``transfer_close = "fin"``). That FIN delayed flow 5's
next ACK by one 42-byte packet's time on the 1.5 Mb/s link (0.217 ms): flow 5 sent
segments 1070 and 1071 at 89.746347 s instead of ns-2.35's 89.746130 s, where the runs
parted (with ``last_segment``). With both, the ten downloads send the same packets at the
same times on both engines to the last one's end (112.5 s) and complete at the same times.
"""

from __future__ import annotations

import tempfile

import pandas as pd
import pytest

from aqmlab.engines.flow_trace import flow_trace
from tests.differential.packets import EngineTraces, data_counts, partings
from tests.differential.scenarios import MARKS, aggressive_ecn_clients

pytestmark = MARKS

FLOWS = list(range(10))
DURATION = "120s"  # the last download completes at 112.5 s


def _scenario(engine: str, close: str = "auto"):
    return aggressive_ecn_clients(DURATION, engine, **{"tcp.transfer_close": close})


TRACES = EngineTraces(_scenario, FLOWS)


def _acks(ev: pd.DataFrame, flow: int, t0: float, t1: float) -> pd.DataFrame:
    return ev[(ev.flow == flow) & (ev.event == "ack") & (ev.t > t0) & (ev.t < t1)]


def test_ns2s_transfer_ends_with_its_last_segments_ack():
    raw = TRACES.raw()
    late = raw[(raw.fid == 2) & (raw.t > 89.4)]
    assert set(late.ptype) == {"ack"} and late.seq.max() == 1437  # data numbered from 1
    assert late[late.op == "r"].t.max() == pytest.approx(89.620316, abs=1e-5)


@pytest.mark.parametrize("engine", ["ns2", "ns3"])
def test_the_last_segments_ack_is_delayed_and_nothing_follows(engine):
    ev = TRACES.events(engine)
    last = ev[(ev.flow == 2) & (ev.event == "send")]
    assert last.seg.iloc[-1] == 1436 and last.t.iloc[-1] == pytest.approx(89.310076, abs=1e-5)
    acks = _acks(ev, 2, 89.4, 200)
    assert list(acks.t.round(6)) == [89.503516, 89.620316]  # the ACK of 1436 100 ms late
    assert acks.seg.iloc[-1] == pytest.approx(1437)
    flow5 = ev[(ev.flow == 5) & (ev.event == "send") & (ev.t > 89.7) & (ev.t < 89.75)]
    assert list(flow5.seg) == [1070, 1071]
    assert flow5.t.iloc[0] == pytest.approx(89.746130, abs=1e-6)


def test_ns3s_fin_is_acknowledged_at_once_and_answered():
    ev = TRACES.events("ns3", "fin")
    acks = _acks(ev, 2, 89.4, 200)
    # the data's and FIN's ACK, then the client's FIN (both ack 1436 segments + 1 byte)
    assert list(acks.t.round(6)) == [89.503516, 89.520316, 89.520534]
    assert 1437 < acks.seg.iloc[-1] <= 1437.001  # segments in the trace, to 3 decimals
    flow5 = ev[(ev.flow == 5) & (ev.event == "send") & (ev.t > 89.7) & (ev.t < 89.75)]
    assert list(flow5.seg) == [1070, 1071]
    assert flow5.t.iloc[0] == pytest.approx(89.746130 + 42 * 8 / (1.5e6 * 1.028767), abs=2e-6)


def test_the_runs_send_the_same_packets_to_the_end():
    ev2, ev3 = TRACES.events("ns2"), TRACES.events("ns3")
    parted = partings(ev2, ev3, FLOWS, tol=1e-5)
    assert parted == [float("inf")] * len(FLOWS), parted
    assert data_counts(ev2, FLOWS) == data_counts(ev3, FLOWS)


def test_the_downloads_complete_at_the_same_times():
    with tempfile.TemporaryDirectory(prefix="aqmlab-ns2res-") as tmp:
        ns2 = flow_trace(_scenario("ns2"), [2], workdir=tmp)[0].flows
    ns3 = TRACES.ns3()[0].flows
    assert ns2.completed.all() and ns3.completed.all()
    assert list(ns3.completion_time_s) == pytest.approx(list(ns2.completion_time_s), abs=1e-6)
    assert list(ns3.total_bytes_delivered) == list(ns2.total_bytes_delivered) == [2 ** 21] * 10
    assert list(ns3.data_packets_sent) == list(ns2.data_packets_sent)
