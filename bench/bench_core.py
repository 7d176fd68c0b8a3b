"""Core performance benchmarks of aqmlab (not tests: they print ratios measured side by side).

Run: ``.venv/bin/python bench/bench_core.py [--quick] [--rounds N] [--only a|b]``. Prints a
table and writes ``bench/results/core.json`` (and the replay scripts ``bench/results/*.txt``).

A warm-up runs first: 2 s of simulated time through each path, untimed. It pays for the
ns-3 import, the JIT of aqmlab's C++ and the first-``Run`` lazy JIT.

a. **aqmlab vs native.** One RED dumbbell (10+10 hosts, 100 bulk NewReno flows) simulated
   (i) through aqmlab in this process (``aqmlab.workers.worker.simulate``) and (ii) by
   ``bench/native/build/dumbbell_main``, a g++-compiled program that replays the exact
   ``aqmlab::Experiment`` calls aqmlab makes (recorded by ``bench/record.py``). The two
   alternate (ABBA) for ``--rounds`` rounds. Reported: the ratio of the median
   ``Simulator::Run`` CPU seconds, of the fastest runs, and the median per-round ratio.
   Event counts and checksums must be identical.
b. **Flow and host scaling.** Events per CPU-second of ``Simulator::Run`` through aqmlab
   for 100 and 1000 flows on 10 host pairs, and 1000 flows on 100 and 1000 host pairs
   (router fan-out). Configurations alternate round by round; each one also runs natively
   once, as a cross-check and for the simulation's own peak RSS.

CPU seconds are process CPU time around ``Simulator::Run()`` only (the machine is shared
and wall clock is noisy). Peak RSS: ``getrusage`` for this process as a whole, plus the
per-run high-water mark (``VmHWM``, reset before each run through
``/proc/self/clear_refs``), which includes the ~0.45 GB of ns-3 headers and JIT state.
The exit status is 1 if any pair of runs was not identical.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
NATIVE_DIR = BENCH / "native"
BINARY = NATIVE_DIR / "build" / "dumbbell_main"
RESULTS = BENCH / "results"
#: Sources the native binary depends on; it is rebuilt when one is newer.
NATIVE_SOURCES = (NATIVE_DIR / "dumbbell_main.cc", NATIVE_DIR / "build.sh",
                  *sorted((ROOT / "aqmlab" / "ns3" / "cpp").glob("*.h")))
#: Counters that must agree between the two paths.
CHECK_KEYS = ("events", "bytes_received", "bytes_received_weighted", "queue_arrivals",
              "queue_departures", "queue_drops", "queue_marks")

sys.path.insert(0, str(BENCH))
from record import write_script  # noqa: E402  (bench/ is not a package)

from aqmlab.scenario import Bulk, DropTail, Dumbbell, Link, Red, RunControl, Scenario, Tcp  # noqa: E402


def dumbbell(flows: int, hosts: int, duration_s: float) -> Scenario:
    """The benchmark dumbbell: ``hosts`` senders and receivers, RED bottleneck."""
    return Scenario(
        name=f"bench-dumbbell-{flows}f-{hosts}h",
        topology=Dumbbell(
            senders=hosts, receivers=hosts,
            access=Link(rate="100Mbps", delay="1ms"),
            bottleneck=Link(rate="10Mbps", delay="20ms"),
            forward_queue=Red(limit="200p", min_th=30, max_th=90),
            reverse_queue=DropTail(limit="1000p")),
        tcp=Tcp(variant="newreno", mss=1000),
        traffic=(Bulk(flows=flows, start_spread="1s"),),
        run=RunControl(duration=duration_s, sample_interval=None))


# ------------------------------------------------------------------------------- measuring

def _proc_status_kb(key: str) -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return float(line.split()[1])
    return float("nan")


def _reset_peak_rss() -> bool:
    """Reset this process's VmHWM to its current RSS (Linux >= 4.0); False if impossible."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        return False
    return True


