"""Web-traffic benchmark: PackMime (Weigle et al. setting) at 80 % and 105 % of 10 Mb/s.

Prints simulated seconds per CPU-second, connections per CPU-second, events per CPU-second
and the worker's peak memory for runs of each ``--durations`` (default 150 and 600 simulated
seconds), and the scaling check: CPU per simulated second of the longest run over the
shortest (1.0 = linear in time; the two-way runs were superlinear before the RFC 793
closing fix in tcp_socket.h). ``--full`` runs the paper's scale instead: 120 s warm-up, then
250,000 completed responses.

    .venv/bin/python bench/bench_web.py [--durations 150,600] [--full]
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ("weigle_droptail_80", "weigle_droptail_105")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--durations", default="150,600", help="simulated seconds, comma-separated")
    ap.add_argument("--full", action="store_true", help="paper scale (250,000 responses)")
    args = ap.parse_args()
    os.chdir(tempfile.mkdtemp(prefix="aqmlab-bench-web-"))
    from aqmlab.scenario import Scenario
    from aqmlab.workers import Runner

    rows = []
    durations = [None] if args.full else [float(d) for d in args.durations.split(",")]
    for name, duration in ((n, d) for n in EXAMPLES for d in durations):
        sc = Scenario.load(ROOT / "examples" / f"{name}.toml")
        if duration is not None:
            sc = sc.replace(**{"run.duration": f"{duration:g}s",
                               "run.warmup": f"{min(120.0, duration / 5):g}s",
                               "run.stop_after_responses": None})
        runner = Runner(workers=1, start="spawn")  # a fresh process per run: its own peak memory
        t0 = time.perf_counter()
        try:
            res = runner.run(sc)
        finally:
            runner.close()
        wall = time.perf_counter() - t0
        m, s = res.meta, res.summary.iloc[0]
        conns = len(res.requests)
        rows.append({
            "scenario": name, "sim_s": m["end_s"], "run_cpu_s": m["run_cpu_s"],
            "wall_s": wall, "events": m["events"], "connections": conns,
            "responses_completed": int(res.requests.completed.sum()),
            "sim_s_per_cpu_s": m["end_s"] / m["run_cpu_s"],
            "connections_per_cpu_s": conns / m["run_cpu_s"],
            "events_per_cpu_s": m["events"] / m["run_cpu_s"],
            "peak_rss_mb": m.get("peak_rss_mb", 0.0),
            "utilisation": float(s.utilisation), "loss_rate": float(s.loss_rate),
            "open_sockets_end": int(s.open_sockets),
            "incomplete": int((~res.requests.completed).sum()),
        })
        r = rows[-1]
        print(f"{name:22s} {r['sim_s']:7.0f} sim-s  {r['run_cpu_s']:8.1f} CPU-s  "
              f"{r['sim_s_per_cpu_s']:6.2f} sim-s/CPU-s  {r['connections_per_cpu_s']:7.0f} "
              f"conn/CPU-s  {r['events_per_cpu_s'] / 1e3:6.0f} k ev/CPU-s  "
              f"peak {r['peak_rss_mb']:6.0f} MiB  util {r['utilisation']:.3f}  "
              f"incomplete {r['incomplete']}  open sockets {r['open_sockets_end']}", flush=True)
    if len(durations) > 1:
        for name in EXAMPLES:
            mine = sorted((r for r in rows if r["scenario"] == name), key=lambda r: r["sim_s"])
            short, long = mine[0], mine[-1]
            ratio = (long["run_cpu_s"] / long["sim_s"]) / (short["run_cpu_s"] / short["sim_s"])
            print(f"{name:22s} CPU per sim-s, {long['sim_s']:.0f} s vs {short['sim_s']:.0f} s: "
                  f"{ratio:.2f} (1.0 = linear)")
    out = ROOT / "bench" / "results" / ("web_full.json" if args.full else "web.json")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"full": args.full, "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
