"""The explorer without ns-3: control values -> scenarios, invalid combinations, labels."""

from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import aqmlab
from aqmlab.errors import ScenarioError
from aqmlab.scenario import Mah, PackMime, Scenario
from aqmlab.widgets import Explorer, RunRecord, compare
from aqmlab.widgets.explorer import _control_for
from aqmlab.widgets.model import (
    Settings,
    build_scenario,
    check,
    controls,
    describe,
    diff_labels,
    queue_kinds,
    summary_row,
    tcp_choices,
)

# -- building scenarios ---------------------------------------------------------------------


def test_default_settings_build_a_bulk_dumbbell():
    sc = build_scenario(Settings())
    topo = sc.topology
    assert topo.bottleneck_rate_bps == 10_000_000
    # base RTT 50 ms = 2 x (1 + 23 + 1) ms
    assert 2 * (topo.bottleneck.delay_s + 2 * topo.access.delay_s) == pytest.approx(0.050)
    assert topo.forward_queue.kind == "droptail" and topo.forward_queue.limit == "100p"
    assert sc.traffic[0].kind == "bulk" and sc.n_flows == 10 and topo.senders == 10
    assert sc.tcp.variant == "reno" and not sc.tcp.ecn
    assert sc.run.duration_s == 20 and sc.run.warmup_s == 5 and sc.run.seed == 1
    assert Scenario.from_toml(sc.to_toml()).key == sc.key  # a plain, serialisable scenario


@pytest.mark.parametrize("kind", list(queue_kinds()))
def test_every_queue_kind_builds_with_its_parameters(kind):
    """Every registered queue kind is offered, and each of its controls sets its field:
    the widget's number (moved off its default) comes back from the built scenario."""
    cls = queue_kinds()[kind]
    changed = {f"{kind}.{c.name}": (c.default + c.step if c.default + c.step <= c.hi
                                    else c.default - c.step) for c in cls.CONTROLS}
    if kind == "red":
        changed.update({"red.min_th": 10, "red.max_th": 40})
    s = Settings(changed, queue=kind, ecn=True, limit=200)
    q = build_scenario(s).topology.forward_queue
    assert q.kind == kind and q.limit == "200p"
    assert q.ecn == cls.MARKS  # drop-tail never marks
    for c in cls.CONTROLS:
        assert c.to_field(changed[f"{kind}.{c.name}"]) == getattr(q, c.field)
    assert cls.LABEL and s.selected_params() == [*changed, "bulk.flows"]


def test_red_parameters_reach_the_queue():
    s = Settings(queue="red", ecn=True, min_th=10, max_th=40, max_p=0.05, w_q=0.01)
    q = build_scenario(s).topology.forward_queue
    assert (q.min_th, q.max_th, q.max_p, q.w_q, q.ecn) == (10, 40, 0.05, 0.01, True)
    q = build_scenario(Settings(queue="codel", target=3, interval=50)).topology.forward_queue
    assert q.target_s == pytest.approx(0.003) and q.interval_s == pytest.approx(0.05)


def test_only_the_selected_queue_kinds_parameters_change_the_scenario():
    base = Settings(queue="codel")
    assert build_scenario(base.replace(min_th=1, max_th=2)).key == build_scenario(base).key
    assert build_scenario(base.replace(target=9)).key != build_scenario(base).key


@pytest.mark.parametrize("variant", tcp_choices())
def test_tcp_variants(variant):
    s = Settings(variant=variant, ecn=variant == "dctcp")
    tcp = build_scenario(s).tcp
    assert tcp.variant == variant
    assert tcp.sack == s.sack == (variant not in ("reno", "newreno"))


def test_web_traffic_has_full_tcp_semantics_and_runs_on_either_engine():
    """The explorer's PackMime group carries ns-2's Full-TCP options (as the studies with
    PackMime set them), so that the same web settings pass the ns-2 engine's check, which
    refuses web traffic without them."""
    from aqmlab import engines
    from aqmlab.kinds.tcp import FULL_TCP

    for engine in ("ns3", "ns2"):
        sc = build_scenario(Settings(traffic="web", load=0.8, rate_mbps=10, engine=engine))
        assert sc.traffic[0].tcp == FULL_TCP
        engines.get(engine).check(sc.resolve())

