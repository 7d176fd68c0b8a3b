"""Command line: aqmlab run | validate | show | sweep | calibrate | ls | export | rm | figures.

``aqmlab run SCENARIO --out DIR``, ``aqmlab validate SCENARIO``, ``aqmlab sweep SWEEP.toml``,
``aqmlab calibrate SCENARIO --loads 50,80,105``, ``aqmlab ls [QUERY]``, ``aqmlab show RUN``,
``aqmlab export [QUERY] --format csv|parquet``.

Errors are printed as one line naming the file or folder and what to do (``--debug``,
before or after the command, shows the traceback); every destination is checked before the
first simulation; ns-3 never runs in this process.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import sys
from pathlib import Path
from typing import Any

import pandas as pd

from aqmlab import engines
from aqmlab.campaign import Sweep, sweep
from aqmlab.campaign import calibrate as calibration
from aqmlab.campaign import store as st
from aqmlab.campaign.store import Store
from aqmlab.errors import AqmlabError, ScenarioError
from aqmlab.preflight import describe_os_error, run_folder, writable_folder
from aqmlab.results.results import load
from aqmlab.scenario import ENGINE_NAMES, PackMime, Scenario
from aqmlab.scenario.limits import estimate
from aqmlab.units import parse_time
from aqmlab.workers import as_scenario, run


def _cmd_run(args: argparse.Namespace) -> int:
    sc = as_scenario(args.scenario)
    if args.seed is not None:
        sc = sc.replace(**{"run.seed": args.seed})
    if args.engine is not None:
        sc = sc.replace(**{"run.engine": args.engine})
    sc = engines.check(sc)  # what the engine cannot run is refused here, naming the field
    if args.duration is not None:
        duration = parse_time(args.duration, "--duration")
        changes: dict = {"run.duration": args.duration}
        if sc.run.warmup_s >= duration:  # keep the scenario valid: shrink the warm-up too
            changes["run.warmup"] = f"{duration / 4:g}s"
            print(f"note: warm-up shortened to {duration / 4:g}s", file=sys.stderr)
        sc = sc.replace(**changes)
    run_folder(args.out)  # before simulating: a result must have somewhere to go
    res = run(sc, timeout=args.timeout, in_process=args.in_process)
    out = res.save(args.out)
    s = res.summary.iloc[0]
    print(f"{sc.name} [{sc.key}] -> {out}")
    for k in ("goodput_mbps", "utilisation", "loss_rate", "avg_qlen_pkts", "completed",
              "events", "run_cpu_s"):
        if k in s:
            print(f"  {k:15s} {s[k]:.6g}")
    return 0


def _cmd_validate(args: argparse.Namespace) -> int:
    """Check every file given; name each, good or bad; non-zero status if any is bad."""

    bad = 0
    for path in args.scenario:
        try:
            sc = Scenario.load(path)
        except AqmlabError as err:
            bad += 1
            text = str(err)
            print(text if text.startswith(f"{path}:") else f"{path}: {text}", file=sys.stderr)
            continue
        print(f"{path}: ok ({sc.name}, {sc.n_flows} flows, key {sc.key}, "
              f"{estimate(sc).text()})")
    if bad and len(args.scenario) > 1:
        print(f"{bad} of {len(args.scenario)} files are invalid", file=sys.stderr)
    return 2 if bad else 0


def _cmd_show(args: argparse.Namespace) -> int:
    path = Path(args.run)
    if path.is_dir():
        if path.parent.parent.name == "runs" or (path / st.MANIFEST).exists():
            # a store entry: checked like a key would be (its key only by this version)
            st.verify_entry(path, check_key=path.parent.name == st.version_tag())
        res = load(path)
    else:
        store = Store(args.data)
        try:
            res = store.load(args.run)
        except AqmlabError:
            rec = store.failure(args.run)
            if rec is None:
                raise
            return _show_failure(rec)
    if args.scenario:
        print(res.scenario.to_toml(), end="")
        return 0
    with pd.option_context("display.width", 200, "display.max_columns", 30):
        print(res.summary.T.to_string(header=False))
        print(res.table(args.table).to_string(max_rows=40))
    return 0


def _show_failure(rec: dict) -> int:
    print(f"run {rec['key']}: {rec['status']} ({rec.get('recorded', '')}, "
          f"version {rec.get('version', '?')})")
    print(f"error: {rec.get('error', '')}")
    if rec.get("stderr"):
        print("--- stderr tail ---")
        print(rec["stderr"].rstrip())
    print("--- scenario (save it and reproduce with: aqmlab run FILE --out DIR) ---")
    print(Scenario.from_dict(rec["scenario"]).to_toml(), end="")
    return 1


def _cmd_sweep(args: argparse.Namespace) -> int:
    spec = Sweep.load(args.sweep)
    writable_folder(args.data, "store root", "--data")
    if args.table:
        writable_folder(args.table.parent, "table's folder", "--table")
    print(f"{spec.name}: {len(spec)} runs, store {args.data}", file=sys.stderr, flush=True)
    res = sweep(spec, store=args.data, workers=args.workers, scheduler=args.scheduler,
                timeout=args.timeout, retry_failed=args.retry_failed,
                progress=not args.no_progress)
    c = res.counts
    if args.table:
        _write_table(res.table, args.table)
    cols = [*spec.param_columns, "status", "source"] + [
        k for k in ("goodput_mbps", "utilisation", "loss_rate", "avg_qlen_pkts", "wall_s")
        if k in res.table.columns]
    with pd.option_context("display.width", 200, "display.max_columns", 30):
        print(res.table[cols].to_string(max_rows=60))
    for _, row in res.failed.iterrows():
        print(f"failed: {row['key']} {row['status']}: {row['error']}  "
              f"(details: aqmlab show {row['key']} --data {args.data})")
    cached_failures = int((res.failed["source"] == "cached").sum())
    if cached_failures:
        print(f"note: {cached_failures} failure(s) were recorded earlier and not re-run "
              f"(--retry-failed runs them again)")
    print(f"sweep: {c['total']} runs, {c['ran']} ran, {c['cached']} cached, "
          f"{c['failed']} failed, {c['corrupt']} corrupt re-run, {res.wall_s:.1f} s")
    return 1 if c["failed"] else 0


def parse_loads(text: str) -> list[float]:
    """``--loads`` of ``aqmlab calibrate``: comma-separated offered loads as fractions of the
    bottleneck. Values are percentages ("50,80,105" -> 0.5, 0.8, 1.05) unless every value
    is <= 2, then they are fractions already ("0.5,0.8,1.05"). Raises
    ``argparse.ArgumentTypeError`` naming the bad values."""
    items = [x.strip() for x in str(text).split(",")]
    bad, values = [], []
    for item in items:
        try:
            v = float(item)
        except ValueError:
            v = math.nan
        if not (math.isfinite(v) and v > 0):
            bad.append(item)
        values.append(v)
    if bad or not items:
        shown = ", ".join(repr(b) for b in bad)
        raise argparse.ArgumentTypeError(
            f"invalid load value(s) {shown} in {text!r}: give positive numbers separated by "
            f"commas, percentages (50,80,105) or fractions if all are <= 2 (0.5,0.8,1.05)")
    if all(v <= 2 for v in values):
        return values
    return [v / 100 for v in values]


def _cmd_calibrate(args: argparse.Namespace) -> int:

    path = Path(args.scenario)
    sc = as_scenario(str(path))
    web = [i for i, g in enumerate(sc.traffic) if isinstance(g, PackMime)]
    if args.group not in web:
        raise ScenarioError("--group", args.group, "the index of a PackMime traffic group",
                            f"this scenario's: {', '.join(map(str, web)) or 'none'}")
    if args.workers is not None and args.workers < 1:
        raise ScenarioError("--workers", args.workers, "a number of processes >= 1")
    if args.duration is not None:
        duration = parse_time(args.duration, "--duration")
        changes: dict = {"run.duration": args.duration, "run.stop_after_responses": None}
        if sc.run.warmup_s >= duration:  # keep the scenario valid: shrink the warm-up too
            changes["run.warmup"] = f"{duration / 4:g}s"
            print(f"note: warm-up shortened to {duration / 4:g}s", file=sys.stderr)
        sc = sc.replace(**changes)
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", sc.name) or "scenario"
    out = args.out or path.parent / "calibration" / f"{name}.csv"
    writable_folder(Path(out).parent, "calibration table's folder", "--out")
    print(f"{sc.name}: calibrating traffic[{args.group}] at {len(args.loads)} loads on a "
          f"100 Mb/s bottleneck ({2 * len(args.loads)} runs, {sc.run.duration})",
          file=sys.stderr, flush=True)
    table = calibration.calibrate(sc, args.loads, group=args.group, workers=args.workers, out=out)
    shown = pd.DataFrame({
        "load_%": table.load * 100, "rate_conn/s": table.rate,
        "measured_%": table.measured_load * 100,
        "deviation_pp": (table.measured_load - table.load) * 100})
    if "expected_load" in table:  # measured overhead x the model's mean payload (the fit's)
        shown["expected_%"] = table.expected_load * 100
    print(shown.to_string(index=False, float_format=lambda x: f"{x:.1f}"))
    print(f"wrote {out}")
    rel = Path(os.path.relpath(Path(out).resolve(), path.parent.resolve())).as_posix()
    print(f"use it in traffic[{args.group}] of {path.name}: load = {table.load.iloc[0]:g} and "
          f'calibration = "{rel}" (relative to the scenario file; loads between '
          f"{table.load.min():g} and {table.load.max():g} interpolate)")
    return 0


def _write_table(df, out: Path, fmt: str | None = None) -> None:
    """Write a table atomically (a temporary file renamed into place; no partial file)."""
    fmt = fmt or ("parquet" if out.suffix == ".parquet" else "csv")
    if out.is_dir():
        raise AqmlabError(f"{out}: is a folder; give a file name such as {out / 'table.csv'}")
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.{os.getpid()}.tmp")
    try:
        if fmt == "parquet":
            df.to_parquet(tmp, index=False)
        else:
            df.to_csv(tmp, index=False)
        os.replace(tmp, out)
    except OSError as err:
        tmp.unlink(missing_ok=True)
        raise AqmlabError(f"could not write the table: {describe_os_error(err, out)}") from None
    print(f"wrote {len(df)} rows to {out}", file=sys.stderr)


def _cmd_ls(args: argparse.Namespace) -> int:
    df = Store(args.data).ls(args.query, all_versions=args.all_versions, verify=args.verify)
    if args.columns:
        cols = [c.strip() for c in args.columns.split(",") if c.strip()]
    else:
        cols = [c for c in ("key", "status", "name", "seed", "goodput_mbps", "utilisation",
                            "loss_rate", "wall_s", "created") if c in df.columns]
        if args.all_versions:
            cols.insert(2, "version")
    missing = [c for c in cols if c not in df.columns]
    if missing and len(df):
        print(f"aqmlab: error: unknown column(s) {missing}", file=sys.stderr)
        return 2
    with pd.option_context("display.width", 200, "display.max_columns", 30,
                           "display.max_colwidth", 60):
        print(df[[c for c in cols if c in df.columns]].to_string(index=False, max_rows=200))
    print(f"{len(df)} run(s)", file=sys.stderr)
    return 0


def _cmd_export(args: argparse.Namespace) -> int:
    store = Store(args.data)
    out = args.out or Path(f"{args.table}.{args.format}")
    writable_folder(out.parent if str(out.parent) else Path("."), "output folder", "--out")
    if args.sweep is not None:
        spec = Sweep.load(args.sweep)
        rows = []
        for p in spec.points():
            state, _ = store.check(p.key)
            row = {**p.columns(), "key": p.key, "status": state}
            if state == "ok":
                row.update({k: v for k, v in store.summary(p.key).items() if k not in row})
            rows.append(row)
        keys = [r["key"] for r in rows if r["status"] == "ok"]
        summary = pd.DataFrame(rows)
    else:
        summary = store.ls(args.query, failures=args.table == "summary")
        keys = list(summary.loc[summary["status"] == "ok", "key"]) if len(summary) else []
    if args.table == "summary":
        df = summary
    else:
        parts = []
        for key in keys:
            t = store.load(key).table(args.table)
            parts.append(t.assign(key=key)[["key", *t.columns]])
        df = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()
    _write_table(df, out, args.format)
    return 0


def _cmd_rm(args: argparse.Namespace) -> int:
    if not args.query and not args.all:
        print("aqmlab: error: give a QUERY (or --all to delete every run)", file=sys.stderr)
        return 2
    deleted = Store(args.data).delete(None if args.all else args.query,
                                      all_versions=args.all_versions)
    print(f"deleted {len(deleted)} run(s)")
    return 0


def _notebook_param(text: str) -> tuple[str, Any]:
    """``NAME=VALUE`` with VALUE read as JSON (``[1, 2]``, ``0.98``, ``null``), else text."""
    name, sep, value = text.partition("=")
    if not sep or not name.strip().isidentifier():
        raise argparse.ArgumentTypeError(f"{text!r}: expected NAME=VALUE, e.g. seeds=[1]")
    try:
        return name.strip(), json.loads(value)
    except json.JSONDecodeError:
        return name.strip(), value


def _cmd_figures(args: argparse.Namespace) -> int:
    from aqmlab.figures import estimate, regenerate  # noqa: PLC0415  (papermill, Jupyter and seaborn: only for figures)

    params = dict(args.set or [])
    if args.dry_run:
        rows = estimate(args.profile, args.only, args.data, params)
        for r in rows:
            print(f"{r['study']:22s} {r['runs']:5d} runs ({r['new']} not shared with an "
                  f"earlier study), {r['missing']:5d} not in the store, "
                  f"~{r['cpu_hours']:.2f} CPU-hours")
            if r["stored"]:
                print(f"{'':22s} {r['stored']:5d} runs stored: measured "
                      f"{r['stored_cpu_hours']:.2f} CPU-hours of Run, the model says "
                      f"{r['stored_model_hours']:.2f}")
        print(f"total ~{sum(r['cpu_hours'] for r in rows):.1f} CPU-hours to run "
              f"(estimate from the cost model in aqmlab/campaign/cost.py)")
        return 0
    writable_folder(args.out, "figures folder", "--out")
    if not args.stored_only:
        writable_folder(args.data, "store root", "--data")
    report = regenerate(args.profile, args.out, args.data, workers=args.workers,
                        scheduler=args.scheduler, only=args.only, params=params,
                        stored_only=args.stored_only)
    print(report.text())
    for row in report.failed:
        print(f"aqmlab: error: notebook {row['study']}: {row['error']}", file=sys.stderr)
    return 1 if report.failed else 0


def main(argv: list[str] | None = None) -> int:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                        help="show tracebacks")
    p = argparse.ArgumentParser(prog="aqmlab", description=__doc__.splitlines()[0],
                                parents=[common])
    sub = p.add_subparsers(dest="cmd", required=True)
    add_parser = sub.add_parser
    sub.add_parser = lambda *a, **k: add_parser(*a, parents=[common], **k)  # --debug anywhere
    r = sub.add_parser("run", help="simulate one scenario and save its results")
    r.add_argument("scenario", help="scenario file (.toml or .json)")
    r.add_argument("--out", required=True, type=Path, help="output folder")
    r.add_argument("--seed", type=int, help="override run.seed")
    r.add_argument("--duration", help="override run.duration, e.g. 20s")
    r.add_argument("--timeout", type=float, help="wall-clock limit in seconds")
    r.add_argument("--engine", choices=ENGINE_NAMES,
                   help="override run.engine: ns3, or ns2 (ns-2.35, the papers' simulator)")
    r.add_argument("--in-process", action="store_true",
                   help="simulate in this process (faster start, no crash isolation)")
    r.set_defaults(fn=_cmd_run)
    v = sub.add_parser("validate", help="check scenario files without simulating")
    v.add_argument("scenario", nargs="+")
    v.set_defaults(fn=_cmd_validate)
    s = sub.add_parser("show", help="print a saved run (a folder, or a key in the store)")
    s.add_argument("run", help="run folder, or store key (a unique prefix is enough)")
    s.add_argument("--table", default="flows")
    s.add_argument("--scenario", action="store_true", help="print the scenario as TOML")
    s.add_argument("--data", "--store", type=Path, default=Path("data"), help="store root")
    s.set_defaults(fn=_cmd_show)
    w = sub.add_parser("sweep", help="run a sweep file; only runs missing from the store")
    w.add_argument("sweep", type=Path, help="sweep file (.toml)")
    w.add_argument("--data", "--out", type=Path, default=Path("data"), dest="data",
                   help="store root (default: data)")
    w.add_argument("--workers", type=int, help="local worker processes (default: all cores)")
    w.add_argument("--scheduler", help="Dask scheduler address, e.g. tcp://host:8786")
    w.add_argument("--timeout", type=float, help="wall-clock limit per run, seconds")
    w.add_argument("--retry-failed", action="store_true", help="re-run recorded failures")
    w.add_argument("--table", type=Path, help="also write the tidy table (.csv or .parquet)")
    w.add_argument("--no-progress", action="store_true", help="no progress bar")
    w.set_defaults(fn=_cmd_sweep)
    c = sub.add_parser(
        "calibrate", help="measure the connection rate of each offered load (PackMime)",
        description="Run the scenario with a 100 Mb/s bottleneck and huge FIFO queues, fit "
        "bottleneck load vs connection rate of one PackMime group and write the table "
        "(load, rate, measured_load) that `load` + `calibration` use in a scenario.")
    c.add_argument("scenario", help="scenario file (.toml or .json)")
    c.add_argument("--loads", required=True, type=parse_loads,
                   help="offered loads: percentages, e.g. 50,80,90,98,105, or fractions if "
                   "every value is <= 2, e.g. 0.5,0.8,1.05")
    c.add_argument("--group", type=int, default=0,
                   help="index of the PackMime traffic group to calibrate (default 0)")
    c.add_argument("--out", type=Path, help="CSV to write (default: calibration/NAME.csv "
                   "next to the scenario file)")
    c.add_argument("--workers", type=int, help="local worker processes (default: all cores)")
    c.add_argument("--duration", help="override run.duration of the calibration runs, e.g. "
                   "200s (and drop run.stop_after_responses); default: the scenario's own")
    c.set_defaults(fn=_cmd_calibrate)
    ls = sub.add_parser("ls", help="list stored runs (optionally matching a query)")
    ls.add_argument("query", nargs="?", help="key prefix or pandas query, e.g. "
                    "\"`traffic[0].flows` == 10 and seed == 1\"")
    ls.add_argument("--data", "--store", type=Path, default=Path("data"), help="store root")
    ls.add_argument("--columns", help="comma-separated columns to print")
    ls.add_argument("--all-versions", action="store_true", help="include older versions")
    ls.add_argument("--verify", action="store_true", help="check every file's checksum")
    ls.set_defaults(fn=_cmd_ls)
    e = sub.add_parser("export", help="write stored runs as one CSV or Parquet table")
    e.add_argument("query", nargs="?", help="key prefix or pandas query (default: all)")
    e.add_argument("--format", choices=("csv", "parquet"), default="csv")
    e.add_argument("--table", default="summary",
                   help="summary (one row per run) or flows|queues|links|queue_ts")
    e.add_argument("--sweep", type=Path, help="export exactly this sweep's runs, in order")
    e.add_argument("--out", type=Path, help="output file (default: TABLE.FORMAT)")
    e.add_argument("--data", "--store", type=Path, default=Path("data"), help="store root")
    e.set_defaults(fn=_cmd_export)
    d = sub.add_parser("rm", help="delete stored runs matching a query")
    d.add_argument("query", nargs="?")
    d.add_argument("--all", action="store_true", help="delete every run of this version")
    d.add_argument("--all-versions", action="store_true", help="include older versions")
    d.add_argument("--data", "--store", type=Path, default=Path("data"), help="store root")
    d.set_defaults(fn=_cmd_rm)
    f = sub.add_parser("figures", help="run the study notebooks (tiny, quick or full profile)")
    f.add_argument("--profile", choices=("tiny", "quick", "full"), default="quick")
    f.add_argument("--out", type=Path, default=Path("figures"),
                   help="figures, claims and executed notebooks (default: figures)")
    f.add_argument("--data", "--store", type=Path, default=Path("data"), dest="data",
                   help="run store (default: data)")
    f.add_argument("--workers", type=int, help="local worker processes (default: all cores)")
    f.add_argument("--scheduler", help="Dask scheduler address, e.g. tcp://host:8786")
    f.add_argument("--only", action="append", metavar="STUDY",
                   help="run only this study (repeatable), e.g. --only ecn_bulk")
    f.add_argument("--set", action="append", type=_notebook_param, metavar="NAME=VALUE",
                   help="override a notebook parameter in every selected study (repeatable;"
                        " VALUE is JSON, else text), e.g. --set 'seeds=[1]'")
    f.add_argument("--dry-run", action="store_true",
                   help="print the runs and estimated CPU-hours per study; run nothing")
    f.add_argument("--stored-only", action="store_true",
                   help="simulate nothing: figures and interim claims from the stored runs")
    f.set_defaults(fn=_cmd_figures)
    args = p.parse_args(argv)
    try:
        return args.fn(args)
    except KeyboardInterrupt:
        if getattr(args, "debug", False):
            raise
        print("aqmlab: interrupted (stored results are kept; run again to resume)",
              file=sys.stderr)
        return 130
    except Exception as err:  # noqa: BLE001 - one line, never a traceback without --debug
        if getattr(args, "debug", False):
            raise
        print(f"aqmlab: error: {describe_error(err)}", file=sys.stderr)
        return 2


def describe_error(err: BaseException) -> str:
    """The one-line message ``aqmlab`` prints for ``err`` (without ``--debug``)."""
    if isinstance(err, AqmlabError):
        return str(err)
    if isinstance(err, OSError):
        return describe_os_error(err)
    if isinstance(err, UnicodeDecodeError):
        return f"a file is not UTF-8 text ({err}); save it as UTF-8"
    if isinstance(err, MemoryError):
        return "out of memory; run fewer workers (--workers) or a smaller scenario"
    lines = str(err).strip().splitlines() or [""]
    more = f" (+{len(lines) - 1} lines)" if len(lines) > 1 else ""
    return (f"{type(err).__name__}: {lines[0]}{more} (unexpected: run again with --debug for "
            "the traceback, and report it)")


if __name__ == "__main__":
    sys.exit(main())
