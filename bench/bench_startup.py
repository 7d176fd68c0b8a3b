"""A process's first run: aqmlab's C++ layer JIT-compiled by Cling vs loaded from the
g++-compiled library (``aqmlab/engines/ns3/precompiled.py``).

Each run is a fresh child process (``aqmlab run --in-process``), alternating with and
without the library (``AQMLAB_PRECOMPILED``): the child's whole wall time, its build wall
time (the first run's code generation falls there) and its Run CPU seconds. Prints the
medians and their ratios; exits 1 if the two did not simulate the same run (every table).

    .venv/bin/python bench/bench_startup.py [--rounds 2] [--duration 10] [--only qiu]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd
from child_runs import alternating, case_toml, run_child

#: name -> (label, example, changes)
CASES = {
    "web": ("two-way web, drop-tail 80 %", "weigle_droptail_80.toml",
            {"run.stop_after_responses": None}),
    "parking": ("parking lot, 3 hops", "parking_lot.toml", {}),
    "qiu": ("Qiu's T1, 10 flows", "qiu_t1_dumbbell.toml",
            {"traffic[0].flows": 10, "topology.senders": 10}),
}
TABLES = ("summary", "flows", "queues", "links", "requests")


def tables(out: Path) -> dict[str, pd.DataFrame]:
    found = {}
    for name in TABLES:
        path = out / f"{name}.parquet"
        if path.exists():
            df = pd.read_parquet(path)
            found[name] = df.drop(columns=[c for c in ("run_cpu_s", "wall_s") if c in df])
    return found


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--duration", type=float, default=10.0, help="simulated seconds")
    ap.add_argument("--only", action="append", choices=list(CASES),
                    help="run only this case (repeatable)")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="aqmlab-bench-startup-"))
    same = True
    for name, (label, example, changes) in CASES.items():
        if args.only and name not in args.only:
            continue
        toml = case_toml(example, {**changes, "run.warmup": "2s"}, args.duration, work)
        got: dict[bool, list[tuple[float, float, float]]] = {True: [], False: []}
        first: dict[bool, dict[str, pd.DataFrame]] = {}
        for r, lib in alternating(args.rounds):
            out = work / f"{name}-{int(lib)}-{r}"
            t0 = time.monotonic()
            s, meta = run_child(toml, out, {"AQMLAB_PRECOMPILED": "1" if lib else "0"})
            wall = time.monotonic() - t0
            got[lib].append((wall, float(meta["build_wall_s"]), float(s.run_cpu_s)))
            first.setdefault(lib, tables(out))
        for t in TABLES:
            a, b = first[True].get(t), first[False].get(t)
            if (a is None) != (b is None) or (a is not None and not a.equals(b)):
                print(f"  {name}: table {t} differs with and without the library")
                same = False
        med = {lib: [statistics.median(x[i] for x in got[lib]) for i in range(3)]
               for lib in got}
        print(f"{label} ({args.duration:g} s simulated, {args.rounds} rounds)")
        for i, what in enumerate(("process wall s", "build wall s", "Run CPU s")):
            jit, pre = med[False][i], med[True][i]
            print(f"  {what:15s} Cling JIT {jit:7.2f}  library {pre:7.2f}  "
                  f"ratio {pre / jit:5.2f}")
    print("same tables: yes" if same else "same tables: NO")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
