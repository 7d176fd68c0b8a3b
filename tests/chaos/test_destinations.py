"""Read-only, forbidden and full destinations: refused in one line before anything runs,
and a disk that fills during a sweep loses no stored result and leaves no partial entry.

Tests may run as root, for whom permissions do not bind: read-only file systems are made
in a user and mount namespace (`unshare -rm`, a bind mount remounted read-only), full ones
as a small tmpfs there; a forbidden folder is tried as user nobody (`setpriv`) when root.
Where the system allows none of this the test is skipped with the reason.
"""

from __future__ import annotations

import errno
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pandas as pd
import pytest

from aqmlab.errors import StoreError
from aqmlab.preflight import DestinationError
from tests.chaos.conftest import (
    ROOT,
    base_scenario,
    fake_results,
    in_tmpfs,
    one_line_error,
    read_only,
    run_cli,
)

SWEEP = ROOT / "examples" / "sweeps" / "qiu_buffer_flows.toml"
SCENARIO = ROOT / "examples" / "qiu_t1_dumbbell.toml"


@pytest.fixture
def ro(tmp_path, namespaces):
    folder = tmp_path / "ro"
    folder.mkdir()
    (folder / "old-run").mkdir()
    return folder


def test_sweep_into_a_read_only_store(ro):
    out = run_cli("sweep", str(SWEEP), "--data", str(ro / "store"), "--no-progress",
                  prefix=read_only(ro))
    one_line_error(out, str(ro / "store"), "read-only")


def test_sweep_into_an_existing_store_on_a_read_only_disk(ro, tmp_path):
    """The store folder exists (a store copied from elsewhere): still refused up front."""
    (ro / "store" / "runs").mkdir(parents=True)
    out = run_cli("sweep", str(SWEEP), "--data", str(ro / "store"), "--no-progress",
                  prefix=read_only(ro))
    one_line_error(out, "read-only")


def test_run_out_into_a_read_only_folder(ro):
    out = run_cli("run", str(SCENARIO), "--out", str(ro / "out"), prefix=read_only(ro))
    one_line_error(out, str(ro), "read-only")


def test_sweep_table_into_a_read_only_folder(ro, tmp_path):
    out = run_cli("sweep", str(SWEEP), "--data", str(tmp_path / "store"), "--no-progress",
                  "--table", str(ro / "table.csv"), prefix=read_only(ro))
    one_line_error(out, "read-only")


def test_figures_into_a_read_only_folder(ro):
    out = run_cli("figures", "--only", "ecn_bulk", "--out", str(ro / "figures"),
                  prefix=read_only(ro))
    one_line_error(out, "figures folder", "read-only")


def test_export_into_a_read_only_folder(ro, tmp_path):
    out = run_cli("export", "--data", str(tmp_path), "--out", str(ro / "x.csv"),
                  prefix=read_only(ro))
    one_line_error(out, "read-only")


def test_listing_a_read_only_store_works(ro, tmp_path):
    """Reading needs no write: ls on a read-only store lists its runs."""
    from aqmlab.campaign import Store

    store = ro / "store"
    Store(store).put(fake_results(base_scenario()))
    out = run_cli("ls", "--data", str(store), prefix=read_only(ro))
    assert out.returncode == 0 and " ok " in out.stdout, out.stderr