def ru_maxrss_mb() -> float:
    """Peak RSS of this process so far, from getrusage (KiB on Linux)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def run_aqmlab(scenario: Scenario) -> dict[str, Any]:
    """Simulate ``scenario`` in this process through aqmlab; timings and checksums."""
    from aqmlab.workers.worker import simulate as simulate_results

    if scenario.run.warmup_s > 0:
        raise ValueError("checksums assume no warm-up (tables hold measured-interval counts)")
    rss0 = _proc_status_kb("VmRSS") / 1024.0
    reset = _reset_peak_rss()
    t0 = time.perf_counter()
    res = simulate_results(scenario)
    wall = time.perf_counter() - t0
    meta, queues = res.meta, res.queues
    rx = res.flows["total_bytes_delivered"].to_numpy()
    return {
        "run_cpu_s": float(meta["run_cpu_s"]),
        "events": float(meta["events"]),
        "setup_wall_s": float(meta["build_wall_s"]),
        "wall_s": wall,
        "rss_before_mb": rss0,
        "peak_rss_mb": _proc_status_kb("VmHWM") / 1024.0 if reset else float("nan"),
        "bytes_received": float(rx.sum()),
        "bytes_received_weighted": float(sum((i + 1) * float(b) for i, b in enumerate(rx))),
        **{f"queue_{k}": float(queues[k].sum())
           for k in ("arrivals", "departures", "drops", "marks")},
    }


def ensure_binary(force: bool = False) -> Path:
    """Build ``bench/native/build/dumbbell_main`` if missing, stale or ``force``."""
    stale = not BINARY.exists() or any(
        src.stat().st_mtime > BINARY.stat().st_mtime for src in NATIVE_SOURCES)
    if force or stale:
        print("compiling the native benchmark (bench/native/build.sh) ...", flush=True)
        t0 = time.perf_counter()
        out = subprocess.run(["bash", str(NATIVE_DIR / "build.sh"), sys.executable],
                             capture_output=True, text=True)
        if out.returncode:
            sys.exit(f"bench/native/build.sh failed:\n{out.stderr}")
        print(f"  done in {time.perf_counter() - t0:.1f} s", flush=True)
    return BINARY


def run_native(script: Path) -> dict[str, Any]:
    """Run the native replay of ``script``; its JSON report plus the process wall time."""
    t0 = time.perf_counter()
    out = subprocess.run([str(BINARY), str(script)], check=True, capture_output=True,
                         text=True)
    wall = time.perf_counter() - t0
    return {**json.loads(out.stdout.strip().splitlines()[-1]), "wall_s": wall}


def _median(runs: list[dict[str, Any]], key: str) -> float:
    return statistics.median(r[key] for r in runs)


def _mismatches(a: dict[str, Any], b: dict[str, Any]) -> list[str]:
    return [f"{k}: {a[k]!r} != {b[k]!r}" for k in CHECK_KEYS if a[k] != b[k]]


# ------------------------------------------------------------------------------- benchmarks

def warm_up(scripts: Path) -> dict[str, Any]:
    """First run of this process (imports ns-3, JITs aqmlab's C++) and of the binary: 2 s
    of the benchmark dumbbell, not timed for the comparisons, checked for equality."""
    warm = dumbbell(100, 10, 2.0)
    first = run_aqmlab(warm)
    first_native = run_native(write_script(warm, scripts / "warmup.txt"))
    bad = _mismatches(first, first_native)
    print(f"warm-up (2 s simulated): aqmlab first run {first['wall_s']:.2f} s wall "
          f"(ns-3 import + JIT {first['setup_wall_s']:.2f} s, Run {first['run_cpu_s']:.2f} "
          f"CPU-s), native {first_native['wall_s']:.2f} s wall (Run "
          f"{first_native['run_cpu_s']:.2f} CPU-s); identical: {not bad}", flush=True)
    return {"aqmlab": first, "native": first_native, "identical": not bad, "mismatches": bad}


def bench_vs_native(rounds: int, duration_s: float, scripts: Path) -> dict[str, Any]:
    """Benchmark a: aqmlab in-process vs the native replay, alternating (ABBA order).

    The replay script is written to ``scripts/dumbbell.txt``."""
    scenario = dumbbell(100, 10, duration_s)
    script = write_script(scenario, scripts / "dumbbell.txt")
    runs: dict[str, list[dict[str, Any]]] = {"aqmlab": [], "native": []}
    for r in range(rounds):
        order = ("aqmlab", "native") if r % 2 == 0 else ("native", "aqmlab")
        for who in order:
            res = run_aqmlab(scenario) if who == "aqmlab" else run_native(script)
            runs[who].append(res)
            print(f"  round {r + 1} {who:6s}: Run {res['run_cpu_s']:6.2f} CPU-s, "
                  f"{res['events']:,.0f} events, {res['wall_s']:6.2f} s wall", flush=True)
    bad = [m for a in runs["aqmlab"] for n in runs["native"] for m in _mismatches(a, n)]
    med = {who: _median(v, "run_cpu_s") for who, v in runs.items()}
    low = {who: min(r["run_cpu_s"] for r in v) for who, v in runs.items()}
    return {
        "scenario": scenario.to_dict(),
        "runs": runs,
        "median_run_cpu_s": med,
        "median_wall_s": {who: _median(v, "wall_s") for who, v in runs.items()},
        "ratio_aqmlab_over_native": med["aqmlab"] / med["native"],
        "min_run_cpu_s": low,
        "ratio_of_minima": low["aqmlab"] / low["native"],
        "median_paired_ratio": statistics.median(
            x["run_cpu_s"] / y["run_cpu_s"] for x, y in zip(runs["aqmlab"], runs["native"],
                                                            strict=True)),
        "identical": not bad,
        "mismatches": sorted(set(bad)),
    }


def bench_scaling(rounds: int, duration_s: float, big_fanout: bool,
                  scripts: Path) -> dict[str, Any]:
    """Benchmark b: events per Run CPU-second vs flows and hosts.

    Every configuration runs ``rounds`` times through aqmlab in this process (order reversed
    every other round) and once natively, for the per-configuration peak RSS of the
    simulation alone and as a cross-check of events and checksums."""
    configs = [(100, 10), (1000, 10), (1000, 100)] + ([(1000, 1000)] if big_fanout else [])
    runs: dict[str, list[dict[str, Any]]] = {f"{f}f/{h}h": [] for f, h in configs}
    native: dict[str, dict[str, Any]] = {}
    for r in range(rounds):
        for flows, hosts in configs if r % 2 == 0 else configs[::-1]:
            key, scenario = f"{flows}f/{hosts}h", dumbbell(flows, hosts, duration_s)
            res = run_aqmlab(scenario)
            res["events_per_cpu_s"] = res["events"] / res["run_cpu_s"]
            runs[key].append(res)
            print(f"  round {r + 1} {flows:5d} flows {hosts:5d} hosts: "
                  f"{res['events_per_cpu_s'] / 1e3:6.1f} k events/CPU-s "
                  f"({res['events']:,.0f} events, Run {res['run_cpu_s']:.2f} CPU-s, "
                  f"setup {res['setup_wall_s']:.2f} s)", flush=True)
            if key not in native:
                script = write_script(scenario, scripts / f"scaling_{flows}f_{hosts}h.txt")
                nat = native[key] = run_native(script)
                nat["events_per_cpu_s"] = nat["events"] / nat["run_cpu_s"]
                print(f"          native: {nat['events_per_cpu_s'] / 1e3:6.1f} k events/CPU-s "
                      f"(Run {nat['run_cpu_s']:.2f} CPU-s, peak RSS "
                      f"{nat['peak_rss_mb']:.0f} MB)", flush=True)
    bad = sorted({f"{k} {m}" for k, v in runs.items() for x in v
                  for m in _mismatches(x, native[k])})
    rate = {k: _median(v, "events_per_cpu_s") for k, v in runs.items()}
    best = {k: max(r["events_per_cpu_s"] for r in v) for k, v in runs.items()}
    return {
        "duration_s": duration_s,
        "runs": runs,
        "native": native,
        "median_events_per_cpu_s": rate,
        "ratio_1000f_over_100f": rate["1000f/10h"] / rate["100f/10h"],
        "best_events_per_cpu_s": best,
        "ratio_1000f_over_100f_best": best["1000f/10h"] / best["100f/10h"],
        "median_paired_ratio_1000f_over_100f": statistics.median(
            x["events_per_cpu_s"] / y["events_per_cpu_s"]
            for x, y in zip(runs["1000f/10h"], runs["100f/10h"], strict=True)),
        "identical": not bad,
        "mismatches": bad,
    }


# ------------------------------------------------------------------------------- reporting

def machine() -> dict[str, Any]:
    """Host description for the report."""
    cpu = "unknown"
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        for line in cpuinfo.read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    gxx = subprocess.run(["g++", "--version"], capture_output=True, text=True).stdout
    from aqmlab.results.results import provenance

    return {**provenance(), "cpu": cpu, "cores": os.cpu_count(), "kernel": platform.release(),
            "gxx": gxx.splitlines()[0] if gxx else "none",
            "cling_args": os.environ.get("EXTRA_CLING_ARGS", "-O2 -march=native (default)")}


def print_table(a: dict[str, Any] | None, b: dict[str, Any] | None) -> None:
    """Summary table of the benchmarks that ran, on stdout."""
    if a is not None:
        _print_a(a)
    if b is not None:
        _print_b(b)


def _print_a(a: dict[str, Any]) -> None:
    ma, mw = a["median_run_cpu_s"], a["median_wall_s"]
    ev = a["runs"]["native"][0]["events"]
    print("\n| benchmark | aqmlab | native | ratio |\n|---|---|---|---|")
    print(f"| a. Run CPU-s, median of {len(a['runs']['native'])} "
          f"({ev:,.0f} events) | {ma['aqmlab']:.2f} | {ma['native']:.2f} | "
          f"**{a['ratio_aqmlab_over_native']:.3f}** (goal <= 1.05) |")
    lo = a["min_run_cpu_s"]
    print(f"| a. Run CPU-s, fastest run | {lo['aqmlab']:.2f} | {lo['native']:.2f} | "
          f"{a['ratio_of_minima']:.3f} |")
    print(f"| a. Run CPU-s, median of the per-round ratios | | | "
          f"{a['median_paired_ratio']:.3f} |")
    print(f"| a. wall s per run, median | {mw['aqmlab']:.2f} | {mw['native']:.2f} | "
          f"{mw['aqmlab'] / mw['native']:.3f} |")
    pk = a["runs"]["aqmlab"][-1]["peak_rss_mb"], a["runs"]["native"][-1]["peak_rss_mb"]
    print(f"| a. peak RSS MB during a run (aqmlab: whole process, ns-3 headers and JIT "
          f"included) | {pk[0]:.0f} | {pk[1]:.0f} | |")
    print(f"| a. events and checksums identical | "
          f"{'yes' if a['identical'] else 'NO: ' + '; '.join(a['mismatches'])} | | |")


def _print_b(b: dict[str, Any]) -> None:
    print("\n| flows / host pairs | events | aqmlab Run CPU-s (median) | aqmlab k events/CPU-s "
          "| native k events/CPU-s (1 run) | native peak RSS MB | aqmlab setup s |")
    print("|---|---|---|---|---|---|---|")
    for key, runs in b["runs"].items():
        nat = b["native"][key]
        print(f"| {key.replace('f/', ' / ').rstrip('h')} | {runs[0]['events']:,.0f} | "
              f"{_median(runs, 'run_cpu_s'):.2f} | "
              f"{b['median_events_per_cpu_s'][key] / 1e3:.1f} | "
              f"{nat['events_per_cpu_s'] / 1e3:.1f} | {nat['peak_rss_mb']:.0f} | "
              f"{_median(runs, 'setup_wall_s'):.2f} |")
    print(f"\nb. events/CPU-s, 1000 flows / 100 flows (10 host pairs): "
          f"**{b['ratio_1000f_over_100f']:.3f}** (goal >= 0.7; fastest runs: "
          f"{b['ratio_1000f_over_100f_best']:.3f}; median of per-round ratios: "
          f"{b['median_paired_ratio_1000f_over_100f']:.3f}); native and aqmlab events and "
          f"checksums identical: {'yes' if b['identical'] else 'NO: ' + '; '.join(b['mismatches'])}")


def main(argv: list[str] | None = None) -> int:
    """Parse arguments, run both benchmarks, print and save the results."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true",
                    help="shorter runs (20 s / 10 s simulated), no 1000-host run")
    ap.add_argument("--rounds", type=int, default=3, help="alternating rounds (default 3)")
    ap.add_argument("--only", choices=("a", "b"), help="run only benchmark a or b")
    ap.add_argument("--rebuild", action="store_true", help="recompile the native binary")
    ap.add_argument("--out", type=Path, default=RESULTS / "core.json")
    args = ap.parse_args(argv)
    out = args.out.resolve()
    # the native replayer links the wheel alone: compare like with like, ns-3's own socket
    # bookkeeping and object construction on both sides (bench_socket_tables.py and
    # bench_hosts.py measure those libraries)
    for switch in ("AQMLAB_SOCKET_TABLES", "AQMLAB_FAST_CONSTRUCT", "AQMLAB_TRACE_MEMO"):
        os.environ.setdefault(switch, "0")
    ensure_binary(args.rebuild)
    with tempfile.TemporaryDirectory(prefix="aqmlab_bench_") as workdir:
        os.chdir(workdir)  # ns-3 must never be imported with a large working directory
        try:
            report = _run(args.quick, args.rounds, args.only)
        finally:
            os.chdir(BENCH)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {out}")
    sections = [report["warmup"], report["vs_native"], report["scaling"]]
    return 0 if all(x is None or x["identical"] for x in sections) else 1


