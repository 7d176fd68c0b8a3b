"""What every study shares: running arms of scenarios through the sweep API, and reducing
each run to small tidy frames (response-time statistics and CDFs, queues, flows).

A study never loops over simulations itself: it describes *arms* (a label and the dotted
changes that make it from a base scenario) and axes, and :meth:`Context.sweep` turns them
into one :func:`aqmlab.sweep` call (a ``zip`` axis of labels and changes, plus a ``grid``),
so runs are cached in the content-addressed store, resumed after a kill, spread over local
workers or a Dask cluster. Arms are labelled through the scenario ``name``: a scenario that
two studies share (same name and settings) runs once.

Reductions keep the notebooks light at paper scale: a run of 250,000 responses becomes a
one-row statistics frame and a CDF on a fixed grid of response times.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from aqmlab.campaign import DaskExecutor, Job, LocalExecutor, Store, Sweep, estimate_cost, sweep
from aqmlab.scenario import Scenario
from aqmlab.scenario.spec import parse_path
from aqmlab.studies.arms import Arm

__all__ = ["Context", "context", "prefetch", "PlannedSweep", "arm_changes", "arms_zip", "collect", "stack", "merge_tables", "web_stats", "web_cdf", "cdf_grid",
           "CDF_GRID_MS", "mean_cdf", "curve", "crossings", "share_faster", "get_path", "EXAMPLES",
           "example", "pct"]

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

#: Response-time grid (ms) on which every CDF is evaluated: 1 ms steps to 2 s, 10 ms to
#: 20 s, then logarithmic to 1000 s.
CDF_GRID_MS = np.unique(np.concatenate([
    np.arange(0, 2000, 1.0), np.arange(2000, 20000, 10.0),
    np.round(np.logspace(np.log10(20000), 6, 60))]))


def example(name: str) -> Scenario:
    """A scenario of ``examples/`` by file stem (calibration paths resolved)."""
    return Scenario.load(EXAMPLES / f"{name}.toml")


def pct(x: float) -> float:
    return float(x) * 100.0


def get_path(d: Any, path: str) -> Any:
    """The value at a dotted path ("traffic[0].rate") of a scenario dict."""
    cur = d
    for tok in parse_path(path):
        cur = cur[tok]
    return cur


# -- running -----------------------------------------------------------------------------------


@dataclass
class Context:
    """Where a study's runs go: the store, local workers or a Dask scheduler. One executor
    is kept open for every sweep of the study (warm workers); :meth:`close` ends it.
    ``stored_only``: simulate nothing, use the runs the store has (``missing`` counts the
    others; :meth:`mark_interim` labels a claim table made without them)."""

    store: Any = "data"
    workers: int | None = None
    scheduler: str | None = None
    progress: bool = True
    timeout: float | None = None
    plan_only: bool = False
    stored_only: bool = False
    engine: str | None = None
    _executor: Any = field(default=None, repr=False)
    _owner: bool = field(default=True, repr=False)
    sweeps: list = field(default_factory=list, repr=False)
    specs: list = field(default_factory=list, repr=False)

    def __post_init__(self) -> None:
        if not isinstance(self.store, Store):
            self.store = Store(self.store)

    def on_engine(self, engine: str) -> Context:
        """This context running every sweep on ``engine`` (``run.engine``), leaving out the
        points that engine cannot run (``Sweep.skipped``): a study's arms on the reference
        engine ns-2.35, through the same store and workers."""
        if self._executor is None and not (self.plan_only or self.stored_only):
            _ = self.executor  # shared: created here, closed by this (owning) context
        return Context(store=self.store, workers=self.workers, scheduler=self.scheduler,
                       progress=self.progress, timeout=self.timeout, plan_only=self.plan_only,
                       stored_only=self.stored_only, engine=engine,
                       _executor=self._executor, _owner=False, specs=self.specs)

    @property
    def executor(self) -> Any:
        if self._executor is None:
            self._executor = (DaskExecutor(self.scheduler) if self.scheduler
                              else LocalExecutor(self.workers))
        return self._executor

    def sweep(self, base: Scenario, *, name: str,
              arms: Iterable[Arm] | Mapping[str, Mapping] | None = None,
              grid: Mapping[str, Sequence] | None = None, zip: Mapping | None = None,
              seeds: Sequence[int] = (1,), skip_invalid: bool = False) -> Any:
        """Run ``base`` x ``arms`` x ``grid`` x ``seeds`` (only what the store lacks) and
        return the :class:`~aqmlab.campaign.SweepResult`. ``arms``: :class:`Arm` objects,
        or a mapping of label to dotted changes; the label becomes the scenario ``name``
        (column ``name``). ``skip_invalid``: leave out (and list) the points that fail
        validation, e.g. those an engine cannot run, instead of failing the sweep (always
        so on a context :meth:`on_engine`)."""
        zips = []
        changes = arm_changes(arms)
        if changes:
            zips.append(arms_zip(base, changes))
        if zip:
            zips.append(dict(zip))
        spec = Sweep(base=base, grid=dict(grid or {}), zip=zips, seeds=list(seeds), name=name,
                     set={"run.engine": self.engine} if self.engine else {},
                     skip_invalid=skip_invalid or self.engine is not None)
        if spec.skip_invalid:
            if not spec.points():
                return PlannedSweep(spec, self.store)  # nothing this engine can run
            if skip_invalid and spec.skipped:
                print(f"{name}: {len(spec.skipped)} point(s) not run, e.g. {spec.skipped[0]}")
        self.specs.append(spec)
        if self.plan_only:
            return PlannedSweep(spec, self.store)
        res = sweep(spec, store=self.store, progress=self.progress, timeout=self.timeout,
                    executor=None if self.stored_only else self.executor,
                    run_missing=not self.stored_only)
        missing = res.counts["missing"]
        failed = res.failed[res.failed["status"] != "missing"]
        if missing:
            print(f"{name}: {missing} of {len(res)} run(s) not in the store yet, left out")
        if len(failed):
            bad = failed[["key", "status", "error"]].to_string(index=False)
            print(f"{name}: {len(failed)} run(s) failed and are left out:\n{bad}")
        self.sweeps.append(res)
        return res

    @property
    def planned(self) -> int:
        """Runs of the sweeps made so far."""
        return sum(len(s) for s in self.sweeps)

    @property
    def missing(self) -> int:
        """Runs of those sweeps the store lacked (``stored_only``)."""
        return sum(s.counts["missing"] for s in self.sweeps)

    def mark_interim(self, claims: Any) -> Any:
        """``claims`` (a ClaimTable), labelled interim when runs of this context were
        missing from the store (``stored_only``); unchanged otherwise."""
        if self.missing:
            claims.interim = (f"interim: {self.missing} of {self.planned} runs not yet "
                              "simulated; measured values use the others")
        return claims

    def close(self) -> None:
        if self._executor is not None and self._owner:
            self._executor.close()
        self._executor = None

    def __enter__(self) -> Context:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class PlannedSweep:
    """What :meth:`Context.sweep` returns when only planning: the spec, no runs."""

    def __init__(self, spec: Any, store: Any) -> None:
        self.sweep = spec
        self.store = store
        self.table = pd.DataFrame(columns=[*spec.param_columns, "key", "status"])
        self.ok = self.table
        self.failed = self.table


def prefetch(ctx: Context, specs: Sequence[Any] | None = None,
             progress: bool = True) -> dict[str, int]:
    """Run every point of ``specs`` (default: those ``ctx`` planned) that the store lacks,
    all through one executor, longest first: no idle worker between sweeps and no run done
    twice when several studies share it. Returns counts (total, cached, ran, failed)."""
    specs = ctx.specs if specs is None else specs
    points: dict[str, Any] = {}
    for spec in specs:
        for p in spec.points():
            points.setdefault(p.key, p)
    st = ctx.store
    jobs, cached, failed = [], 0, 0
    for key, p in points.items():
        if st.check(key)[0] == "ok":
            cached += 1
            continue
        if st.failure(key) is not None:
            failed += 1
            continue
        jobs.append(Job(key, p.scenario, ctx.timeout, estimate_cost(p.scenario)))
    jobs.sort(key=lambda j: -j.cost)
    counts = {"total": len(points), "cached": cached, "ran": 0, "failed": failed,
              "expected_cpu_s": round(sum(j.cost for j in jobs))}
    bar = None
    if progress and jobs:
        bar = tqdm(total=len(jobs), desc="runs", unit="run", dynamic_ncols=True)
    try:
        for out in ctx.executor.run(jobs):
            if out is None:
                continue
            p = points[out.job_id]
            if out.ok:
                st.put(out.results, params=p.columns())
            else:
                st.record_failure(p.scenario, out.status, out.error, out.stderr,
                                  params=p.columns(), timeout=ctx.timeout, wall_s=out.wall_s)
                counts["failed"] += 1
                print(f"run {p.key} ({p.scenario.name}) {out.status}: {out.error}")
            counts["ran"] += 1
            if bar is not None:
                bar.update(1)
    finally:
        if bar is not None:
            bar.close()
    return counts


def context(store: Any = "data", workers: int | None = None, scheduler: str | None = None,
            progress: bool = True, timeout: float | None = None,
            plan_only: bool = False, stored_only: bool = False) -> Context:
    """A :class:`Context` for a study's runs (``plan_only``: record the sweeps, run none;
    ``stored_only``: use the stored runs, simulate none)."""
    return Context(store=store, workers=workers, scheduler=scheduler or None,
                   progress=progress, timeout=timeout, plan_only=plan_only,
                   stored_only=stored_only)


def arm_changes(arms: Iterable[Arm] | Mapping[str, Mapping] | None) -> dict[str, Mapping]:
    """label -> dotted changes of ``arms`` (Arm objects or that mapping already)."""
    if arms is None:
        return {}
    if isinstance(arms, Mapping):
        return {k: (v.changes if isinstance(v, Arm) else v) for k, v in arms.items()}
    out: dict[str, Mapping] = {}
    for a in arms:
        if a.label in out:
            raise ValueError(f"arm {a.label!r} appears twice in one sweep")
        out[a.label] = a.changes
    return out


def arms_zip(base: Scenario, arms: Mapping[str, Mapping[str, Any]]) -> dict[str, list]:
    """A sweep ``zip`` group moving the arms' labels (as ``name``) and changes together.
    A path an arm does not change takes the base scenario's value."""
    d = base.to_dict()
    paths: list[str] = []
    for changes in arms.values():
        for p in changes:
            if p not in paths and p != "name":
                paths.append(p)
    group: dict[str, list] = {"name": list(arms)}
    for p in paths:
        values = []
        for changes in arms.values():
            if p in changes:
                values.append(changes[p])
            else:
                try:
                    values.append(get_path(d, p))
                except (KeyError, IndexError, TypeError):
                    values.append(None)
        group[p] = values
    return group


