"""The result store and the sweep's bookkeeping, with a fake executor (no ns-3)."""

from __future__ import annotations

import json
import os
import time

import numpy as np
import pandas as pd
import pytest

from aqmlab.campaign import Store, StoreWarning, estimate_cost, sweep
from aqmlab.campaign.executors import Job
from aqmlab.errors import StoreError
from aqmlab.results.results import Results
from aqmlab.scenario import Bulk, Dumbbell, RunControl, Scenario
from aqmlab.workers.pool import Outcome


def base() -> Scenario:
    return Scenario(name="fake", topology=Dumbbell(senders=2), traffic=[Bulk(flows=2)],
                    run=RunControl(duration="2s"))


def fake_results(sc: Scenario) -> Results:
    n = sc.traffic[0].flows
    g = np.full(n, 1.0 + sc.run.seed / 10)
    flows = pd.DataFrame({"flow": np.arange(n), "goodput_mbps": g})
    queues = pd.DataFrame({"queue": ["R0->R1"], "drops": [n]})
    links = pd.DataFrame({"link": ["R0->R1"], "utilisation": [0.9]})
    ts = pd.DataFrame({"time_s": np.arange(3.0), "queue": "R0->R1", "qlen_pkts": [0.0, 1, 2]})
    summary = pd.DataFrame([{"scenario": sc.name, "scenario_hash": sc.hash,
                             "seed": sc.run.seed, "run": sc.run.run, "flows": n,
                             "goodput_mbps": float(g.sum()), "drops": n,
                             "wall_s": sc.run.duration_s / 100}])
    return Results(sc, flows, queues, links, ts, summary,
                   meta={"seed": sc.run.seed, "run": sc.run.run, "pid": os.getpid(),
                         "created": "2026-01-01T00:00:00+00:00"})


class FakeExecutor:
    """Runs nothing: answers each job at once; ``fail`` maps key -> status."""

    def __init__(self, fail: dict[str, str] | None = None) -> None:
        self.fail = fail or {}
        self.ran: list[str] = []
        self.jobs: list[Job] = []

    def run(self, jobs):
        for job in jobs:
            self.ran.append(job.key)
            self.jobs.append(job)
            status = self.fail.get(job.key)
            if status:
                yield Outcome(job.key, status, error="the worker process died (signal SIGABRT)",
                              stderr='noise\nmsg="Bad attribute", +0s -1 file=x.cc, line=1\n',
                              wall_s=0.5)
            else:
                yield Outcome(job.key, "ok", results=fake_results(job.scenario), wall_s=0.01)

    def close(self):
        pass


GRID = {"traffic[0].flows": [2, 4]}


def run(store, ex, **kw):
    return sweep(base(), grid=GRID, seeds=[1, 2], store=store, executor=ex, progress=False,
                 **kw)


def test_sweep_table_then_everything_cached(tmp_path):
    ex = FakeExecutor()
    res = run(tmp_path, ex)
    t = res.table
    assert list(t.columns[:6]) == ["traffic[0].flows", "seed", "key", "status", "source",
                                   "scenario"]
    assert t.columns[-1] == "error"
    assert t["traffic[0].flows"].tolist() == [2, 2, 4, 4] and t.seed.tolist() == [1, 2, 1, 2]
    assert (t.status == "ok").all() and (t.source == "ran").all()
    assert t.goodput_mbps.tolist() == pytest.approx([2.2, 2.4, 4.4, 4.8])
    assert res.counts == {"total": 4, "ran": 4, "cached": 0, "failed": 0, "corrupt": 0,
                          "missing": 0}
    # every run's full results
    assert res.results(2).flows.shape[0] == 4
    assert res.results(t.key[0]).scenario.traffic[0].flows == 2
    assert [p["seed"] for p, _ in res] == [1, 2, 1, 2]

    ex2 = FakeExecutor()
    again = run(tmp_path, ex2)
    assert ex2.ran == [] and again.counts["cached"] == 4 and again.counts["ran"] == 0
    assert (again.table.source == "cached").all()
    pd.testing.assert_frame_equal(again.table.drop(columns="source"),
                                  t.drop(columns="source"))


def test_longest_expected_first(tmp_path):
    ex = FakeExecutor()
    sweep(base(), grid={"run.duration": ["1s", "30s", "5s"], "traffic[0].flows": [1, 8]},
          store=tmp_path, executor=ex, progress=False)
    costs = [j.cost for j in ex.jobs]
    assert costs == sorted(costs, reverse=True)
    assert costs == [estimate_cost(j.scenario) for j in ex.jobs]  # nothing measured yet
    first = ex.jobs[0].scenario
    assert first.run.duration == "30s" and first.traffic[0].flows == 8


def test_measured_times_order_new_seeds(tmp_path):
    # runs stored earlier tell the real cost: the cheap-looking arm was the slow one
    store = Store(tmp_path)
    for flows, wall in ((1, 100.0), (8, 1.0)):
        res = fake_results(base().replace(**{"traffic[0].flows": flows}))
        res.summary["wall_s"] = wall
        store.put(res)
    ex = FakeExecutor()
    sweep(base(), grid={"traffic[0].flows": [1, 8]}, seeds=[2], store=store, executor=ex,
          progress=False)
    assert ex.jobs[0].scenario.traffic[0].flows == 1


