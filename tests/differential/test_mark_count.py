"""A packet RED marks and the full queue then drops counts as a mark (and a drop) on both
engines.

ns-2.35's ``REDQueue::enque`` (red.cc) sets CE in ``drop_early()`` and only then finds
``qlen >= qlim``: the marked packet is enqueued and dropped as a forced drop, and the drop
trace shows it with CE. ns-3's RED wrapper fires the queue disc's Mark trace before its
overflow drop. aqmlab counted ns-3's marks at that trace and ns-2's at the first dequeue
with CE, so such packets were ns-3 marks only: Pentikousis' ten aggressive RED+ECN
2-MiB downloads (limit 32, seed 1), identical packet for packet, had 626 marks on ns-3 and
623 on ns-2.35. Now ns-2's marks are the first CE sighting at a probed queue's departures
or drops. Pentikousis' five 20-MiB downloads at limit 16, seed 1, flow 0: segments 5638
and 5721 were marked and dropped at 212.163824 s and 219.116093 s on both engines.
"""

from __future__ import annotations

from aqmlab import engines
from aqmlab.engines.flow_trace import flow_trace
from aqmlab.engines.ns2 import parse
from tests.differential.scenarios import MARKS

pytestmark = MARKS


def _scenario(engine: str):
    from aqmlab.studies.setups import pentikousis

    sc = pentikousis.base("20MiB").replace(**dict(pentikousis.scheme_arm("aggr-ecn", 16).changes))
    return sc.replace(**{"run.engine": engine, "run.seed": 1, "run.duration": "220s"})


def test_marked_then_dropped_packets_count_as_marks_on_both_engines(tmp_path):
    res2, _ = flow_trace(_scenario("ns2"), [0], workdir=tmp_path)
    drops = parse.read_trace(tmp_path / "drops.tr")
    ce = drops[(drops["flags"].str[4] == "E") & (drops.fid == 0) & (drops.ptype == "tcp")]
    assert list(ce.seqno - 1) == [5638, 5721]  # ns-2 numbers data from 1
    assert list(ce.time.round(6)) == [212.163824, 219.116093]
    res3 = engines.simulate(_scenario("ns3"))
    q2, q3 = res2.queues.iloc[0], res3.queues.iloc[0]
    assert int(q2.drops) == int(q3.drops) and int(q2.marks) == int(q3.marks)
    assert list(res2.flows.marks) == list(res3.flows.marks)
    assert int(res2.flows.marks.sum()) == int(q2.marks)
