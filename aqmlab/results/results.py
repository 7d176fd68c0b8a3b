"""Results of one run: tidy tables with provenance; Parquet + JSON on disk, written atomically."""

from __future__ import annotations

import json
import os
import platform
import shutil
import socket
import tempfile
from dataclasses import dataclass, field
from datetime import UTC, datetime
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

import pandas as pd

from aqmlab import __version__
from aqmlab.errors import StoreError
from aqmlab.preflight import DestinationError, describe_os_error
from aqmlab.scenario import Scenario

TABLES = ("flows", "requests", "queues", "links", "queue_ts", "summary")
SCHEMA_VERSION = 1
META_FILE = "meta.json"


def provenance() -> dict[str, Any]:
    """Versions and host of this process (no ns-3 import needed)."""
    try:
        ns3_version = version("ns3")
    except PackageNotFoundError:
        ns3_version = "unknown"
    return {
        "aqmlab_version": __version__,
        "ns3_version": ns3_version,
        "python": platform.python_version(),
        "host": socket.gethostname(),
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
    }


@dataclass
class Results:
    """Tables of one run plus its metadata (scenario, seed, versions, wall time, events)."""

    scenario: Scenario
    flows: pd.DataFrame
    queues: pd.DataFrame
    links: pd.DataFrame
    queue_ts: pd.DataFrame
    summary: pd.DataFrame
    meta: dict[str, Any] = field(default_factory=dict)
    requests: pd.DataFrame = field(default_factory=pd.DataFrame)

    def table(self, name: str) -> pd.DataFrame:
        if name not in TABLES:
            raise KeyError(f"unknown table {name!r}; tables are {TABLES}")
        return getattr(self, name)

    def __repr__(self) -> str:
        s = self.summary.iloc[0].to_dict() if len(self.summary) else {}
        keys = ("goodput_mbps", "utilisation", "loss_rate", "avg_qlen_pkts", "events")
        body = ", ".join(f"{k}={s[k]:.4g}" for k in keys if k in s)
        return f"<Results {self.scenario.name} {self.scenario.key}: {body}>"

    def save(self, directory: str | os.PathLike) -> Path:
        """Write the run to ``directory`` atomically (temporary folder, then rename).

        An earlier run in ``directory`` is replaced; any other non-empty folder is refused
        (StoreError), never replaced. The folder follows the umask (group-readable where
        the umask says so). A failed write leaves nothing and raises OSError naming
        ``directory``."""
        target = Path(directory)
        if target.is_dir() and any(target.iterdir()) and not (target / META_FILE).exists():
            raise StoreError(f"{target}: exists and is not an aqmlab run (no {META_FILE}); "
                             "it is not replaced: save to a new folder")
        try:
            return self._save(target)
        except OSError as err:
            raise DestinationError(err.errno, f"could not save the run: {describe_os_error(err, at=target)}",
                          str(target)) from None

    def _save(self, target: Path) -> Path:
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
        try:
            os.chmod(tmp, 0o777 & ~_umask())  # mkdtemp makes it 0700
            for name in TABLES:
                self.table(name).to_parquet(tmp / f"{name}.parquet", index=False)
            (tmp / "scenario.toml").write_text(self.scenario.to_toml())
            meta = {**self.meta, "schema_version": SCHEMA_VERSION,
                    "scenario": self.scenario.to_dict(), "tables": list(TABLES)}
            # meta.json is written last: its presence marks a complete result.
            (tmp / META_FILE).write_text(json.dumps(meta, indent=2, default=str))
            if target.exists():
                old = target.with_name(f".{target.name}.{os.urandom(4).hex()}.old")
                os.replace(target, old)
                os.replace(tmp, target)
                shutil.rmtree(old, ignore_errors=True)
            else:
                os.replace(tmp, target)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        return target


def _umask() -> int:
    """This process's umask (read without changing it where /proc says it)."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def load(directory: str | os.PathLike) -> Results:
    """Read a run written by :meth:`Results.save`; a missing or corrupt part raises StoreError."""
    d = Path(directory)
    try:
        meta = json.loads((d / META_FILE).read_text())
    except (OSError, ValueError) as err:
        raise StoreError(f"{d}: no readable {META_FILE} (incomplete or not a run): {err}") from err
    if meta.get("schema_version", 0) > SCHEMA_VERSION:
        raise StoreError(f"{d}: schema {meta['schema_version']} is newer than {SCHEMA_VERSION}")
    tables = {}
    for name in TABLES:
        try:
            tables[name] = pd.read_parquet(d / f"{name}.parquet")
        except Exception as err:  # noqa: BLE001 - pyarrow raises many kinds
            raise StoreError(f"{d}: table {name} is missing or corrupt: {err}") from err
    scenario = Scenario.from_dict(meta.pop("scenario"))
    return Results(scenario=scenario, meta=meta, **tables)
