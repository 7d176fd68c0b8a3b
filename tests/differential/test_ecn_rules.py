"""ECN as ns-2 runs it, on both engines: retransmitted data stay ECN-capable
(``tcp.ect_retransmissions``), and ARED marks by ns-2.35's own rule
(``ecn_above_max_th = "mark_p"``: mark only while the early-drop probability is below
``mark_p``, 0.1)."""

from __future__ import annotations

import pytest

from aqmlab import engines
from aqmlab.engines import ns2
from aqmlab.scenario import Ared, Bulk, DropTail, Dumbbell, Link, RunControl, Scenario, Tcp
from tests.differential.planned import run, scenario

pytestmark = [pytest.mark.ns3, pytest.mark.ns2,
              pytest.mark.skipif(not ns2.available(), reason="ns-2 (`ns`) is not installed")]


def _lost_twice(engine: str, tcp: dict) -> dict[str, float]:
    """A 20-segment ECN response whose second segment (the 3rd packet the server sends,
    after the SYN/ACK and the first segment) is lost, and so is its retransmission (the
    6th, after segments 3 and 4: two dupacks, then the RTO)."""
    sc = scenario({"ecn": True, **tcp}).replace(**{"topology.forward_queue": DropTail(
        limit="100p", drop_packets=(3, 6), drop_count="all")})
    df, raw = run(sc, engine, [300], [20 * 1420 - 100])
    assert df.completed.all()
    return {k: float(raw.queues[k][0]) for k in ("drops", "ect_drops")}


def test_retransmissions_are_ecn_capable_as_in_ns2():
    """Both dropped packets were ECN-capable on ns-2.35 and on ns-3 with
    ``ect_retransmissions`` (the default); with RFC 3168's rule (ns-3 only) the
    retransmission was not."""
    for engine in ("ns3", "ns2"):
        assert _lost_twice(engine, {}) == {"drops": 2, "ect_drops": 2}, engine
    assert _lost_twice("ns3", {"ect_retransmissions": False}) == {"drops": 2, "ect_drops": 1}


def _ared(engine: str, rule: str):
    """30 SACK + ECN bulk flows through ARED (5 ms target) at 10 Mb/s for 15 s: ARED's
    max_p adapts above 0.1."""
    sc = Scenario(
        name="ared-ecn-rule",
        topology=Dumbbell(senders=30, bottleneck=Link(rate="10Mbps", delay="10ms"),
                          access=Link(rate="100Mbps", delay="1ms"),
                          forward_queue=Ared(limit="100p", ecn=True, ecn_above_max_th=rule)),
        tcp=Tcp(variant="sack", ecn=True), traffic=[Bulk(flows=30, start_spread="1s")],
        run=RunControl(duration="15s", warmup="5s", sample_interval=None))
    return engines.simulate(sc.replace(**{"run.engine": engine})).queues.iloc[0]


def test_ns235s_mark_p_rule_drops_what_the_mark_rule_marks_on_both_engines():
    """With ns-3's "mark" rule no ECN-capable packet is dropped early; with "mark_p", once
    ARED's max_p passes 0.1 most ECN-capable packets it picks are dropped instead of
    marked: early ECT drops outnumber marks on both engines (ns-2.35, 30 ECN flows, 25 s:
    6 marks, 2642 early drops; "mark": 3628 marks, 0 drops)."""
    for engine in ("ns3", "ns2"):
        mark, mark_p = _ared(engine, "mark"), _ared(engine, "mark_p")
        assert mark.ect_unforced_drops == 0 and mark.marks > 500, engine
        assert mark_p.ect_unforced_drops > 5 * mark_p.marks, engine
        assert mark_p.ect_unforced_drops > 300, engine
