"""TCP demultiplexing under overload: ARED+ECN (5 ms) two-way PackMime at 105 % of 10 Mb/s,
the run whose sockets pile up (tens of thousands per node at paper scale).

Runs the same scenario in this process three ways, alternating (A B C, then C B A, ...):
ns-3's linear endpoint scan for every segment (``off``); FastTcpDemux with connections
joining its table at their first segment, SYNs still scanned (``first-segment``, aqmlab
0.2.2); and connections joining at Connect/CompleteFork with SYNs handed to the port's
listener (``listener``, the default). Prints Run CPU seconds per mode, the ratios of the
medians, and exits 1 if the three did not simulate the same run (events, request table).

    .venv/bin/python bench/bench_demux.py [--duration 600] [--rounds 2]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MODES = {"off": (False, False), "first-segment": (True, False), "listener": (True, True)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--duration", type=float, default=600.0, help="simulated seconds")
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args()
    os.chdir(tempfile.mkdtemp(prefix="aqmlab-bench-demux-"))
    from aqmlab.engines.ns3 import native
    from aqmlab.scenario import Scenario
    from aqmlab.workers.worker import simulate as simulate_results

    sc = Scenario.load(ROOT / "examples" / "weigle_ecn_ared_105.toml").replace(
        **{"run.duration": f"{args.duration:g}s", "run.warmup": "60s",
           "run.stop_after_responses": None, "run.sample_interval": None})
    cpp = native.load()
    simulate_results(sc.replace(**{"run.duration": "2s", "run.warmup": "0s"}))  # JIT warm-up
    cpu: dict[str, list[float]] = {m: [] for m in MODES}
    seen: dict[str, tuple] = {}
    order = list(MODES)
    for r in range(args.rounds):
        for mode in order if r % 2 == 0 else order[::-1]:
            demux, listen = MODES[mode]
            cpp.SetFastDemux(demux)
            cpp.SetFastListen(listen)
            try:
                res = simulate_results(sc)
            finally:
                cpp.SetFastDemux(True)
                cpp.SetFastListen(True)
            m = res.meta
            open_sockets = sum(v for k, v in m.items() if k.startswith("sockets_"))
            cpu[mode].append(m["run_cpu_s"])
            seen[mode] = (m["events"], int(res.requests.completed.sum()), len(res.requests))
            print(f"round {r + 1} {mode:14s} Run {m['run_cpu_s']:7.1f} CPU-s  "
                  f"{m['events']:,.0f} events  {open_sockets:,.0f} sockets open at the end",
                  flush=True)
    med = {k: statistics.median(v) for k, v in cpu.items()}
    print("median Run CPU-s: " + ", ".join(f"{k} {v:.1f}" for k, v in med.items()))
    print(f"speed-up of listener over first-segment: {med['first-segment'] / med['listener']:.2f}x"
          f"; over off: {med['off'] / med['listener']:.2f}x")
    same = len(set(seen.values())) == 1
    print(f"identical runs (events, completed, requests): {'yes' if same else 'NO'} {seen}")
    out = ROOT / "bench" / "results" / "demux.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"duration": args.duration, "cpu": cpu, "median": med,
                               "identical": same}, indent=1))
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
