"""Sweeps on real ns-3: local worker pool, caching, crash/timeout isolation, Dask, SIGKILL."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time

import pandas as pd
import pytest

from aqmlab.campaign import Store, Sweep, sweep
from aqmlab.scenario import Bulk, Dumbbell, Link, Red, RunControl, Scenario
from aqmlab.workers.worker import TEST_ABORT_ENV

pytestmark = pytest.mark.ns3

GRID = {"tcp.variant": ["newreno", "cubic"], "traffic[0].flows": [2, 4]}
SEEDS = [1, 2]
#: Columns that legitimately differ between two executions of the same run.
VOLATILE = ["source", "wall_s", "run_cpu_s"]


def tiny(duration: str = "2s") -> Scenario:
    return Scenario(
        name="sweep-test",
        topology=Dumbbell(senders=2, sender_delays=["1ms", "10ms"],
                          bottleneck=Link(rate="5Mbps", delay="10ms"),
                          forward_queue=Red(limit="50p", min_th=5, max_th=15)),
        traffic=[Bulk(flows=2, start_spread="0.5s")],
        run=RunControl(duration=duration, sample_interval="100ms"))


#: The scenario the test hook makes ns-3 abort on (NS_FATAL_ERROR inside ns-3).
ABORTS = tiny("3s")


@pytest.fixture(scope="module", autouse=True)
def _abort_hook():
    """Set before any worker (local or Dask) starts, so that every worker inherits it."""
    old = os.environ.get(TEST_ABORT_ENV)
    os.environ[TEST_ABORT_ENV] = ABORTS.key
    yield
    if old is None:
        os.environ.pop(TEST_ABORT_ENV, None)
    else:
        os.environ[TEST_ABORT_ENV] = old


@pytest.fixture(scope="module")
def local(tmp_path_factory):
    store = tmp_path_factory.mktemp("local-store")
    return sweep(tiny(), grid=GRID, seeds=SEEDS, store=store, workers=2, progress=False)


def stable(table: pd.DataFrame) -> pd.DataFrame:
    return table.drop(columns=[c for c in VOLATILE if c in table.columns]).reset_index(drop=True)


def test_local_sweep_runs_every_point_then_everything_is_cached(local):
    t = local.table
    assert local.counts["ran"] == 8 and local.counts["failed"] == 0
    assert (t.status == "ok").all() and (t.source == "ran").all()
    assert list(t.columns[:5]) == ["tcp.variant", "traffic[0].flows", "seed", "key", "status"]
    assert t.events.gt(0).all() and t.goodput_mbps.between(1, 5.1).all()
    res = local.results(3)
    assert res.scenario.tcp.variant == "newreno" and len(res.flows) == 4
    assert res.meta["aqmlab_version"] and res.meta["ns3_version"].startswith("3.44")

    again = sweep(tiny(), grid=GRID, seeds=SEEDS, store=local.store, workers=2, progress=False)
    assert again.counts["ran"] == 0 and again.counts["cached"] == 8
    pd.testing.assert_frame_equal(stable(again.table), stable(t))


def test_stored_only_runs_nothing_and_marks_what_the_store_lacks(local):
    """``run_missing=False`` (``aqmlab figures --stored-only``): stored points are read, the
    others are rows with status ``missing``; the store is unchanged. A stored-only study
    context counts them and labels its claim table interim."""
    from aqmlab.studies.claims import ClaimTable
    from aqmlab.studies.common import context

    grid = {**GRID, "traffic[0].flows": [2, 4, 6]}
    before = local.store.keys()
    res = sweep(tiny(), grid=grid, seeds=SEEDS, store=local.store, run_missing=False,
                progress=False)
    t = res.table
    assert (res.counts["ran"], res.counts["cached"], res.counts["missing"]) == (0, 8, 4)
    new = t["traffic[0].flows"] == 6
    assert set(t[new].status) == {"missing"} and set(t[new].error) == {"not in the store"}
    assert (t[~new].status == "ok").all() and len(res.ok) == 8
    assert local.store.keys() == before

    with context(store=local.store, stored_only=True, progress=False) as ctx:
        assert len(ctx.sweep(tiny(), name="stored-only", grid=grid, seeds=SEEDS).ok) == 8
    assert (ctx.planned, ctx.missing) == (12, 4) and ctx._executor is None
    marked = ctx.mark_interim(ClaimTable("demo"))
    assert marked.interim.startswith("interim: 4 of 12 runs not yet simulated")
    assert local.store.keys() == before


def test_same_run_in_another_worker_process_is_identical(local, simulate):
    """Determinism across workers: the pool's runs equal a run in this process."""
    row = local.table.iloc[5]
    mine = simulate(local.scenario(row.key))
    stored = local.results(row.key)
    assert stored.meta["pid"] != os.getpid()
    for table in ("flows", "queues", "links", "queue_ts"):
        pd.testing.assert_frame_equal(stored.table(table), mine.table(table))


