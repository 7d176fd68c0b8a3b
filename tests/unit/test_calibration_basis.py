"""``PackMime.calibrate_on``: which load column of a calibration table gives the rate, its
validation, and that the default leaves scenario hashes unchanged (no ns-3)."""

from __future__ import annotations

import pandas as pd
import pytest

from aqmlab.errors import ScenarioError
from aqmlab.scenario import PackMime
from aqmlab.workload.calibration import rate_for_load

# rates fitted on the expected load; the calibration runs measured 80 % of it
TABLE = pd.DataFrame({"load": [0.5, 0.8, 1.05], "rate": [60.0, 96.0, 126.0],
                      "measured_load": [0.40, 0.64, 0.84],
                      "expected_load": [0.5, 0.8, 1.05]})


@pytest.fixture
def table(tmp_path):
    path = tmp_path / "cal.csv"
    TABLE.to_csv(path, index=False)
    return str(path)


def group(table: str, **kw) -> PackMime:
    """The group with its rate read from ``table`` (construction reads no file)."""
    g = PackMime(senders=[0], receivers=[0], load=0.8, calibration=table, **kw)
    assert g.rate is None
    return g.resolved()


def test_expected_basis_reads_the_load_column(table):
    assert rate_for_load(table, 0.8) == pytest.approx(96.0)
    assert group(table).rate == pytest.approx(96.0)


def test_measured_basis_asks_the_rate_that_measured_the_load(table):
    # interpolated in the measured column: 0.64 -> 96, 0.84 -> 126
    assert rate_for_load(table, 0.74, basis="measured") == pytest.approx(111.0)
    # 0.8 measured lies between 0.64 and 0.84: 96 + 0.16 / 0.2 x 30
    assert group(table, calibrate_on="measured").rate == pytest.approx(120.0)


def test_measured_basis_extrapolates_with_the_fitted_slope(table):
    # 1.05 measured is beyond the table: rate = load x slope (150 conn/s per unit load)
    assert rate_for_load(table, 1.05, basis="measured") == pytest.approx(157.5)


def test_measured_basis_needs_the_measured_column(tmp_path):
    path = tmp_path / "old.csv"
    TABLE[["load", "rate"]].to_csv(path, index=False)
    with pytest.raises(ScenarioError, match="measured_load"):
        group(str(path), calibrate_on="measured")


def test_unknown_basis_and_basis_without_a_table_fail(table):
    with pytest.raises(ScenarioError, match="calibrate_on = 'guess' is invalid"):
        group(table, calibrate_on="guess")
    with pytest.raises(ScenarioError, match="needs load and a calibration table"):
        PackMime(senders=[0], receivers=[0], rate=90.0, calibrate_on="measured")


def test_default_basis_is_left_out_of_the_dict(table):
    assert "calibrate_on" not in group(table).to_dict()  # hashes of older scenarios hold
    assert group(table, calibrate_on="measured").to_dict()["calibrate_on"] == "measured"
