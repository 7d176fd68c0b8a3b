"""Results on disk: atomic, complete or rejected."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from aqmlab.errors import StoreError
from aqmlab.results.results import Results, load
from aqmlab.scenario import Scenario


def tiny_results() -> Results:
    sc = Scenario(name="store-test")
    flows = pd.DataFrame({"flow": [0, 1], "goodput_mbps": [1.5, 2.5]})
    queues = pd.DataFrame({"queue": ["R0->R1"], "drops": [3]})
    links = pd.DataFrame({"link": ["R0->R1"], "utilisation": [0.9]})
    ts = pd.DataFrame({"time_s": np.arange(3.0), "queue": "R0->R1", "qlen_pkts": [0.0, 1, 2]})
    summary = pd.DataFrame([{"scenario": sc.name, "goodput_mbps": 4.0}])
    return Results(sc, flows, queues, links, ts, summary, meta={"seed": 1, "events": 10})


def test_round_trip(tmp_path):
    res = tiny_results()
    res.save(tmp_path / "run")
    back = load(tmp_path / "run")
    assert back.scenario == res.scenario
    pd.testing.assert_frame_equal(back.flows, res.flows)
    assert back.meta["events"] == 10 and back.meta["schema_version"] == 1
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no leftovers


def test_overwrite_replaces_whole_run(tmp_path):
    res = tiny_results()
    res.save(tmp_path / "run")
    res.flows = res.flows.assign(goodput_mbps=[9.0, 9.0])
    res.save(tmp_path / "run")
    assert load(tmp_path / "run").flows.goodput_mbps.tolist() == [9.0, 9.0]


def test_incomplete_or_corrupt_runs_are_rejected(tmp_path):
    res = tiny_results()
    d = res.save(tmp_path / "run")
    (d / "flows.parquet").write_bytes(b"PAR1 truncated")
    with pytest.raises(StoreError, match="flows"):
        load(d)
    (d / "meta.json").unlink()
    with pytest.raises(StoreError, match="meta.json"):
        load(d)


def test_newer_schema_is_refused(tmp_path):
    d = tiny_results().save(tmp_path / "run")
    meta = json.loads((d / "meta.json").read_text())
    meta["schema_version"] = 99
    (d / "meta.json").write_text(json.dumps(meta))
    with pytest.raises(StoreError, match="newer"):
        load(d)


def test_failed_write_leaves_nothing(tmp_path, monkeypatch):
    res = tiny_results()

    def boom(*a, **k):
        raise OSError("disk full")

    monkeypatch.setattr(pd.DataFrame, "to_parquet", boom)
    with pytest.raises(OSError):
        res.save(tmp_path / "run")
    assert list(tmp_path.iterdir()) == []