@pytest.fixture
def nobody_dir():
    """A folder user nobody may enter but not write (chmod 0555), and a prefix that runs
    as nobody when this process is root (for whom permissions do not bind)."""
    d = Path(tempfile.mkdtemp(prefix="aqmlab-chaos-"))
    os.chmod(d, 0o755)
    forbidden = d / "forbidden"
    forbidden.mkdir()
    prefix: tuple[str, ...] = ()
    if os.geteuid() == 0:
        if shutil.which("setpriv") is None:
            pytest.skip("root without setpriv(1): permissions cannot be tested")
        prefix = ("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups")
        check = subprocess.run([*prefix, sys.executable, "-c", "import aqmlab"],
                               capture_output=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
        if check.returncode != 0:
            shutil.rmtree(d)
            pytest.skip("user nobody cannot run this interpreter or read the repository")
    shutil.copy(SWEEP.parent.parent / SCENARIO.name, d / SCENARIO.name)
    sweep_file = d / "sweep.toml"
    sweep_file.write_text(SWEEP.read_text().replace("../qiu_t1_dumbbell.toml",
                                                    SCENARIO.name))
    secret = d / "secret.toml"
    shutil.copy(SCENARIO, secret)
    os.chmod(secret, 0)
    os.chmod(forbidden, 0o555)
    yield d, prefix
    shutil.rmtree(d)


def test_sweep_into_a_forbidden_store(nobody_dir):
    d, prefix = nobody_dir
    out = run_cli("sweep", str(d / "sweep.toml"), "--data", str(d / "forbidden" / "store"),
                  "--no-progress", prefix=prefix, cwd=d)
    one_line_error(out, str(d / "forbidden"), "permission denied")


def test_run_out_into_a_forbidden_folder(nobody_dir):
    d, prefix = nobody_dir
    out = run_cli("run", str(d / SCENARIO.name), "--out", str(d / "forbidden" / "out"),
                  prefix=prefix, cwd=d)
    one_line_error(out, "permission denied")


def test_unreadable_scenario_file(nobody_dir):
    d, prefix = nobody_dir
    out = run_cli("validate", str(d / "secret.toml"), prefix=prefix, cwd=d)
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert f"{d / 'secret.toml'}: permission denied" in out.stderr


@pytest.fixture
def small_disk(tmp_path, namespaces):
    mount = tmp_path / "disk"
    mount.mkdir()
    return mount


def test_sweep_into_a_full_disk(small_disk):
    out = run_cli("sweep", str(SWEEP), "--data", str(small_disk / "store"), "--no-progress",
                  prefix=in_tmpfs(small_disk, "1m"))
    one_line_error(out, str(small_disk / "store"), "MiB free", "32 MiB needed")


def test_run_out_onto_a_full_disk(small_disk):
    out = run_cli("run", str(SCENARIO), "--out", str(small_disk / "out"),
                  prefix=in_tmpfs(small_disk, "1m"))
    one_line_error(out, "MiB free")


FILL = """
import sys
from aqmlab.campaign import Store, sweep
from aqmlab.cli import describe_error
from aqmlab.workers.pool import Outcome
from tests.chaos.conftest import base_scenario, fake_results

class Big:
    def run(self, jobs):
        for job in jobs:
            yield Outcome(job.key, "ok", results=fake_results(job.scenario, payload=700_000))
    def close(self):
        pass

store = Store(sys.argv[1])
try:
    sweep(base_scenario(), seeds=list(range(1, 9)), store=store, executor=Big(),
          progress=False)
    print("NOT FULL")
except Exception as err:
    print("ERROR", describe_error(err))
ok = [k for k in store.keys() if store.check(k, full=True)[0] == "ok"]
print("STORED", len(ok), len(store.keys()))
hidden = [p.name for p in store.runs_dir.iterdir() if p.name.startswith(".")
          and p.name != ".locks"]
print("HIDDEN", hidden)
"""


def test_disk_filling_up_during_a_sweep(small_disk):
    """A 3-MiB disk takes three runs of ~0.7 MB, not eight: the sweep stops with one line
    naming the entry and the disk, every stored run is whole, nothing partial is left."""
    env = {"PYTHONPATH": str(ROOT), "AQMLAB_MIN_FREE_MB": "0"}
    out = subprocess.run([*in_tmpfs(small_disk, "3m"), sys.executable, "-c", FILL,
                          str(small_disk / "store")], capture_output=True, text=True,
                         env={**os.environ, **env}, timeout=120)
    assert out.returncode == 0, out.stderr
    lines = dict(line.split(" ", 1) for line in out.stdout.splitlines())
    assert "no space left" in lines["ERROR"] and str(small_disk / "store") in lines["ERROR"]
    stored, entries = map(int, lines["STORED"].split())
    assert 1 <= stored == entries < 8
    assert lines["HIDDEN"] == "[]"


def test_a_failed_save_leaves_nothing(tmp_path, monkeypatch):
    """Results.save on a disk that fills: DestinationError naming the folder, no partial
    folder, and an earlier run in the folder kept."""
    res = fake_results(base_scenario())
    target = tmp_path / "out"
    res.save(target)

    def full(*a, **k):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(pd.DataFrame, "to_parquet", full)
    with pytest.raises(DestinationError, match=f"{target}: no space left"):
        res.save(target)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]
    monkeypatch.undo()
    from aqmlab.results.results import load

    assert load(target).scenario.key == res.scenario.key


def test_out_never_replaces_a_folder_that_is_not_a_run(tmp_path):
    """`run --out ~/Documents` must not replace Documents with a run."""
    docs = tmp_path / "Documents"
    docs.mkdir()
    (docs / "thesis.tex").write_text("precious")
    out = run_cli("run", str(SCENARIO), "--out", str(docs))
    one_line_error(out, "not an aqmlab run")
    with pytest.raises(StoreError, match="not an aqmlab run"):
        fake_results(base_scenario()).save(docs)
    assert (docs / "thesis.tex").read_text() == "precious"


@pytest.mark.parametrize("args,needles", [
    (("run", str(SCENARIO), "--out", "{file}"), ("is a file",)),
    (("sweep", str(SWEEP), "--data", "{file}", "--no-progress"), ("is a file",)),
    (("export", "--data", "{tmp}", "--out", "{tmp}"), ("is a folder",)),
    (("show", "0123abcd", "--data", "{tmp}"), ("no stored run",)),
    (("ls", "flows ==", "--data", "{tmp}"), ("invalid query",)),
    (("sweep", "{tmp}/missing.toml", "--data", "{tmp}"), ("no such file",)),
    (("sweep", "{file}", "--data", "{tmp}"), ("must end in .toml",)),
    (("calibrate", str(SCENARIO), "--loads", "50"), ("PackMime",)),
    (("figures", "--only", "nonsense", "--dry-run"), ("no notebook", "studies:")),
])
def test_other_command_line_mistakes(tmp_path, args, needles):
    """One line naming the problem, for mistakes in paths, queries and options."""
    file = tmp_path / "a-file"
    file.write_text("x")
    from aqmlab.campaign import Store

    Store(tmp_path).put(fake_results(base_scenario()))  # a query needs rows to fail on
    args = [a.replace("{file}", str(file)).replace("{tmp}", str(tmp_path)) for a in args]
    one_line_error(run_cli(*args, cwd=tmp_path), *needles)


def test_debug_shows_the_traceback(tmp_path):
    empty = tmp_path / "empty.toml"
    empty.write_text("")
    out = run_cli("validate", str(empty), "--debug")
    assert out.returncode == 2 and "is empty" in out.stderr  # validate reports, no raise
    out = run_cli("run", str(empty), "--out", str(tmp_path / "o"), "--debug")
    assert "Traceback" in out.stderr and "ScenarioFileError" in out.stderr


def test_store_entries_are_group_readable_via_the_cli_umask(tmp_path):
    """The umask decides, not aqmlab (0700 folders made a shared store unreadable)."""
    from aqmlab.campaign import Store

    old = os.umask(0o002)
    try:
        d = Store(tmp_path).put(fake_results(base_scenario()))
    finally:
        os.umask(old)
    assert stat.S_IMODE(d.stat().st_mode) == 0o775
