"""``aqmlab.sweep``: expand a grid, run only what the store lacks, return one tidy table.

1. The sweep is expanded and *every* point validated before anything runs.
2. Each point is looked up in the store: a valid entry is *cached*; a corrupt one is
   reported (``StoreWarning`` and the log) and re-run; a recorded failure is reported
   again without re-running it (``retry_failed=True`` re-runs it; a recorded timeout is
   re-run by itself when the new limit is larger).
3. The missing runs go to the executor longest-expected-first: measured wall times of
   the same scenario (other seeds) in the store where known, otherwise the cost model
   (:func:`~aqmlab.campaign.cost.estimate_cost`) scaled to the measured ones.
4. Each result is written to the store by this process as it arrives (atomically), so a
   killed sweep loses only the runs in flight; crashes and timeouts are recorded as failed
   runs with their stderr tail and do not stop the sweep. The store is checked writable
   (with free space) before the first run starts.
5. Each run is claimed just before it starts (:mod:`aqmlab.campaign.claims`), so sweeps
   sharing a store split the work: a run another sweep has claimed is left to it and taken
   from the store when it arrives (``source`` "cached"), or taken over if that sweep died.
6. With ``run_missing=False`` nothing runs: the points the store lacks get status
   ``missing`` (interim results of a campaign still under way, or a store copied from
   elsewhere).
"""

from __future__ import annotations

import json
import logging
import math
import os
import statistics
import time
import tomllib
import warnings
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
from tqdm.auto import tqdm

from aqmlab.campaign.claims import Claims
from aqmlab.campaign.cost import estimate_cost
from aqmlab.campaign.executors import DaskExecutor, Job, LocalExecutor
from aqmlab.campaign.grid import Point, Sweep
from aqmlab.campaign.store import MANIFEST, Store
from aqmlab.errors import AqmlabWarning
from aqmlab.results.results import Results
from aqmlab.scenario import Scenario

__all__ = ["StoreWarning", "SweepResult", "estimate_cost", "sweep"]

log = logging.getLogger("aqmlab.campaign")

#: Table columns that follow the parameters.
STATUS_COLUMNS = ("key", "status", "source")
#: Summary columns that repeat what the parameter columns already say.
_DROP = ("seed",)


class StoreWarning(AqmlabWarning):
    """A stored run is corrupt or truncated; it is deleted and run again."""


@dataclass
class SweepResult:
    """The outcome of a sweep: ``table`` (one row per point, in grid order: parameter
    columns, ``key``, ``status`` (ok / crashed / timeout / error), ``source`` (ran /
    cached), the summary metrics, ``error``) and access to every run's full Results."""

    sweep: Sweep
    store: Store
    points: list[Point]
    table: pd.DataFrame
    counts: dict[str, int] = field(default_factory=dict)
    wall_s: float = 0.0

    def __len__(self) -> int:
        return len(self.points)

    def __repr__(self) -> str:
        c = ", ".join(f"{k} {v}" for k, v in self.counts.items())
        return f"<SweepResult {self.sweep.name or ''} {c}; store {self.store.root}>"

    @property
    def ok(self) -> pd.DataFrame:
        return self.table[self.table["status"] == "ok"]

    @property
    def failed(self) -> pd.DataFrame:
        return self.table[self.table["status"] != "ok"]

    def results(self, which: str | int) -> Results:
        """Full Results of one run: by key, key prefix or row number of ``table``."""
        key = self.points[which].key if isinstance(which, int) else which
        return self.store.load(key)

    def __iter__(self) -> Iterator[tuple[dict[str, Any], Results]]:
        """``(params, Results)`` of every successful run, in grid order (loaded lazily)."""
        ok = set(self.ok["key"])
        for p in self.points:
            if p.key in ok:
                yield p.params, self.store.load(p.key)

    def scenario(self, key: str) -> Scenario:
        return next(p.scenario for p in self.points if p.key == key)