def test_corrupt_or_truncated_entry_is_reported_and_rerun(tmp_path):
    res = run(tmp_path, FakeExecutor())
    store = res.store
    victim, other, third = res.table.key[1], res.table.key[2], res.table.key[3]
    f = store.path(victim) / "flows.parquet"
    f.write_bytes(f.read_bytes()[:-20])  # truncated
    g = store.path(other) / "queues.parquet"
    data = bytearray(g.read_bytes())
    data[len(data) // 2] ^= 0xFF  # same size, one bit pattern flipped
    g.write_bytes(bytes(data))
    (store.path(third) / "meta.json").unlink()
    assert store.check(victim)[0] == "corrupt" and store.check(other)[0] == "corrupt"
    with pytest.raises(StoreError, match="truncated"):
        store.load(victim)
    ex = FakeExecutor()
    with pytest.warns(StoreWarning, match="corrupt"):
        again = run(tmp_path, ex)
    assert sorted(ex.ran) == sorted([victim, other, third])
    assert again.counts["corrupt"] == 3 and again.counts["cached"] == 1
    assert all(store.check(k)[0] == "ok" for k in again.table.key)


def test_half_written_staging_folder_is_invisible(tmp_path):
    store = Store(tmp_path)
    sc = base()
    staging = store.runs_dir / f".{sc.key}.123.abcd.staging"
    staging.mkdir(parents=True)
    (staging / "flows.parquet").write_bytes(b"PAR1")
    assert store.check(sc.key)[0] == "missing" and store.keys() == []
    assert store.ls().empty
    old = time.time() - 7200
    os.utime(staging, (old, old))
    assert store.clean() == 1 and not staging.exists()


def test_failures_are_recorded_reported_and_not_rerun_unless_asked(tmp_path):
    keys = run(tmp_path, FakeExecutor({})).table.key.tolist()
    Store(tmp_path).delete({"key": keys[1:3]})
    ex = FakeExecutor({keys[1]: "crashed", keys[2]: "timeout"})
    res = run(tmp_path, ex, timeout=5)
    t = res.table.set_index("key")
    assert t.loc[keys[1], "status"] == "crashed" and t.loc[keys[2], "status"] == "timeout"
    assert "ns-3: Bad attribute" in t.loc[keys[1], "error"]
    assert np.isnan(t.loc[keys[1], "goodput_mbps"])
    assert res.counts["failed"] == 2 and res.counts["ran"] == 2
    rec = res.store.failure(keys[1])
    assert rec["status"] == "crashed" and "Bad attribute" in rec["stderr"]
    assert rec["scenario"]["traffic"][0]["flows"] == 2

    ex = FakeExecutor()
    res = run(tmp_path, ex, timeout=5)  # recorded failures are not re-run...
    assert ex.ran == [] and res.counts["failed"] == 2
    ex = FakeExecutor()
    run(tmp_path, ex, timeout=50)  # ...except a timeout when the limit grew
    assert ex.ran == [keys[2]]
    ex = FakeExecutor()
    res = run(tmp_path, ex, retry_failed=True)
    assert ex.ran == [keys[1]] and (res.table.status == "ok").all()
    assert res.store.failure(keys[1]) is None  # success clears the record


def test_ls_queries_load_and_delete(tmp_path):
    res = run(tmp_path, FakeExecutor({}))
    store = res.store
    df = store.ls()
    assert len(df) == 4 and list(df.columns[:3]) == ["key", "status", "name"]
    assert {"goodput_mbps", "traffic[0].flows", "topology.bottleneck.rate"} <= set(df.columns)
    assert len(store.ls({"traffic[0].flows": 4})) == 2
    assert len(store.ls({"traffic[0].flows": [2, 4], "seed": 1})) == 2
    assert len(store.ls("`traffic[0].flows` == 4 and seed == 2")) == 1
    assert len(store.ls(lambda d: d.goodput_mbps > 4)) == 2
    key = res.table.key[0]
    assert store.ls(key[:6])["key"].str.startswith(key[:6]).all()
    with pytest.raises(StoreError, match="invalid query"):
        store.ls("flows ==")
    with pytest.raises(StoreError, match="no column"):
        store.ls({"nope": 1})
    assert store.load(key).scenario.key == key
    with pytest.raises(StoreError, match="ambiguous"):
        store.load(key.split("-")[0])
    assert store.delete({"seed": 2}) and len(store.ls()) == 2
    # a run stored by an older aqmlab/ns-3 version stays readable, under its own namespace
    old = Store(tmp_path, version="0.0.1-3.43")
    old.put(fake_results(base().replace(**{"traffic[0].flows": 3})))
    assert len(store.ls()) == 2 and len(store.ls(all_versions=True)) == 3
    k3 = old.keys()[0]
    assert k3 not in store and store.load(k3).scenario.traffic[0].flows == 3


def test_put_replaces_atomically_and_manifest_lists_files(tmp_path):
    store = Store(tmp_path)
    sc = base()
    d = store.put(fake_results(sc), params={"x": 1})
    manifest = json.loads((d / "manifest.json").read_text())
    assert {"meta.json", "flows.parquet", "summary.parquet"} <= set(manifest["files"])
    assert manifest["params"] == {"x": 1} and manifest["summary"]["flows"] == 2
    res = fake_results(sc)
    res.summary["goodput_mbps"] = 99.0
    store.put(res)
    assert store.summary(sc.key)["goodput_mbps"] == 99.0
    assert [p.name for p in store.runs_dir.iterdir()] == [sc.key]  # no leftovers
