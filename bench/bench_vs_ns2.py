"""aqmlab on ns-3 beside ns-2.35 on the papers' own workloads, measured side by side in one run.

For each case, three runs side by side: ns-3 with aqmlab's speed-ups (the default), ns-3
with every speed-up switched off (``SPEEDUPS_OFF``: each switch of
``aqmlab.engines.ns3.speedups`` at ``0``), and ns-2.35. Printed: CPU seconds (ns-3:
``Simulator::Run``; ns-2.35: the whole ``ns`` process, Tcl set-up included), wall seconds
of the engine's ``simulate`` (ns-3: build, run and column pulls; ns-2.35: script, ``ns`` and
parsing), ns-3's events and events per CPU-second, and the ratios off / on, on / ns-2 and
off / ns-2 (medians over ``--rounds``, the on/off order alternating; each round's CPU seconds
are in the ``--json`` rows, ``cpu_s_per_round``, to judge the spread). The benchmark exits
with status 1 unless every table of the two ns-3 runs is identical: the speed-ups change
speed, never results. Runs are worker processes (one at a time, so CPU seconds are not
shared).

    .venv/bin/python bench/bench_vs_ns2.py            # ~16 min on 2 cores (2026-11-25)
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

from aqmlab.engines.ns3 import speedups  # the switches only: ns-3 is not imported

ROOT = Path(__file__).resolve().parents[1]

#: Environment switches that turn every speed-up of the ns-3 engine off (each keeps results
#: identical): every name of ``aqmlab.engines.ns3.speedups.SWITCHES`` set to "0", i.e.
#: AQMLAB_SOCKET_TABLES, AQMLAB_FAST_ROUTING, AQMLAB_ROUTE_INDEX, AQMLAB_DIRECT_RX,
#: AQMLAB_FAST_ATTRIBUTES, AQMLAB_RAW_HEADERS, AQMLAB_FAST_CONSTRUCT, AQMLAB_TRACE_MEMO,
#: AQMLAB_SPF_INDEX, AQMLAB_FILL_ONCE, AQMLAB_FAST_OPTIONS, AQMLAB_TX_TIME_MEMO,
#: AQMLAB_FORK_INDEX, AQMLAB_EVENT_HEAP, AQMLAB_SOCKET_PROTOTYPE,
#: AQMLAB_PROBE_NOW_MEMO, AQMLAB_RATE_PARSE_MEMO, AQMLAB_APP_CALLBACKS.
SPEEDUPS_OFF = speedups.all_off()

WEB = "weigle_droptail_80.toml"
#: name -> (example, dotted changes, duration s, warm-up s, note)
CASES: dict[str, tuple[str, dict[str, Any], float, float, str]] = {
    "web-dt148": (WEB, {}, 480, 60, "two-way PackMime at 80 %, 10 Mb/s drop-tail 148 "
                  "(95.9 conn/s each way by the example's calibration)"),
    "web-100mbps": (WEB, {"topology.bottleneck.rate": "100Mbps"},
                    480, 60, "the same connections, uncongested 100 Mb/s"),
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
    """The tables that differ between two ns-3 runs (CPU and wall times aside; the event
    count too where ``AQMLAB_ONE_WAKE`` differs under ``queue_wake = "ns2"``: it schedules
    one event fewer per packet sent, by design)."""
    bad = []
    fewer_wakes = speedups.fewer_events_by_design(a.meta.get("one_wake"), b.meta.get("one_wake"),
                                                  a.scenario.topology.queue_wake)
    timing = ("run_cpu_s", "wall_s", "events") if fewer_wakes else ("run_cpu_s", "wall_s")
    for t in ("flows", "requests", "queues", "links", "queue_ts", "summary"):
        x, y = a.table(t), b.table(t)
        drop = [c for c in timing if c in x.columns]
        try:
            pd.testing.assert_frame_equal(x.drop(columns=drop), y.drop(columns=drop),
                                          check_exact=True)
        except AssertionError:
            bad.append(t)
    if a.meta["events"] != b.meta["events"] and not fewer_wakes:
        bad.append("events")
    return bad


def median(xs: list[float]) -> float:
    return float(pd.Series(xs).median()) if xs else math.nan


def ratio(a: float, b: float) -> float:
    return round(a / b, 2) if b > 0 and not math.isnan(a) and not math.isnan(b) else math.nan


def markdown(rows: list[dict[str, Any]]) -> str:
    """The rows as the table bench/README.md records."""
    head = ("| case | events | ns-3 on | ns-3 off | ns-2.35 | off / on | on / ns-2 | off / ns-2 "
            "| wall on / off / ns-2 s | wall on / ns-2 | wall off / ns-2 | identical |")
    lines = [head, "|" + "---|" * 12]
    for row in rows:
        r = {k: "–" if isinstance(v, float) and math.isnan(v) else v for k, v in row.items()}
        lines.append(
            f"| {r['case']} | {r['events']:,} | {r['ns3_cpu_s']} | {r['ns3_off_cpu_s']} | "
            f"{r['ns2_cpu_s']} | **{r['off_over_on']}x** | {r['on_over_ns2']} | "
            f"{r['off_over_ns2']} | {r['ns3_wall_s']} / {r['ns3_off_wall_s']} / "
            f"{r['ns2_wall_s']} | {r['wall_on_over_ns2']} | {r['wall_off_over_ns2']} | "
            f"{r['tables_identical_without_speedups']} |")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="a quarter of each run length")
    ap.add_argument("--only", action="append", choices=list(CASES), help="repeatable")
    ap.add_argument("--rounds", type=int, default=1, help="repetitions (medians are shown)")
    ap.add_argument("--no-check", action="store_true",
                    help="skip the speed-ups-off runs (no off column, no identity check)")
    ap.add_argument("--json", type=Path, help="write the rows as JSON lines here")
    args = ap.parse_args()
    os.chdir(tempfile.mkdtemp(prefix="aqmlab-bench-ns2-"))  # a scratch working directory
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
        cpu: dict[str, list[float]] = {"on": [], "off": [], "ns2": []}
        wall: dict[str, list[float]] = {"on": [], "off": [], "ns2": []}
        events, diff = math.nan, []
        for r in range(args.rounds):
            t0 = time.perf_counter()
            paths = ["on"] if args.no_check else ["on", "off"] if r % 2 == 0 else ["off", "on"]
            got = {}
            for path in paths + (["ns2"] if on_ns2 else []):
                res = run(sc, "ns2" if path == "ns2" else "ns3",
                          SPEEDUPS_OFF if path == "off" else None)
                cpu[path].append(float(res.meta["run_cpu_s"]))
                wall[path].append(float(res.meta["wall_s"]))
                got[path] = res
            events = float(got["on"].meta["events"])
            if "off" in got:
                diff += [d for d in identical(got["on"], got["off"]) if d not in diff]
            print(f"{name}: round {r + 1} in {time.perf_counter() - t0:.0f} s wall",
                  file=sys.stderr)
        same = "" if args.no_check else "yes" if not diff else "NO: " + ", ".join(diff)
        if diff:
            failed.append(name)
        c, w = ({k: median(v) for k, v in d.items()} for d in (cpu, wall))
        rows.append({"case": name, "events": int(events),
                     "ns3_cpu_s": round(c["on"], 2), "ns3_off_cpu_s": round(c["off"], 2),
                     "ns2_cpu_s": round(c["ns2"], 2), "off_over_on": ratio(c["off"], c["on"]),
                     "on_over_ns2": ratio(c["on"], c["ns2"]),
                     "off_over_ns2": ratio(c["off"], c["ns2"]),
                     "ns3_wall_s": round(w["on"], 1), "ns3_off_wall_s": round(w["off"], 1),
                     "ns2_wall_s": round(w["ns2"], 1),
                     "wall_on_over_ns2": ratio(w["on"], w["ns2"]),
                     "wall_off_over_ns2": ratio(w["off"], w["ns2"]),
                     "events_per_cpu_s": int(events / c["on"]) if c["on"] > 0 else 0,
                     "tables_identical_without_speedups": same, "what": CASES[name][4],
                     "cpu_s_per_round": {k: [round(x, 2) for x in v] for k, v in cpu.items()}})
        print(json.dumps(rows[-1]), file=sys.stderr)
    df = pd.DataFrame(rows).drop(columns="cpu_s_per_round")  # the spread: --json, stderr
    with pd.option_context("display.width", 250, "display.max_colwidth", 60):
        print(df.to_string(index=False))
    print()
    print(markdown(rows))
    if args.json:
        args.json.write_text("".join(json.dumps(r) + "\n" for r in rows))
    if failed:
        print(f"speed-ups changed results: {failed}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
