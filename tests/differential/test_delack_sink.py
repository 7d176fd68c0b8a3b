"""The delayed-ACK receiver (``tcp.delack_sink``), traced on both engines.

ns-2.35's one-way ``Agent/TCPSink/DelAck`` (tcp-sink.cc ``DelAckSink::recv``) holds the
ACK of an arrival when no ACK is held, its seqno is the highest in-order one after the
update, nothing above it has been seen, and it is not the agent's header-only packet 0;
anything else is acknowledged at once and ends the hold. So it holds the first data
segment, and a duplicate of the last in-order segment (a go-back-N retransmission of a
segment that had arrived above a hole), after which the next segment is acknowledged at
once. ns-3.44 acknowledges the first data segment after the handshake at once, answers
that duplicate with an immediate duplicate ACK and holds the next segment ("ns3").

Pentikousis' five Reno downloads (delayed ACKs, 100 ms) through the aggressive RED+ECN
queue at limit 32 (2 MiB each): every flow times out once at start-up (2.3-2.4 s), and
its go-back-N sends such duplicates. With "ns2" (the default) ns-3 sends what ns-2.35
sends, every data packet of every flow within 1 us (with ns-3's separate handshake ACKs,
``handshake_ack``, flows 3 and 4 lagged 0.7-0.9 ms), until RED's random marks part them
at 6.0-6.4 s; both have the 5 start-up
timeouts and 32 drops. With "ns3" each flow sends its second segment 0.1 s earlier, and,
shifted by that, the flows part from ns-2.35 at 2.84-3.05 s, after the go-back-N (flow 2's
receiver answers the duplicate of segment 35 at once and holds segment 36, where ns-2.35
holds the duplicate and acknowledges 36 at once): the run has a sixth timeout (flow 4 at
6.3 s), as in every seed of the 20-MiB study runs (36 against 30 over seeds 1-6).
"""

from __future__ import annotations

import functools

from aqmlab.engines.flow_trace import flow_trace
from aqmlab.studies.setups import pentikousis
from tests.differential.packets import data_packets, parting_time
from tests.differential.scenarios import MARKS

pytestmark = MARKS
FLOWS = [0, 1, 2, 3, 4]


@functools.cache
def _run(engine: str, sink: str):
    sc = pentikousis.base("2MiB").replace(**dict(pentikousis.scheme_arm("aggr-ecn", 32).changes))
    sc = sc.replace(**{"run.engine": engine, "tcp.delack_sink": sink} if engine == "ns3"
                    else {"run.engine": engine})
    res, ev = flow_trace(sc, FLOWS)
    return res, ev




def test_ns2_sink_sends_what_ns235_sends_until_red_marks_at_random():
    res2, ev2 = _run("ns2", "auto")
    res3, ev3 = _run("ns3", "ns2")
    for f in FLOWS:
        assert parting_time(data_packets(ev2, f), data_packets(ev3, f), skip=1) > 5.5, f
    assert int(res2.flows.timeouts.sum()) == int(res3.flows.timeouts.sum()) == 5
    assert int(res2.queues.iloc[0].drops) == int(res3.queues.iloc[0].drops)


def test_ns3s_receiver_acks_the_first_segment_and_the_duplicate_at_once():
    _, ev2 = _run("ns2", "auto")
    res3, ev3 = _run("ns3", "ns3")
    firsts = []
    for f in FLOWS:
        a, b = data_packets(ev2, f), data_packets(ev3, f)
        gap = float(a.t[1] - b.t[1])  # segment 1 waits for the first ACK
        assert 0.09 < gap < 0.11, (f, gap)
        firsts.append(parting_time(a, b, shift=gap, tol=2e-3, skip=1))
    assert 2.5 < min(firsts) < 3.2, firsts  # after the start-up timeouts' go-back-N
    assert int(res3.flows.timeouts.sum()) == 6
