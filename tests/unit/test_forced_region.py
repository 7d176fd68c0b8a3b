"""RED/ARED ``forced_region``: ns-2.35's "early_test" (no forced drops, the default) or
"drop" (ns-3, the papers' ns-2). Validation, hashes and both engines' mappings; the
mechanism itself on both engines is tests/differential/test_forced_region.py."""

from __future__ import annotations

import pytest

from aqmlab.engines.ns2 import check, mapping
from aqmlab.errors import ScenarioError
from aqmlab.scenario import Ared, Dumbbell, Red, Scenario, Tcp
from tests.unit.red_scenarios import dumbbell


@pytest.mark.parametrize("cls", [Red, Ared])
def test_default_is_ns235s_early_test_and_bad_values_name_the_field(cls):
    assert cls().forced_region == "early_test"
    with pytest.raises(ScenarioError, match="early_test, drop") as err:
        cls(forced_region="forced")
    assert err.value.field == "forced_region"


@pytest.mark.parametrize("cls", [Red, Ared])
def test_ns3s_own_red_needs_the_forced_region(cls):
    """measured_queue "disc" runs ns-3's RedQueueDisc, which always has a forced region."""
    with pytest.raises(ScenarioError, match="forced_region = \"drop\"") as err:
        cls(measured_queue="disc")
    assert err.value.field == "forced_region"
    cls(measured_queue="disc", forced_region="drop")


@pytest.mark.parametrize("cls", [Red, Ared])
def test_both_values_are_serialised_and_hash_apart_from_runs_stored_before_the_field(cls):
    """Runs stored before the field (0.8.11) had a forced region on ns-3: the field is always
    serialised, so every RED/ARED scenario is run again."""
    old = {Red: "95a8455e17ce7bd3", Ared: "894a64371dd786d7"}[cls]  # 0.8.11, test_ecn_rule.py
    early, drop = (Scenario(topology=Dumbbell(forward_queue=cls(forced_region=v)))
                   for v in ("early_test", "drop"))
    assert len({old, early.hash, drop.hash}) == 3
    assert early.to_dict()["topology"]["forward_queue"]["forced_region"] == "early_test"
    for back in (Scenario.from_json(drop.to_json()), Scenario.from_toml(drop.to_toml())):
        assert back == drop and back.hash == drop.hash


@pytest.mark.parametrize("cls", [Red, Ared])
def test_ns3_turns_the_forced_region_off_only_for_early_test(cls):
    early = dict(cls().ns3(10e6, 0.02).attributes)
    drop = dict(cls(forced_region="drop").ns3(10e6, 0.02).attributes)
    assert early.pop("ForcedRegion") == "false" and "ForcedRegion" not in drop
    assert early == drop


@pytest.mark.parametrize("cls", [Red, Ared])
def test_ns2_maps_the_region_to_use_mark_p(cls):
    """Without ECN "early_test" is use_mark_p_ 1 and "drop" 0; with the "mark" ECN rule
    "early_test" marks while p < 1 (mark_p_ 1.0) and "drop" is use_mark_p_ 0."""
    def settings(q):
        return dict(mapping.queue_config(q, 1e7).settings)
    assert settings(cls())["use_mark_p_"] == "1"
    assert settings(cls(forced_region="drop"))["use_mark_p_"] == "0"
    mark = settings(cls(ecn=True, ecn_above_max_th="mark"))
    assert (mark["setbit_"], mark["use_mark_p_"], mark["mark_p_"]) == ("1", "1", "1.0")
    mark_drop = settings(cls(ecn=True, ecn_above_max_th="mark", forced_region="drop"))
    assert mark_drop["use_mark_p_"] == "0" and "mark_p_" not in mark_drop


def test_ns2_refuses_a_forced_region_with_its_mark_p_ecn_rules():
    ecn = Tcp(ecn=True)
    check(dumbbell(Red(forced_region="drop")))
    check(dumbbell(Red(ecn=True, ecn_above_max_th="mark", forced_region="drop"), tcp=ecn))
    for q in (Red(ecn=True, forced_region="drop"),
              Ared(ecn=True, ecn_above_max_th="mark_p", forced_region="drop")):
        with pytest.raises(ScenarioError, match="no forced region") as err:
            check(dumbbell(q, tcp=ecn))
        assert err.value.field == "topology.forward_queue.forced_region"