def sweep(base: Scenario | Sweep | str | os.PathLike | Mapping, grid: Mapping | None = None,
          *, zip: Sequence[Mapping] | Mapping | None = None,
          seeds: Sequence[int] | None = None, store: Store | str | os.PathLike = "data",
          workers: int | None = None, scheduler: Any = None, timeout: float | None = None,
          progress: bool = True, retry_failed: bool = False, executor: Any = None,
          name: str | None = None, run_missing: bool = True) -> SweepResult:
    """Run a parameter sweep and return its tidy table (see :class:`SweepResult`).

    ``base``: a Scenario (or its dict, or a scenario file), or a ready :class:`Sweep` / a
    sweep file (then ``grid``/``zip``/``seeds`` must not be given). ``grid``: dotted path ->
    list of values (Cartesian product); ``zip``: groups of paths moved together; ``seeds``:
    replications, the same for every arm (common random numbers). ``store``: a Store or its
    root folder. ``workers``: local processes (default: all cores); ``scheduler``: a Dask
    scheduler address or ``distributed.Client`` instead; ``executor``: a reusable
    :class:`LocalExecutor` / :class:`DaskExecutor` (kept open). ``timeout``: wall-clock
    seconds per run (default: each scenario's ``run.max_wall_time``). ``run_missing=False``:
    run nothing; points the store lacks are rows with status ``missing``.
    """
    t0 = time.perf_counter()
    spec = _as_sweep(base, grid, zip, seeds, name)
    points = spec.points()  # validates every point before anything runs
    st = store if isinstance(store, Store) else Store(store)
    st.clean()

    rows: dict[str, dict[str, Any]] = {}
    jobs: list[Job] = []
    counts = {"total": len(points), "ran": 0, "cached": 0, "failed": 0, "corrupt": 0,
              "missing": 0}
    for p in points:
        limit = timeout if timeout is not None else p.scenario.run.max_wall_time_s
        state, reason = st.check(p.key)
        if state == "ok":
            rows[p.key] = _ok_row(st, p, "cached")
            counts["cached"] += 1
            continue
        if state == "corrupt" and not run_missing:
            rows[p.key] = _failed_row(p, "missing", f"stored run is corrupt: {reason}", "store")
            counts["missing"] += 1
            continue
        if state == "corrupt":
            counts["corrupt"] += 1
            msg = f"stored run {p.key} is corrupt and will be run again: {reason}"
            warnings.warn(msg, StoreWarning, stacklevel=2)
            log.warning(msg)
            st.remove(p.key)
        rec = None if retry_failed else st.failure(p.key)
        if rec is not None and not _timeout_grew(rec, limit):
            rows[p.key] = _failed_row(p, rec["status"], rec.get("error", ""), "cached")
            counts["cached"] += 1
            counts["failed"] += 1
            continue
        if not run_missing:
            rows[p.key] = _failed_row(p, "missing", "not in the store", "store")
            counts["missing"] += 1
            continue
        jobs.append(Job(p.key, p.scenario, limit, estimate_cost(p.scenario)))
    jobs = _longest_first(jobs, st)
    by_key = {p.key: p for p in points}
    limits = {j.key: j.timeout for j in jobs}
    if jobs:
        st.check_writable()  # before the first simulation: its result must have a place

    bar = _progress(progress, len(points), counts, spec.name)

    def done_elsewhere(job: Job, rec: dict[str, Any] | None) -> None:
        """Another sweep on this store ran ``job`` meanwhile: take its outcome."""
        p = by_key[job.key]
        if rec is None:
            rows[p.key] = _ok_row(st, p, "cached")
        else:
            rows[p.key] = _failed_row(p, rec["status"], rec.get("error", ""), "cached")
            counts["failed"] += 1
        counts["cached"] += 1
        if bar is not None:
            bar.update(1)

    claims = Claims(st.root, st.version)
    own = executor is None and bool(jobs)
    if own:
        executor = DaskExecutor(scheduler) if scheduler is not None else LocalExecutor(workers)
    feed = _claimed(jobs, st, claims, done_elsewhere,
                    lazy=getattr(executor, "lazy_jobs", False))
    outcomes = executor.run(feed) if jobs else iter(())
    try:
        for out in outcomes:
            claims.refresh()
            if out is None:
                if bar is not None:
                    bar.refresh()
                continue
            p = by_key.get(out.job_id)
            if p is None:  # pragma: no cover - a stray outcome of an earlier, interrupted sweep
                continue
            if out.ok:
                st.put(out.results, params=p.columns())
                rows[p.key] = _ok_row(st, p, "ran")
            else:
                st.record_failure(p.scenario, out.status, out.reason, out.stderr,
                                  params=p.columns(), timeout=limits[p.key], wall_s=out.wall_s)
                rows[p.key] = _failed_row(p, out.status, out.reason, "ran")
                counts["failed"] += 1
                log.warning("run %s %s: %s (details: aqmlab show %s --data %s)",
                            p.key, out.status, out.reason, p.key, st.root)
            claims.release(p.key)
            counts["ran"] += 1
            if bar is not None:
                bar.update(1)
                bar.set_postfix(_postfix(counts), refresh=False)
    finally:
        if hasattr(outcomes, "close"):
            outcomes.close()  # interrupted: the executor abandons the runs in flight
        claims.release_all()
        if bar is not None:
            bar.close()
        if own:
            executor.close()

    table = _table(spec, points, rows)
    return SweepResult(sweep=spec, store=st, points=points, table=table, counts=counts,
                       wall_s=time.perf_counter() - t0)


# -- helpers ---------------------------------------------------------------------------------


def _as_sweep(base: Any, grid: Any, zip_: Any, seeds: Any, name: str | None) -> Sweep:
    if isinstance(base, (str, os.PathLike)) and _is_sweep_file(Path(base)):
        base = Sweep.load(base)
    if isinstance(base, Sweep):
        if grid is not None or zip_ is not None or seeds is not None:
            raise TypeError("pass grid/zip/seeds either in the Sweep or as arguments, not both")
        if name is not None:
            base.name = name
        return base
    return Sweep(base=base, grid=dict(grid or {}), zip=zip_ or [],
                 seeds=list(seeds) if seeds is not None else None, name=name)


