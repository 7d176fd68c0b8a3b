"""Check that aqmlab's speed-ups change no result: every table, with them off and on.

Run: ``.venv/bin/python bench/check_identical.py [SCENARIO.toml ...] [--off VAR ...]
[--duration S] [--rounds N]``

Each scenario runs in child processes (``aqmlab run --in-process``, mimalloc preloaded as in
the workers): once on the *old* path, with the speed-ups' environment switches set to ``0``
(every switch in ``aqmlab.engines.ns3.speedups.SWITCHES``, or only those named with ``--off``), and
once on the *new* path (switches unset); the order alternates between rounds. Every Parquet
table the two runs write must be equal, value for value (``check_exact``), and so must the
run statistics in ``meta.json`` (events, end time, sockets open at the end); only the
summary's CPU and wall seconds may differ. Printed per
scenario: events, ``Simulator::Run`` CPU seconds of each path and their ratio, and the
set-up wall seconds (plan and build, before ``Run``) of each (a speed indication only: the
fastest of ``--rounds`` children per path on a shared machine).

Without scenario files, a built-in sample (shortened) is checked: a bulk RED dumbbell with
many hosts, Qiu's T1 dumbbell with 300 Reno flows on 300 senders, two-way PackMime over
ARED+ECN, Christiansen's browsing users over RED, and the parking lot.

Exit status 1 if any pair of runs differs.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
#: Run statistics (meta.json) that must be equal; the rest is timing and provenance.
META_KEYS = ("events", "end_s", "warmup_s")
#: Table columns that measure the machine, not the simulation.
TIMING_COLUMNS = ("run_cpu_s", "wall_s")

#: name -> (example file or None for the bench dumbbell, changes, simulated seconds); the
#: first third of each run is its warm-up.
SAMPLE: dict[str, tuple[str | None, dict[str, Any], float]] = {
    "bulk-red-200h": (None, {}, 30.0),
    "qiu-t1-300": ("qiu_t1_dumbbell.toml",
                   {"topology.senders": 300, "traffic[0].flows": 300},
                   60.0),
    "web-ared-ecn-80": ("weigle_ecn_ared_80.toml",
                        {"run.stop_after_responses": None}, 60.0),
    "browsing-red-90": ("christiansen_red_90.toml", {}, 60.0),
    "parking-lot": ("parking_lot.toml", {}, 30.0),
}


def sample_scenarios(work: Path, scale: float) -> list[Path]:
    """The built-in sample as scenario files in ``work``; durations times ``scale``."""
    from aqmlab.scenario import Bulk, Dumbbell, Link, Red, RunControl, Scenario, Tcp

    out = []
    for name, (example, changes, duration) in SAMPLE.items():
        dur = f"{duration * scale:g}s"
        if example is None:
            sc = Scenario(
                name=name,
                topology=Dumbbell(senders=200, receivers=200,
                                  access=Link(rate="100Mbps", delay="1ms"),
                                  bottleneck=Link(rate="10Mbps", delay="20ms"),
                                  forward_queue=Red(limit="200p", min_th=30, max_th=90)),
                tcp=Tcp(variant="newreno", mss=1000),
                traffic=(Bulk(flows=400, start_spread="1s"),),
                run=RunControl(duration=dur, warmup=f"{duration * scale / 3:g}s",
                               sample_interval=0.5))
        else:
            sc = Scenario.load(ROOT / "examples" / example).replace(
                **{**changes, "run.duration": dur,
                   "run.warmup": f"{duration * scale / 3:g}s"})
        path = work / f"{name}.toml"
        sc.save(path)
        out.append(path)
    return out


def run_child(toml: Path, out: Path, env: dict[str, str]) -> dict[str, Any]:
    """Simulate ``toml`` into ``out`` in a child process with ``env`` added; its meta."""
    from aqmlab.workers import allocator

    full = {**os.environ, **env}
    full.update(allocator.preload_env(full))
    done = subprocess.run([sys.executable, "-m", "aqmlab", "run", str(toml), "--out", str(out),
                           "--in-process"], env=full, cwd=out.parent, capture_output=True,
                          text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{toml.name}: aqmlab run failed:\n{done.stderr[-3000:]}")
    return json.loads((out / "meta.json").read_text())


def _simulated(df: pd.DataFrame, events: bool = True) -> pd.DataFrame:
    drop = TIMING_COLUMNS if events else (*TIMING_COLUMNS, "events")
    return df.drop(columns=[c for c in drop if c in df.columns])


def differences(old: Path, new: Path) -> list[str]:
    """Every way the two run folders' tables and run statistics differ (empty: identical)."""
    from aqmlab.engines.ns3.speedups import fewer_events_by_design

    found = []
    ma, mb = (json.loads((d / "meta.json").read_text()) for d in (old, new))
    events = not fewer_events_by_design(ma.get("one_wake"), mb.get("one_wake"),
                                        ma["scenario"]["topology"].get("queue_wake", "ns3"))
    names = sorted({p.name for p in old.glob("*.parquet")} | {p.name for p in new.glob("*.parquet")})
    for name in names:
        a, b = old / name, new / name
        if not (a.exists() and b.exists()):
            found.append(f"{name}: only in {'new' if b.exists() else 'old'}")
            continue
        try:
            pd.testing.assert_frame_equal(
                *(_simulated(pd.read_parquet(p), events) for p in (a, b)), check_exact=True)
        except AssertionError as err:
            found.append(f"{name}: {' '.join(str(err).split())[:300]}")
    for key in (*META_KEYS, *sorted(k for k in ma if k.startswith("sockets_"))):
        if ma.get(key) != mb.get(key) and (events or key != "events"):
            found.append(f"meta {key}: {ma.get(key)!r} != {mb.get(key)!r}")
    return found


