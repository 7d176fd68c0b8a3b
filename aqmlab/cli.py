"""Command line: ``aqmlab run SCENARIO --out DIR``, ``aqmlab validate SCENARIO``.

Errors are printed as one line (use ``--debug`` for the traceback); ns-3 never runs in
this process.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from aqmlab.errors import AqmlabError


def _cmd_run(args: argparse.Namespace) -> int:
    from aqmlab.run import as_scenario, run  # noqa: PLC0415

    sc = as_scenario(args.scenario)
    if args.seed is not None:
        sc = sc.replace(**{"run.seed": args.seed})
    if args.duration is not None:
        from aqmlab.units import parse_time  # noqa: PLC0415

        duration = parse_time(args.duration, "--duration")
        changes: dict = {"run.duration": args.duration}
        if sc.run.warmup_s >= duration:  # keep the scenario valid: shrink the warm-up too
            changes["run.warmup"] = f"{duration / 4:g}s"
            print(f"note: warm-up shortened to {duration / 4:g}s", file=sys.stderr)
        sc = sc.replace(**changes)
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
    from aqmlab.run import as_scenario  # noqa: PLC0415

    for path in args.scenario:
        sc = as_scenario(path)
        print(f"{path}: ok ({sc.name}, {sc.n_flows} flows, key {sc.key})")
    return 0


def _cmd_show(args: argparse.Namespace) -> int:
    import pandas as pd  # noqa: PLC0415

    from aqmlab.results.results import load  # noqa: PLC0415

    res = load(args.dir)
    with pd.option_context("display.width", 200, "display.max_columns", 30):
        print(res.summary.T.to_string(header=False))
        print(res.table(args.table).to_string(max_rows=40))
    return 0


def _cmd_figures(args: argparse.Namespace) -> int:
    from aqmlab.figures import regenerate  # noqa: PLC0415

    root = Path(__file__).resolve().parents[1]
    regenerate(args.examples or root / "examples", args.out, args.profile, args.workers,
               args.data)
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="aqmlab", description=__doc__.splitlines()[0])
    p.add_argument("--debug", action="store_true", help="show tracebacks")
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="simulate one scenario and save its results")
    r.add_argument("scenario", help="scenario file (.toml or .json)")
    r.add_argument("--out", required=True, type=Path, help="output folder")
    r.add_argument("--seed", type=int, help="override run.seed")
    r.add_argument("--duration", help="override run.duration, e.g. 20s")
    r.add_argument("--timeout", type=float, help="wall-clock limit in seconds")
    r.add_argument("--in-process", action="store_true",
                   help="simulate in this process (faster start, no crash isolation)")
    r.set_defaults(fn=_cmd_run)
    v = sub.add_parser("validate", help="check scenario files without simulating")
    v.add_argument("scenario", nargs="+")
    v.set_defaults(fn=_cmd_validate)
    s = sub.add_parser("show", help="print a saved run")
    s.add_argument("dir", type=Path)
    s.add_argument("--table", default="flows")
    s.set_defaults(fn=_cmd_show)
    f = sub.add_parser("figures", help="regenerate the figures (quick or full profile)")
    f.add_argument("--profile", choices=("quick", "full"), default="quick")
    f.add_argument("--out", type=Path, default=Path("figures"))
    f.add_argument("--data", type=Path, default=Path("data"), help="where runs are stored")
    f.add_argument("--examples", type=Path, help="folder of scenario files")
    f.add_argument("--workers", type=int, help="worker processes (default: all cores)")
    f.set_defaults(fn=_cmd_figures)
    args = p.parse_args(argv)
    try:
        return args.fn(args)
    except AqmlabError as err:
        if args.debug:
            raise
        print(f"aqmlab: error: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
