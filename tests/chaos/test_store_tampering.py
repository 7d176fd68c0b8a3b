"""A store that trusts nothing it did not check: every damaged entry is found by the cheap
checks of every read (ls, sweep, show, load) or, where only the content changed and the
file kept its size and mtime, by ``--verify``; it is never served or listed as ok, and the
next sweep runs it again. No ns-3: the results are fake."""

from __future__ import annotations

import json
import os
import shutil

import pytest

from aqmlab.campaign import Store, sweep
from aqmlab.errors import StoreError
from aqmlab.results.results import load as load_folder
from aqmlab.workers.pool import Outcome
from tests.chaos.conftest import base_scenario, fake_results, one_line_error, run_cli

SEEDS = [1, 2, 3]


class FakeExecutor:
    def __init__(self) -> None:
        self.ran: list[str] = []

    def run(self, jobs):
        for job in jobs:
            self.ran.append(job.key)
            yield Outcome(job.key, "ok", results=fake_results(job.scenario), wall_s=0.01)

    def close(self) -> None:
        pass


def stored(tmp_path, **kw):
    ex = FakeExecutor()
    res = sweep(base_scenario(), seeds=SEEDS, store=tmp_path, executor=ex, progress=False,
                **kw)
    assert len(ex.ran) == len(SEEDS)
    return res.store, list(res.table.key)


def rewrite_json(path, change):
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data, indent=2))


def edit_summary(d):
    rewrite_json(d / "manifest.json", lambda m: m["summary"].update(goodput_mbps=999.0))


def edit_summary_and_its_hash(d):
    """A careful tamperer: the manifest's own checksum is updated too."""
    import hashlib

    edit_summary(d)
    (d / "manifest.sha256").write_text(hashlib.sha256((d / "manifest.json").read_bytes())
                                       .hexdigest() + "\n")


def swap_flows_from(other):
    def swap(d):
        shutil.copy(other / "flows.parquet", d / "flows.parquet")
    return swap


def garbage_scenario(d):
    (d / "scenario.toml").write_text("this is not a scenario = [\n")


def other_scenario(d):
    """A valid scenario of another run, in place of this entry's."""
    (d / "scenario.toml").write_text(
        base_scenario().replace(**{"traffic[0].flows": 7}).to_toml())


