"""What the bottleneck's queue discipline costs: Run CPU per event and per simulated second
for the same traffic through a FIFO (tail-drop) queue and through RED, ARED, CoDel, FQ-CoDel
and PIE. Calibrates the cost model (``aqmlab/campaign/cost.py``), which otherwise counts only
the traffic offered.

Traffic: Christiansen's browsing users at ``--load`` of 10 Mb/s (default 98 %), the thesis'
network, mimalloc preloaded as in the workers. Each run is a child process (``aqmlab run
--in-process``); the queues rotate order per round. Prints, per queue, the median Run CPU,
events, CPU per event and the median per-round ratio to tail-drop (of CPU, and of CPU per
event: the second one is the queue's own cost, the first also counts the traffic it lets
through).

    .venv/bin/python bench/bench_queues.py [--duration 300] [--rounds 2] [--load 0.98]
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
from pathlib import Path
from typing import Any

from child_runs import case_toml, run_child

RED = {"kind": "red", "max_p": 0.1, "w_q": 1 / 512, "gentle": False, "wait": False,
       "mean_pkt_size": 1000, "limit": "480p"}
#: name -> the forward queue (what the studies use: Christiansen's tail-drop and RED, the
#: modern AQMs of beyond_the_papers)
QUEUES: dict[str, dict[str, Any]] = {
    "droptail-60": {"kind": "droptail", "limit": "60p"},
    "droptail-480": {"kind": "droptail", "limit": "480p"},
    "red-5-15": {**RED, "min_th": 5, "max_th": 15},
    "red-60-180": {**RED, "min_th": 60, "max_th": 180},
    "ared": {"kind": "ared", "limit": "480p"},
    "codel": {"kind": "codel", "limit": "480p"},
    "fq_codel": {"kind": "fq_codel", "limit": "480p"},
    "pie": {"kind": "pie", "limit": "480p"},
}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--duration", type=float, default=300.0, help="simulated seconds")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--load", type=float, default=0.98, help="offered load, fraction of 10 Mb/s")
    ap.add_argument("--only", action="append", choices=list(QUEUES),
                    help="run only this queue (repeatable; droptail-60 always runs)")
    args = ap.parse_args()
    from aqmlab.studies.setups.christiansen import users_for
    from aqmlab.workers import allocator

    names = ["droptail-60", *[q for q in (args.only or QUEUES) if q != "droptail-60"]]
    mi = allocator.library("mimalloc")
    env = {"LD_PRELOAD": str(mi)} if mi is not None else {}
    users = users_for(args.load)
    rows: dict[str, list[tuple[float, int]]] = {q: [] for q in names}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for r in range(args.rounds):
            order = names[r % len(names):] + names[:r % len(names)]
            for q in order:
                d = work / f"{q}-{r}"
                d.mkdir()
                toml = case_toml("christiansen_taildrop_90.toml",
                                 {"traffic[0].users": users, "topology.forward_queue": QUEUES[q]},
                                 args.duration, d)
                s, _ = run_child(toml, d / "out", env)
                rows[q].append((float(s.run_cpu_s), int(s.events)))
                print(f"round {r + 1} {q:13s} cpu {s.run_cpu_s:7.1f} s  events "
                      f"{s.events / 1e6:6.1f} M", flush=True)
    base = rows["droptail-60"]
    print(f"\n{users} users ({args.load:.0%} of 10 Mb/s), {args.duration:g} s simulated, "
          f"{args.rounds} rounds, {'mimalloc' if env else 'glibc'}")
    print(f"{'queue':13s} {'cpu s':>7s} {'events M':>9s} {'us/event':>9s} "
          f"{'cpu/td':>7s} {'us-per-event/td':>16s}")
    result = {}
    for q in names:
        cpu = statistics.median(c for c, _ in rows[q])
        ev = statistics.median(e for _, e in rows[q])
        ratio = statistics.median(c / b for (c, _), (b, _) in zip(rows[q], base, strict=True))
        per = statistics.median((c / e) / (b / f)
                                for (c, e), (b, f) in zip(rows[q], base, strict=True))
        result[q] = {"cpu_s": cpu, "events": ev, "cpu_ratio": ratio, "per_event_ratio": per}
        print(f"{q:13s} {cpu:7.1f} {ev / 1e6:9.1f} {cpu / ev * 1e6:9.2f} {ratio:7.2f} {per:16.2f}")
    out = Path(__file__).parent / "results"
    out.mkdir(exist_ok=True)
    (out / "queues.json").write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