def collect(sw: Any, fn: Callable[[Any], pd.DataFrame | Mapping[str, Any]],
            columns: Iterable[str] | None = None, fields: Sequence[str] = ()) -> pd.DataFrame:
    """Apply ``fn`` to the Results of every successful run of sweep result ``sw`` and
    concatenate, each part prefixed with the run's parameter columns (``name``, swept
    paths, ``seed``) and ``key``. ``fn`` returns a frame or a dict (one row). Without a
    successful run the frame is empty but keeps those columns and ``fields`` (``fn``'s)."""
    cols = list(columns) if columns is not None else [
        c for c in sw.sweep.param_columns if c in sw.table.columns]
    parts = []
    for _, row in sw.ok.iterrows():
        res = sw.store.load(row["key"])
        out = fn(res)
        frame = pd.DataFrame([out]) if isinstance(out, Mapping) else out
        if frame is None or len(frame) == 0:
            continue
        frame = frame.copy()
        for c in reversed(["key", *cols]):
            if c in frame.columns:
                frame = frame.drop(columns=c)
            frame.insert(0, c, row[c])
        parts.append(frame)
    return stack(parts, ["key", *cols, *fields])


def stack(parts: Sequence[pd.DataFrame], columns: Sequence[str] = ()) -> pd.DataFrame:
    """Concatenate the frames that have rows (pandas deprecates concatenating empty ones).
    Without any row: an empty frame with the parts' columns, or ``columns`` if no part."""
    frames = [x for x in parts if len(x)] or list(parts)
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=list(columns))


