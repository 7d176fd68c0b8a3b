"""The result store: one folder per run, content-addressed, written atomically.

Layout under ``root`` (``data/`` by default)::

    runs/<aqmlab version>-<ns-3 version>/<scenario hash>-s<seed>-r<run>/
        meta.json  scenario.toml  flows.parquet  queues.parquet  links.parquet
        queue_ts.parquet  summary.parquet      (what Results.save writes)
        manifest.json                          (size, mtime and sha256 of every file
                                                above, the sweep parameters, the summary)
        manifest.sha256                        (the sha256 of manifest.json itself)
    failures/<aqmlab version>-<ns-3 version>/<key>.json
        (status crashed | timeout | error, message, stderr tail, scenario)
    claims/<aqmlab version>-<ns-3 version>/<key>.claim
        (a run being simulated by a sweep: see aqmlab.campaign.claims)

A run is written into a hidden staging folder (``.<key>.*``) and renamed into place in
one step (an existing entry is swapped with it atomically: readers never see a gap), so a
killed writer leaves no entry that reads as valid; hidden folders are never listed and
stale ones are removed by :meth:`Store.clean`. Entry folders follow the umask.

Nothing stored is trusted unchecked. Every read checks an entry cheaply: the manifest
matches ``manifest.sha256``, the key and version it names are the entry's, every file has
the size and mtime recorded when it was stored (a file whose mtime changed is hashed), and
``scenario.toml`` hashes to the entry's key (for entries of this aqmlab version, whose hash
it computes). ``verify=True`` (``aqmlab ls --verify``) hashes every file and compares the
manifest's summary with ``summary.parquet``. Anything else is *corrupt*: reported, never
"ok", and re-run by the next sweep that needs it. A new aqmlab or ns-3 version starts a new
namespace; older results stay readable (``all_versions=True``).
"""

from __future__ import annotations

import ctypes
import errno
import fcntl
import hashlib
import json
import math
import os
import re
import shutil
import time
import tomllib
from collections.abc import Callable, Mapping
from contextlib import contextmanager
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from aqmlab import __version__
from aqmlab.errors import ScenarioError, StoreError
from aqmlab.preflight import DestinationError, describe_os_error, writable_folder
from aqmlab.results import results as _results
from aqmlab.results.results import META_FILE, Results
from aqmlab.scenario import Scenario

__all__ = ["Store", "Query", "version_tag"]

MANIFEST = "manifest.json"
MANIFEST_HASH = "manifest.sha256"
#: 2: manifest.sha256 and per-file mtimes (schema-1 entries are verified in full).
STORE_SCHEMA = 2
#: Files every entry has (what Results.save writes).
REQUIRED = (META_FILE, "scenario.toml", *(f"{t}.parquet" for t in _results.TABLES))
#: Reads retry this often when a writer swaps the entry under them.
_READ_TRIES = 5
#: A query: None (everything), a key or key prefix, a pandas ``DataFrame.query``
#: expression (quote dotted columns with backticks), a ``{column: value or [values]}``
#: dict, or a function of the listing returning a boolean mask.
Query = str | Mapping[str, Any] | Callable[[pd.DataFrame], Any] | None
_KEYISH = re.compile(r"^[0-9a-f]{1,16}(-s\d+(-r\d+)?)?$")
#: Columns that lead every listing.
LEAD = ("key", "status", "name", "seed", "run", "version", "created")


def version_tag() -> str:
    """``<aqmlab version>-<ns-3 wheel version>`` of this installation (no ns-3 import)."""
    try:
        ns3 = metadata.version("ns3")
    except metadata.PackageNotFoundError:
        ns3 = "unknown"
    return f"{__version__}-{ns3}"


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _py(value: Any) -> Any:
    """numpy scalars -> Python scalars (exact: JSON floats round-trip)."""
    return value.item() if isinstance(value, np.generic) else value


