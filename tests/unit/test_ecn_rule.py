"""RED/ARED ``ecn_above_max_th``: the papers' ns-2 gentle-region rule (drop ECN-capable
packets once the average reaches max_th), ns-3's (mark them) or ns-2.35's (mark while the
early probability is below mark_p). Validation, hashes, mapping."""

from __future__ import annotations

import pytest

from aqmlab.errors import ScenarioError
from aqmlab.scenario import Ared, Dumbbell, Red, Scenario

WRAPPED = "aqmlab::Ns2EcnRedQueueDisc"


def queue_config(q, rate_bps, delay_s):
    """The ns-3 queue disc a queue kind maps to (its ``ns3`` method)."""
    return q.ns3(rate_bps, delay_s)


def dumbbell(q) -> Scenario:
    return Scenario(topology=Dumbbell(forward_queue=q))


def test_marking_above_max_th_with_hard_drop_off_needs_the_mark_rule():
    with pytest.raises(ScenarioError, match='set ecn_above_max_th = "mark"') as err:
        Red(ecn=True, hard_drop=False)
    assert err.value.field == "ecn_above_max_th"
    assert Red(ecn=True, hard_drop=False, ecn_above_max_th="mark").hard_drop is False
    assert not Red(hard_drop=False).ecn  # without ECN the rule does not matter


@pytest.mark.parametrize("cls", [Red, Ared])
def test_default_is_ns2s_drop_and_bad_values_name_the_field(cls):
    assert cls().ecn_above_max_th == "drop"
    with pytest.raises(ScenarioError, match="drop, mark, mark_p") as err:
        cls(ecn=True, ecn_above_max_th="ns3")
    assert err.value.field == "ecn_above_max_th"


def test_scenarios_without_ecn_hash_without_the_field():
    # literal hashes: 0.2.2's (b18983a1af82fc04, bf09c42b9b441990) survived the field; 0.2.3's
    # (8f6d5bfc6bac47fe, cfef0d230e113fce) lost the description; 0.4.0's (29662836b153108d,
    # 19edeabdbca0cca1) hashed quantities in one spelling; 0.4.0 at a110369's (6ff95a958fbb342d,
    # 6b168b111202a754) added count_after_forced_drop; 0.8.11's (894a64371dd786d7,
    # 95a8455e17ce7bd3) measured_queue; these have forced_region (all three always
    # serialised: test_red_count.py, test_measured_queue.py, test_forced_region.py)
    assert dumbbell(Ared()).hash == "bae3af96efa3c539"
    assert dumbbell(Red()).hash == "4bb7213adcef8e4e"
    assert "ecn_above_max_th" not in Red().to_dict()


def test_ecn_scenarios_hash_differently_from_runs_stored_before_the_rule():
    # runs stored before the field used ns-3's marking: neither value may reuse them
    old = "5be3df74cf2f7f3c"  # dumbbell(Ared(ecn=True)) under aqmlab 0.2.2
    drop, mark = (dumbbell(Ared(ecn=True, ecn_above_max_th=v)) for v in ("drop", "mark"))
    assert len({old, drop.hash, mark.hash}) == 3


@pytest.mark.parametrize("value", ["drop", "mark"])
def test_rule_round_trips_through_json_and_toml(value):
    s = dumbbell(Ared(ecn=True, ecn_above_max_th=value))
    assert s.to_dict()["topology"]["forward_queue"]["ecn_above_max_th"] == value
    for back in (Scenario.from_json(s.to_json()), Scenario.from_toml(s.to_toml())):
        assert back == s and back.hash == s.hash


@pytest.mark.parametrize("cls", [Red, Ared])
def test_mapping_wraps_red_only_for_ecn_with_ns2s_rules(cls):
    # with ns-3's count rule ("keep") and queue ("disc"), only ns-2's ECN rules need the
    # wrapper
    keep = {"count_after_forced_drop": "keep", "measured_queue": "disc", "forced_region": "drop"}
    drop = queue_config(cls(ecn=True, **keep), 10e6, 0.02)
    mark_p = queue_config(cls(ecn=True, ecn_above_max_th="mark_p", mark_p=0.2, **keep),
                          10e6, 0.02)
    mark = queue_config(cls(ecn=True, ecn_above_max_th="mark", **keep), 10e6, 0.02)
    plain = queue_config(cls(**keep), 10e6, 0.02)
    assert drop.type_id == mark_p.type_id == WRAPPED
    assert mark.type_id == plain.type_id == "ns3::RedQueueDisc"
    # the wrapper takes its own four attributes; the wrapped child is configured the same
    assert drop.attributes[-4:] == (("Rule", "drop"), ("MarkP", "0.1"), ("CountReset", "false"),
                                    ("Measure", "disc"))
    assert mark_p.attributes[-4:] == (("Rule", "mark_p"), ("MarkP", "0.2"),
                                      ("CountReset", "false"), ("Measure", "disc"))
    assert drop.attributes[:-4] == mark_p.attributes[:-4] == mark.attributes
    assert dict(drop.attributes)["UseEcn"] == "true"


@pytest.mark.parametrize("cls", [Red, Ared])
def test_mark_p_is_validated_and_serialised_only_with_its_rule(cls):
    with pytest.raises(ScenarioError) as err:
        cls(ecn=True, ecn_above_max_th="mark_p", mark_p=0)
    assert err.value.field == "mark_p"
    assert "mark_p" not in cls(ecn=True).to_dict()
    assert "mark_p" not in cls(mark_p=0.3).to_dict()  # no ECN: no rule
    assert cls(ecn=True, ecn_above_max_th="mark_p").to_dict()["mark_p"] == 0.1
    a, b = (dumbbell(cls(ecn=True, ecn_above_max_th="mark_p", mark_p=p)) for p in (0.1, 0.2))
    assert a.hash != b.hash


def test_weigle_arms_name_the_ecn_rule():
    from aqmlab.studies.ecn_sack_web import queue_of

    assert "ecn_above_max_th" not in queue_of("ared5") and not queue_of("ared5")["ecn"]
    assert queue_of("aredecn5")["ecn_above_max_th"] == "drop"
    mark = queue_of("aredecnmark60")
    assert mark["ecn_above_max_th"] == "mark" and mark["target_delay"] == "60ms"
    # ns-3's RED whole: its forced region too; the papers' arms keep ns-2.35's default
    assert mark["forced_region"] == "drop" and "forced_region" not in queue_of("aredecn5")
    assert Ared(**{k: v for k, v in mark.items() if k != "kind"}).ecn


def test_loss_in_cwr_default_validation_and_hashes():
    from aqmlab.scenario import Tcp

    assert Tcp().loss_in_cwr == "fast_retransmit"
    with pytest.raises(ScenarioError, match="fast_retransmit, timeout") as err:
        Tcp(ecn=True, loss_in_cwr="rto")
    assert err.value.field == "loss_in_cwr"
    assert "loss_in_cwr" not in Tcp().to_dict()  # no CWR without ECN: hashes kept
    ecn = Scenario(tcp=Tcp(ecn=True))
    assert ecn.to_dict()["tcp"]["loss_in_cwr"] == "fast_retransmit"
    ns3 = Scenario.from_toml(ecn.replace(**{"tcp.loss_in_cwr": "timeout"}).to_toml())
    assert ns3.tcp.loss_in_cwr == "timeout" and ns3.hash != ecn.hash
    assert dict(Tcp(ecn=True).ns3().attributes)["CwrFastRetransmit"] == "true"
    assert dict(ns3.tcp.ns3().attributes)["CwrFastRetransmit"] == "false"
