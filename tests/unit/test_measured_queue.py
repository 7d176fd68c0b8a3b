"""RED/ARED ``measured_queue``: ns-2.35's waiting packets ("waiting", the default) or ns-3's
disc ("disc"). Validation, hashes and both engines' mappings; the mechanism itself on both
engines is tests/differential/test_red_waiting.py."""

from __future__ import annotations

import pytest

from aqmlab.engines.ns2 import check, mapping
from aqmlab.errors import ScenarioError
from aqmlab.scenario import Ared, Dumbbell, Red, Scenario
from tests.unit.red_scenarios import dumbbell

WRAPPED = "aqmlab::Ns2EcnRedQueueDisc"



@pytest.mark.parametrize("cls", [Red, Ared])
def test_default_is_ns2s_waiting_and_bad_values_name_the_field(cls):
    assert cls().measured_queue == "waiting"
    with pytest.raises(ScenarioError, match="waiting, disc") as err:
        cls(measured_queue="device")
    assert err.value.field == "measured_queue"


@pytest.mark.parametrize("cls", [Red, Ared])
def test_both_values_are_serialised_and_hash_apart_from_runs_stored_before_the_field(cls):
    """Runs stored before the field measured the disc; the field is always serialised, so
    every RED/ARED scenario is run again: neither value may reuse a110369's hashes."""
    old = {Red: "6b168b111202a754", Ared: "6ff95a958fbb342d"}[cls]
    waiting, disc = (Scenario(topology=Dumbbell(forward_queue=cls(measured_queue=v, forced_region="drop")))
                     for v in ("waiting", "disc"))
    assert len({old, waiting.hash, disc.hash}) == 3
    assert waiting.to_dict()["topology"]["forward_queue"]["measured_queue"] == "waiting"
    for back in (Scenario.from_json(disc.to_json()), Scenario.from_toml(disc.to_toml())):
        assert back == disc and back.hash == disc.hash


def test_ns3_waiting_keeps_ns2s_thresholds_and_disc_lowers_them_one_packet():
    """"waiting" compares ns-2's thresholds with ns-2's measure (disc + device queue), so they
    go to the child unchanged; "disc" lowers them by the device's packet. The disc holds
    limit - 1 packets either way (the other waits in the device queue)."""
    q = {"limit": "8p", "min_th": 2.5, "max_th": 7.5, "max_p": 0.1, "ecn": True}
    waiting, disc = (Red(**q, measured_queue=v, forced_region="drop").ns3(1.5e6, 0.02) for v in ("waiting", "disc"))
    w, d = dict(waiting.attributes), dict(disc.attributes)
    assert (float(w["MinTh"]), float(w["MaxTh"])) == (2.5, 7.5)
    assert (float(d["MinTh"]), float(d["MaxTh"])) == (1.5, 6.5)
    assert w["MaxSize"] == d["MaxSize"] == "7p"
    assert (w["Measure"], d["Measure"]) == ("waiting", "disc")
    assert waiting.type_id == disc.type_id == WRAPPED
    a = dict(Ared(limit="370p", target_delay="5ms", mean_pkt_size=1250).ns3(10e6, 0).attributes)
    assert (float(a["MinTh"]), float(a["MaxTh"])) == (5, 15)  # 5 ms at 1000 pkts/s


@pytest.mark.parametrize("cls", [Red, Ared])
def test_stock_red_only_with_every_ns3_rule(cls):
    stock = cls(measured_queue="disc", count_after_forced_drop="keep",
                forced_region="drop").ns3(10e6, 0.02)
    assert stock.type_id == "ns3::RedQueueDisc"
    assert "Measure" not in dict(stock.attributes)
    assert cls(count_after_forced_drop="keep").ns3(10e6, 0.02).type_id == WRAPPED


@pytest.mark.parametrize("cls", [Red, Ared])
def test_ns2_runs_waiting_and_refuses_disc(cls):
    check(dumbbell(cls()))
    assert "measured_queue" not in dict(mapping.queue_config(cls(), 1e7).settings)
    with pytest.raises(ScenarioError, match="waiting for the link") as err:
        check(dumbbell(cls(measured_queue="disc", forced_region="drop")))
    assert err.value.field == "topology.forward_queue.measured_queue"
