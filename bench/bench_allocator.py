"""The simulation processes' allocator: glibc's malloc vs mimalloc (what workers preload,
``aqmlab/run/allocator.py``), and jemalloc / tcmalloc when the system has them, on
Christiansen's browsing users (98 %, tail-drop 120), two-way PackMime (Reno over drop-tail
at 80 %; ARED+ECN at 105 %) and Qiu's 100 bulk flows.

Each run is a child process (``aqmlab run --in-process`` with ``LD_PRELOAD``), the
allocators in a rotating order per round. Prints Run CPU seconds and peak RSS per run, the
median ratio to glibc, and exits 1 if any allocator did not simulate the same run (events
and every row of the request and flow tables).

    .venv/bin/python bench/bench_allocator.py [--duration 300] [--rounds 2] [--only mah]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

import pandas as pd
from child_runs import case_toml, run_child

#: name -> (label, example, changes)
CASES = {
    "mah": ("Mah users 98 %", "christiansen_taildrop_90.toml", {"traffic[0].users": 2652}),
    "droptail": ("PackMime DT 80 %", "weigle_droptail_80.toml", {"run.stop_after_responses": None}),
    "ared": ("PackMime ARED 105 %", "weigle_ecn_ared_105.toml", {"run.stop_after_responses": None}),
    "bulk": ("Qiu 100 bulk flows", "qiu_t1_dumbbell.toml", {}),
}
#: Other allocators tried when installed (Debian: libjemalloc2, libtcmalloc-minimal4).
OTHERS = {"jemalloc": "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2",
          "tcmalloc": "/usr/lib/x86_64-linux-gnu/libtcmalloc_minimal.so.4"}


def allocators() -> dict[str, str]:
    from aqmlab.workers import allocator

    found = {"glibc": ""}
    mi = allocator.library("mimalloc")
    if mi is not None:
        found["mimalloc"] = str(mi)
    found.update({k: v for k, v in OTHERS.items() if Path(v).is_file()})
    return found


def run(toml: Path, out: Path, preload: str) -> tuple[float, float, int, pd.DataFrame]:
    s, meta = run_child(toml, out, {"LD_PRELOAD": preload})
    tables = pd.concat([pd.read_parquet(out / f"{t}.parquet").assign(table=t)
                        for t in ("requests", "flows")], ignore_index=True)
    return float(s.run_cpu_s), float(meta["peak_rss_mb"]), int(s.events), tables


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--duration", type=float, default=300.0, help="simulated seconds")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--only", action="append", choices=list(CASES),
                    help="run only this case (repeatable)")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="aqmlab-bench-alloc-"))
    libs = allocators()
    names = list(libs)
    same = True
    for case, (label, example, changes) in CASES.items():
        if args.only and case not in args.only:
            continue
        toml = case_toml(example, changes, args.duration, work)
        cpu: dict[str, list[float]] = {n: [] for n in names}
        rss: dict[str, float] = {}
        seen: dict[str, tuple[int, pd.DataFrame]] = {}
        for r in range(args.rounds):
            for name in names[r % len(names):] + names[:r % len(names)]:
                out = work / f"{toml.stem}-{r}-{name}"
                t, peak, events, tables = run(toml, out, libs[name])
                cpu[name].append(t)
                rss[name] = max(rss.get(name, 0.0), peak)
                seen[name] = (events, tables)
                print(f"{label:20s} round {r + 1} {name:9s} Run {t:7.1f} CPU-s  peak RSS "
                      f"{peak:6.0f} MB  events {events:,}", flush=True)
        base = statistics.median(cpu["glibc"])
        for name in names:
            med = statistics.median(cpu[name])
            ok = seen[name][0] == seen["glibc"][0] and seen[name][1].equals(seen["glibc"][1])
            same = same and ok
            print(f"{label:20s} {name:9s} median {med:7.1f} CPU-s  {base / med:4.2f}x glibc  "
                  f"peak RSS {rss[name]:6.0f} MB  same run: {'yes' if ok else 'NO'}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