def merge_tables(*parts: Mapping[str, pd.DataFrame]) -> dict[str, pd.DataFrame]:
    """Several studies' results (table name -> frame) as one: each table stacked."""
    keys = {k for p in parts for k in p}
    return {k: stack([p[k] for p in parts if k in p]) for k in keys}


# -- web reductions ----------------------------------------------------------------------------


def measured_requests(res: Any, group: int | None = 0, min_bytes: int | None = None,
                      max_bytes: int | None = None) -> pd.DataFrame:
    """The requests that started after the warm-up (of web ``group``; None = all groups),
    optionally restricted to responses of ``min_bytes`` < size <= ``max_bytes``."""
    q = res.requests
    if len(q) == 0:
        return q
    q = q[q.after_warmup]
    if group is not None:
        q = q[q.group == group]
    if min_bytes is not None:
        q = q[q.response_bytes > min_bytes]
    if max_bytes is not None:
        q = q[q.response_bytes <= max_bytes]
    return q


def _drift(start_s: np.ndarray, rt_ms: np.ndarray) -> dict[str, float]:
    """Median response time (ms) of the first and of the last third of the completed
    responses (start times ``start_s``, response times ``rt_ms``), in order of start."""
    if len(rt_ms) < 3:
        return {"median_early_ms": math.nan, "median_late_ms": math.nan}
    lo, hi = np.quantile(start_s, [1 / 3, 2 / 3])
    return {"median_early_ms": float(np.median(rt_ms[start_s <= lo])),
            "median_late_ms": float(np.median(rt_ms[start_s >= hi]))}


