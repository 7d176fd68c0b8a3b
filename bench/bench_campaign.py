"""Campaign benchmarks: what a sweep costs beyond the simulations themselves.

Run: ``.venv/bin/python bench/bench_campaign.py [--quick] [--runs N] [--naive K]``. Prints
a table and writes ``bench/results/campaign.json``. About 5 minutes on 2 cores.

The scenario is a small RED dumbbell (2 senders, 4 NewReno flows, 10 Mb/s) whose
simulated duration is calibrated so that one ``Simulator::Run`` takes about one second of
CPU (``--target``). A sweep is that scenario over ``--runs`` seeds (50), into a fresh store.

1. **Per-run overhead.** Total wall time of ``aqmlab.sweep(...)`` with 1 worker, from the
   call to its return (expansion, store look-ups, worker start-up, scheduling, pickling
   results back, atomic Parquet writes, the table), against the sum of the runs'
   ``Simulator::Run`` CPU seconds. *Cold*: a new pool, so the one-off ns-3 import and JIT
   (one warm-up: the workers are forked from one warm process) is included. *Warm*: a
   reused ``LocalExecutor`` whose worker is already up, as in a notebook session.
   Because wall time on a shared machine depends on other load, two load-independent views
   are printed too: the CPU time of every process involved against the sum of ``Run``
   CPU, and the sweep's wall time against the sum of each run's wall time inside the
   worker (what the sweep machinery adds around the simulations).
2. **Speed-up from 1 to 2 workers**: wall(1 worker) / wall(2 workers), cold and warm.
3. **The naive way**: each run as a fresh ``python -c "...aqmlab.run(sc, in_process=True)
   .save(dir)"`` process, one after the other, for ``--naive`` runs (10); reported per run
   and extrapolated to the sweep's size.

Every path must produce identical results (event counts and goodput per seed); the exit
status is 1 otherwise. Nothing here imports ns-3 in this process: workers run in a temporary
folder, and so do the naive processes.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pandas as pd

BENCH = Path(__file__).resolve().parent
RESULTS = BENCH / "results"

from aqmlab.campaign import LocalExecutor, sweep  # noqa: E402
from aqmlab.scenario import Bulk, Dumbbell, Link, Red, RunControl, Scenario, Tcp  # noqa: E402

NAIVE = """\
import sys, aqmlab
sc = aqmlab.Scenario.from_json(sys.argv[1])
aqmlab.run(sc, in_process=True).save(sys.argv[2])
"""


def scenario(duration: float) -> Scenario:
    return Scenario(
        name="bench-campaign",
        topology=Dumbbell(senders=2, sender_delays=["1ms", "10ms"],
                          bottleneck=Link(rate="10Mbps", delay="10ms"),
                          forward_queue=Red(limit="100p", min_th=10, max_th=40)),
        tcp=Tcp(variant="newreno"), traffic=[Bulk(flows=4, start_spread="0.5s")],
        run=RunControl(duration=f"{duration:.3f}s", sample_interval="100ms"))


def _proc_cpu(pids: list[int]) -> float:
    """utime + stime of running processes, from /proc (0 for any that is gone)."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / tick
        except (OSError, IndexError, ValueError):
            pass
    return total


def _cpu_now() -> float:
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def timed_sweep(sc: Scenario, seeds: list[int], store: Path, **kw: Any) -> dict[str, Any]:
    """One sweep, timed. CPU: this process + reaped children (a pool the sweep started and
    closed) + the live processes of a reused executor's pool (from /proc)."""
    ex = kw.get("executor")
    pids = ex.pool.pids if ex is not None and ex._pool is not None else []
    cpu0, pcpu0 = _cpu_now(), _proc_cpu(pids)
    t0 = time.perf_counter()
    res = sweep(sc, seeds=seeds, store=store, progress=False, **kw)
    wall = time.perf_counter() - t0
    cpu = _cpu_now() - cpu0 + _proc_cpu(pids) - pcpu0
    t = res.table
    if (t.status != "ok").any() or res.counts["ran"] != len(seeds):
        raise SystemExit(f"benchmark sweep failed: {res.counts}\n{t[t.status != 'ok']}")
    run_cpu = float(t.run_cpu_s.sum())
    session = float(t.wall_s.sum())
    return {"wall_s": wall, "cpu_s": cpu, "sum_run_cpu_s": run_cpu,
            "sum_session_wall_s": session, "overhead_vs_run": wall / run_cpu - 1,
            "cpu_overhead_vs_run": cpu / run_cpu - 1, "runs": len(seeds), "table": t}


