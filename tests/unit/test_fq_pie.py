"""FQ-PIE, added as one module (aqmlab/kinds/queues/fq_pie.py): the scenario model, the
ns-3 mapping, the cost model and the explorer all find it through the queue registry."""

from __future__ import annotations

import pytest

import aqmlab
from aqmlab.campaign.cost import estimate_cost
from aqmlab.errors import ScenarioError
from aqmlab.kinds.queues.fq_pie import FqPie
from aqmlab.scenario import QUEUES, Scenario
from aqmlab.widgets import Explorer
from aqmlab.widgets.model import Settings, build_scenario, check


def test_fq_pie_is_a_registered_kind_with_its_validation():
    assert QUEUES["fq_pie"] is FqPie and aqmlab.FqPie is FqPie
    sc = Scenario(topology={"forward_queue": {"kind": "fq_pie", "target": "20ms"}})
    assert sc.topology.forward_queue == FqPie(target="20ms")
    assert Scenario.from_toml(sc.to_toml()).key == sc.key
    with pytest.raises(ScenarioError, match=r"topology\.forward_queue\.mark_ecn_threshold"):
        Scenario(topology={"forward_queue": {"kind": "fq_pie", "mark_ecn_threshold": 2}})
    with pytest.raises(ScenarioError, match=r"topology\.forward_queue\.flows"):
        Scenario(topology={"forward_queue": {"kind": "fq_pie", "flows": 0}})


def test_fq_pie_maps_onto_ns3s_fq_pie_queue_disc():
    q = FqPie(limit="500p", target="10ms", flows=64, ecn=False)
    cfg = q.ns3(10e6, 0.02)
    a = dict(cfg.attributes)
    assert cfg.type_id == "ns3::FqPieQueueDisc"
    assert a["MaxSize"] == "498p"  # ns-2 accounting: device queue and transmission
    assert a["QueueDelayReference"] == "10000000ns" and a["Flows"] == "64"
    assert a["UseEcn"] == "false"


def test_fq_pie_costs_as_declared():
    base = Scenario(traffic=[{"kind": "packmime", "rate": 100.0}])
    fq = base.replace(**{"topology.forward_queue": {"kind": "fq_pie"}})
    assert estimate_cost(fq) - 1 == pytest.approx(FqPie.COST * (estimate_cost(base) - 1))


def test_the_explorer_offers_fq_pie_and_routes_its_errors():
    ex = Explorer(store=None)
    assert "fq_pie" in dict((v, k) for k, v in ex.controls["queue"].options)
    ex.set(queue="fq_pie", target=25)
    assert ex.validation.ok
    assert ex.validation.scenario.topology.forward_queue.target == "25ms"
    assert ex.controls["fq_pie.target"].layout.display != "none"
    bad = Settings(queue="fq_pie", target=0)
    assert not check(bad).ok
    ex.set(target=0)
    assert ex.run_button.disabled and "FQ-PIE target" in ex.message.value
    assert build_scenario(Settings(queue="fq_pie")).topology.forward_queue.kind == "fq_pie"