def _in_progress(start_s: np.ndarray, end_s: np.ndarray, t0: float, t1: float) -> float:
    """Time-average number of responses in progress over [t0, t1] (unfinished ones, end
    NaN, last to t1): Little's L, whatever the responses started before t0 or after."""
    if t1 <= t0 or not len(start_s):
        return math.nan
    end = np.minimum(np.where(np.isnan(end_s), t1, end_s), t1)
    overlap = np.clip(end - np.maximum(start_s, t0), 0.0, None)
    return float(overlap.sum() / (t1 - t0))


def _pipe_share(res: Any, group: int | None, avg_qlen_pkts: float) -> dict[str, float]:
    """Qiu et al.'s pipe size W_c (the bottleneck's rate x the mean base RTT, in MSS-sized
    packets, plus the average queue) and the responses in progress sharing it."""
    q = res.requests
    if group is not None and len(q):
        q = q[q.group == group]
    s = res.summary.iloc[0]
    t1 = float(s.end_s)
    L = _in_progress(q.start_s.to_numpy(float), q.end_s.to_numpy(float),
                     t1 - float(s.measured_s), t1)
    wc = math.nan
    if len(res.links) and len(q):
        mss = res.scenario.tcp.mss
        wc = (float(res.links.iloc[0].rate_bps) * float(q.base_rtt_s.mean()) / 8 / mss
              + avg_qlen_pkts)
    return {"in_progress": L, "wc_pkts": wc}


