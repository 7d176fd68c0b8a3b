"""PackMime.elephant: Weigle et al.'s "at least one 10 MB response starting before 1000 s
after the warm-up", enforced by seed selection when the run is planned (no ns-3)."""

from __future__ import annotations

import numpy as np
import pytest

import aqmlab.kinds.traffic.packmime as packmime_mod
from aqmlab.errors import ScenarioError
from aqmlab.plan import make_plan
from aqmlab.results.tables import _workload_redraws
from aqmlab.scenario import Dumbbell, PackMime, RunControl, Scenario
from aqmlab.workload.packmime import PackMimeWorkload
from tests.conftest import EXAMPLES

WARMUP, BEFORE = 5.0, 10.0
DEADLINE = WARMUP + BEFORE  # 15 s < duration 30 s


def web(elephant=None, **changes) -> Scenario:
    """10 connections/s for 30 s: 1 MB responses are rare (the first draw of seed 1 has none
    starting before 15 s; draw 34 is the first that has one), 200 KB ones are not."""
    pm = {"rate": 10, "elephant": elephant}
    if elephant is not None:
        pm["elephant_before"] = f"{BEFORE:g}s"
    sc = Scenario(topology=Dumbbell(senders=1, receivers=1), traffic=[PackMime(**pm)],
                  run=RunControl(duration="30s", warmup=f"{WARMUP:g}s"))
    return sc.replace(**changes) if changes else sc


def has_elephant(start, response, size, deadline=DEADLINE) -> bool:
    return bool(((np.asarray(response) >= size) & (np.asarray(start) < deadline)).any())


def arrays(w) -> tuple:
    return (w.start_s, w.request, w.response, w.delay_s, w.base_rtt_s, w.server, w.client)


def same(a, b) -> bool:
    return all(np.array_equal(x, y) for x, y in zip(arrays(a), arrays(b), strict=True))


def test_redraws_until_an_elephant_starts_before_the_deadline():
    plain = make_plan(web()).web[0]
    assert plain.redraws == 0
    assert not has_elephant(plain.start_s, plain.response, 1e6)  # the rule is needed here
    w = make_plan(web("1MB")).web[0]
    assert w.redraws > 0
    assert has_elephant(w.start_s, w.response, 1e6)
    assert not same(w, plain)
    # k is the first draw that qualifies: the skipped ones (stream instance 0 + 100 k) fail
    model = PackMimeWorkload(lrd=False, rtt="server")  # as the plan draws it
    for k in range(w.redraws):
        c = model.generate(10, 30.0, seed=1, run=1, instance=100 * k)
        assert not has_elephant(c.start_s, c.response_bytes, 1e6), k
    c = model.generate(10, 30.0, seed=1, run=1, instance=100 * w.redraws)
    assert np.array_equal(c.start_s.to_numpy(), w.start_s)


def test_the_choice_is_deterministic():
    a, b = make_plan(web("1MB")).web[0], make_plan(web("1MB")).web[0]
    assert a.redraws == b.redraws and same(a, b)


def test_a_first_draw_that_qualifies_is_kept_unchanged():
    plain = make_plan(web()).web[0]
    w = make_plan(web("200KB")).web[0]
    assert w.redraws == 0
    assert has_elephant(w.start_s, w.response, 200e3)
    assert same(w, plain)


def test_the_choice_does_not_depend_on_queue_or_tcp():
    base = make_plan(web("1MB")).web[0]
    for changes in ({"topology.forward_queue": {"kind": "red", "limit": "100p"}},
                    {"topology.forward_queue": {"kind": "droptail", "limit": "20p"},
                     "tcp.variant": "sack"}):
        other = make_plan(web("1MB", **changes)).web[0]
        assert other.redraws == base.redraws and same(other, base)
    # ...but it does depend on the seed (common random numbers per replication)
    assert not same(make_plan(web("1MB", **{"run.seed": 2})).web[0], base)


