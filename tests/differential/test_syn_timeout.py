"""A lost SYN leaves ssthresh at 2 segments (``tcp.syn_timeout_ssthresh = "halve"``).

ns-2.35's one-way agents send their SYN-like packet 0 under the data retransmission timer,
and its timeout is handled as any: TcpAgent::timeout() (tcp/tcp.cc) calls
slowdown(CLOSE_SSTHRESH_HALF | CLOSE_CWND_RESTART), ssthresh max(2, window / 2), so a
flow whose SYN was lost starts in congestion avoidance. ns-3 retries the SYN from its own
timer and leaves ssthresh at its initial value: the flow starts in slow start. Qiu's T1,
300 flows starting within a second (seed 1): 42 flows lost their SYN; flow 148 retried at
3.797 s, sent its first data at 4.906 s and at 7.158 s segment 3 alone on ns-2.35 (cwnd
2.5), 3 and 4 on ns-3, where the runs parted; with "halve" they send the same packets for
40 s. Here one Qiu flow whose SYN is the bottleneck's first (dropped) packet.
"""

from __future__ import annotations

import functools

from aqmlab.engines.flow_trace import flow_trace
from aqmlab.scenario import DropTail
from tests.differential.packets import data_packets, parting_index
from tests.differential.scenarios import MARKS, qiu_flows

pytestmark = MARKS
TOL = 1.5e-6


@functools.cache
def _packets(engine: str, rule: str = "auto"):
    sc = qiu_flows(1, 6.0, engine, **{
        "tcp.syn_timeout_ssthresh": rule,
        "topology.forward_queue": DropTail(limit="400p", drop_packets=(1,),
                                           drop_count="all")})
    ev = flow_trace(sc, [0])[1]
    return ev, data_packets(ev, 0)


def _rounds(d) -> list[int]:
    """Segments sent in each of the first five round trips (0.104 s) from the first."""
    k = ((d.t - d.t[0] + 0.02) // 0.104).astype(int)
    return [int((k == i).sum()) for i in range(5)]


def test_a_lost_syn_starts_the_flow_in_congestion_avoidance():
    ev2, d2 = _packets("ns2")
    ev3, d3 = _packets("ns3")
    assert d2.t[0] > 3.0  # the SYN retried at the initial RTO, 3 s
    assert parting_index(d2, d3, tol=TOL) == min(len(d2), len(d3)) and len(d2) == len(d3)
    ss = ev3[(ev3.event == "send") & (ev3.seg >= 0)].ssthresh.iloc[0]
    assert ss == ev2[(ev2.event == "send") & (ev2.seg >= 0)].ssthresh.iloc[0] == 2
    assert _rounds(d2) == [1, 2, 2, 3, 4]  # congestion avoidance from cwnd 2


def test_ns3s_rule_keeps_slow_start():
    _, d2 = _packets("ns2")
    _, d3 = _packets("ns3", "keep")
    assert abs(d3.t[0] - d2.t[0]) < TOL
    assert _rounds(d3) == [1, 2, 4, 8, 16]  # slow start
    i = parting_index(d2, d3, tol=TOL)
    assert i == 4 and d2.seg[i] == d3.seg[i] == 4  # 3.6436 s on ns-2.35, 3.6410 on ns-3


def test_a_resent_syn_is_no_data_packet_on_either_engine():
    """ns-2 counts packet 0 and its resend in ``ndatapack_`` and ``nrexmitpack_``; the
    tables count data segments only: the same data packets sent, retransmissions and
    timeouts on both engines (ns-2.35's raw counters are one higher for the resend).
    Neither counts the SYN's timeout among the flow's timeouts here: the flow had no
    data out."""
    from aqmlab import engines

    sc = qiu_flows(1, 6.0, "ns3", **{
        "topology.forward_queue": DropTail(limit="400p", drop_packets=(1,),
                                           drop_count="all")})
    a = engines.simulate(sc).flows.iloc[0]
    b = engines.simulate(sc.replace(**{"run.engine": "ns2"})).flows.iloc[0]
    assert a.timeouts == b.timeouts
    assert a.retransmitted_packets == b.retransmitted_packets == 0
    assert a.data_packets_sent == b.data_packets_sent > 0