def web_stats(res: Any, group: int | None = 0, min_bytes: int | None = None) -> dict[str, Any]:
    """One row of response-time statistics and the bottleneck's numbers for a web run.

    Response times are of the responses started after the warm-up that completed
    (Christiansen's and Weigle's convention); ``i1..i4`` are the % of them in [0, 1] s,
    (1, 2] s, (2, 3] s and > 3 s; ``completed_pct`` the % of started responses that
    completed before the end; ``median_early_ms``/``median_late_ms`` the medians of the
    first and last third of them in order of start (a drift between the two means the run
    is not stationary: an overloaded bottleneck's backlog grows); ``in_progress`` the
    time-average number of the group's responses in progress in the measured window and
    ``wc_pkts`` Qiu et al.'s pipe size W_c (bottleneck rate x mean base RTT in packets,
    plus the average queue): ``wc_pkts / in_progress`` < 1 is their small-pipe regime."""
    q = measured_requests(res, group, min_bytes)
    done = q[q.completed]
    rt = done.response_time_s.to_numpy() * 1000.0
    s = res.summary.iloc[0]
    queues = res.queues
    main = queues.iloc[0] if len(queues) else None
    n = len(rt)

    def share(lo: float, hi: float) -> float:
        return float(((rt > lo) & (rt <= hi)).sum() / n * 100) if n else math.nan

    row = {
        "responses": int(len(q)),
        "completed": int(n),
        "completed_pct": float(n / len(q) * 100) if len(q) else math.nan,
        "median_ms": float(np.median(rt)) if n else math.nan,
        "mean_ms": float(rt.mean()) if n else math.nan,
        "p90_ms": float(np.percentile(rt, 90)) if n else math.nan,
        "i1": share(-1, 1000), "i2": share(1000, 2000), "i3": share(2000, 3000),
        "i4": share(3000, math.inf),
        "retx_pct": float(q.retransmitted.mean() * 100) if len(q) else math.nan,
        "drop_flows_pct": float(q.saw_drop.mean() * 100) if len(q) else math.nan,
        "timeout_pct": float(q["timeout"].mean() * 100) if len(q) else math.nan,
        "utilisation": float(s.get("utilisation", math.nan)),
        "loss_pct": pct(s.get("loss_rate", math.nan)),
        "mark_pct": pct(s.get("mark_rate", math.nan)),
        "avg_qlen_pkts": float(s.get("avg_qlen_pkts", math.nan)),
        "max_qlen_pkts": float(s.get("max_qlen_pkts", math.nan)),
        "throughput_mbps": float(res.links.iloc[0].utilisation * res.links.iloc[0].rate_bps
                                 / 1e6) if len(res.links) else math.nan,
        "measured_s": float(s.measured_s),
        "open_sockets_end": int(s.get("open_sockets", 0)),
        **_drift(done.start_s.to_numpy(), rt),
        **_pipe_share(res, group, float(s.get("avg_qlen_pkts", math.nan))),
    }
    if main is not None:
        row["forced_drops"] = int(main.forced_drops)
        row["unforced_drops"] = int(main.unforced_drops)
    if len(res.links) > 1:
        row["reverse_utilisation"] = float(res.links.iloc[1].utilisation)
    return row


def cdf_grid(values_ms: np.ndarray, grid: np.ndarray = CDF_GRID_MS,
             total: int | None = None) -> np.ndarray:
    """Empirical CDF of ``values_ms`` at the grid points; the denominator is ``total``
    (default: the number of values)."""
    v = np.sort(np.asarray(values_ms, float))
    n = total if total is not None else len(v)
    if n == 0:
        return np.full(len(grid), np.nan)
    return np.searchsorted(v, grid, side="right") / n


def web_cdf(res: Any, group: int | None = 0, min_bytes: int | None = None,
            max_bytes: int | None = None, grid: np.ndarray = CDF_GRID_MS) -> pd.DataFrame:
    """Response-time CDF and CCDF on ``grid`` (ms) of the completed measured responses."""
    q = measured_requests(res, group, min_bytes, max_bytes)
    rt = q.response_time_s[q.completed].to_numpy() * 1000.0
    f = cdf_grid(rt, grid)
    return pd.DataFrame({"response_time_ms": grid, "cdf": f, "ccdf": 1.0 - f,
                         "n": len(rt)})