def _is_sweep_file(path: Path) -> bool:
    if path.suffix.lower() != ".toml" or not path.is_file():
        return False
    try:
        d = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError):
        return False
    return "base" in d or "grid" in d


def _claimed(jobs: Iterable[Job], st: Store, claims: Claims,
             done_elsewhere: Callable[[Job, dict[str, Any] | None], None], *, lazy: bool,
             heartbeat: float = 1.0) -> Iterator[Job | None]:
    """The jobs this sweep claims, in order, as the executor asks for them. A job another
    sweep holds is put back and tried again later; once claimed, a job another sweep has
    finished meanwhile (stored, or its failure recorded) goes to ``done_elsewhere`` instead.
    When every remaining job is held elsewhere: None (``lazy`` executors wait a heartbeat
    and ask again) or, for executors that take all jobs at once, a wait here."""
    pending = deque(jobs)
    before = {j.key: _recorded(st, j.key) for j in pending}
    while pending:
        progressed = False
        for _ in range(len(pending)):
            job = pending.popleft()
            if not claims.claim(job.key):
                pending.append(job)
                continue
            progressed = True
            if st.check(job.key)[0] == "ok":
                claims.release(job.key)
                done_elsewhere(job, None)
                continue
            rec = st.failure(job.key)
            if rec is not None and rec.get("recorded") != before[job.key]:
                claims.release(job.key)
                done_elsewhere(job, rec)
                continue
            yield job
        if pending and not progressed:
            claims.refresh()
            if lazy:
                yield None
            else:
                time.sleep(heartbeat)


def _recorded(st: Store, key: str) -> str | None:
    rec = st.failure(key)
    return None if rec is None else rec.get("recorded")


def _timeout_grew(rec: dict[str, Any], limit: float | None) -> bool:
    """A recorded timeout is retried when the new limit is larger (or None)."""
    if rec.get("status") != "timeout":
        return False
    old = rec.get("timeout")
    return limit is None or old is None or limit > old


def _ok_row(st: Store, p: Point, source: str) -> dict[str, Any]:
    summary = st.summary(p.key)
    row: dict[str, Any] = {**p.columns(), "key": p.key, "status": "ok", "source": source}
    row.update({k: v for k, v in summary.items() if k not in row and k not in _DROP})
    return row


def _failed_row(p: Point, status: str, error: str, source: str) -> dict[str, Any]:
    return {**p.columns(), "key": p.key, "status": status, "source": source, "error": error}


def _table(spec: Sweep, points: list[Point], rows: dict[str, dict[str, Any]]) -> pd.DataFrame:
    records = [rows[p.key] for p in points]
    df = pd.DataFrame.from_records(records)
    if "error" not in df.columns:
        df["error"] = ""
    df["error"] = df["error"].fillna("")
    lead = [c for c in spec.param_columns if c in df.columns] + list(STATUS_COLUMNS)
    rest = [c for c in df.columns if c not in lead and c != "error"]
    return df[lead + rest + ["error"]]


def _measured_walls(st: Store, hashes: set[str]) -> dict[str, float]:
    """Mean stored wall time per scenario hash (any seed), from the manifests."""
    walls: dict[str, list[float]] = {}
    for key in st.keys():
        h = key.split("-s")[0]
        if h not in hashes:
            continue
        try:
            summary = json.loads((st.path(key) / MANIFEST).read_text())["summary"]
            w = float(summary.get("wall_s", math.nan))
        except (OSError, ValueError, KeyError, TypeError):
            continue
        if math.isfinite(w):
            walls.setdefault(h, []).append(w)
    return {h: statistics.fmean(v) for h, v in walls.items()}


def _longest_first(jobs: list[Job], st: Store) -> list[Job]:
    if len(jobs) < 2:
        return jobs
    measured = _measured_walls(st, {j.scenario.hash for j in jobs})
    ratios = [measured[j.scenario.hash] / j.cost for j in jobs
              if j.scenario.hash in measured and j.cost > 0]
    scale = statistics.median(ratios) if ratios else 1.0
    for j in jobs:
        j.cost = measured.get(j.scenario.hash, j.cost * scale)
    return sorted(jobs, key=lambda j: -j.cost)


def _postfix(counts: dict[str, int]) -> dict[str, int]:
    return {"ran": counts["ran"], "failed": counts["failed"], "cached": counts["cached"]}


def _progress(enabled: bool, total: int, counts: dict[str, int], name: str | None) -> Any:
    if not enabled:
        return None
    bar = tqdm(total=total, initial=counts["cached"], desc=name or "sweep", unit="run",
               dynamic_ncols=True)
    bar.set_postfix(_postfix(counts))
    return bar