def test_web_load_becomes_a_packmime_rate():
    sc = build_scenario(Settings(traffic="web", load=0.8, rate_mbps=10))
    g = sc.traffic[0]
    assert isinstance(g, PackMime)
    assert g.rate == pytest.approx(0.8 * 10e6 / 80e3)  # 100 connections/s
    assert g.load == 0.8 and g.rtt == "none"
    assert sc.topology.senders == 4


def test_browsing_users_become_a_mah_group():
    g = build_scenario(Settings(traffic="browsing", users=30)).traffic[0]
    assert isinstance(g, Mah) and g.users == 30


def test_many_flows_share_at_most_twenty_senders():
    assert build_scenario(Settings(flows=50)).topology.senders == 20
    assert build_scenario(Settings(flows=3)).topology.senders == 3


def test_fast_links_get_faster_access_links():
    sc = build_scenario(Settings(rate_mbps=500))
    assert sc.topology.access.rate_bps == 5_000_000_000


# -- invalid combinations -------------------------------------------------------------------


@pytest.mark.parametrize(("settings", "field", "words"), [
    (Settings(variant="dctcp", ecn=False), "tcp.ecn", "dctcp"),
    (Settings(queue="red", min_th=20, max_th=15), "topology.forward_queue.min_th", "max_th"),
    (Settings(queue="red", limit=10, max_th=15), "topology.forward_queue.limit", "max_th"),
    (Settings(queue="red", max_p=0), "topology.forward_queue.max_p", "max_p"),
    (Settings(queue="codel", target=0), "topology.forward_queue.target", "target"),
    (Settings(queue="pie", target=0), "topology.forward_queue.target", "target"),
    (Settings(limit=2), "topology.forward_queue.limit", "3 packets"),
    (Settings(rtt_ms=3), "rtt_ms", "RTT"),
    (Settings(traffic="web", load=0), "load", "load"),
])
def test_invalid_combinations_are_explained(settings, field, words):
    chk = check(settings)
    assert not chk.ok and chk.scenario is None
    assert chk.field == field
    assert words in chk.error
    with pytest.raises(ScenarioError):
        build_scenario(settings)


@pytest.mark.parametrize(("settings", "control"), [
    (Settings(queue="pie", target=0), "pie.target"),
    (Settings(queue="codel", target=0), "codel.target"),
    (Settings(queue="red", min_th=20, max_th=15), "red.min_th"),
    (Settings(traffic="web", load=0), "web.load"),
    (Settings(variant="dctcp", ecn=False), "ecn"),
])
def test_an_error_names_the_selected_kinds_control(settings, control):
    """A ScenarioError on a queue field goes to the selected queue's control (PIE's
    ``target`` to PIE's, not CoDel's)."""
    assert _control_for(check(settings).field, settings) == control


def test_unknown_or_ambiguous_control_names_are_refused():
    with pytest.raises(KeyError, match="no control 'buffer'"):
        Settings(buffer=3)
    with pytest.raises(KeyError, match="no control 'target'"):
        Settings(queue="red", target=3)  # several kinds have one, RED has none


def test_surprising_but_valid_combinations_get_a_note():
    chk = check(Settings(ecn=True, queue="droptail"))
    assert chk.ok and any("never marks" in n for n in chk.notes)
    assert check(Settings(traffic="web", load=1.1)).notes
    assert check(Settings()).notes == ()


# -- labels --------------------------------------------------------------------------------------


def _desc(**kw):
    return describe(build_scenario(Settings(**kw)))


def test_describe_names_only_the_relevant_parameters():
    d = _desc(queue="red", traffic="web", load=0.5)
    assert d["queue"] == "red" and d["max_p"] == "0.1" and d["load"] == "0.5"
    assert d["traffic"] == "web" and "flows" not in d and "target" not in d
    assert d["RTT"] == "50 ms" and d["rate"] == "10 Mb/s"
    assert "max_p" not in _desc(queue="codel")


