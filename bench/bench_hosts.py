"""Router fan-out: events per CPU-second of 1000 flows on 10, 100 and 1000 host pairs, with
and without the speed-ups of issue 31, side by side in one run.

Run: ``.venv/bin/python bench/bench_hosts.py [--duration 20] [--rounds 2] [--flows 1000]``

The dumbbell of ``bench_core.py`` (RED bottleneck 10 Mb/s, 100 Mb/s access links, NewReno,
MSS 1000) with ``--flows`` bulk flows spread over 10, 100 and 1000 sender/receiver pairs,
so that each router has 11, 101 and 1001 interfaces. Every configuration runs in child
processes (``aqmlab run --in-process``, mimalloc preloaded as in the workers) on two
paths, alternating: *old*, with the switches of ``SPEEDUPS`` at ``0`` (ns-3's scans, as
before issue 31; the socket tables stay on, as before it), and *new* (defaults). Printed:
events, median ``Simulator::Run`` CPU seconds and events per CPU-second of each path, the
speed-up, and each path's rate relative to its own 10-host-pair rate (issue 31's goal:
>= 0.5 for 1000 host pairs). Both paths must simulate the same run (events and every
table, as ``check_identical.py`` compares them); exit status 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
RESULTS = BENCH / "results"
sys.path.insert(0, str(BENCH))
from bench_core import dumbbell  # noqa: E402  (bench/ is not a package)
from check_identical import differences, run_child  # noqa: E402

#: The speed-ups of issue 31 (the old path sets each to 0).
SPEEDUPS = ("AQMLAB_FAST_ROUTING", "AQMLAB_ROUTE_INDEX", "AQMLAB_DIRECT_RX", "AQMLAB_FAST_ATTRIBUTES",
            "AQMLAB_RAW_HEADERS", "AQMLAB_FAST_CONSTRUCT", "AQMLAB_TRACE_MEMO",
            "AQMLAB_SPF_INDEX", "AQMLAB_FILL_ONCE", "AQMLAB_FAST_OPTIONS",
            "AQMLAB_TX_TIME_MEMO", "AQMLAB_FORK_INDEX", "AQMLAB_EVENT_HEAP")
HOSTS = (10, 100, 1000)


def bench(flows: int, duration: float, rounds: int, work: Path) -> dict[str, Any]:
    """Every configuration on both paths, ``rounds`` times, alternating."""
    old_env = dict.fromkeys(SPEEDUPS, "0")
    tomls = {}
    for hosts in HOSTS:
        sc = dumbbell(flows, hosts, duration).replace(
            **{"run.warmup": f"{duration / 4:g}s", "run.sample_interval": 1.0})
        tomls[hosts] = work / f"hosts{hosts}.toml"
        sc.save(tomls[hosts])
    runs: dict[int, dict[str, list[dict[str, Any]]]] = {h: {"old": [], "new": []} for h in HOSTS}
    bad: list[str] = []
    for r in range(rounds):
        for hosts in HOSTS if r % 2 == 0 else HOSTS[::-1]:
            dirs = {}
            for path in ("old", "new") if r % 2 == 0 else ("new", "old"):
                dirs[path] = work / f"h{hosts}-{path}-{r}"
                meta = run_child(tomls[hosts], dirs[path], old_env if path == "old" else {})
                rate = meta["events"] / meta["run_cpu_s"]
                runs[hosts][path].append({"events": meta["events"],
                                          "run_cpu_s": meta["run_cpu_s"], "rate": rate})
                print(f"  round {r + 1} {flows} flows {hosts:5d} host pairs {path}: "
                      f"{rate / 1e3:7.1f} k events/CPU-s ({meta['events']:,.0f} events, "
                      f"Run {meta['run_cpu_s']:.2f} CPU-s)", flush=True)
            bad += [f"{hosts} host pairs: {d}" for d in differences(dirs["old"], dirs["new"])]
    med = {h: {p: statistics.median(x["rate"] for x in v[p]) for p in v}
           for h, v in runs.items()}
    return {"flows": flows, "duration_s": duration, "rounds": rounds, "runs": runs,
            "median_events_per_cpu_s": med,
            "relative_to_10_hosts": {h: {p: med[h][p] / med[10][p] for p in med[h]}
                                     for h in HOSTS},
            "identical": not bad, "differences": bad}


def print_table(b: dict[str, Any]) -> None:
    med, rel = b["median_events_per_cpu_s"], b["relative_to_10_hosts"]
    print(f"\n| flows / host pairs | events | Run CPU-s old | Run CPU-s new | k events/CPU-s old "
          f"| k events/CPU-s new | speed-up | old / 10 pairs | new / 10 pairs |\n{'|---' * 9}|")
    for h in HOSTS:
        runs = b["runs"][h]
        cpu = {p: statistics.median(x["run_cpu_s"] for x in runs[p]) for p in runs}
        print(f"| {b['flows']} / {h} | {runs['new'][0]['events']:,.0f} | {cpu['old']:.2f} | "
              f"{cpu['new']:.2f} | {med[h]['old'] / 1e3:.1f} | {med[h]['new'] / 1e3:.1f} | "
              f"{med[h]['new'] / med[h]['old']:.2f}x | {rel[h]['old']:.3f} | "
              f"**{rel[h]['new']:.3f}** |")
    print(f"\nold and new simulated the same runs: "
          f"{'yes' if b['identical'] else 'NO: ' + '; '.join(b['differences'][:5])}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--flows", type=int, default=1000)
    ap.add_argument("--duration", type=float, default=20.0, help="simulated seconds (20)")
    ap.add_argument("--rounds", type=int, default=2, help="alternating rounds (2)")
    ap.add_argument("--out", type=Path, default=RESULTS / "hosts.json")
    args = ap.parse_args(argv)
    started, load0, t0 = datetime.now(UTC), os.getloadavg(), time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="aqmlab_hosts_") as tmp:
        b = bench(args.flows, args.duration, args.rounds, Path(tmp))
    b.update({"started": started.isoformat(timespec="seconds"), "loadavg_start": load0,
              "loadavg_end": os.getloadavg(), "total_wall_s": time.perf_counter() - t0})
    print_table(b)
    print(f"load average {load0[0]:.1f} -> {os.getloadavg()[0]:.1f}; "
          f"total {b['total_wall_s']:.0f} s wall")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(b, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")
    return 0 if b["identical"] else 1


if __name__ == "__main__":
    sys.exit(main())
