"""The machinery studies are declared with (no ns-3): typed parameters per profile, arms
with tags, and claim tables as data (checked when read, evaluated into ClaimTables)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

import pandas as pd
import pytest

from aqmlab.studies.arms import Arm, arm_set, arms_frame, tag
from aqmlab.studies.claims import NOT_TESTED, DeclaredTable, Measured, Metrics
from aqmlab.studies.common import arm_changes
from aqmlab.studies.params import Params, Profiles

# -- parameters ----------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class DemoParams(Params):
    study: ClassVar[str] = "demo"
    loads: tuple[float, ...]
    thresholds: tuple[tuple[float, float], ...]
    think_cap: str | None
    one_way: bool


def demo(profile: str, **kw) -> DemoParams:
    values = dict(seeds=(1,), loads=(0.8,), thresholds=((5, 15),), think_cap=None,
                  one_way=False)
    return DemoParams(profile=profile, **{**values, **kw})


PROFILES = Profiles(tiny=demo("tiny"), quick=demo("quick", loads=(0.8, 1.05)),
                    full=demo("full", seeds=(1, 2, 3)))


def test_overrides_are_typed_lists_become_tuples_and_none_keeps_a_value():
    p = PROFILES.get("quick", seeds=[1, 2], thresholds=[[30, 90]], think_cap=None)
    assert p.seeds == (1, 2) and p.thresholds == ((30, 90),)
    assert p.loads == (0.8, 1.05) and p.think_cap is None and p.profile == "quick"
    assert PROFILES.get("quick", loads=[1]).loads == (1,)  # an int is a float here
    assert PROFILES["quick"].seeds == (1,)  # the profile itself is unchanged (frozen)


def test_an_unknown_override_names_the_parameter_and_the_allowed_ones():
    with pytest.raises(KeyError, match="demo/quick has no parameter 'load'; parameters: "
                                       "seeds, loads, thresholds, think_cap, one_way"):
        PROFILES.get("quick", load=[0.9])


@pytest.mark.parametrize("kw,match", [
    ({"seeds": [1.5]}, r"seeds = \[1.5\] is invalid: expected a list of int"),
    ({"loads": 0.9}, "loads = 0.9 is invalid: expected a list of float"),
    ({"thresholds": [[5, 15, 45]]}, r"expected a list of a list \(float, float\)"),
    ({"think_cap": 60}, "think_cap = 60 is invalid: expected str or None"),
    ({"one_way": "yes"}, "one_way = 'yes' is invalid: expected bool"),
    ({"seeds": [True]}, "expected a list of int"),
])
def test_a_value_of_the_wrong_type_fails_naming_the_parameter(kw, match):
    with pytest.raises(TypeError, match=match):
        PROFILES.get("quick", **kw)


def test_profiles_are_the_three_named_ones():
    with pytest.raises(ValueError, match="unknown profile 'huge'"):
        PROFILES.get("huge")
    with pytest.raises(ValueError, match="must be tiny, quick, full"):
        Profiles(quick=demo("quick"), tiny=demo("tiny"), full=demo("full"))
    with pytest.raises(ValueError, match="profile 'full' holds parameters of 'quick'"):
        Profiles(tiny=demo("tiny"), quick=demo("quick"), full=demo("quick"))
    assert list(PROFILES.get("full").values) == ["seeds", "loads", "thresholds", "think_cap",
                                                 "one_way"]
    assert PROFILES.get("full").describe().startswith("demo [full]: seeds=[1, 2, 3], ")


# -- arms ----------------------------------------------------------------------------------


def test_arms_give_the_sweep_their_changes_and_the_frames_their_tags():
    a = Arm("td-q30", {"topology.forward_queue.limit": "30p"}, {"queue": "droptail", "qlen": 30})
    b = Arm("uncongested", {"topology.bottleneck.rate": "100Mbps"}, {"queue": "droptail"})
    assert arm_changes([a, b]) == {"td-q30": a.changes, "uncongested": b.changes}
    assert arm_changes({"x": {"tcp.ecn": True}}) == {"x": {"tcp.ecn": True}}
    with pytest.raises(ValueError, match="appears twice"):
        arm_changes([a, a])
    with pytest.raises(ValueError, match="defined twice, differently"):
        arm_set([a, Arm("td-q30", {"topology.forward_queue.limit": "31p"})])
    assert list(arm_set([a, b, a])) == ["td-q30", "uncongested"]
    other = Arm("uncongested", {"topology.bottleneck.rate": "1Gbps"}, {"queue": "droptail"})
    assert len(arms_frame([a, b, other])) == 2  # a shared label with the same tags: one row
    with pytest.raises(ValueError, match="'uncongested' has two sets of tags"):
        arms_frame([b, Arm("uncongested", {}, {"queue": "red"})])
    frame = arms_frame([a, b])
    assert list(frame.columns) == ["name", "queue", "qlen"]
    names = pd.Series(["td-q30", "uncongested", "td-q30"])
    qlen = tag({"arms": frame}, names, "qlen")
    assert qlen[0] == 30 and math.isnan(qlen[1])  # an arm without the tag: missing
    only = tag({"arms": frame}, names[[0, 2]], "qlen")
    assert only.dtype == "int64" and only.tolist() == [30, 30]  # integers stay integers
    assert tag({}, names, "qlen").isna().all()


# -- claim tables --------------------------------------------------------------------------


def metrics() -> Metrics:
    m = Metrics("demo")

    @m.values
    def _loads(x):
        return {"top": max(x.p.loads) * 100}

    @m
    def stat(x, load, col="v"):
        return x.data["stats"].get((load, col), math.nan)

    @m
    def order(x, load):
        return Measured({"a": stat(x, load), "b": 1.0}, values={"chain": "a > b"})

    @m
    def maybe(x, load):
        return Measured(stat(x, load), tested=load in (80, 105))

    @m.each
    def loads(x):
        return [{"load": round(v * 100)} for v in x.p.loads]

    return m


TABLE = """
study = "demo"
[defaults]
if_not = "the usual reason"

