"""Batch figure regeneration (``make figures`` / ``aqmlab figures``): the study notebooks.

Every study of :data:`aqmlab.studies.STUDIES` is a notebook in ``notebooks/``; this runs
them with papermill (:func:`aqmlab.notebooks.run_notebook`) in a profile:

* ``quick`` (``make figures``): short runs, few points, one seed; all seven notebooks in
  about 20 minutes on 2 cores;
* ``full``: the papers' grids and run lengths (CPU-hours per study in
  ``notebooks/README.md``; use ``--scheduler`` to spread them over a Dask cluster);
* ``tiny``: seconds per notebook, for CI.

The runs of all selected studies execute first, through one executor and longest first
(shared runs once); then each notebook executes, reading its runs from the store, and is
kept as ``<out>/<study>/<study>.ipynb`` beside its figures (PNG, SVG and the data as CSV)
and ``claims.csv``; ``<out>/claims.md`` puts the claim tables of the notebooks that ran on
one page (:mod:`aqmlab.studies.overview`). A failing notebook is reported with its cell and
error; the others run.
``--stored-only`` simulates nothing: figures and claims from the runs already stored, to
look at a long campaign while it runs (its claim tables are marked interim).
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aqmlab import __version__
from aqmlab.campaign import Store, estimate_cost
from aqmlab.notebooks import NotebookError, check_params, plan, run_notebook
from aqmlab.studies import STUDIES, common
from aqmlab.studies.overview import overview, read_tables

__all__ = ["Report", "estimate", "planned_runs", "regenerate", "stored_cpu"]


def planned_runs(profile: str = "full", only: Sequence[str] | None = None,
                 store: str | Path = "data", params: Mapping[str, Any] | None = None
                 ) -> dict[str, tuple[dict[str, Any], list[Any]]]:
    """Per study (in run order): every run it plans (campaign ``Point`` by key) and those of
    them no earlier study plans too (each run is counted, and run, once)."""
    names = list(only or STUDIES)
    check_params(names, params or {})
    out, seen = {}, set()
    for name in names:
        points = {p.key: p for spec in plan([name], profile, store, params)
                  for p in spec.points()}
        out[name] = (points, [p for k, p in points.items() if k not in seen])
        seen |= set(points)
    return out


def estimate(profile: str = "full", only: Sequence[str] | None = None,
             store: str | Path = "data", params: Mapping[str, Any] | None = None
             ) -> list[dict]:
    """Per study: runs planned, runs missing from the store and the estimated CPU-hours of
    the missing ones (:func:`aqmlab.campaign.estimate_cost`); for the runs already stored, the
    measured CPU-hours (``run_cpu_s``) beside the model's figure for them, so the estimate
    can be judged."""
    st = Store(store)
    rows = []
    for name, (points, new) in planned_runs(profile, only, store, params).items():
        cpu = stored_cpu(st, new)
        stored = {p.key: p for p in new if p.key in cpu}
        missing = [p for p in new if p.key not in stored]
        timed = [k for k, v in cpu.items() if v is not None]
        rows.append({"study": name, "runs": len(points), "new": len(new),
                     "missing": len(missing),
                     "cpu_hours": round(sum(estimate_cost(p.scenario) for p in missing) / 3600, 2),
                     "stored": len(stored),
                     "stored_cpu_hours": sum(float(cpu[k]) for k in timed) / 3600,
                     "stored_model_hours": sum(estimate_cost(stored[k].scenario)
                                               for k in timed) / 3600})
    return rows


def stored_cpu(st: Store, points: Sequence[Any]) -> dict[str, float | None]:
    """``run_cpu_s`` of each of ``points`` (campaign ``Point``s) that ``st`` holds complete,
    by key; None where the run did not record it."""
    return {p.key: st.summary(p.key).get("run_cpu_s") for p in points
            if st.check(p.key)[0] == "ok"}


@dataclass
class Report:
    """What :func:`regenerate` did: per study the executed notebook, wall time, claim
    counts or the error."""

    profile: str
    params: dict[str, Any] = field(default_factory=dict)
    rows: list[dict[str, Any]] = field(default_factory=list)
    runs: dict[str, int] = field(default_factory=dict)
    wall_s: float = 0.0

    @property
    def failed(self) -> list[dict[str, Any]]:
        return [r for r in self.rows if r.get("error")]

    def text(self) -> str:
        given = f" with {self.params}" if self.params else ""
        lines = [f"profile {self.profile}{given}: runs {self.runs}"]
        for r in self.rows:
            if r.get("error"):
                lines.append(f"  {r['study']:22s} FAILED after {r['wall_s']:.0f} s: {r['error']}")
            else:
                c = r.get("claims", {})
                lines.append(f"  {r['study']:22s} {r['wall_s']:6.0f} s  claims {c.get('claims', 0)}:"
                             f" {c.get('yes', 0)} yes, {c.get('no', 0)} no, "
                             f"{c.get('not tested', 0)} not tested, {c.get('no data', 0)} no data"
                             + (f"; ns-2.35 {c['ns2 yes']} yes, {c['ns2 no']} no"
                                if "ns2 yes" in c else "")
                             + (f" ({c['interim']})" if c.get("interim") else ""))
        lines.append(f"total {self.wall_s:.0f} s")
        return "\n".join(lines)


def regenerate(profile: str = "quick", out: str | Path = "figures", store: str | Path = "data",
               workers: int | None = None, scheduler: str | None = None,
               only: Sequence[str] | None = None, prefetch: bool = True,
               log_output: bool = False, params: Mapping[str, Any] | None = None,
               stored_only: bool = False) -> Report:
    """Run every study notebook (or ``only`` these) in ``profile`` into ``out``.

    ``params`` override notebook parameters in every selected study, e.g. ``{"seeds": [1]}``
    for one replication of the full profile's grids; each must be declared by every
    selected notebook (checked before anything runs).

    With ``prefetch`` the runs of all selected studies execute first through one executor
    (longest first); the notebooks then read them from the store. A failing notebook is
    reported (cell and error) and the others still run; the report is written to
    ``out/report.json``. ``stored_only``: simulate nothing; the notebooks use the stored
    runs and the report counts the missing ones."""

    t0 = time.perf_counter()
    modules = {v: k for k, v in STUDIES.items()}
    names = [modules.get(n, n) for n in only] if only else list(STUDIES)
    for n in names:
        if n not in STUDIES:
            raise NotebookError(f"unknown study {n!r}; studies: {', '.join(STUDIES)}")
    params = dict(params or {})
    check_params(names, params)
    report = Report(profile, params=params)
    if stored_only:
        rows = estimate(profile, names, store, params)
        report.runs = {"total": sum(r["new"] for r in rows),
                       "stored": sum(r["stored"] for r in rows),
                       "missing": sum(r["missing"] for r in rows),
                       "missing_cpu_hours": round(sum(r["cpu_hours"] for r in rows), 2)}
        print(f"stored only: runs {report.runs}", file=sys.stderr, flush=True)
    elif prefetch:
        specs = plan(names, profile, store, params)
        with common.context(store=store, workers=workers, scheduler=scheduler) as ctx:
            print(f"{len(names)} studies, profile {profile}: running what the store lacks",
                  file=sys.stderr, flush=True)
            report.runs = common.prefetch(ctx, specs)
        print(f"runs: {report.runs}", file=sys.stderr, flush=True)
    for name in names:
        t1 = time.perf_counter()
        row: dict[str, Any] = {"study": name}
        try:
            path = run_notebook(name, profile, out, store, workers, scheduler,
                                log_output=log_output, stored_only=stored_only, **params)
            row["notebook"] = str(path)
            counts = path.parent / "claims.json"  # written with claims.csv (ClaimTable.save)
            if counts.exists():
                row["claims"] = {k: v for k, v in json.loads(counts.read_text()).items()
                                 if k != "study"}
        except Exception as err:  # noqa: BLE001 - report and go on with the next notebook
            row["error"] = str(err)
        row["wall_s"] = time.perf_counter() - t1
        report.rows.append(row)
        status = "FAILED: " + row["error"] if "error" in row else "ok"
        print(f"{name}: {row['wall_s']:.0f} s, {status}", file=sys.stderr, flush=True)
    report.wall_s = time.perf_counter() - t0
    Path(out).mkdir(parents=True, exist_ok=True)
    failed = {r["study"] for r in report.failed}  # not a failed notebook's old table
    tables = {s: t for s, t in read_tables(out).items() if s in names and s not in failed}
    if tables:
        interim = ", interim (--stored-only)" if stored_only else ""
        (Path(out) / "claims.md").write_text(
            overview(tables, f"profile {profile}, aqmlab {__version__}{interim}"))
    (Path(out) / "report.json").write_text(json.dumps(
        {"profile": profile, "params": params, "stored_only": stored_only,
         "runs": report.runs, "wall_s": report.wall_s, "studies": report.rows},
        indent=2) + "\n")
    return report