def check(tomls: list[Path], off: dict[str, str], rounds: int, work: Path) -> list[dict[str, Any]]:
    """Run each scenario on both paths ``rounds`` times; one report row per scenario."""
    rows = []
    for toml in tomls:
        cpu: dict[str, list[float]] = {"old": [], "new": []}
        setup: dict[str, list[float]] = {"old": [], "new": []}
        bad: list[str] = []
        events = None
        for r in range(rounds):
            dirs = {}
            for path in ("old", "new") if r % 2 == 0 else ("new", "old"):
                dirs[path] = work / f"{toml.stem}-{path}-{r}"
                meta = run_child(toml, dirs[path], off if path == "old" else {})
                cpu[path].append(float(meta["run_cpu_s"]))
                setup[path].append(float(meta["build_wall_s"]))
                events = meta["events"]
            bad += differences(dirs["old"], dirs["new"])
        old, new = min(cpu["old"]), min(cpu["new"])
        so, sn = min(setup["old"]), min(setup["new"])
        rows.append({"scenario": toml.stem, "events": events, "old_cpu_s": old,
                     "new_cpu_s": new, "speedup": old / new if new else float("nan"),
                     "old_setup_wall_s": so, "new_setup_wall_s": sn,
                     "identical": not bad, "differences": bad})
        print(f"{toml.stem:24s} {events:>12,.0f} events  Run CPU-s old {old:7.2f}  new "
              f"{new:7.2f}  {old / new:5.2f}x  (set-up wall s {so:5.2f} / {sn:5.2f})  "
              f"identical: {'yes' if not bad else 'NO'}", flush=True)
        for line in bad[:10]:
            print(f"    {line}")
    return rows


def main(argv: list[str] | None = None) -> int:
    """Parse arguments, run the check, print the verdict."""
    from aqmlab.engines.ns3.speedups import SWITCHES

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("scenarios", nargs="*", type=Path, help="scenario files (default: sample)")
    ap.add_argument("--off", action="append", choices=sorted(SWITCHES),
                    help="switch off only this speed-up on the old path (repeatable)")
    ap.add_argument("--scale", type=float, default=1.0,
                    help="multiply the sample's simulated durations (default 1)")
    ap.add_argument("--rounds", type=int, default=1, help="runs per path (default 1)")
    ap.add_argument("--json", type=Path, help="write the report rows here")
    args = ap.parse_args(argv)
    off = dict.fromkeys(args.off or SWITCHES, "0")
    print(f"old path: {' '.join(f'{k}=0' for k in off)}; new path: defaults", flush=True)
    with tempfile.TemporaryDirectory(prefix="aqmlab_identical_") as tmp:
        work = Path(tmp)
        tomls = [p.resolve() for p in args.scenarios] or sample_scenarios(work, args.scale)
        rows = check(tomls, off, args.rounds, work)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
    same = all(r["identical"] for r in rows)
    print(f"\n{len(rows)} scenarios, {'all identical' if same else 'DIFFERENCES FOUND'}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
