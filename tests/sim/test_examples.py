"""Acceptance: `aqmlab run examples/<each>.toml --out DIR` works and aqmlab.load reads it back."""

from __future__ import annotations

import subprocess
import sys

import pytest

import aqmlab
from tests.conftest import EXAMPLES

pytestmark = pytest.mark.ns3


@pytest.mark.parametrize("example", sorted(p.stem for p in EXAMPLES.glob("*.toml")))
def test_cli_run_and_load(tmp_path, example):
    out = tmp_path / example
    proc = subprocess.run(
        [sys.executable, "-m", "aqmlab", "run", str(EXAMPLES / f"{example}.toml"),
         "--out", str(out), "--duration", "4s"],
        capture_output=True, text=True, cwd=tmp_path, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    res = aqmlab.load(out)
    sc = aqmlab.Scenario.load(EXAMPLES / f"{example}.toml")
    assert res.scenario.name == sc.name
    assert len(res.flows) == sc.n_flows
    assert res.summary.iloc[0].end_s == pytest.approx(4.0)
    delivered = res.flows.bytes_delivered.sum() + res.requests.response_bytes[
        res.requests.completed].sum()
    assert delivered > 0
    for key in ("aqmlab_version", "ns3_version", "seed", "wall_s", "events"):
        assert key in res.meta
