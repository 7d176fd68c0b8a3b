"""Concurrent writers and sweeps on one store: no race, no leftovers, each run simulated once.

Processes, not threads: two writers of one key hammer it while this process reads it; two
sweeps share a store and count their simulations (fake ones: a log line per run; and once
with ns-3, two `aqmlab sweep` processes)."""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import sys
import time

import pytest

from aqmlab.campaign import Store
from aqmlab.campaign.claims import Claims
from aqmlab.workers.pool import LOGDIR_PREFIX, remove_stale_logdirs
from tests.chaos.conftest import ROOT, base_scenario, fake_results

ENV = {**os.environ, "PYTHONPATH": str(ROOT)}

WRITER = """
import sys
from aqmlab.campaign import Store
from tests.chaos.conftest import base_scenario, fake_results
store, tries, tag = Store(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
sc = base_scenario()
for i in range(tries):
    res = fake_results(sc)
    res.summary["goodput_mbps"] = tag * 1000 + i  # each write differs
    store.put(res)
"""


def hidden(store: Store) -> list[str]:
    return sorted(p.name for p in store.runs_dir.iterdir()
                  if p.name.startswith(".") and p.name != ".locks")


def _can_exchange(folder) -> bool:
    """Whether this file system swaps folders atomically (renameat2 RENAME_EXCHANGE)."""
    from aqmlab.campaign.store import _exchange

    a, b = folder / ".probe-a", folder / ".probe-b"
    a.mkdir()
    b.mkdir()
    try:
        return _exchange(a, b)
    finally:
        a.rmdir()
        b.rmdir()


def test_two_writers_of_one_key_never_race(tmp_path):
    """Two processes store the same key 150 times each while this one reads it: no error
    in the writers, never a corrupt entry for the reader (nor, once stored, a missing one
    where the file system swaps folders atomically), a whole entry at the end, and no
    staging or .old folder left behind."""
    tries = 150
    writers = [subprocess.Popen([sys.executable, "-c", WRITER, str(tmp_path), str(tries),
                                 str(tag)], env=ENV, stderr=subprocess.PIPE, text=True)
               for tag in (1, 2)]
    store, key = Store(tmp_path), base_scenario().key
    seen: dict[str, int] = {}
    stored_once = False
    while any(w.poll() is None for w in writers):
        state, reason = store.check(key)
        if state == "ok":
            stored_once = True
            value = store.summary(key)["goodput_mbps"]
            assert value // 1000 in (1, 2)
        elif stored_once:
            seen[f"{state}: {reason}"] = seen.get(f"{state}: {reason}", 0) + 1
    errors = [w.stderr.read() for w in writers]
    assert [w.returncode for w in writers] == [0, 0], errors
    if not _can_exchange(tmp_path):  # two renames under a lock: a reader may miss the entry
        seen = {k: n for k, n in seen.items() if not k.startswith("missing")}
    assert seen == {}, seen
    assert store.check(key, full=True) == ("ok", "")
    assert store.load(key).summary.goodput_mbps.iloc[0] in (1000 + tries - 1,
                                                             2000 + tries - 1)
    assert hidden(store) == []


LAZY_SWEEP = """
import os, sys, time
from aqmlab.campaign import sweep
from aqmlab.workers.pool import Outcome
from tests.chaos.conftest import base_scenario, fake_results

class FakeSimulator:
    '''Simulates (a log line and a nap per run), one run at a time, taking jobs lazily.'''
    def __init__(self, log, lazy):
        self.log, self.lazy_jobs = log, lazy
    def run(self, jobs, heartbeat=0.05):
        for job in jobs:
            if job is None:
                time.sleep(heartbeat)
                yield None
                continue
            with open(self.log, "a") as f:
                f.write(f"{job.key} {os.getpid()}\\n")
            time.sleep(0.05)
            yield Outcome(job.key, "ok", results=fake_results(job.scenario), wall_s=0.05)
    def close(self):
        pass

store, log, lazy = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
ready = os.path.join(os.path.dirname(log), f"ready-{os.getpid()}")
open(ready, "w").close()
while len([f for f in os.listdir(os.path.dirname(log)) if f.startswith("ready-")]) < 2:
    time.sleep(0.01)  # both sweeps start together
res = sweep(base_scenario(), grid={"traffic[0].flows": [1, 2]}, seeds=[1, 2, 3, 4],
            store=store, executor=FakeSimulator(log, lazy), progress=False)
assert (res.table.status == "ok").all(), res.table
print(res.counts["ran"], res.counts["cached"])
"""


