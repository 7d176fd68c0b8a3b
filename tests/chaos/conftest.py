"""Helpers of the chaos suite: the CLI in a subprocess (one line, no traceback, no ns-3),
fake results (no ns-3), and sandboxes for read-only or full file systems (a user and
mount namespace: `unshare -rm`, which works for root and, where allowed, for others)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from aqmlab.results.results import Results
from aqmlab.scenario import Bulk, Dumbbell, RunControl, Scenario

ROOT = Path(__file__).resolve().parents[2]

#: Python run by run_cli: the CLI, with aqmlab.run's runner and the worker pool refusing to simulate
#: (a destination or an input must be refused before the first simulation) unless
#: AQMLAB_TEST_ALLOW_RUN is set, and a check that ns-3 never entered the CLI process.
CLI = """
import os, sys
import aqmlab.workers.pool
import aqmlab.workers.runner
from aqmlab.cli import main
if not os.environ.get("AQMLAB_TEST_ALLOW_RUN"):
    def refuse(*a, **k):
        raise SystemExit("CHAOS: a simulation was started")
    aqmlab.workers.runner.Runner.submit = refuse
    aqmlab.workers.pool.WorkerPool.submit = refuse
rc = main(sys.argv[1:])
assert "ns" not in sys.modules and "cppyy" not in sys.modules
sys.exit(rc)
"""


def run_cli(*args: str, cwd: str | os.PathLike = "/tmp", prefix: tuple[str, ...] = (),
            env: dict[str, str] | None = None, timeout: float = 120
            ) -> subprocess.CompletedProcess:
    """``aqmlab ARGS`` in a subprocess (optionally behind ``prefix``, e.g. unshare)."""
    full_env = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    return subprocess.run([*prefix, sys.executable, "-c", CLI, *args], capture_output=True,
                          text=True, cwd=cwd, env=full_env, timeout=timeout)


def one_line_error(out: subprocess.CompletedProcess, *needles: str) -> str:
    """Assert a clean failure: exit 2, one stderr line starting 'aqmlab: error:' that
    contains every needle, no traceback, nothing simulated. Returns the line."""
    err = out.stderr.strip()
    assert "Traceback" not in err and "CHAOS" not in err, err
    assert out.returncode == 2, (out.returncode, err)
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("aqmlab: error: "), err
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])
    return lines[0]


def base_scenario(**run: object) -> Scenario:
    return Scenario(name="chaos", topology=Dumbbell(senders=2), traffic=[Bulk(flows=2)],
                    run=RunControl(duration="2s", **run))


def fake_results(sc: Scenario, rows: int = 2, payload: int = 0) -> Results:
    """Results of ``sc`` without ns-3; ``payload`` bytes of incompressible flow data."""
    rng = np.random.default_rng(sc.run.seed)
    g = np.full(rows, 1.0 + sc.run.seed / 10)
    flows = pd.DataFrame({"flow": np.arange(rows), "goodput_mbps": g})
    if payload:
        flows = pd.DataFrame({"noise": rng.random(payload // 8)})
    queues = pd.DataFrame({"queue": ["R0->R1"], "drops": [rows]})
    links = pd.DataFrame({"link": ["R0->R1"], "utilisation": [0.9]})
    ts = pd.DataFrame({"time_s": np.arange(3.0), "queue": "R0->R1", "qlen_pkts": [0.0, 1, 2]})
    summary = pd.DataFrame([{"scenario": sc.name, "scenario_hash": sc.hash,
                             "seed": sc.run.seed, "run": sc.run.run, "flows": rows,
                             "goodput_mbps": float(g.sum()), "drops": rows, "wall_s": 0.01}])
    return Results(sc, flows, queues, links, ts, summary,
                   meta={"seed": sc.run.seed, "run": sc.run.run, "pid": os.getpid()})


def _probe(*cmd: str) -> bool:
    try:
        return subprocess.run(list(cmd), capture_output=True, timeout=30).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


@pytest.fixture(scope="session")
def namespaces() -> None:
    """Skip unless a user + mount namespace can mount a tmpfs and remount read-only."""
    if shutil.which("unshare") is None:
        pytest.skip("no unshare(1): cannot make a read-only or full file system")
    if not _probe("unshare", "-rm", "sh", "-c", "mount -t tmpfs -o size=1m tmpfs /mnt"):
        pytest.skip("user and mount namespaces are not available here (unshare -rm "
                    "mount -t tmpfs failed): cannot make a read-only or full file system")


def in_tmpfs(mountpoint: Path, size: str) -> tuple[str, ...]:
    """A prefix that runs a command with a ``size`` tmpfs mounted at ``mountpoint``."""
    return ("unshare", "-rm", "sh", "-c",
            f'mount -t tmpfs -o size={size} tmpfs "{mountpoint}" && exec "$0" "$@"')


def read_only(folder: Path) -> tuple[str, ...]:
    """A prefix that runs a command with ``folder`` bind-mounted read-only (EROFS)."""
    return ("unshare", "-rm", "sh", "-c",
            f'mount --bind "{folder}" "{folder}" && mount -o remount,bind,ro "{folder}" '
            f'&& exec "$0" "$@"')