def mean_cdf(cdfs: pd.DataFrame, by: Sequence[str]) -> pd.DataFrame:
    """Average CDFs over seeds (equal weight per seed) within each group of ``by``."""
    keys = [*by, "response_time_ms"]
    out = cdfs.groupby(keys, sort=False, dropna=False)[["cdf", "ccdf"]].mean().reset_index()
    return out


def curve(cdf: pd.DataFrame, load: int, name: str) -> tuple[np.ndarray, np.ndarray] | None:
    """(response_time_ms, cdf) of run ``name`` at ``load`` (percent) in a mean-CDF table, or
    None when there is no such curve."""
    if not len(cdf):
        return None
    d = cdf[(cdf.load_pct == load) & (cdf.name == name)]
    if not len(d):
        return None
    return d.response_time_ms.to_numpy(), d.cdf.to_numpy()


def crossings(t: np.ndarray, fa: np.ndarray, fb: np.ndarray,
              t_min: float = 0.0, t_max: float = math.inf) -> list[tuple[float, float]]:
    """Points (t, F) where CDF ``fa`` crosses ``fb`` (sign changes of fa - fb) within
    [t_min, t_max]; F is the mean of the two CDFs there. Runs of equal values are skipped."""
    t = np.asarray(t, float)
    d = np.asarray(fa, float) - np.asarray(fb, float)
    sel = (t >= t_min) & (t <= t_max) & np.isfinite(d)
    t, d = t[sel], d[sel]
    fa, fb = np.asarray(fa, float)[sel], np.asarray(fb, float)[sel]
    nz = np.flatnonzero(np.abs(d) > 1e-9)
    out = []
    for i, j in zip(nz, nz[1:], strict=False):
        if np.sign(d[i]) != np.sign(d[j]):
            # linear interpolation between the two non-zero samples
            w = abs(d[i]) / (abs(d[i]) + abs(d[j]))
            tc = t[i] + w * (t[j] - t[i])
            fc = 0.5 * (np.interp(tc, t, fa) + np.interp(tc, t, fb))
            out.append((float(tc), float(fc)))
    return out


def share_faster(t: np.ndarray, fa: np.ndarray, fb: np.ndarray, q_lo: float = 0.0,
                 q_hi: float = 1.0) -> float:
    """The fraction of quantile levels in (q_lo, q_hi) at which A's response time is lower
    than B's (A's CDF is to the left): Christiansen's "about 70 % of requests experience
    better response times" and Weigle's "better for nearly 75 % of responses"."""
    levels = np.linspace(q_lo, q_hi, 201)[1:-1]
    ta = _quantiles(t, fa, levels)
    tb = _quantiles(t, fb, levels)
    return float((ta < tb).mean())


def _quantiles(t: np.ndarray, f: np.ndarray, levels: np.ndarray) -> np.ndarray:
    """Inverse of a CDF on a grid (inf where the CDF never reaches the level)."""
    f = np.maximum.accumulate(np.nan_to_num(np.asarray(f, float), nan=0.0))
    idx = np.searchsorted(f, levels, side="left")
    out = np.full(len(levels), np.inf)
    ok = idx < len(t)
    out[ok] = np.asarray(t, float)[idx[ok]]
    return out


def quantile_at(t: np.ndarray, f: np.ndarray, level: float) -> float:
    """The response time at which a CDF on a grid reaches ``level``."""
    return float(_quantiles(t, f, np.array([level]))[0])


def value_at(t: np.ndarray, f: np.ndarray, x: float) -> float:
    """A CDF on a grid at response time ``x`` (ms)."""
    return float(np.interp(x, np.asarray(t, float), np.asarray(f, float)))
