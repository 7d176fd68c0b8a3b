"""Socket bookkeeping: ns-3's scans vs aqmlab's O(1) socket tables
(``aqmlab/engines/ns3/cpp/socket_tables.cc``), on two-way PackMime at 10 Mb/s, overloaded (Reno over
ARED+ECN 5 ms at 105 %, where open sockets pile up) and not (Reno over drop-tail at 80 %),
and on Christiansen's browsing users at 110 % (tail-drop 120 packets).

The tables are chosen per process (``AQMLAB_SOCKET_TABLES``), so each run is a child
process (``aqmlab run --in-process``), alternating on/off then off/on. Prints Run CPU
seconds per run, the ratio of the medians, and exits 1 if the two did not simulate the same
run (events and every row of the request table).

    .venv/bin/python bench/bench_socket_tables.py [--duration 600] [--rounds 2] [--only mah]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

import pandas as pd
from child_runs import alternating, case_toml, run_child

#: name -> (label, example, changes)
CASES = {
    "ared": ("ARED+ECN 105 %", "weigle_ecn_ared_105.toml", {"run.stop_after_responses": None}),
    "droptail": ("drop-tail 80 %", "weigle_droptail_80.toml", {"run.stop_after_responses": None}),
    "mah": ("Mah users 110 %", "christiansen_taildrop_90.toml", {"traffic[0].users": 2973}),
}


def run(toml: Path, out: Path, tables: bool) -> tuple[float, int, pd.DataFrame]:
    s, _ = run_child(toml, out, {"AQMLAB_SOCKET_TABLES": "1" if tables else "0"})
    return float(s.run_cpu_s), int(s.events), pd.read_parquet(out / "requests.parquet")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--duration", type=float, default=600.0, help="simulated seconds")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--only", action="append", choices=list(CASES),
                    help="run only this case (repeatable)")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="aqmlab-bench-sockets-"))
    same = True
    for name, (label, example, changes) in CASES.items():
        if args.only and name not in args.only:
            continue
        toml = case_toml(example, changes, args.duration, work)
        cpu: dict[bool, list[float]] = {True: [], False: []}
        seen: dict[bool, tuple[int, pd.DataFrame]] = {}
        for r, tables in alternating(args.rounds):
            out = work / f"{toml.stem}-{r}-{int(tables)}"
            t, events, requests = run(toml, out, tables)
            cpu[tables].append(t)
            seen[tables] = (events, requests)
            print(f"{label:16s} round {r + 1} tables {'on ' if tables else 'off'} "
                  f"Run {t:7.1f} CPU-s  events {events:,}  requests {len(requests):,}",
                  flush=True)
        on, off = (statistics.median(cpu[k]) for k in (True, False))
        print(f"{label:16s} median Run CPU: ns-3's scans {off:.1f} s, socket tables {on:.1f} s"
              f" -> {off / on:.2f}x faster")
        ok = seen[True][0] == seen[False][0] and seen[True][1].equals(seen[False][1])
        same = same and ok
        print(f"{label:16s} same run both ways: {'yes' if ok else 'NO'}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