def test_legend_labels_name_what_differs():
    labels = diff_labels([_desc(), _desc(queue="red"), _desc(queue="red", max_p=0.5)])
    assert labels == ["queue=droptail", "queue=red, max_p=0.1", "queue=red, max_p=0.5"]
    assert diff_labels([_desc(flows=5), _desc(flows=50, seed=2)]) == [
        "flows=5, seed=1", "flows=50, seed=2"]
    # a kind change implies its own parameters: they are not listed when they do not differ
    assert diff_labels([_desc(queue="codel"), _desc(queue="pie")]) == [
        "queue=codel, target=5 ms", "queue=pie, target=15 ms"]
    assert diff_labels([_desc(queue="droptail"), _desc(queue="red", max_th=30)]) == [
        "queue=droptail", "queue=red"]


def test_a_single_or_repeated_run_gets_a_short_label():
    assert diff_labels([_desc(queue="red", ecn=True)]) == ["red 100p, reno+ECN, 10 flows"]
    assert diff_labels([_desc(), _desc()]) == ["droptail 100p, reno, 10 flows #1",
                                               "droptail 100p, reno, 10 flows #2"]
    assert diff_labels([]) == []


# -- the widget, without running -----------------------------------------------------------------


def test_explore_is_exposed_lazily_and_builds_the_widget():
    ex = aqmlab.explore(store=None, queue="red", flows=20)
    assert isinstance(ex, Explorer)
    assert ex.settings == Settings(queue="red", flows=20)
    assert ex.validation.ok and not ex.run_button.disabled
    assert "aqmlab-run" in ex.run_button._dom_classes
    assert "aqmlab-explorer" in ex.widget._dom_classes
    assert "kind = \"red\"" in ex.toml.value
    assert ex._repr_mimebundle_()  # displays as its widget


def test_only_the_relevant_controls_are_shown():
    ex = Explorer(store=None)

    def shown(name):
        return ex.controls[name].layout.display != "none"

    queue_controls = [k for k in controls() if k.split(".")[0] in queue_kinds()]
    assert shown("bulk.flows") and not shown("web.load") and not shown("browsing.users")
    assert not any(shown(k) for k in queue_controls)
    ex.set(queue="red", traffic="web")
    assert all(shown(k) == k.startswith("red.") for k in queue_controls)
    assert shown("web.load") and not shown("bulk.flows")
    assert ex.web_note.layout.display != "none"
    ex.set(queue="fq_codel")
    assert shown("fq_codel.target") and shown("fq_codel.interval") and not shown("red.max_p")
    assert shown("limit") and shown("rate_mbps") and shown("duration_s")


def test_invalid_settings_disable_run_with_the_message():
    ex = Explorer(store=None)
    ex.set(variant="dctcp")
    assert ex.run_button.disabled
    assert "requires ecn" in ex.message.value and "ECN marking" in ex.message.value
    assert ex.run() is None  # refuses to start
    ex.set(ecn=True)
    assert not ex.run_button.disabled and "aqmlab-invalid" not in ex.message.value
    ex.set(queue="red", min_th=40)
    assert ex.run_button.disabled and "min_th" in ex.message.value
    ex.set(min_th=5)
    assert not ex.run_button.disabled


def test_sack_follows_the_variant():
    ex = Explorer(store=None)
    sack, variant = ex.controls["sack"], ex.controls["variant"]
    assert not sack.value and not sack.disabled
    sack.value = True
    assert variant.value == "sack"
    sack.value = False
    assert variant.value == "reno"
    variant.value = "cubic"
    assert sack.value and sack.disabled
    variant.value = "newreno"
    assert not sack.value and not sack.disabled


def test_set_rejects_unknown_controls():
    with pytest.raises(KeyError, match="no control"):
        Explorer(store=None).set(buffer=3)