def truncate(name):
    def cut(d):
        f = d / name
        f.write_bytes(f.read_bytes()[: f.stat().st_size // 2])
    return cut


def flip_byte(name):
    def flip(d):
        f = d / name
        data = bytearray(f.read_bytes())
        data[len(data) // 2] ^= 0xFF
        f.write_bytes(bytes(data))
    return flip


def remove(name):
    return lambda d: (d / name).unlink()


def garbage_manifest(d):
    (d / "manifest.json").write_text("{not json")


def manifest_of_another_run(other):
    def copy(d):
        for name in ("manifest.json", "manifest.sha256"):
            shutil.copy(other / name, d / name)
    return copy


def empty_file(name):
    return lambda d: (d / name).write_bytes(b"")


def unreadable_meta(d):
    (d / "meta.json").unlink()
    (d / "meta.json").mkdir()


# id -> (tamper(entry, another entry), what the reason says)
TAMPERING = {
    "edited manifest summary": (lambda d, o: edit_summary(d), "manifest.sha256"),
    "edited summary, checksum updated": (lambda d, o: edit_summary_and_its_hash(d),
                                         "summary"),
    "swapped flows.parquet": (lambda d, o: swap_flows_from(o)(d), "flows.parquet"),
    "deleted manifest, swapped parquet": (
        lambda d, o: (remove("manifest.json")(d), swap_flows_from(o)(d)), "manifest.json"),
    "deleted manifest, garbage scenario.toml": (
        lambda d, o: (remove("manifest.json")(d), garbage_scenario(d)), "manifest.json"),
    "garbage scenario.toml": (lambda d, o: garbage_scenario(d), "scenario.toml"),
    "another run's scenario.toml": (lambda d, o: other_scenario(d), "scenario.toml"),
    "deleted manifest": (lambda d, o: remove("manifest.json")(d), "manifest.json"),
    "deleted manifest checksum": (lambda d, o: remove("manifest.sha256")(d), "manifest.sha256"),
    "garbage manifest": (lambda d, o: garbage_manifest(d), "manifest"),
    "another run's manifest": (lambda d, o: manifest_of_another_run(o)(d), "manifest"),
    "truncated flows.parquet": (lambda d, o: truncate("flows.parquet")(d), "truncated"),
    "truncated summary.parquet": (lambda d, o: truncate("summary.parquet")(d), "summary"),
    "truncated meta.json": (lambda d, o: truncate("meta.json")(d), "meta.json"),
    "empty queues.parquet": (lambda d, o: empty_file("queues.parquet")(d), "queues.parquet"),
    "flipped byte in queues.parquet": (lambda d, o: flip_byte("queues.parquet")(d),
                                       "queues.parquet"),
    "deleted links.parquet": (lambda d, o: remove("links.parquet")(d), "links.parquet"),
    "deleted meta.json": (lambda d, o: remove("meta.json")(d), "meta.json"),
    "meta.json is a folder": (lambda d, o: unreadable_meta(d), "meta.json"),
}


#: Found by --verify only (load() verifies in full, so it is never loaded either).
NEEDS_VERIFY = {"edited summary, checksum updated"}


@pytest.mark.parametrize("case", list(TAMPERING))
def test_tampered_entry_is_corrupt_everywhere_and_rerun(tmp_path, case):
    """Damaged: check() and ls (and ls --verify) say corrupt with the reason, load() and
    summary() refuse, the sweep table never serves it, and the next sweep runs it again,
    after which it is whole."""
    store, keys = stored(tmp_path)
    victim, other = store.path(keys[0]), store.path(keys[1])
    tamper, reason = TAMPERING[case]
    tamper(victim, other)
    cheap = store.check(keys[0])
    full = store.check(keys[0], full=True)
    assert full[0] == "corrupt" and reason in full[1], full
    listing = store.ls(verify=True).set_index("key")
    assert listing.loc[keys[0], "status"] == "corrupt"
    assert (listing.drop(index=keys[0]).status == "ok").all()  # the others are untouched
    with pytest.raises(StoreError):
        store.load(keys[0])
    # cheaply found, except by a forger who also rewrites the manifest's checksum
    assert (cheap[0] == "corrupt") == (case not in NEEDS_VERIFY), cheap
    if cheap[0] == "corrupt":  # found without --verify: listings and tables never serve it
        assert reason in cheap[1], cheap
        assert store.ls().set_index("key").loc[keys[0], "status"] == "corrupt"
        with pytest.raises(StoreError):
            store.summary(keys[0])
        ex = FakeExecutor()
        with pytest.warns(UserWarning, match="corrupt"):
            again = sweep(base_scenario(), seeds=SEEDS, store=tmp_path, executor=ex,
                          progress=False)
        assert ex.ran == [keys[0]]
        assert again.table.set_index("key").loc[keys[0], "goodput_mbps"] != 999.0
        assert store.check(keys[0], full=True) == ("ok", "")


def test_only_an_edit_that_keeps_size_and_mtime_needs_verify(tmp_path):
    """The one tampering the cheap checks may miss: same size, mtime put back (cp -p of a
    same-size file). --verify finds it (every file hashed)."""
    store, keys = stored(tmp_path)
    d = store.path(keys[0])
    f = d / "queues.parquet"
    st = f.stat()
    flip_byte("queues.parquet")(d)
    os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert store.check(keys[0]) == ("ok", "")  # cheap: size and mtime as recorded
    state, reason = store.check(keys[0], full=True)
    assert state == "corrupt" and "queues.parquet" in reason
    assert store.ls(verify=True).set_index("key").loc[keys[0], "status"] == "corrupt"


def test_cheap_checks_spot_an_edit_made_at_once(tmp_path):
    """Coarse file-system clocks: an edit in the same clock tick as the write still shows,
    since the recorded mtimes lie a second in the past."""
    store = Store(tmp_path)
    sc = base_scenario()
    d = store.put(fake_results(sc))
    flip_byte("queues.parquet")(d)
    assert store.check(sc.key)[0] == "corrupt"


def test_edited_summary_is_served_nowhere(tmp_path):
    """Issue 32: an edited manifest summary was served by the sweep table while `show`
    printed the real one. Now the sweep reruns the entry and `ls` lists it as corrupt."""
    store, keys = stored(tmp_path)
    edit_summary(store.path(keys[0]))
    ls = run_cli("ls", "--data", str(tmp_path), "--columns", "key,status,goodput_mbps")
    assert ls.returncode == 0 and "Traceback" not in ls.stderr
    row = next(ln for ln in ls.stdout.splitlines() if ln.startswith(keys[0]))
    assert "corrupt" in row and "999" not in row
    show = run_cli("show", keys[0], "--data", str(tmp_path))
    one_line_error(show, "manifest")


def test_show_of_a_folder_checks_a_store_entry(tmp_path):
    """`aqmlab show <entry folder>` checks the entry like a key would."""
    store, keys = stored(tmp_path)
    garbage_scenario(store.path(keys[0]))
    out = run_cli("show", str(store.path(keys[0])))
    one_line_error(out, "scenario.toml")
    assert load_folder(store.path(keys[1])).scenario.key == keys[1]


def test_an_entry_of_an_older_namespace_is_read_without_key_checks(tmp_path):
    """Another version's keys may hash differently: its entries are checked (manifest,
    sizes) but their keys are not recomputed, so they are not called corrupt."""
    old = Store(tmp_path, version="0.0.1-3.43")
    sc = base_scenario()
    d = old.put(fake_results(sc))
    renamed = d.with_name("0123456789abcdef-s1-r1")  # an old hash
    rewrite_json(d / "manifest.json", lambda m: m.update(key=renamed.name))
    import hashlib
    (d / "manifest.sha256").write_text(hashlib.sha256((d / "manifest.json").read_bytes())
                                       .hexdigest())
    d.rename(renamed)
    assert old.check(renamed.name) == ("ok", "")
    rows = Store(tmp_path).ls(all_versions=True)
    assert rows.set_index("key").loc[renamed.name, "status"] == "ok"
