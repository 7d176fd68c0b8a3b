"""The claim verdicts, ClaimTable and the pure helpers the studies use (no ns-3); the
declared tables and typed profiles: test_study_framework.py and test_study_tables.py."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from aqmlab.studies.claims import NO_DATA, NOT_TESTED, Claim, ClaimTable, check_ordering
from aqmlab.studies.common import arms_zip, cdf_grid, crossings, share_faster, stack


def claim(kind: str, paper, measured, tol: float = 0.0, **kw) -> Claim:
    return Claim(study="s", id="c", text="t", paper=paper, measured=measured, kind=kind,
                 tolerance=tol, **kw)


@pytest.mark.parametrize("kind,paper,measured,tol,expected", [
    ("ratio within", 100, 129, 0.3, "yes"),
    ("ratio within", 100, 131, 0.3, "no"),
    ("ratio within", 100, 71, 0.3, "yes"),
    ("ratio within", 0, 0.0, 0.1, "yes"),
    ("abs within", 2.56, 4.0, 2.0, "yes"),
    ("abs within", 2.56, 5.0, 2.0, "no"),
    ("in range", (600, 800), 700, 0, "yes"),
    ("in range", (600, 800), 599.9, 0, "no"),
    ("in range", [0.75, 0.85], 0.85, 0, "yes"),
    ("greater", 99.0, 99.2, 0, "yes"),
    ("greater", 99.0, 99.0, 0, "no"),
    ("greater", 0.5, 0.55, 0.1, "no"),
    ("less", 0.2, 0.05, 0, "yes"),
    ("less", 0.2, 0.2, 0, "no"),
    ("formula fit", "median |rel. error| <= 0.3", 0.29, 0.3, "yes"),
    ("formula fit", "median |rel. error| <= 0.3", 0.31, 0.3, "no"),
    ("true", "fewest", True, 0, "yes"),
    ("true", "fewest", False, 0, "no"),
])
def test_verdict_by_kind(kind, paper, measured, tol, expected):
    assert claim(kind, paper, measured, tol).reproduced == expected


@pytest.mark.parametrize("measured", [None, math.nan, {"a": 1.0, "b": math.nan}, {}])
def test_missing_measurement_reads_no_data(measured):
    kind, paper = ("ordering", "a > b") if isinstance(measured, dict) else ("greater", 1.0)
    assert claim(kind, paper, measured).reproduced == NO_DATA


def test_untested_claim_without_data_reads_not_tested():
    assert claim("greater", 1.0, None, tested=False).reproduced == NOT_TESTED


def test_untested_claim_keeps_its_measured_value():
    c = claim("greater", 1.0, 2.0, tested=False)
    assert c.holds() is True
    assert c.reproduced == NOT_TESTED
    assert c.row()["measured"] == "2"


def test_likely_reason_is_shown_only_when_not_reproduced():
    ok = claim("less", 1.0, 0.5, note="context", if_not="ns-3 TCP differs").row()
    bad = claim("less", 1.0, 2.0, note="context", if_not="ns-3 TCP differs").row()
    assert ok["note"] == "context"
    assert bad["note"] == "context Likely reason: ns-3 TCP differs"


@pytest.mark.parametrize("expected,values,tol,ok", [
    ("a > b > c", {"a": 3, "b": 2, "c": 1}, 0, True),
    ("a > b > c", {"a": 3, "b": 2, "c": 2}, 0, False),
    ("a >= b >= c", {"a": 3, "b": 2, "c": 2}, 0, True),
    ("a < b", {"a": 1, "b": 2}, 0, True),
    ("a < b", {"a": 2, "b": 1}, 0, False),
    ("a > b", {"a": 1.05, "b": 1.0}, 0.1, False),  # strict step needs a 10 % margin
    ("a > b", {"a": 1.2, "b": 1.0}, 0.1, True),
    ("a >= b", {"a": 0.95, "b": 1.0}, 0.1, True),  # weak step accepts a near-tie
    ("b < a > c", {"a": 5, "b": 1, "c": 2}, 0, True),
    ("b < a > c", {"a": 5, "b": 1, "c": 6}, 0, False),
])
def test_ordering(expected, values, tol, ok):
    assert check_ordering(expected, values, tol) is ok


def test_ordering_errors():
    with pytest.raises(KeyError, match="no measured value"):
        check_ordering("a > z", {"a": 1})
    with pytest.raises(ValueError, match="labels separated"):
        check_ordering("a", {"a": 1})


@pytest.mark.parametrize("kw,match", [
    ({"kind": "roughly"}, "is not one of"),
    ({"kind": "in range", "paper": 5}, "needs paper = \\(lo, hi\\)"),
    ({"kind": "ordering", "paper": 5}, "needs paper = 'a > b"),
    ({"kind": "greater", "tolerance": -1}, "tolerance must be"),
])
def test_invalid_claims_are_rejected(kw, match):
    args = {"study": "s", "id": "c", "text": "t", "paper": 1.0, "measured": 1.0,
            "kind": "greater", **kw}
    with pytest.raises(ValueError, match=match):
        Claim(**args)


def test_table_frame_counts_and_csv(tmp_path):
    t = ClaimTable("demo")
    t.add("a", "A holds", 1.0, 2.0, "greater")
    t.add("b", "B holds", 1.0, 0.5, "greater", if_not="because")
    t.add("c", "C", (0, 1), 0.5, "in range", tested=False)
    t.add("d", "D", "x > y", {"x": math.nan, "y": 1}, "ordering")
    with pytest.raises(ValueError, match="appears twice"):
        t.add("a", "again", 1, 1, "greater")
    df = t.to_frame()
    assert list(df.columns) == ["study", "claim", "text", "paper", "measured", "tolerance",
                                "kind", "reproduced", "note"]
    assert list(df.reproduced) == ["yes", "no", NOT_TESTED, NO_DATA]
    assert t.counts() == {"claims": 4, "yes": 1, "no": 1, "not tested": 1, "no data": 1}
    assert "1 reproduced, 1 not reproduced" in t.summary()
    path = t.save(tmp_path / "out")
    assert path == tmp_path / "out" / "claims.csv"
    back = ClaimTable.read(path)
    assert back.equals(df.astype(str)) or list(back.reproduced) == list(df.reproduced)
    assert json.loads(path.with_suffix(".json").read_text())["yes"] == 1
    assert t["b"].row()["note"] == "Likely reason: because"
    assert "<table" in t._repr_html_()


def test_an_interim_table_says_so_in_its_notes_summary_and_counts(tmp_path):
    """A table made while runs were missing (``--stored-only``) carries that in every row's
    note, its summary and its saved counts; the verdicts themselves are unchanged."""
    t = ClaimTable("demo")
    t.add("a", "A holds", 1.0, 2.0, "greater", note="margin 1")
    t.add("b", "B", 1.0, math.nan, "greater")
    plain = t.to_frame()
    t.interim = "interim: 3 of 10 runs not yet simulated"
    df = t.to_frame()
    assert list(df.reproduced) == list(plain.reproduced) == ["yes", NO_DATA]
    assert list(df.note) == ["Interim: 3 of 10 runs not yet simulated. margin 1",
                             "Interim: 3 of 10 runs not yet simulated."]
    assert t.summary().startswith("demo (interim: 3 of 10 runs not yet simulated): 2 claims")
    saved = json.loads(t.save(tmp_path).with_suffix(".json").read_text())
    assert saved["interim"] == t.interim and saved["yes"] == 1


def test_profile_overrides_and_which_claims_a_profile_decides():
    from aqmlab.studies import ecn_bulk, tail_drop

    p = ecn_bulk.profile("quick", qls=[8, 64], seeds=None)
    assert p.qls == (8, 64) and p.seeds == (1,)
    with pytest.raises(KeyError, match="has no parameter 'bogus'"):
        ecn_bulk.profile("quick", bogus=1)
    with pytest.raises(ValueError, match="unknown profile"):
        ecn_bulk.profile("huge")
    with pytest.raises(ValueError, match="unknown schemes \\[.red.\\]"):
        ecn_bulk.profile("quick", schemes=["dt", "red"])
    profiles = {c.id: c.profiles for c in tail_drop.CLAIMS.specs()}
    assert profiles["C-98-short-small-q"] == ("quick", "full")
    assert profiles["C-drops-vs-qlen-{load}"] == ("quick", "full")  # every load's instance
    assert profiles["C-B4-{load}-{qlen}-median"] == ("full",)
    assert not any("tiny" in p for p in profiles.values())


def test_crossings_and_share_faster():
    t = np.arange(0, 1000, 1.0)
    fa = np.clip(t / 800, 0, 1)            # A: uniform to 800 ms
    fb = np.clip(0.3 + t / 2000, 0, 1)     # B: faster start, slower tail
    xs = crossings(t, fa, fb)
    assert len(xs) == 1
    tc, fc = xs[0]
    assert tc == pytest.approx(400, abs=1) and fc == pytest.approx(0.5, abs=0.01)
    share = share_faster(t, fa, fb)        # A is faster above the crossing level, 0.5
    assert share == pytest.approx(0.5, abs=0.02)
    assert share_faster(t, fa, fa) == 0.0  # a tie is not "faster"


def test_cdf_grid_uses_the_given_denominator():
    f = cdf_grid(np.array([10.0, 20.0, 30.0]), np.array([0.0, 15.0, 30.0, 100.0]), total=6)
    assert list(f) == [0.0, 1 / 6, 0.5, 0.5]


def test_stack_skips_empty_parts_and_keeps_the_columns_of_an_empty_result():
    a = pd.DataFrame({"x": [1, 2]})
    none = pd.DataFrame({"x": pd.Series([], dtype=object), "y": pd.Series([], dtype=float)})
    both = stack([none, a, pd.DataFrame({"x": [3]})])
    assert list(both["x"]) == [1, 2, 3] and list(both.columns) == ["x"]
    assert both["x"].dtype == np.int64  # the empty part's object dtype did not leak in
    assert list(stack([none]).columns) == ["x", "y"] and len(stack([none])) == 0
    assert list(stack([], ["key", "seed"]).columns) == ["key", "seed"]


def test_arms_zip_fills_unchanged_paths_from_the_base():
    from aqmlab.scenario import Scenario

    base = Scenario()
    z = arms_zip(base, {"a": {"tcp.variant": "sack"}, "b": {"tcp.ecn": True}})
    assert z["name"] == ["a", "b"]
    assert z["tcp.variant"] == ["sack", base.tcp.variant]
    assert z["tcp.ecn"] == [base.tcp.ecn, True]


def test_save_figure_writes_png_svg_and_data(tmp_path):
    from aqmlab.studies import plots

    cdf = pd.DataFrame({"response_time_ms": np.tile(np.arange(0, 1500, 10.0), 2),
                        "name": ["x"] * 150 + ["uncongested"] * 150})
    cdf["cdf"] = np.tile(np.linspace(0, 1, 150), 2)
    cdf["ccdf"] = 1 - cdf.cdf
    plots.response_cdf(cdf, tmp_path, "cdf")
    for ext in ("png", "svg", "csv"):
        assert (tmp_path / f"cdf.{ext}").stat().st_size > 500
    plots.empty_figure(tmp_path, "none", "nothing here")
    assert (tmp_path / "none.png").stat().st_size > 0


def test_adder_marks_claims_untested_unless_the_profile_tests_them_and_runs_exist():
    t = ClaimTable("s")
    add = t.adder(lambda cid: cid != "skip")
    add("a", "x", 1.0, 1.0, "abs within", 0.1)
    add("skip", "x", 1.0, 1.0, "abs within", 0.1)
    add("b", "x", 1.0, 1.0, "abs within", 0.1, runs=False)
    assert [c.reproduced for c in t] == ["yes", NOT_TESTED, NOT_TESTED]


def test_multiple_bottlenecks_repeats_its_claims_per_reading(tmp_path):
    """The full profile runs two readings of the cross traffic x two ARED modes; each
    reading's claims are decided on its own rows only (drop-tail rows are shared by both
    modes), ids tagged @x7.5 / @byte / @x7.5-byte, and all show in the figure."""
    from aqmlab.studies import multiple_bottlenecks as mb

    peaks = {(15.0, "packet"): "R1", (7.5, "packet"): "R0", (15.0, "byte"): "R0",
             (7.5, "byte"): "R3"}  # where ARED's drops peak under each reading
    rows = []
    for (cross, mode), peak in peaks.items():
        for name in ("reno-dt", "sack-ecn-ared"):
            if name == "reno-dt" and mode == "byte":
                continue  # drop-tail runs once per cross load
            for load in (60, 75):
                for router in mb.ROUTERS:
                    drop = 1.0 + (name == "sack-ecn-ared") + (router == peak) + load / 100
                    marks = 1.5 * (name == "sack-ecn-ared" and router == "R0")
                    rows.append({"router": router, "avg_qlen_pkts": 10.0, "drop_pct": drop,
                                 "drop_mark_pct": drop + marks,
                                 "name": name, "load_pct": load, "cross_pct": cross,
                                 "ared_mode": mode if name == "sack-ecn-ared" else ""})
    data = {"routers": pd.DataFrame(rows)}
    p = mb.profile("full")
    assert p.cross_loads == (0.15, 0.075) and p.ared_modes == ("packet", "byte")
    t = mb.claims(data, p)
    assert len(t) == 52
    assert t["V-drops-peak-ared"].reproduced == "no"        # 15 %, packet: peak at R1
    assert t["V-drops-peak-ared@x7.5"].reproduced == "yes"  # 7.5 %, packet: peak at R0
    assert t["V-drops-peak-ared@byte"].reproduced == "yes"  # 15 %, byte: peak at R0
    assert t["V-drops-peak-ared@x7.5-byte"].reproduced == "no"
    # marks counted as drops (ECN marks only at R0 here) move the 15 %-packet peak to R0
    assert t["V-drops-peak-ared-marks"].reproduced == "yes"
    assert "R0/R1/R3: 4.25/3.75/2.75" in t["V-drops-peak-ared-marks"].note
    assert t["V-drops-peak-ared-marks@x7.5-byte"].reproduced == "yes"
    assert t["V-drops-peak-dt@byte"].reproduced == t["V-drops-peak-dt"].reproduced
    assert t["V-drops-peak-ared@x7.5"].text.startswith("[cross traffic 7.5 % per link]")
    assert t["V-drops-peak-ared@x7.5-byte"].text.startswith(
        "[cross traffic 7.5 % per link; ARED in byte mode]")
    assert "byte mode" in t["V-drops-peak-ared@byte"].if_not
    assert t["V-rt-75@x7.5"].reproduced == "no data"        # no response-time table given
    quick = mb.claims(data, mb.profile("quick"))
    assert len(quick) == 13 and not any("@" in c.id for c in quick)
    other = mb.claims(data, mb.profile("quick", cross_loads=[0.075]))
    assert [c.id for c in other][5] == "V-drops-peak-ared@x7.5"
    only_byte = {"routers": data["routers"][data["routers"].ared_mode != "packet"]}
    assert set(mb.primary(only_byte, "routers").ared_mode) == {"byte", ""}
    assert set(mb.primary(data, "routers").ared_mode) == {"packet", ""}
    assert set(mb.primary(data, "routers").cross_pct) == {15.0}
    mb.fig_readings(data, tmp_path)
    shown = pd.read_csv(tmp_path / "readings.csv")
    assert set(shown.cross_pct) == {15.0, 7.5} and set(shown.load_pct) == {75}
    assert set(shown.ared_mode.dropna()) == {"packet", "byte"}  # drop-tail rows: empty
    assert {"drop_pct", "drop_mark_pct"} <= set(shown.columns)


def test_drift_compares_the_first_and_last_third_of_the_responses_in_start_order():
    from aqmlab.studies.common import _drift

    # 9 responses started 0..8 s, shuffled: the first third take 100 ms, the last 400 ms
    done = pd.DataFrame({"start_s": [8, 0, 4, 1, 7, 2, 3, 6, 5],
                         "response_time_s": [0.4, 0.1, 0.2, 0.1, 0.4, 0.1, 0.2, 0.4, 0.2]})
    t, rt = done.start_s.to_numpy(), done.response_time_s.to_numpy() * 1000.0
    d = _drift(t, rt)
    assert d == {"median_early_ms": pytest.approx(100), "median_late_ms": pytest.approx(400)}
    assert math.isnan(_drift(t[:2], rt[:2])["median_late_ms"])


def test_ecn_sack_web_drift_table_keeps_the_high_loads_and_divides_late_by_early():
    from aqmlab.studies import ecn_sack_web

    stats = pd.DataFrame({
        "series": ["two-way"] * 3 + ["one-way"], "load_pct": [80, 105, 105, 105],
        "name": ["a", "a", "a", "a"], "median_early_ms": [200, 300, 500, 1.0],
        "median_late_ms": [200, 900, 1100, 1.0], "open_sockets_end": [10, 100, 300, 1]})
    t = ecn_sack_web.drift({"stats": stats})
    assert t.load_pct.tolist() == [105]  # 80 % is below min_load; one-way is not counted
    row = t.iloc[0]
    assert (row.median_early_ms, row.median_late_ms, row.open_sockets_end) == (400, 1000, 200)
    assert row.late_over_early == pytest.approx(2.5)
    assert ecn_sack_web.drift({"stats": stats.drop(columns="median_late_ms")}).empty


def test_in_progress_is_the_time_average_of_responses_open_in_the_window():
    from aqmlab.studies.common import _in_progress

    # window [10, 20] s: one response over all of it (10 s), one started before and ended
    # at 15 (5 s), one started at 18 and unfinished (2 s), one ended before (0 s)
    start = np.array([5.0, 0.0, 18.0, 1.0])
    end = np.array([25.0, 15.0, np.nan, 9.0])
    assert _in_progress(start, end, 10.0, 20.0) == pytest.approx((10 + 5 + 2) / 10)
    assert math.isnan(_in_progress(start, end, 20.0, 20.0))


def test_drift_table_divides_the_pipe_by_the_responses_in_progress():
    from aqmlab.studies import ecn_sack_web

    stats = pd.DataFrame({
        "series": ["two-way"] * 2, "load_pct": [105, 105], "name": ["a", "a"],
        "median_early_ms": [300, 500], "median_late_ms": [900, 1100],
        "open_sockets_end": [100, 300], "in_progress": [100.0, 300.0],
        "wc_pkts": [80.0, 80.0]})
    row = ecn_sack_web.drift({"stats": stats}).iloc[0]
    assert row.in_progress == 200 and row.wc_per_response == pytest.approx(0.4)