@pytest.mark.parametrize("lazy", [True, False], ids=["lazy executor", "list executor"])
@pytest.mark.parametrize("trial", range(3))
def test_two_sweeps_on_one_store_simulate_each_run_once(tmp_path, lazy, trial):
    """Two sweeps of the same 8 runs started together on one store: 8 simulations in all
    (each key once), and each sweep's table has all 8 runs ok."""
    log = tmp_path / "simulations.log"
    procs = [subprocess.Popen([sys.executable, "-c", LAZY_SWEEP, str(tmp_path / "store"),
                               str(log), "1" if lazy else "0"], env=ENV, text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
             for _ in range(2)]
    outs = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    keys = [line.split()[0] for line in log.read_text().splitlines()]
    assert len(keys) == 8 and len(set(keys)) == 8, keys
    ran = [int(out.split()[0]) for out, _ in outs]
    assert sum(ran) == 8
    assert not list((tmp_path / "store" / "claims").rglob("*.claim"))  # all released


def test_a_dead_sweeps_claim_is_taken_over(tmp_path):
    """A claim whose process is gone (same host) or that was not refreshed for STALE_S
    (another host) is taken over; a live, fresh one is left alone."""
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    mine = Claims(tmp_path, "v")
    mine.folder.mkdir(parents=True)
    other = {"host": mine.host, "pid": int(dead.stdout), "token": "x", "claimed": 0}
    mine.path("dead").write_text(json.dumps(other))
    far = {**other, "host": "elsewhere", "pid": 1}
    mine.path("old").write_text(json.dumps(far))
    old = time.time() - 2 * mine.stale_s
    os.utime(mine.path("old"), (old, old))
    mine.path("fresh").write_text(json.dumps(far))
    live = {**other, "pid": os.getppid()}
    mine.path("live").write_text(json.dumps(live))
    assert mine.claim("dead") and mine.claim("old")
    assert not mine.claim("fresh") and not mine.claim("live")
    assert mine.holder("dead")["pid"] == os.getpid()
    mine.release_all()
    assert not mine.path("dead").exists() and mine.path("fresh").exists()


def test_release_removes_only_our_own_claim(tmp_path):
    a, b = Claims(tmp_path, "v"), Claims(tmp_path, "v")
    assert a.claim("k") and not b.claim("k")
    a.path("k").unlink()  # taken from us (as stale) ...
    assert b.claim("k")  # ... and claimed by b
    a.release("k")
    assert b.holder("k")["token"] == b._mine["k"]


@pytest.mark.parametrize("mask", [0o022, 0o027, 0o077])
def test_entries_follow_the_umask(tmp_path, mask):
    """A store shared by a group: folders and files get the umask's permissions (the
    staging folder used to be 0700 whatever the umask)."""
    old = os.umask(mask)
    try:
        d = Store(tmp_path).put(fake_results(base_scenario()))
    finally:
        os.umask(old)
    assert stat.S_IMODE(d.stat().st_mode) == 0o777 & ~mask
    assert stat.S_IMODE((d / "flows.parquet").stat().st_mode) == 0o666 & ~mask


def test_log_folders_of_killed_pools_are_removed(tmp_path):
    """A pool removes its temporary folder when it closes; one killed with its process is
    removed by the next pool: only folders of dead processes, untouched for a while."""
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True).stdout.strip()
    stale = tmp_path / f"{LOGDIR_PREFIX}{dead}-abc"
    fresh = tmp_path / f"{LOGDIR_PREFIX}{dead}-def"
    live = tmp_path / f"{LOGDIR_PREFIX}{os.getpid()}-ghi"
    for d in (stale, fresh, live):
        d.mkdir()
        (d / "run-1.stderr").write_text("x")
    old = time.time() - 3600
    for d in (stale, live):
        os.utime(d, (old, old))
    assert remove_stale_logdirs(tmp_path) == 1
    assert not stale.exists() and fresh.exists() and live.exists()


SWEEP = """
name = "chaos-two-sweeps"
seeds = [1, 2, 3, 4]
[base]
name = "chaos-two-sweeps"
[base.topology]
senders = 1
[[base.traffic]]
kind = "bulk"
flows = 1
[base.run]
duration = "0.3s"
sample_interval = false
"""


@pytest.mark.ns3
def test_two_aqmlab_sweeps_on_one_store(tmp_path):
    """Two `aqmlab sweep` processes (ns-3, one worker each) on one store: the four runs
    are simulated four times in all, both tables are complete, no temporary files stay."""
    (tmp_path / "sweep.toml").write_text(SWEEP)
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = {**ENV, "TMPDIR": str(tmp)}
    cmd = [sys.executable, "-m", "aqmlab", "sweep", str(tmp_path / "sweep.toml"),
           "--data", str(tmp_path / "store"), "--workers", "1", "--no-progress"]
    procs = [subprocess.Popen(cmd, env=env, cwd=tmp_path, text=True, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE) for _ in range(2)]
    outs = [p.communicate(timeout=600) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    ran = [int(re.search(r"(\d+) ran", out).group(1)) for out, _ in outs]
    assert sum(ran) == 4, outs
    assert all(out.count(" ok ") == 4 for out, _ in outs), outs
    assert list(tmp.iterdir()) == []


DEAD_WORKER_AND_ZYGOTE_AT_ONCE = """
import socket, time
from multiprocessing.connection import Connection
from aqmlab.workers.pool import WorkerPool, _Job, _Worker

pool = WorkerPool(1)
zygote_end, mine = socket.socketpair()
pool._zconn = Connection(mine.detach())
worker_end, theirs = socket.socketpair()
w = _Worker(pid=2**22 + 1, conn=Connection(theirs.detach()), ready=True,
            job=_Job("run", {}, None), started=time.monotonic())
pool._workers = [w]
zygote = Connection(zygote_end.detach())  # stays open, like a live zygote's
zygote.send(("exit", w.pid, -6))  # the zygote reaped the worker...
worker_end.close()  # ...as its socket closed
out = pool.poll(5)
print(out[0].status, out[0].error)
pool.close()
"""


def test_a_worker_death_seen_twice_does_not_hang_the_pool():
    """A worker's EOF and the zygote's report of its exit ready in the same wait(): reading
    the exit code drains the zygote's socket, which must then not be read again (it
    blocked for ever: a sweep hung 20 minutes on a loaded machine)."""
    out = subprocess.run([sys.executable, "-c", DEAD_WORKER_AND_ZYGOTE_AT_ONCE], env=ENV,
                         capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "crashed the worker process died (signal SIGABRT)"