def test_runs_shorter_than_the_rule_window_are_not_redrawn():
    """warm-up + elephant_before beyond the run (tests, quick profiles): the rule does not
    apply, the workload is draw 0, identical to the one without the rule."""
    sc = web("1MB", **{"traffic[0].elephant_before": "1000s"})
    w = make_plan(sc).web[0]
    plain = make_plan(sc.replace(**{"traffic[0].elephant": None,
                                    "traffic[0].elephant_before": "1000s"})).web[0]
    assert w.redraws == 0
    assert np.array_equal(w.response, plain.response)
    assert np.array_equal(w.start_s, plain.start_s)


def test_an_impossible_rule_fails_naming_the_field(monkeypatch):
    monkeypatch.setattr(packmime_mod, "MAX_REDRAWS", 5)
    with pytest.raises(ScenarioError, match="no draw of the workload") as err:
        make_plan(web("10GB"))
    assert err.value.field == "traffic[0].elephant"


def test_summary_column_counts_the_redraws():
    sc = web("1MB")
    plan = make_plan(sc)
    assert _workload_redraws(sc, plan) == plan.web[0].redraws > 0
    assert _workload_redraws(web(), None) == 0


def test_weigle_examples_ask_for_a_10mb_response_on_the_forward_group():
    for name in ("droptail_80", "droptail_105", "ecn_ared_80", "ecn_ared_105"):
        sc = Scenario.load(EXAMPLES / f"weigle_{name}.toml")
        fwd, rev = sc.traffic
        assert fwd.elephant_bytes == 10_000_000 and fwd.elephant_before_s == 1000.0
        assert rev.elephant is None
    w = make_plan(sc).web[0]  # seed 1: the first draw already has one
    assert has_elephant(w.start_s, w.response, 10e6, deadline=120.0 + 1000.0)


# -- validation and serialisation ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("changes", "field", "why"),
    [
        ({"elephant": "abc"}, "elephant", "size"),
        ({"elephant": 0}, "elephant", "> 0"),
        ({"elephant": "-1MB"}, "elephant", "> 0"),
        ({"elephant": "10p"}, "elephant", "bytes"),
        ({"elephant": 1.5}, "elephant", "size"),
        ({"elephant": True}, "elephant", "size"),
        ({"elephant": "10MB", "elephant_before": "0s"}, "elephant_before", "> 0"),
        ({"elephant": "10MB", "elephant_before": "-5s"}, "elephant_before", ">= 0"),
        ({"elephant": "10MB", "elephant_before": "soon"}, "elephant_before", "duration"),
        ({"elephant_before": "500s"}, "elephant_before", "needs elephant"),
    ],
)
def test_bad_values_are_rejected_naming_the_field(changes, field, why):
    with pytest.raises(ScenarioError, match=why) as err:
        PackMime(rate=1, **changes)
    assert err.value.field == field


def test_nested_error_carries_the_full_path():
    d = web().to_dict()
    d["traffic"][0]["elephant"] = "big"
    with pytest.raises(ScenarioError) as err:
        Scenario.from_dict(d)
    assert err.value.field == "traffic[0].elephant"


def test_serialisation_omits_the_rule_while_unset_and_round_trips():
    d = PackMime(rate=1).to_dict()
    assert "elephant" not in d and "elephant_before" not in d  # older hashes unchanged
    assert PackMime(rate=1, elephant_before=1000).to_dict() == d  # the default, spelt otherwise
    sc = web("10MB")
    assert sc.to_dict()["traffic"][0]["elephant"] == "10MB"
    assert sc.to_dict()["traffic"][0]["elephant_before"] == "10s"
    for back in (Scenario.from_json(sc.to_json()), Scenario.from_toml(sc.to_toml())):
        assert back == sc and back.hash == sc.hash
    assert sc.hash != web().hash
    assert sc.hash != sc.replace(**{"traffic[0].elephant_before": "20s"}).hash
    assert web().hash == Scenario(topology=Dumbbell(senders=1, receivers=1),
                                  traffic=[PackMime(rate=10)],
                                  run=RunControl(duration="30s", warmup="5s")).hash