def _run(quick: bool, rounds: int, only: str | None) -> dict[str, Any]:
    """Warm up, run the selected benchmarks, print the table; return the report."""
    started = datetime.now(UTC)
    load0 = os.getloadavg()
    t0 = time.perf_counter()
    warm = warm_up(RESULTS)
    a = b = None
    rss: dict[str, float] = {"after_warmup": ru_maxrss_mb()}
    if only in (None, "a"):
        print(f"a. aqmlab vs native ({rounds} alternating rounds)", flush=True)
        a = bench_vs_native(rounds, 20.0 if quick else 100.0, RESULTS)
        rss["after_a"] = ru_maxrss_mb()
    if only in (None, "b"):
        print("b. scaling with flows and host pairs", flush=True)
        b = bench_scaling(rounds, 10.0 if quick else 20.0, not quick, RESULTS)
        rss["after_b"] = ru_maxrss_mb()
    report = {
        "benchmark": "core", "started": started.isoformat(timespec="seconds"),
        "quick": quick, "rounds": rounds, "only": only, "machine": machine(),
        "loadavg_start": load0, "loadavg_end": os.getloadavg(),
        "total_wall_s": time.perf_counter() - t0,
        "aqmlab_process_ru_maxrss_mb": rss,
        "warmup": warm, "vs_native": a, "scaling": b,
    }
    print_table(a, b)
    print("\nthis process (aqmlab side) peak RSS by getrusage: "
          + ", ".join(f"{v:.0f} MB {k.replace('_', ' ')}" for k, v in rss.items())
          + f"; load average {load0[0]:.1f} -> {os.getloadavg()[0]:.1f}; "
          f"total {report['total_wall_s']:.0f} s wall")
    return report


if __name__ == "__main__":
    sys.exit(main())
