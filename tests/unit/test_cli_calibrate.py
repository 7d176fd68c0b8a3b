"""``aqmlab calibrate``: load parsing, argument errors and output, without ns-3 (the
calibration itself is replaced by a stub; tests/sim/test_calibration.py runs it for real)."""

from __future__ import annotations

import argparse

import pandas as pd
import pytest

from aqmlab.cli import main, parse_loads
from aqmlab.scenario import Bulk, Dumbbell, PackMime, RunControl, Scenario


@pytest.mark.parametrize(
    ("text", "loads"),
    [
        ("50,80,90,98,105", [0.5, 0.8, 0.9, 0.98, 1.05]),  # percentages
        (" 20 , 40 ", [0.2, 0.4]),
        ("0.5,0.8,1.05", [0.5, 0.8, 1.05]),  # every value <= 2: fractions
        ("1,2", [1.0, 2.0]),
        ("1,50", [0.01, 0.5]),  # one value > 2: all are percentages
        ("80", [0.8]),
    ],
)
def test_loads_are_percentages_or_fractions(text, loads):
    assert parse_loads(text) == pytest.approx(loads)


def test_exact_fractions_for_round_percentages():
    assert parse_loads("20,40") == [0.2, 0.4]


@pytest.mark.parametrize("text", ["", "50,,80", "0", "-5,50", "nan", "inf,50", "abc", "50%"])
def test_bad_loads_are_rejected(text):
    with pytest.raises(argparse.ArgumentTypeError, match="invalid load value"):
        parse_loads(text)


def test_cli_error_names_the_option_and_the_values(capsys, tmp_path):
    path = tmp_path / "web.toml"
    web_scenario().save(path)
    with pytest.raises(SystemExit) as exit_:
        main(["calibrate", str(path), "--loads", "0,abc"])
    assert exit_.value.code == 2  # as every argparse error
    err = capsys.readouterr().err
    assert "argument --loads" in err
    assert "'0', 'abc'" in err and "'0,abc'" in err


def web_scenario(**changes) -> Scenario:
    return Scenario(name="tiny web", topology=Dumbbell(senders=1, receivers=1),
                    traffic=[Bulk(flows=1), PackMime(rate=5)],
                    run=RunControl(duration="60s", warmup="10s", stop_after_responses=100))


@pytest.fixture
def fake(monkeypatch):
    """Replace the engine and the calibration; record what the CLI passes."""
    import aqmlab.campaign.calibrate as cal

    seen: dict = {}

    def calibrate(scenario, loads, group=0, runner=None, workers=None, out=None):
        seen.update(scenario=scenario, loads=list(loads), group=group, workers=workers,
                    out=out)
        table = pd.DataFrame({"load": loads, "rate": [100 * x for x in loads],
                              "measured_load": [x + 0.01 for x in loads],
                              "expected_load": loads})
        out.parent.mkdir(parents=True, exist_ok=True)
        table.to_csv(out, index=False)
        return table

    monkeypatch.setattr(cal, "calibrate", calibrate)
    return seen


def test_cli_passes_loads_group_engine_and_default_out(fake, tmp_path, capsys):
    path = tmp_path / "web.toml"
    web_scenario().save(path)
    assert main(["calibrate", str(path), "--loads", "50,80", "--group", "1",
                 "--workers", "1"]) == 0
    assert fake["loads"] == [0.5, 0.8] and fake["group"] == 1 and fake["workers"] == 1
    assert fake["out"] == tmp_path / "calibration" / "tiny_web.csv"
    assert fake["scenario"].run.duration == "60s"  # no --duration: the scenario's own
    assert fake["scenario"].run.stop_after_responses == 100
    out = capsys.readouterr().out
    assert "load_%" in out and "rate_conn/s" in out and "measured_%" in out
    assert "deviation_pp" in out and "expected_%" in out
    assert "  1.0" in out  # 0.51 measured for 0.50 nominal: +1.0 percentage points
    assert f"wrote {tmp_path / 'calibration' / 'tiny_web.csv'}" in out
    assert 'calibration = "calibration/tiny_web.csv"' in out and "load = 0.5" in out


def test_cli_duration_overrides_run_control(fake, tmp_path):
    path = tmp_path / "web.toml"
    web_scenario().save(path)
    out = tmp_path / "elsewhere" / "t.csv"
    assert main(["calibrate", str(path), "--loads", "0.3", "--group", "1",
                 "--duration", "200s", "--out", str(out)]) == 0
    run = fake["scenario"].run
    assert run.duration == "200s" and run.stop_after_responses is None
    assert fake["out"] == out and fake["workers"] is None


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--group", "0"], "--group = 0 is invalid: the index of a PackMime traffic group"),
        (["--group", "1", "--duration", "soon"], "--duration = 'soon' is invalid"),
        (["--group", "1", "--workers", "0"], "--workers = 0 is invalid"),
    ],
)
def test_cli_bad_options_fail_before_running(fake, tmp_path, capsys, args, message):
    path = tmp_path / "web.toml"
    web_scenario().save(path)
    assert main(["calibrate", str(path), "--loads", "50", *args]) == 2
    assert message in capsys.readouterr().err
    assert "loads" not in fake  # nothing ran