def _write_json(path: Path, data: Any) -> None:
    """Write a JSON file atomically (temporary file in the same folder, then rename)."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{os.urandom(3).hex()}")
    try:
        tmp.write_text(json.dumps(data, indent=2, default=str))
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _exchange(a: Path, b: Path) -> bool:
    """Swap two paths atomically (Linux ``renameat2(RENAME_EXCHANGE)``); False where the
    system cannot (the caller falls back to two renames under a lock)."""
    global _renameat2
    if _renameat2 is None:
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            _renameat2 = libc.renameat2
            _renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int,
                                   ctypes.c_char_p, ctypes.c_uint]
        except (OSError, AttributeError):
            _renameat2 = False
    if not _renameat2:
        return False
    at_fdcwd, rename_exchange = -100, 2
    if _renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP):  # not on this file system
        return False
    raise OSError(err, os.strerror(err), str(b))


_renameat2: Any = None


def flatten(value: Any, prefix: str = "") -> dict[str, Any]:
    """A scenario dict as dotted columns: ``topology.bottleneck.rate``, ``traffic[0].flows``.

    Lists of scalars become JSON text, so every cell is a scalar.
    """
    out: dict[str, Any] = {}
    if isinstance(value, Mapping):
        for k, v in value.items():
            out.update(flatten(v, f"{prefix}.{k}" if prefix else str(k)))
    elif isinstance(value, list) and value and all(isinstance(v, Mapping) for v in value):
        for i, v in enumerate(value):
            out.update(flatten(v, f"{prefix}[{i}]"))
    elif isinstance(value, list):
        out[prefix] = json.dumps(value)
    else:
        out[prefix] = value
    return out


class Store:
    """Runs on disk under ``root``, namespaced by aqmlab and ns-3 version."""

    def __init__(self, root: str | os.PathLike = "data", *, version: str | None = None) -> None:
        self.root = Path(root)
        self.version = version or version_tag()
        self._last: tuple[Any, ...] | None = None  # the entry verified last, for summary()

    def __repr__(self) -> str:
        return f"Store({str(self.root)!r}, version={self.version!r})"

    @property
    def runs_dir(self) -> Path:
        return self.root / "runs" / self.version

    @property
    def failures_dir(self) -> Path:
        return self.root / "failures" / self.version

    def path(self, key: str) -> Path:
        """Folder of run ``key`` in this version's namespace (it may not exist)."""
        return self.runs_dir / key

    # -- writing -----------------------------------------------------------------------------

    def put(self, results: Results, params: Mapping[str, Any] | None = None) -> Path:
        """Store one run atomically (replacing any entry of the same key); returns its folder.

        ``params`` (the sweep's parameter values) are kept in the manifest for listings.
        Concurrent writers of one key are safe: each writes its own staging folder, and the
        last one's entry stays whole. A failed write (a full disk) leaves nothing behind and
        raises OSError naming the entry.
        """
        key = results.scenario.key
        final = self.path(key)
        staging = self.runs_dir / f".{key}.{os.getpid()}.{os.urandom(4).hex()}.staging"
        try:
            self.runs_dir.mkdir(parents=True, exist_ok=True)
            results.save(staging)  # itself atomic: a temporary folder renamed to staging
            # Recorded mtimes lie a second in the past, so any later write to a file (whose
            # mtime is then "now", on however coarse a clock) shows in the cheap checks.
            stamp = time.time_ns() - 1_000_000_000
            files = {}
            for p in sorted(staging.iterdir()):
                if p.is_file():
                    os.utime(p, ns=(stamp, stamp))
                    files[p.name] = {"bytes": p.stat().st_size, "mtime_ns": stamp,
                                     "sha256": _sha256(p)}
            summary = ({k: _py(v) for k, v in results.summary.iloc[0].items()}
                       if len(results.summary) else {})
            manifest = {"store_schema": STORE_SCHEMA, "key": key, "version": self.version,
                        "stored": _now(), "params": dict(params or {}), "summary": summary,
                        "files": files}
            text = json.dumps(manifest, indent=2, default=str).encode()
            _write_synced(staging / MANIFEST, text)
            _write_synced(staging / MANIFEST_HASH, hashlib.sha256(text).hexdigest().encode()
                          + b"\n")
            self._publish(staging, final)
        except OSError as err:
            shutil.rmtree(staging, ignore_errors=True)
            raise DestinationError(err.errno, f"could not store run {key}: "
                          f"{describe_os_error(err, at=final)}", str(final)) from None
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
        self._remove_failure(key)
        return final

    def _publish(self, staging: Path, final: Path) -> None:
        """Move ``staging`` to ``final``; an existing entry is swapped out atomically (or,
        where the system cannot swap, replaced under a lock) and removed."""
        for _ in range(_READ_TRIES):
            try:
                os.rename(staging, final)
                return
            except OSError as err:
                if err.errno not in (errno.ENOTEMPTY, errno.EEXIST, errno.EISDIR):
                    raise
            try:
                if _exchange(staging, final):  # staging now holds the old entry
                    shutil.rmtree(staging, ignore_errors=True)
                    return
            except FileNotFoundError:
                continue  # the entry went away meanwhile: rename again
            with self._lock(final.name):  # two renames: serialise the writers of this key
                old = final.with_name(f".{final.name}.{os.urandom(4).hex()}.old")
                try:
                    os.rename(final, old)
                except FileNotFoundError:
                    old = None
                os.rename(staging, final)
            if old is not None:
                shutil.rmtree(old, ignore_errors=True)
            return
        raise OSError(errno.EBUSY, "the entry kept changing under concurrent writers",
                      str(final))

    @contextmanager
    def _lock(self, key: str) -> Any:
        locks = self.runs_dir / ".locks"
        locks.mkdir(exist_ok=True)
        with open(locks / f"{key}.lock", "a+b") as f:
            fcntl.flock(f, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(f, fcntl.LOCK_UN)

    def check_writable(self) -> None:
        """Raise DestinationError (one line: the path and what to do) unless runs can be
        stored here: the folders can be created and written, and the device has space."""
        writable_folder(self.runs_dir, "store", "another store root (--data)")
        writable_folder(self.failures_dir, "store's failure records",
                        "another store root (--data)")

    def record_failure(self, scenario: Scenario, status: str, error: str, stderr: str = "",
                       *, params: Mapping[str, Any] | None = None,
                       timeout: float | None = None, wall_s: float | None = None) -> Path:
        """Record that run ``scenario.key`` failed (crashed / timeout / error)."""
        self.failures_dir.mkdir(parents=True, exist_ok=True)
        path = self.failures_dir / f"{scenario.key}.json"
        _write_json(path, {
            "key": scenario.key, "status": status, "error": error, "stderr": stderr,
            "timeout": timeout, "wall_s": wall_s, "recorded": _now(),
            "version": self.version, "params": dict(params or {}),
            "scenario": scenario.to_dict()})
        return path

    def failure(self, key: str) -> dict[str, Any] | None:
        """The failure record of ``key`` (or of the one key starting with it) in this
        version, or None."""
        path = self.failures_dir / f"{key}.json"
        if not path.exists() and self.failures_dir.is_dir() and "/" not in key:
            hits = list(self.failures_dir.glob(f"{key}*.json"))
            path = hits[0] if len(hits) == 1 else path
        try:
            return json.loads(path.read_text())
        except (OSError, ValueError):
            return None

    def _remove_failure(self, key: str) -> None:
        try:
            (self.failures_dir / f"{key}.json").unlink()
        except OSError:
            pass

    # -- reading -----------------------------------------------------------------------------

    def verify(self, key: str, *, path: Path | None = None, full: bool = True) -> dict[str, Any]:
        """Check entry ``key`` and return its manifest, or raise StoreError saying what is
        wrong. ``full``: hash every file and compare the manifest's summary with the stored
        table; otherwise the cheap checks of every read (see the module docstring)."""
        d = path or self.path(key)
        check_key = self._computes_keys(d)
        for attempt in range(_READ_TRIES):  # a concurrent writer may swap the entry
            before = _inode(d)
            try:
                manifest = verify_entry(d, full=full, check_key=check_key)
                self._last = (d, before, _mtime(d / MANIFEST), manifest)
                return manifest
            except StoreError:
                if attempt == _READ_TRIES - 1 or before is None or _inode(d) == before:
                    raise
        raise AssertionError("unreachable")  # pragma: no cover

    def _computes_keys(self, d: Path) -> bool:
        """Whether this aqmlab computes the keys of the namespace holding ``d`` (its own)."""
        return d.parent.name == self.version == version_tag()

    def check(self, key: str, *, full: bool = False) -> tuple[str, str]:
        """``("ok", "")``, ``("missing", "")`` or ``("corrupt", reason)`` for run ``key``
        (cheap checks; ``full`` hashes every file)."""
        d = self.path(key)
        for attempt in range(_READ_TRIES):  # a concurrent writer may swap the entry
            if not d.exists():
                return "missing", ""
            before = _inode(d)
            try:
                self.verify(key, full=full)
            except StoreError as err:
                if not d.exists():  # removed meanwhile (by a re-running sweep)
                    return "missing", ""
                if _inode(d) != before and attempt < _READ_TRIES - 1:
                    continue  # swapped under this check: look at the new entry
                return "corrupt", str(err)
            return "ok", ""
        return "corrupt", f"{d}: the entry kept changing under concurrent writers"

    def __contains__(self, key: str) -> bool:
        return self.check(key)[0] == "ok"

    def summary(self, key: str) -> dict[str, Any]:
        """The summary row of stored run ``key`` (from its checked manifest: no Parquet
        read), or StoreError if the entry is damaged."""
        d = self.path(key)
        last = self._last  # just checked (a sweep's check, then its row): not again
        if last is not None and last[0] == d and last[1:3] == (_inode(d), _mtime(d / MANIFEST)):
            return dict(last[3].get("summary") or {})
        return dict(self.verify(key, full=False).get("summary") or {})

    def load(self, key: str, *, full: bool = True) -> Results:
        """Results of run ``key`` (a unique prefix is enough); verified (every file hashed
        unless ``full=False``), or StoreError."""
        d = self.find(key)
        for attempt in range(_READ_TRIES):  # a concurrent writer may swap the entry
            before = _inode(d)
            self.verify(d.name, path=d, full=full)
            try:
                res = _results.load(d)
            except StoreError:
                if attempt == _READ_TRIES - 1 or _inode(d) == before:
                    raise
                continue
            if _inode(d) == before:
                return res
        raise StoreError(f"{d}: the entry kept changing under concurrent writers")

    def find(self, key: str) -> Path:
        """Folder of run ``key`` or of the one stored run whose key starts with it: this
        version first, then any other version (newest first)."""
        exact = self.path(key)
        if exact.is_dir():
            return exact
        dirs = [self.runs_dir] + sorted(
            (p for p in (self.root / "runs").glob("*") if p.is_dir() and p != self.runs_dir),
            key=lambda p: p.stat().st_mtime, reverse=True)
        for base in dirs:
            if (base / key).is_dir():
                return base / key
            hits = [p for p in base.glob(f"{key}*") if p.is_dir() and not p.name.startswith(".")]
            if len(hits) == 1:
                return hits[0]
            if len(hits) > 1:
                names = ", ".join(sorted(p.name for p in hits)[:5])
                raise StoreError(f"{key!r} is ambiguous in {base}: {names}, ...")
        raise StoreError(f"no stored run {key!r} under {self.root / 'runs'}")

    def keys(self) -> list[str]:
        """Keys of the entries of this version (valid or not; hidden staging folders excluded)."""
        if not self.runs_dir.is_dir():
            return []
        return sorted(p.name for p in self.runs_dir.iterdir()
                      if p.is_dir() and not p.name.startswith("."))

    def ls(self, query: Query = None, *, all_versions: bool = False, failures: bool = True,
           verify: bool = False) -> pd.DataFrame:
        """One row per stored run (and failure record): key, status, name, seed, run,
        version, created, the summary metrics and every scenario
        field as a dotted column. ``verify`` checks checksums (reads every file)."""
        rows: list[dict[str, Any]] = []
        versions = ([p for p in sorted((self.root / "runs").glob("*")) if p.is_dir()]
                    if all_versions else [self.runs_dir])
        for vdir in versions:
            if not vdir.is_dir():
                continue
            for d in sorted(vdir.iterdir()):
                if d.is_dir() and not d.name.startswith("."):
                    rows.append(self._row(d, vdir.name, verify))
        if failures:
            fdirs = ([p for p in sorted((self.root / "failures").glob("*")) if p.is_dir()]
                     if all_versions else [self.failures_dir])
            for fdir in fdirs:
                if fdir.is_dir():
                    for f in sorted(fdir.glob("*.json")):
                        rows.append(self._failure_row(f, fdir.name))
        df = pd.DataFrame(rows)
        if df.empty:
            return pd.DataFrame(columns=list(LEAD))
        lead = [c for c in LEAD if c in df.columns]
        df = df[lead + [c for c in df.columns if c not in lead]]
        return select(df, query).reset_index(drop=True)

    def _row(self, d: Path, version: str, verify: bool) -> dict[str, Any]:
        """One listing row: every entry is checked (cheaply, or in full with ``verify``);
        a damaged one is listed as corrupt with the reason, never as ok."""
        row: dict[str, Any] = {"key": d.name, "status": "ok", "version": version}
        try:
            manifest = self.verify(d.name, path=d, full=verify)
            meta = json.loads((d / META_FILE).read_text())
        except (OSError, ValueError, StoreError) as err:
            row.update(status="corrupt", error=str(err))
            return row
        scenario = meta.get("scenario", {})
        row.update(name=scenario.get("name"), seed=meta.get("seed"), run=meta.get("run"),
                   created=meta.get("created"), host=meta.get("host"), pid=meta.get("pid"))
        summary = manifest.get("summary") or {}
        row.update({k: v for k, v in summary.items() if k not in row})
        row.update(flatten(scenario))
        return row

    def _failure_row(self, f: Path, version: str) -> dict[str, Any]:
        try:
            rec = json.loads(f.read_text())
        except (OSError, ValueError) as err:
            return {"key": f.stem, "status": "corrupt", "version": version, "error": str(err)}
        scenario = rec.get("scenario", {})
        row = {"key": rec.get("key", f.stem), "status": rec.get("status", "failed"),
               "name": scenario.get("name"), "seed": scenario.get("run", {}).get("seed"),
               "run": scenario.get("run", {}).get("run"), "version": version,
               "created": rec.get("recorded"), "error": rec.get("error"),
               "wall_s": rec.get("wall_s")}
        row.update(flatten(scenario))
        return row

    # -- deleting ----------------------------------------------------------------------------

    def delete(self, query: Query = None, *, all_versions: bool = False) -> list[str]:
        """Delete the runs and failure records that match ``query``; returns their keys.

        ``query=None`` deletes everything of this version (of every version with
        ``all_versions``)."""
        listing = self.ls(query, all_versions=all_versions)
        deleted = []
        for key, status, version in zip(listing["key"], listing["status"], listing["version"],
                                        strict=True):
            if status in ("ok", "corrupt"):
                self.remove(key, version=version)
            rec = self.root / "failures" / version / f"{key}.json"
            if rec.exists():
                rec.unlink()
            deleted.append(key)
        return deleted

    def remove(self, key: str, *, version: str | None = None) -> None:
        """Delete one entry (atomically: renamed away first, then removed)."""
        d = self.root / "runs" / (version or self.version) / key
        if not d.exists():
            return
        gone = d.with_name(f".{key}.{os.urandom(4).hex()}.deleted")
        os.replace(d, gone)
        shutil.rmtree(gone, ignore_errors=True)

    def clean(self, older_than: float = 3600.0) -> int:
        """Remove hidden staging/old/deleted folders left by killed writers; returns how many.

        Only folders older than ``older_than`` seconds go, so concurrent writers are safe."""
        n = 0
        limit = time.time() - older_than
        for folder in (self.runs_dir, self.failures_dir):
            if not folder.is_dir():
                continue
            for p in folder.iterdir():
                try:
                    if (not p.name.startswith(".") or p.name == ".locks"
                            or p.stat().st_mtime >= limit):
                        continue
                    if p.is_dir():
                        shutil.rmtree(p, ignore_errors=True)
                    else:
                        p.unlink(missing_ok=True)
                except OSError:
                    continue
                n += 1
        return n


def _inode(d: Path) -> tuple[int, int, int] | None:
    """The identity of the folder at ``d``: device, inode and change time (a writer's new
    folder may reuse the inode number of one deleted a moment ago: its ctime differs)."""
    try:
        st = d.stat()
    except OSError:
        return None
    return st.st_dev, st.st_ino, st.st_ctime_ns


def _mtime(path: Path) -> int | None:
    try:
        return path.stat().st_mtime_ns
    except OSError:
        return None


def _write_synced(path: Path, data: bytes) -> None:
    with open(path, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())


def verify_entry(d: Path, *, full: bool = False, check_key: bool = True) -> dict[str, Any]:
    """Check the stored entry in folder ``d`` and return its manifest, or raise StoreError
    naming the folder and what is wrong (see the module docstring). ``check_key``: the
    entry's ``scenario.toml`` must hash to the folder's name (this aqmlab's keys only)."""
    if not d.is_dir():
        raise StoreError(f"{d}: no such run")
    try:
        raw = (d / MANIFEST).read_bytes()
    except FileNotFoundError:
        raise StoreError(f"{d}: {MANIFEST} is missing: not a complete entry") from None
    except OSError as err:
        raise StoreError(f"{d}: {MANIFEST} cannot be read: {describe_os_error(err)}") from None
    try:
        manifest = json.loads(raw)
        files = manifest["files"]
        schema = int(manifest.get("store_schema", 1))
        if not isinstance(files, dict) or not isinstance(manifest.get("summary", {}), dict):
            raise TypeError("files and summary must be tables")
    except (ValueError, KeyError, TypeError) as err:
        raise StoreError(f"{d}: {MANIFEST} is not a manifest ({err})") from None
    if schema >= 2:
        try:
            recorded = (d / MANIFEST_HASH).read_text().strip()
        except (OSError, ValueError):
            raise StoreError(f"{d}: {MANIFEST_HASH} is missing or unreadable") from None
        if recorded != hashlib.sha256(raw).hexdigest():
            raise StoreError(f"{d}: {MANIFEST} does not match {MANIFEST_HASH} (edited?)")
    else:
        full = True  # an older entry without the manifest's own hash: trust nothing cheaply
    if manifest.get("key") not in (None, d.name):
        raise StoreError(f"{d}: its manifest belongs to run {manifest.get('key')}")
    missing = [name for name in REQUIRED if name not in files]
    if missing:
        raise StoreError(f"{d}: {MANIFEST} does not list {', '.join(missing)}")
    for name, info in files.items():
        if "/" in name or name.startswith("."):
            raise StoreError(f"{d}: {MANIFEST} lists an odd file name {name!r}")
        p = d / name
        try:
            st = p.stat()
        except OSError:
            raise StoreError(f"{d}: {name} is missing") from None
        if st.st_size != info["bytes"]:
            raise StoreError(f"{d}: {name} has {st.st_size} bytes, {info['bytes']} were "
                             f"written (truncated or replaced)")
        if (full or st.st_mtime_ns != info.get("mtime_ns")) and _sha256(p) != info["sha256"]:
            raise StoreError(f"{d}: {name} does not match its checksum (corrupt or replaced)")
    if check_key:
        _check_scenario_key(d)
    if full:
        _check_summary(d, manifest.get("summary") or {})
    return manifest


def _check_scenario_key(d: Path) -> None:
    """``scenario.toml`` (and meta.json's scenario) must be the run the folder names."""
    try:
        spec = tomllib.loads((d / "scenario.toml").read_text(encoding="utf-8"))
        try:
            key = Scenario.from_dict(spec).key
        except ScenarioError:
            for group in spec.get("traffic", []):  # a calibration table of another machine:
                if isinstance(group, dict):  # the rate it gave is stored, the path not hashed
                    group.pop("calibration", None)
            key = Scenario.from_dict(spec).key
    except (OSError, ValueError, AttributeError, ScenarioError) as err:
        raise StoreError(f"{d}: scenario.toml is not a valid scenario ({err})") from None
    if key != d.name:
        raise StoreError(f"{d}: scenario.toml is run {key}, not this entry's")


def _check_summary(d: Path, summary: Mapping[str, Any]) -> None:
    """The manifest's summary (what listings and sweep tables serve) must be the table."""
    try:
        table = pd.read_parquet(d / "summary.parquet")
    except Exception as err:  # noqa: BLE001 - pyarrow raises many kinds
        raise StoreError(f"{d}: summary.parquet cannot be read ({err})") from None
    row = {k: _py(v) for k, v in table.iloc[0].items()} if len(table) else {}
    if set(row) != set(summary):
        raise StoreError(f"{d}: the manifest's summary has other columns than summary.parquet")
    for k, v in row.items():
        if not _same(v, summary[k]):
            raise StoreError(f"{d}: the manifest's summary says {k} = {summary[k]!r}, "
                             f"summary.parquet {v!r}")


def _same(a: Any, b: Any) -> bool:
    """Equal as stored: NaN equals NaN; JSON turned timestamps and the like into text."""
    if a == b or str(a) == str(b):
        return True
    return all(isinstance(x, float) and math.isnan(x) for x in (a, b))


def select(df: pd.DataFrame, query: Query) -> pd.DataFrame:
    """Rows of ``df`` matching ``query`` (see :data:`Query`)."""
    if query is None or (isinstance(query, str) and not query.strip()):
        return df
    if callable(query):
        return df[np.asarray(query(df), dtype=bool)]
    if isinstance(query, Mapping):
        mask = np.ones(len(df), dtype=bool)
        for col, value in query.items():
            if col not in df.columns:
                raise StoreError(f"no column {col!r} in the listing; columns include "
                                 f"{', '.join(map(str, list(df.columns)[:12]))}, ...")
            if isinstance(value, (list, tuple, set)):
                mask &= df[col].isin(list(value)).to_numpy()
            else:
                mask &= (df[col] == value).to_numpy()
        return df[mask]
    if isinstance(query, str):
        if _KEYISH.match(query):
            return df[df["key"].astype(str).str.startswith(query)]
        try:
            return df.query(query, engine="python")
        except Exception as err:  # noqa: BLE001 - pandas raises many kinds
            raise StoreError(f"invalid query {query!r}: {err} (quote dotted columns with "
                             f"backticks: `traffic[0].flows` == 10)") from None
    raise StoreError(f"unsupported query {query!r}")
