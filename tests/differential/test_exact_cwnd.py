"""ns-2's cwnd_ is a real number of segments; the sender uses int(cwnd_) of them.

ns-2.35's one-way agents keep ``cwnd_`` as a double (opencwnd adds exactly 1/cwnd_ per new
ACK, a Reno fast retransmit halves it exactly) and ``window()`` sends int(cwnd_) segments.
ns-3's m_cWnd is whole bytes. aqmlab's TcpNs2NewReno kept the fraction of a byte between
increases, but took each increase as mss^2 over the whole bytes and lost the fraction at
the Reno halving and on leaving recovery; the window then grew up to 1/mss per ACK faster
than ns-2's.

Pentikousis' five Reno downloads (20 MiB each) through drop-tail at limit 32: the engines
sent the very packets for 212 s. At 212.038 s flow 4's ACK of segment 5975 took ns-2.35's
cwnd_ to 9.99982 (printed 10.000), int 9: segments 5983 and 5984 left; ns-3's cwnd was
exactly 10 segments (14600 B) and segment 5985 left too, 23 ms early. From there the runs
differed: 946 drops on ns-3, 968 on ns-2.35. With the increase taken over the exact window
(bytes and fraction) and the exact halves kept, cwnd is 14599 B (9.999 segments) at that
ACK, and every data packet of every flow leaves as on ns-2.35 until the first download
ends (550 s; ns-2.35's last packet is a whole one, ns-3's was 592 bytes), with the same
drops, retransmissions and timeouts; with ``last_segment`` and ``transfer_close`` (a whole
last segment, no FIN) to the last download's end (561 s), each completing at the same
instant.
"""

from __future__ import annotations

import functools

import pytest

from aqmlab.engines.flow_trace import flow_trace
from aqmlab.studies.setups import pentikousis
from tests.differential.packets import data_packets, parting_index
from tests.differential.scenarios import MARKS

pytestmark = MARKS
FLOWS = [0, 1, 2, 3, 4]


@functools.cache
def _run(engine: str, ql: int, size: str):
    sc = pentikousis.base(size).replace(**dict(pentikousis.scheme_arm("dt", ql).changes))
    return flow_trace(sc.replace(**{"run.engine": engine}), FLOWS)




def test_window_just_under_ten_segments_sends_two():
    _, ev2 = _run("ns2", 32, "20MiB")
    _, ev3 = _run("ns3", 32, "20MiB")
    sent = []
    for ev in (ev2, ev3):
        f = ev[(ev.flow == 4) & (ev.t > 212.03) & (ev.t < 212.045)]
        ack = f[f.event == "ack"]
        assert ack.seg.tolist() == [5976]
        sent.append(f[f.event == "send"].seg.tolist())
    assert sent[0] == sent[1] == [5983, 5984]
    cwnd3 = float(ev3[(ev3.flow == 4) & (ev3.event == "ack") & (ev3.seg == 5976)].cwnd.iloc[0])
    assert 9.99 < cwnd3 < 10  # 14599 B: int() is 9, as ns-2.35's 9.99982


def test_drop_tail_32_sends_what_ns235_sends_to_the_end():
    res2, ev2 = _run("ns2", 32, "20MiB")
    res3, ev3 = _run("ns3", 32, "20MiB")
    first_done = float(res2.flows.completion_time_s.min())
    assert 545 < first_done < 555, first_done
    for f in FLOWS:
        a, b = data_packets(ev2, f), data_packets(ev3, f)
        assert len(a) == len(b) > 14000, f
        assert parting_index(a, b) == len(a), f
    assert list(res3.flows.completion_time_s) == pytest.approx(
        list(res2.flows.completion_time_s), abs=1e-6)
    for res in (res2, res3):
        assert int(res.queues.iloc[0].drops) == 968
        assert int(res.flows.timeouts.sum()) == 265
        assert int(res.flows.retransmitted_packets.sum()) == 1048
