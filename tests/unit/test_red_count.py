"""RED/ARED ``count_after_forced_drop``: ns-2.35's reset of the count after a forced drop
("reset", the default) or ns-3's "keep". Validation, hashes and both engines' mappings;
the mechanism itself on both engines is tests/differential/test_red_count.py."""

from __future__ import annotations

import dataclasses

import pytest

from aqmlab.engines.ns2 import check, mapping
from aqmlab.errors import ScenarioError
from aqmlab.scenario import Ared, Dumbbell, Red, Scenario, Tcp
from tests.unit.red_scenarios import dumbbell

WRAPPED = "aqmlab::Ns2EcnRedQueueDisc"



@pytest.mark.parametrize("cls", [Red, Ared])
def test_default_is_ns2s_reset_and_bad_values_name_the_field(cls):
    assert cls().count_after_forced_drop == "reset"
    with pytest.raises(ScenarioError, match="reset, keep") as err:
        cls(count_after_forced_drop="ns3")
    assert err.value.field == "count_after_forced_drop"


@pytest.mark.parametrize("cls", [Red, Ared])
def test_both_values_are_serialised_and_hash_apart_from_runs_stored_before_the_field(cls):
    """Runs stored before the field ran ns-3's "keep" (and ns-2's "reset"); the field is
    always serialised, so every RED/ARED scenario is run again: neither value may reuse
    0.4.0's hashes (tests/unit/test_ecn_rule.py pins the new ones)."""
    old = {Red: "19edeabdbca0cca1", Ared: "29662836b153108d"}[cls]  # Dumbbell(forward_queue=cls())
    reset, keep = (Scenario(topology=Dumbbell(forward_queue=cls(count_after_forced_drop=v)))
                   for v in ("reset", "keep"))
    assert len({old, reset.hash, keep.hash}) == 3
    assert reset.to_dict()["topology"]["forward_queue"]["count_after_forced_drop"] == "reset"
    for back in (Scenario.from_json(keep.to_json()), Scenario.from_toml(keep.to_toml())):
        assert back == keep and back.hash == keep.hash


@pytest.mark.parametrize("cls", [Red, Ared])
def test_ns3_wraps_red_for_the_reset_and_leaves_keep_to_stock_red(cls):
    ns3_rules = {"measured_queue": "disc", "forced_region": "drop"}
    reset = cls(**ns3_rules).ns3(10e6, 0.02)
    keep = cls(count_after_forced_drop="keep", **ns3_rules).ns3(10e6, 0.02)
    assert reset.type_id == WRAPPED and keep.type_id == "ns3::RedQueueDisc"
    # without ECN the wrapper leaves marking to the child ("mark") and only resets
    assert reset.attributes[-4:] == (("Rule", "mark"), ("MarkP", "0.1"), ("CountReset", "true"),
                                     ("Measure", "disc"))
    assert reset.attributes[:-4] == keep.attributes
    # ns-2's measure ("waiting", the default) needs the wrapper with "keep" too
    keep_waiting = cls(count_after_forced_drop="keep").ns3(10e6, 0.02)
    assert keep_waiting.type_id == WRAPPED
    assert dict(keep_waiting.attributes)["CountReset"] == "false"
    ecn = cls(ecn=True, ecn_above_max_th="mark").ns3(10e6, 0.02)
    assert ecn.type_id == WRAPPED and dict(ecn.attributes)["Rule"] == "mark"
    assert dict(ecn.attributes)["CountReset"] == "true"


@pytest.mark.parametrize("cls", [Red, Ared])
def test_ns2_maps_the_count_rule_to_ns1_compat(cls):
    """"reset" is ns1_compat_ 0 (ns-2's default), "keep" ns1_compat_ 1, whatever the forced
    region (``use_mark_p_``, tests/unit/test_forced_region.py) and ECN rule."""
    for q in (cls(), cls(forced_region="drop"),
              cls(ecn=True, ecn_above_max_th="mark", forced_region="drop")):
        reset = dict(mapping.queue_config(q, 1e7).settings)
        keep = dict(mapping.queue_config(dataclasses.replace(q, count_after_forced_drop="keep"), 1e7).settings)
        assert (reset["ns1_compat_"], keep["ns1_compat_"]) == ("0", "1")
        assert {k: v for k, v in reset.items() if k != "ns1_compat_"} == \
            {k: v for k, v in keep.items() if k != "ns1_compat_"}


def test_ns2_runs_keep_with_every_ecn_rule():
    """With ns-2.35's use_mark_p_ 1 a forced region is not needed for "keep": it then
    keeps the count after a full queue's drop (ns1_compat_ 1), as ns-3 does."""
    ecn = Tcp(ecn=True)
    for q in (Red(ecn=True, ecn_above_max_th="mark", count_after_forced_drop="keep"),
              Red(count_after_forced_drop="keep"), Red(ecn=True, count_after_forced_drop="keep"),
              Ared(ecn=True, ecn_above_max_th="mark_p", count_after_forced_drop="keep")):
        check(dumbbell(q, **({"tcp": ecn} if q.ecn else {})))