def naive(sc: Scenario, seeds: list[int], workdir: Path) -> dict[str, Any]:
    rows, walls = [], []
    for s in seeds:
        out = workdir / f"naive-{s}"
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-c", NAIVE, sc.replace(**{"run.seed": s}).to_json(),
                        str(out)], check=True, cwd=workdir, stdout=subprocess.DEVNULL)
        walls.append(time.perf_counter() - t0)
        rows.append(pd.read_parquet(out / "summary.parquet").iloc[0])
    table = pd.DataFrame(rows)
    return {"wall_s": sum(walls), "per_run_wall_s": walls, "runs": len(seeds),
            "sum_run_cpu_s": float(table.run_cpu_s.sum()), "table": table}


def same(a: pd.DataFrame, b: pd.DataFrame) -> bool:
    cols = ["seed", "events", "goodput_mbps", "drops"]
    x = a[cols].sort_values("seed").reset_index(drop=True)
    y = b[cols].sort_values("seed").reset_index(drop=True)
    n = min(len(x), len(y))
    return x.iloc[:n].equals(y.iloc[:n])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=50, help="runs per sweep (50)")
    ap.add_argument("--target", type=float, default=1.0, help="Run CPU seconds per run (1.0)")
    ap.add_argument("--naive", type=int, default=10, help="naive python -c runs (10)")
    ap.add_argument("--quick", action="store_true", help="20 runs of 0.5 s, 4 naive runs")
    args = ap.parse_args()
    if args.quick:
        args.runs, args.target, args.naive = 20, 0.5, 4
    work = Path(tempfile.mkdtemp(prefix="aqmlab-bench-campaign-"))
    os.chdir(work)  # the naive processes import ns-3 from here; keep it small
    seeds = list(range(1, args.runs + 1))
    t_start = time.perf_counter()

    print(f"working in {work}; calibrating ...", flush=True)
    warm1 = LocalExecutor(1)
    calib = timed_sweep(scenario(10.0), [10_000], work / "calib", executor=warm1)
    per_sim_s = calib["sum_run_cpu_s"] / 10.0
    duration = round(args.target / per_sim_s, 1)
    sc = scenario(duration)
    print(f"  {per_sim_s * 1000:.1f} ms of Run CPU per simulated second -> duration "
          f"{duration:g} s", flush=True)

    results: dict[str, dict[str, Any]] = {}
    print("1 worker, cold ...", flush=True)
    results["cold_1"] = timed_sweep(sc, seeds, work / "cold1", workers=1)
    print("1 worker, warm ...", flush=True)
    results["warm_1"] = timed_sweep(sc, seeds, work / "warm1", executor=warm1)
    warm1.close()
    print("2 workers, cold ...", flush=True)
    results["cold_2"] = timed_sweep(sc, seeds, work / "cold2", workers=2)
    print("2 workers, warm ...", flush=True)
    with LocalExecutor(2) as warm2:
        timed_sweep(sc, [20_001, 20_002, 20_003, 20_004], work / "w2", executor=warm2)
        results["warm_2"] = timed_sweep(sc, seeds, work / "warm2", executor=warm2)
    print(f"naive python -c, {args.naive} runs ...", flush=True)
    nv = naive(sc, seeds[:args.naive], work)

    identical = all(same(results["cold_1"]["table"], r["table"]) for r in results.values())
    identical = identical and same(results["cold_1"]["table"], nv["table"])
    c1, w1, c2, w2 = (results[k] for k in ("cold_1", "warm_1", "cold_2", "warm_2"))
    naive_per_run = nv["wall_s"] / nv["runs"]
    summary = {
        "runs": args.runs, "duration_s": duration,
        "mean_run_cpu_s": c1["sum_run_cpu_s"] / args.runs,
        "overhead_cold_1": c1["overhead_vs_run"], "overhead_warm_1": w1["overhead_vs_run"],
        "machinery_overhead_warm_1": w1["wall_s"] / w1["sum_session_wall_s"] - 1,
        "machinery_overhead_cold_1": c1["wall_s"] / c1["sum_session_wall_s"] - 1,
        "cpu_overhead_cold_1": c1["cpu_overhead_vs_run"],
        "cpu_overhead_warm_1": w1["cpu_overhead_vs_run"],
        "per_run_overhead_warm_ms": (w1["wall_s"] - w1["sum_run_cpu_s"]) / args.runs * 1000,
        "speedup_cold": c1["wall_s"] / c2["wall_s"], "speedup_warm": w1["wall_s"] / w2["wall_s"],
        "runs_in_flight_warm_2": w2["sum_session_wall_s"] / w2["wall_s"],
        "cpus_busy_warm_2": w2["cpu_s"] / w2["wall_s"],
        "naive_per_run_wall_s": naive_per_run,
        "naive_extrapolated_wall_s": naive_per_run * args.runs,
        "naive_vs_sweep_1_cold": naive_per_run * args.runs / c1["wall_s"],
        "naive_vs_sweep_2_cold": naive_per_run * args.runs / c2["wall_s"],
        "identical_results": bool(identical),
    }

    print()
    print(f"{args.runs} runs of {duration:g} s simulated, mean Simulator::Run "
          f"{summary['mean_run_cpu_s']:.3f} CPU-s")
    print(f"{'path':28s} {'wall s':>8s} {'sum Run s':>10s} {'overhead':>9s} {'CPU s':>8s} "
          f"{'CPU overhead':>13s}")
    for name, r in results.items():
        print(f"{'sweep ' + name:28s} {r['wall_s']:8.1f} {r['sum_run_cpu_s']:10.1f} "
              f"{r['overhead_vs_run'] * 100:8.1f}% {r['cpu_s']:8.1f} "
              f"{r['cpu_overhead_vs_run'] * 100:12.1f}%")
    print(f"{'naive python -c (' + str(nv['runs']) + ' runs)':28s} {nv['wall_s']:8.1f} "
          f"{nv['sum_run_cpu_s']:10.1f} {(nv['wall_s'] / nv['sum_run_cpu_s'] - 1) * 100:8.1f}%")
    print()
    print(f"per-run overhead, warm worker: {summary['per_run_overhead_warm_ms']:.0f} ms "
          f"({summary['overhead_warm_1'] * 100:.1f} %; cold incl. start-up "
          f"{summary['overhead_cold_1'] * 100:.1f} %; goal <= 10 %)")
    print(f"sweep machinery alone (1 worker: wall vs the sum of the runs' wall time in the "
          f"worker, build and tables included): warm "
          f"{summary['machinery_overhead_warm_1'] * 100:.1f} %, cold "
          f"{summary['machinery_overhead_cold_1'] * 100:.1f} %")
    print(f"CPU overhead (all processes' CPU vs the sum of Run CPU): warm "
          f"{summary['cpu_overhead_warm_1'] * 100:.1f} %, cold "
          f"{summary['cpu_overhead_cold_1'] * 100:.1f} %")
    print(f"speed-up 1 -> 2 workers: cold {summary['speedup_cold']:.2f}x, warm "
          f"{summary['speedup_warm']:.2f}x (goal >= 1.8x); warm, 2 workers: "
          f"{summary['runs_in_flight_warm_2']:.2f} runs in flight on average, "
          f"{summary['cpus_busy_warm_2']:.2f} CPUs busy")
    print(f"naive python -c: {naive_per_run:.1f} s per run -> {args.runs} runs in "
          f"{summary['naive_extrapolated_wall_s']:.0f} s, "
          f"{summary['naive_vs_sweep_1_cold']:.1f}x the 1-worker sweep, "
          f"{summary['naive_vs_sweep_2_cold']:.1f}x the 2-worker sweep")
    print(f"identical results on every path: {'yes' if identical else 'NO'}")
    print(f"total {time.perf_counter() - t_start:.0f} s")

    RESULTS.mkdir(parents=True, exist_ok=True)
    record = {
        "when": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                    "load_avg": os.getloadavg()},
        "summary": summary,
        "paths": {k: {x: v for x, v in r.items() if x != "table"} for k, r in results.items()},
        "naive": {k: v for k, v in nv.items() if k != "table"},
    }
    (RESULTS / "campaign.json").write_text(json.dumps(record, indent=2))
    print(f"wrote {RESULTS / 'campaign.json'}")
    return 0 if identical else 1


if __name__ == "__main__":
    sys.exit(main())