def test_importing_the_widgets_never_imports_ns3():
    code = ("import sys, aqmlab; aqmlab.explore(store=None)\n"
            "print(','.join(m for m in ('cppyy', 'ns', 'libcppyy') if m in sys.modules))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd="/tmp")
    assert out.stdout.strip() == ""


# -- drawing and tables from synthetic results ---------------------------------------------------


class _FakeResults:
    """Just the tables the explorer reads."""

    def __init__(self, sc: Scenario, seed: int = 0) -> None:
        rng = np.random.default_rng(seed)
        self.scenario = sc
        web = sc.traffic[0].kind != "bulk"
        n = 0 if web else sc.n_flows
        self.flows = pd.DataFrame({"goodput_mbps": rng.uniform(0.5, 1.5, n),
                                   "timeouts": np.zeros(n, int)})
        m = 200 if web else 0
        self.requests = pd.DataFrame({"response_time_s": rng.lognormal(-2, 1, m),
                                      "completed": np.ones(m, bool),
                                      "after_warmup": np.ones(m, bool),
                                      "timeout": np.zeros(m, bool)})
        self.queues = pd.DataFrame({"queue": ["R0->R1"], "avg_delay_s": [0.01]})
        t = np.arange(0, sc.run.duration_s, 0.1)
        self.queue_ts = pd.DataFrame({"time_s": t, "queue": "R0->R1",
                                      "qlen_pkts": rng.integers(0, 50, len(t)),
                                      "red_avg_pkts": np.zeros(len(t))})
        self.summary = pd.DataFrame([{
            "goodput_mbps": self.flows.goodput_mbps.sum(), "utilisation": 0.97,
            "loss_rate": 0.01, "mark_rate": 0.0, "avg_qlen_pkts": 12.0, "timeouts": 3,
            "jain_fairness": 0.99, "share_responses_with_loss": 0.05 if web else math.nan}])
        self.meta = {"events": 1000}


def test_summary_rows_for_bulk_and_web():
    bulk = summary_row(_FakeResults(build_scenario(Settings())))
    assert bulk["utilisation"] == 0.97 and bulk["loss (%)"] == 1.0
    assert bulk["avg queue delay (ms)"] == 10.0 and "median response (ms)" not in bulk
    web = summary_row(_FakeResults(build_scenario(Settings(traffic="web"))))
    assert web["responses"] == 200 and web["median response (ms)"] > 0
    assert web["responses with loss (%)"] == 5.0 and math.isnan(web["goodput (Mb/s)"])


def test_compare_draws_and_tabulates_mixed_runs():
    runs = [_FakeResults(build_scenario(Settings())),
            _FakeResults(build_scenario(Settings(traffic="web", queue="red")))]
    fig, table = compare(runs)
    assert len(fig.axes) == 3  # CDF, goodput, queue
    assert list(table.index) == ["traffic=bulk, queue=droptail", "traffic=web, queue=red"]
    fig, table = compare({"a": runs[0]})
    assert len(fig.axes) == 2 and list(table.index) == ["a"]


def test_explorer_redraw_keeps_at_most_max_runs():
    ex = Explorer(store=None, max_runs=2)
    for k, flows in enumerate((5, 10, 20)):
        sc = build_scenario(Settings(flows=flows))
        ex._add(sc, _FakeResults(sc, k), "run", 1.0)
    assert [r.number for r in ex.runs] == [2, 3]
    assert isinstance(ex.runs[0], RunRecord)
    assert ex.plot.value[:4] == b"\x89PNG"
    assert ex.summary.value.count("aqmlab-summary-row") == 2
    assert "flows=10" in ex.summary.value and "flows=20" in ex.summary.value
    ex._add(sc, _FakeResults(sc), "store", 0.1)  # already shown: not added twice
    assert len(ex.runs) == 2 and "Already shown" in ex.status.value
    ex.keep.value = False
    sc = build_scenario(Settings(flows=7))
    ex._add(sc, _FakeResults(sc), "store", 0.1)
    assert [r.number for r in ex.runs] == [4]
    ex.clear()
    assert not ex.runs and ex.summary.value == ""


def test_initial_values_outside_the_sliders_ranges_are_kept():
    values = {"flows": 200, "users": 1000, "rate_mbps": 0.1, "rtt_ms": 800, "load": 0.02}
    assert Explorer(store=None, **values).settings == Settings(**values)