[[claim]]
id = "D-first"
text = "at {top:g} %"
paper = 1.5
kind = "greater"
metric = "stat"
args = { load = 80 }
profiles = ["quick"]

[[claim]]
each = "loads"
  [[claim.claims]]
  id = "D-{load}-v"
  text = "{load} %: v"
  paper = 2
  kind = "ratio within"
  tolerance = 0.5
  metric = "maybe"
  profiles = ["quick", "full"]
  if_not = ""
  [[claim.claims]]
  id = "D-{load}-order"
  text = "{load} %: order"
  paper = "{chain}"
  kind = "ordering"
  metric = "order"
  profiles = ["full"]

[[claim]]
id = "D-range-{n}"
each = [{ n = 1, lo = 0.5 }, { n = 2, lo = 1.5 }]
text = "range {n}"
paper = ["{lo}", 3]
kind = "in range"
metric = "stat"
args = { load = 80 }
profiles = ["quick"]
"""


def write(tmp_path, text: str):
    path = tmp_path / "demo.toml"
    path.write_text(text)
    return path


def test_a_declared_table_expands_its_templates_in_order_and_decides_per_profile(tmp_path):
    table = DeclaredTable.load(write(tmp_path, TABLE), metrics())
    assert [c.id for c in table.specs()] == ["D-first", "D-{load}-v", "D-{load}-order",
                                             "D-range-{n}"]
    data = {"stats": {(80, "v"): 2.0, (105, "v"): 9.0, (90, "v"): 2.0}}
    quick = table.evaluate(data, PROFILES.get("quick", loads=[0.8, 0.9, 1.05]))
    assert [c.id for c in quick] == ["D-first", "D-80-v", "D-80-order", "D-90-v",
                                     "D-90-order", "D-105-v", "D-105-order", "D-range-1",
                                     "D-range-2"]
    assert quick["D-first"].text == "at 105 %" and quick["D-first"].reproduced == "yes"
    assert quick["D-80-v"].reproduced == "yes"
    assert quick["D-90-v"].reproduced == NOT_TESTED       # the metric cannot decide 90 %
    assert quick["D-105-v"].reproduced == "no"
    assert quick["D-105-v"].if_not == ""                  # its own, not the default
    assert quick["D-80-order"].paper == "a > b" and quick["D-80-order"].reproduced == NOT_TESTED
    assert quick["D-80-order"].if_not == "the usual reason"
    assert quick["D-range-1"].paper == [0.5, 3]           # a lone placeholder keeps the number
    assert quick["D-range-2"].reproduced == "yes"
    full = table.evaluate(data, PROFILES.get("full"))
    assert [c.id for c in full] == ["D-first", "D-80-v", "D-80-order", "D-range-1", "D-range-2"]
    assert full["D-first"].reproduced == NOT_TESTED and full["D-80-order"].reproduced == "yes"


@pytest.mark.parametrize("change,match", [
    (("metric = \"maybe\"", "metric = \"mayb\""), "claim D-{load}-v: unknown metric 'mayb'; "
                                                  "metrics of demo: stat, order, maybe"),
    (("id = \"D-{load}-order\"", "id = \"D-{load}-v\""), "claim D-{load}-v: the id appears twice"),
    (("kind = \"greater\"", "kind = \"roughly\""), "claim D-first: kind 'roughly' is not one of"),
    (("profiles = [\"full\"]", "profiles = [\"fast\"]"), "unknown profile\\(s\\) \\['fast'\\]"),
    (("tolerance = 0.5", "tolerence = 0.5"), "claim D-{load}-v: unknown field\\(s\\) "
                                             "\\['tolerence'\\]"),
    (("each = \"loads\"", "each = \"load\""), "unknown expansion 'load'"),
    (("args = { load = 80 }\nprofiles = [\"quick\"]\n\n[[claim]]\neach",
      "args = { load = 80, cols = 1 }\nprofiles = [\"quick\"]\n\n[[claim]]\neach"),
     "claim D-first: metric stat takes no argument\\(s\\) \\['cols'\\]"),
    (("paper = [\"{lo}\", 3]", "paper = 3"), "claim D-range-{n}: 'in range' needs paper"),
    (("paper = \"{chain}\"", "paper = 1"), "'ordering' needs paper"),
    (("text = \"at {top:g} %\"", "text = \"at {top:g %\""), "claim D-first: bad template"),
    (("study = \"demo\"", "study = \"other\""), "study = 'other', expected 'demo'"),
    (("metric = \"order\"", "metric = \"stat\""), "metric\\(s\\) \\['order'\\] registered but "
                                                  "no claim uses them"),
])
def test_a_bad_table_fails_when_read_naming_the_study_and_the_claim(tmp_path, change, match):
    old, new = change
    assert old in TABLE
    with pytest.raises(ValueError, match=match):
        DeclaredTable.load(write(tmp_path, TABLE.replace(old, new, 1)), metrics())


def test_a_template_without_a_value_fails_naming_the_claim(tmp_path):
    table = DeclaredTable.load(write(tmp_path, TABLE.replace("{top:g}", "{bottom}")), metrics())
    with pytest.raises(KeyError, match="demo: claim D-first: no template value 'bottom'"):
        table.evaluate({"stats": {}}, PROFILES.get("quick"))


def test_expanded_ids_must_stay_unique(tmp_path):
    twice = TABLE.replace('each = [{ n = 1, lo = 0.5 }, { n = 2, lo = 1.5 }]',
                          'each = [{ n = 1, lo = 0.5 }, { n = 1, lo = 1.5 }]')
    table = DeclaredTable.load(write(tmp_path, twice), metrics())
    with pytest.raises(ValueError, match="claim id 'D-range-1' appears twice in demo"):
        table.evaluate({"stats": {}}, PROFILES.get("quick"))
