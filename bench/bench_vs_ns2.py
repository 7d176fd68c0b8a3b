"""aqmlab on ns-3 beside ns-2.35 on the papers' own workloads, measured side by side in one run.

For each case: CPU seconds of both engines (ns-3: ``Simulator::Run``; ns-2.35: the whole
``ns`` process, Tcl set-up included), ns-3's events and events per CPU-second, and the ratio
aqmlab / ns-2. Each ns-3 case also runs with every speed-up switched off (``SPEEDUPS_OFF``:
the environment switches of aqmlab's C++ speed-ups) and the benchmark exits with status 1
unless every table of the two ns-3 runs is identical: the speed-ups change speed, never
results. Runs are worker processes (one at a time, so CPU seconds are not shared).

    .venv/bin/python bench/bench_vs_ns2.py            # ~25 min on 2 cores
    .venv/bin/python bench/bench_vs_ns2.py --quick    # shorter runs, ~5 min
    .venv/bin/python bench/bench_vs_ns2.py --only qiu-1000 --rounds 2

Cases (:data:`CASES`): issue 31's four set-ups, then one full-profile configuration per
study, shortened where the paper's run length would take an hour; a case ns-2 cannot run
(Mah browsing users) is measured on ns-3 only.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]

#: Environment switches that turn aqmlab's C++ speed-ups off (each keeps results identical).
SPEEDUPS_OFF = {"AQMLAB_SOCKET_TABLES": "0", "AQMLAB_FAST_ROUTING": "0"}

WEB = "weigle_droptail_80.toml"
#: name -> (example, dotted changes, duration s, warm-up s, note)
CASES: dict[str, tuple[str, dict[str, Any], float, float, str]] = {
    "web-dt148": (WEB, {"traffic[0].rate": 107.0, "traffic[1].rate": 107.0},
                  480, 60, "two-way PackMime, 10 Mb/s drop-tail 148, 107 conn/s each way"),
    "web-100mbps": (WEB, {"traffic[0].rate": 107.0, "traffic[1].rate": 107.0,
                          "topology.bottleneck.rate": "100Mbps"},
                    480, 60, "the same, uncongested 100 Mb/s"),
    "qiu-300": ("qiu_t1_dumbbell.toml", {"topology.senders": 300, "traffic[0].flows": 300},
                200, 50, "Qiu T1, drop-tail 160, 300 Reno flows, one sender each"),
    "qiu-1000": ("qiu_t1_dumbbell.toml", {"topology.senders": 1000, "traffic[0].flows": 1000},
                 200, 50, "the same, 1000 flows"),
    "ecn_sack_web": ("weigle_ecn_ared_105.toml", {}, 600, 120,
                     "Weigle ARED+ECN 5 ms at 105 % (full profile: 40 min; here 10)"),
    "ecn_bulk": ("pentikousis_ecn_5clients.toml",
                 {"topology.receivers": 10, "traffic[0].count": 10}, 2000, 0,
                 "Pentikousis, 10 clients x 20 MiB, RED+ECN QL 64"),
    "many_flows": ("qiu_isdn_dumbbell.toml", {}, 500, 100, "Qiu ISDN dumbbell (full profile)"),
    "multiple_bottlenecks": ("parking_lot.toml", {}, 300, 30, "parking lot, bulk, 3 hops"),
    "tail_drop": ("christiansen_taildrop_90.toml", {}, 900, 300,
                  "Christiansen tail-drop at 90 % (Mah users: ns-3 only; full: 5,400 s)"),
}


def scenario(name: str, quick: bool) -> Any:
    from aqmlab.scenario import Scenario

    example, changes, duration, warmup, _ = CASES[name]
    if quick:
        duration, warmup = duration / 4, warmup / 4
    return Scenario.load(ROOT / "examples" / example).replace(**{
        "run.duration": f"{duration:g}s", "run.warmup": f"{warmup:g}s",
        "run.sample_interval": None, "run.stop_after_responses": None, **changes})


def run(sc: Any, engine: str, env: dict[str, str] | None = None) -> Any:
    """One run in a fresh worker process (its own allocator and caches)."""
    from aqmlab.workers import Runner

    runner = Runner(workers=1, start="spawn", env=env)
    try:
        return runner.run(sc.replace(**{"run.engine": engine}))
    finally:
        runner.close()


def identical(a: Any, b: Any) -> list[str]:
    """The tables that differ between two ns-3 runs (CPU and wall times aside)."""
    bad = []
    for t in ("flows", "requests", "queues", "links", "queue_ts", "summary"):
        x, y = a.table(t), b.table(t)
        drop = [c for c in ("run_cpu_s", "wall_s") if c in x.columns]
        try:
            pd.testing.assert_frame_equal(x.drop(columns=drop), y.drop(columns=drop),
                                          check_exact=True)
        except AssertionError:
            bad.append(t)
    if a.meta["events"] != b.meta["events"]:
        bad.append("events")
    return bad


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="a quarter of each run length")
    ap.add_argument("--only", action="append", choices=list(CASES), help="repeatable")
    ap.add_argument("--rounds", type=int, default=1, help="repetitions (medians are shown)")
    ap.add_argument("--no-check", action="store_true", help="skip the speed-ups-off runs")
    ap.add_argument("--json", type=Path, help="write the rows as JSON lines here")
    args = ap.parse_args()
    os.chdir(tempfile.mkdtemp(prefix="aqmlab-bench-ns2-"))  # the ns-3 loader scans the cwd
    from aqmlab.engines import ns2

    names = args.only or list(CASES)
    rows, failed = [], []
    for name in names:
        sc = scenario(name, args.quick)
        on_ns2 = ns2.available()
        try:
            ns2.check(sc.replace(**{"run.engine": "ns2"}))
        except Exception as err:  # noqa: BLE001 - the engine refuses: ns-3 only
            on_ns2 = False
            why = str(err).split(" is invalid: ")[0]
            print(f"{name}: ns-3 only ({why})", file=sys.stderr)
        cpu3, cpu2, events = [], [], math.nan
        for _ in range(args.rounds):
            t0 = time.perf_counter()
            a = run(sc, "ns3")
            cpu3.append(float(a.meta["run_cpu_s"]))
            events = float(a.meta["events"])
            if on_ns2:
                cpu2.append(float(run(sc, "ns2").meta["run_cpu_s"]))
            print(f"{name}: round in {time.perf_counter() - t0:.0f} s wall", file=sys.stderr)
        same = ""
        if not args.no_check:
            diff = identical(a, run(sc, "ns3", SPEEDUPS_OFF))
            same = "yes" if not diff else "NO: " + ", ".join(diff)
            if diff:
                failed.append(name)
        c3 = float(pd.Series(cpu3).median())
        c2 = float(pd.Series(cpu2).median()) if cpu2 else math.nan
        rows.append({"case": name, "ns3_cpu_s": round(c3, 2), "ns2_cpu_s": round(c2, 2),
                     "ratio": round(c3 / c2, 2) if cpu2 else math.nan, "events": int(events),
                     "events_per_cpu_s": int(events / c3) if c3 > 0 else 0,
                     "tables_identical_without_speedups": same, "what": CASES[name][4]})
        print(json.dumps(rows[-1]), file=sys.stderr)
    df = pd.DataFrame(rows)
    with pd.option_context("display.width", 200, "display.max_colwidth", 60):
        print(df.to_string(index=False))
    if args.json:
        args.json.write_text("".join(json.dumps(r) + "\n" for r in rows))
    if failed:
        print(f"speed-ups changed results: {failed}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