def test_abort_and_timeout_are_recorded_and_do_not_stop_the_sweep(tmp_path):
    res = sweep(tiny(), grid={"run.duration": ["2s", "3s", "5000s"]}, store=tmp_path,
                workers=2, timeout=6, progress=False)
    t = res.table.set_index("run.duration")
    assert t.loc["2s", "status"] == "ok" and t.loc["2s", "goodput_mbps"] > 1
    assert t.loc["3s", "key"] == ABORTS.key
    assert t.loc["3s", "status"] == "crashed"
    assert "Could not set default value" in t.loc["3s", "error"]  # ns-3's NS_FATAL message
    assert t.loc["5000s", "status"] == "timeout"
    rec = res.store.failure(ABORTS.key)
    assert "NS_FATAL" in rec["stderr"] and rec["status"] == "crashed"
    assert res.counts == {"total": 3, "ran": 3, "cached": 0, "failed": 2, "corrupt": 0,
                          "missing": 0}
    # the CLI shows the failure with its stderr tail and the scenario to reproduce it
    out = subprocess.run([sys.executable, "-m", "aqmlab", "show", ABORTS.key[:10],
                          "--data", str(tmp_path)], capture_output=True, text=True)
    assert out.returncode == 1 and "crashed" in out.stdout and "NS_FATAL" in out.stdout
    assert "[topology]" in out.stdout


def test_dask_cluster_gives_the_same_table(local, tmp_path):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1,
                                  dashboard_address=None) as cluster:
        res = sweep(tiny(), grid=GRID, seeds=SEEDS, store=tmp_path,
                    scheduler=cluster.scheduler_address, progress=False)
        pd.testing.assert_frame_equal(stable(res.table), stable(local.table))
        worker_pids = set(cluster.scheduler_info["workers"])
        assert len(worker_pids) == 2
        # an ns-3 abort inside a Dask worker's run is a failed run, not a hang or a lost worker
        crash = sweep(ABORTS, store=tmp_path, scheduler=cluster.scheduler_address,
                      progress=False, timeout=60)
        assert crash.table.status.tolist() == ["crashed"]
        assert "Could not set default value" in crash.table.error[0]
        assert len(cluster.scheduler_info["workers"]) == 2
    assert res.counts["ran"] == 8


SWEEP_FILE = """\
name = "resume"
seeds = [1, 2]
[base]
name = "resume-test"
[base.topology]
kind = "dumbbell"
senders = 2
bottleneck = {{ rate = "10Mbps", delay = "10ms" }}
[[base.traffic]]
kind = "bulk"
flows = 4
[base.run]
duration = "{duration}"
[grid]
"tcp.variant" = ["newreno", "cubic"]
"topology.forward_queue.limit" = ["30p", "100p"]
"""


def cli(*args: str, **kw) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "aqmlab", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, **kw)


def test_sigkill_mid_sweep_then_resume_runs_only_the_missing(tmp_path):
    f = tmp_path / "resume.toml"
    f.write_text(SWEEP_FILE.format(duration="15s"))  # ~1 s per run
    data = tmp_path / "data"
    store = Store(data)
    proc = cli("sweep", str(f), "--data", str(data), "--workers", "1", "--no-progress",
               start_new_session=True)
    deadline = time.monotonic() + 180
    while len(store.keys()) < 3:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the sweep stored nothing in time"
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)  # the sweep and its worker processes
    proc.communicate()
    for _ in range(100):  # the whole process group is gone, workers included
        try:
            os.killpg(proc.pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.05)
    else:
        pytest.fail("worker processes survived the SIGKILL of their sweep")
    done = {k: (store.path(k) / "manifest.json").stat().st_mtime_ns for k in store.keys()}
    assert 3 <= len(done) < 8, f"the kill came too late: {len(done)} runs stored"
    assert all(store.check(k)[0] == "ok" for k in done)

    resumed = cli("sweep", str(f), "--data", str(data), "--workers", "1", "--no-progress",
                  "--table", str(tmp_path / "resumed.parquet"))
    out, err = resumed.communicate(timeout=300)
    assert resumed.returncode == 0, out + err
    m = re.search(r"sweep: 8 runs, (\d+) ran, (\d+) cached, 0 failed", out)
    assert m, out
    assert int(m.group(1)) == 8 - len(done) and int(m.group(2)) == len(done)
    for k, mtime in done.items():  # runs stored before the kill were not redone
        assert (store.path(k) / "manifest.json").stat().st_mtime_ns == mtime

    ref = sweep(Sweep.load(f), store=tmp_path / "ref", workers=2, progress=False)
    ref.table.to_parquet(tmp_path / "ref.parquet", index=False)
    a = pd.read_parquet(tmp_path / "resumed.parquet")
    b = pd.read_parquet(tmp_path / "ref.parquet")
    pd.testing.assert_frame_equal(stable(a), stable(b))
    assert set(a.source) == {"ran", "cached"} and (b.source == "ran").all()


def test_cli_ls_and_export(local, tmp_path):
    data = str(local.store.root)
    out = cli("ls", "`traffic[0].flows` == 4 and seed == 1", "--data", data,
              "--columns", "key,tcp.variant,goodput_mbps").communicate()[0]
    assert len(out.strip().splitlines()) == 3  # header + 2 runs
    dest = tmp_path / "flows.parquet"
    p = cli("export", "--data", data, "--format", "parquet", "--table", "flows",
            "--out", str(dest))
    p.communicate()
    flows = pd.read_parquet(dest)
    assert flows.key.nunique() == 8 and len(flows) == 2 * (2 + 4) * 2
    dest = tmp_path / "summary.csv"
    cli("export", "`tcp.variant` == 'cubic'", "--data", data, "--out", str(dest)).communicate()
    assert len(pd.read_csv(dest)) == 4
