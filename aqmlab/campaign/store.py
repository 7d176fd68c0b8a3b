"""The result store: one folder per run, content-addressed, written atomically.

Layout under ``root`` (``data/`` by default)::

    runs/<aqmlab version>-<ns-3 version>/<scenario hash>-s<seed>-r<run>/
        meta.json  scenario.toml  flows.parquet  queues.parquet  links.parquet
        queue_ts.parquet  summary.parquet      (what Results.save writes)
        manifest.json                          (size and sha256 of every file above,
                                                the sweep parameters, the summary row)
    failures/<aqmlab version>-<ns-3 version>/<key>.json
        (status crashed | timeout | error, message, stderr tail, scenario)

A run is written into a hidden staging folder (``.<key>.*``) and renamed into place in
one step, so a killed writer leaves no entry that reads as valid; hidden folders are never
listed and stale ones are removed by :meth:`Store.clean`. An entry is valid when its
``meta.json`` loads and every file matches the manifest (sha256); anything else is
*corrupt*: reported, and re-run by the next sweep that needs it. A new aqmlab or ns-3
version starts a new namespace; older results stay readable (``all_versions=True``).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import time
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from aqmlab.errors import StoreError
from aqmlab.results import results as _results
from aqmlab.results.results import META_FILE, Results
from aqmlab.scenario import Scenario

__all__ = ["Store", "Query", "version_tag"]

MANIFEST = "manifest.json"
STORE_SCHEMA = 1
#: A query: None (everything), a key or key prefix, a pandas ``DataFrame.query``
#: expression (quote dotted columns with backticks), a ``{column: value or [values]}``
#: dict, or a function of the listing returning a boolean mask.
Query = str | Mapping[str, Any] | Callable[[pd.DataFrame], Any] | None
_KEYISH = re.compile(r"^[0-9a-f]{1,16}(-s\d+(-r\d+)?)?$")
#: Columns that lead every listing.
LEAD = ("key", "status", "name", "seed", "run", "version", "created")


def version_tag() -> str:
    """``<aqmlab version>-<ns-3 wheel version>`` of this installation (no ns-3 import)."""
    from importlib.metadata import PackageNotFoundError, version  # noqa: PLC0415

    from aqmlab import __version__  # noqa: PLC0415

    try:
        ns3 = version("ns3")
    except PackageNotFoundError:
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
    tmp.write_text(json.dumps(data, indent=2, default=str))
    os.replace(tmp, path)


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
        """
        key = results.scenario.key
        final = self.path(key)
        self.runs_dir.mkdir(parents=True, exist_ok=True)
        staging = self.runs_dir / f".{key}.{os.getpid()}.{os.urandom(4).hex()}.staging"
        try:
            results.save(staging)  # itself atomic: a temporary folder renamed to staging
            files = {p.name: {"bytes": p.stat().st_size, "sha256": _sha256(p)}
                     for p in sorted(staging.iterdir()) if p.is_file()}
            summary = ({k: _py(v) for k, v in results.summary.iloc[0].items()}
                       if len(results.summary) else {})
            manifest = {"store_schema": STORE_SCHEMA, "key": key, "version": self.version,
                        "stored": _now(), "params": dict(params or {}), "summary": summary,
                        "files": files}
            (staging / MANIFEST).write_text(json.dumps(manifest, indent=2, default=str))
            try:
                os.replace(staging, final)
            except OSError:  # an entry exists (a re-run, or a concurrent writer): swap it
                old = self.runs_dir / f".{key}.{os.urandom(4).hex()}.old"
                try:
                    os.replace(final, old)
                except FileNotFoundError:
                    pass
                os.replace(staging, final)
                shutil.rmtree(old, ignore_errors=True)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
        self._remove_failure(key)
        return final

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

    def verify(self, key: str, *, path: Path | None = None) -> dict[str, Any]:
        """Check entry ``key``; return its manifest (or meta) or raise StoreError."""
        d = path or self.path(key)
        if not d.is_dir():
            raise StoreError(f"{d}: no such run")
        try:
            json.loads((d / META_FILE).read_text())
        except (OSError, ValueError) as err:
            raise StoreError(f"{d}: no readable {META_FILE}: {err}") from err
        try:
            manifest = json.loads((d / MANIFEST).read_text())
        except FileNotFoundError:
            _results.load(d)  # not written by a Store: the tables must at least load
            return {}
        except (OSError, ValueError) as err:
            raise StoreError(f"{d}: unreadable {MANIFEST}: {err}") from err
        for name, info in manifest.get("files", {}).items():
            p = d / name
            try:
                size = p.stat().st_size
            except OSError:
                raise StoreError(f"{d}: {name} is missing") from None
            if size != info["bytes"]:
                raise StoreError(f"{d}: {name} has {size} bytes, {info['bytes']} were written "
                                 f"(truncated?)")
            if _sha256(p) != info["sha256"]:
                raise StoreError(f"{d}: {name} does not match its checksum (corrupt)")
        return manifest

    def check(self, key: str) -> tuple[str, str]:
        """``("ok", "")``, ``("missing", "")`` or ``("corrupt", reason)`` for run ``key``."""
        if not self.path(key).exists():
            return "missing", ""
        try:
            self.verify(key)
        except StoreError as err:
            return "corrupt", str(err)
        return "ok", ""

    def __contains__(self, key: str) -> bool:
        return self.check(key)[0] == "ok"

    def summary(self, key: str) -> dict[str, Any]:
        """The summary row of stored run ``key`` (from the manifest: no Parquet read)."""
        d = self.path(key)
        try:
            manifest = json.loads((d / MANIFEST).read_text())
            return dict(manifest["summary"])
        except (OSError, ValueError, KeyError):
            res = _results.load(d)
            return {k: _py(v) for k, v in res.summary.iloc[0].items()} if len(res.summary) else {}

    def load(self, key: str) -> Results:
        """Results of run ``key`` (a unique prefix is enough); verified, or StoreError."""
        d = self.find(key)
        self.verify(d.name, path=d)
        return _results.load(d)

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
        row: dict[str, Any] = {"key": d.name, "status": "ok", "version": version}
        try:
            meta = json.loads((d / META_FILE).read_text())
            manifest = self.verify(d.name, path=d) if verify else _read_json(d / MANIFEST)
        except (OSError, ValueError, StoreError) as err:
            row.update(status="corrupt", error=str(err))
            return row
        scenario = meta.get("scenario", {})
        row.update(name=scenario.get("name"), seed=meta.get("seed"), run=meta.get("run"),
                   created=meta.get("created"), host=meta.get("host"), pid=meta.get("pid"))
        summary = (manifest or {}).get("summary")
        if summary is None:
            try:
                summary = self.summary(d.name) if d.parent == self.runs_dir else {}
            except StoreError as err:
                row.update(status="corrupt", error=str(err))
                summary = {}
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
                    if not p.name.startswith(".") or p.stat().st_mtime >= limit:
                        continue
                    if p.is_dir():
                        shutil.rmtree(p, ignore_errors=True)
                    else:
                        p.unlink(missing_ok=True)
                except OSError:
                    continue
                n += 1
        return n


def _read_json(path: Path) -> dict[str, Any] | None:
    try:
        return json.loads(path.read_text())
    except FileNotFoundError:
        return None


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
