"""Weigle et al.'s two-way web set-up on both engines, replayed connections: the distance
table of issue 30 per configuration (queue x load), each engine's seed-to-seed KS as the
noise floor (``aqmlab.studies.distances``).

    .venv/bin/python bench/web_distances.py --duration 330 --warmup 30 --out web_distances.csv
    .venv/bin/python bench/web_distances.py --queues dt148 --loads 0.8 --set tcp.nagle=false

Queues: ``dt148`` (Reno, drop-tail 148 packets), ``ared5`` (Reno, ARED 5 ms), ``aredecn5``
(SACK + ECN, ARED 5 ms with ns-2.35's ``mark_p`` rule, the one both engines run). Each
configuration runs seeds 1 and 2 on both engines, one simulation at a time. Run it from a
small working directory (the ns-3 loader scans the cwd).
"""

from __future__ import annotations

import argparse
import sys
import tomllib
from pathlib import Path

import pandas as pd

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
_ARED = {"kind": "ared", "limit": "370p", "target_delay": "5ms", "mean_pkt_size": 1250}
QUEUES = {
    "dt148": ("weigle_droptail_80", {}),
    "ared5": ("weigle_droptail_80", {"topology.forward_queue": _ARED,
                                     "topology.reverse_queue": _ARED}),
    "aredecn5": ("weigle_ecn_ared_80", {"topology.forward_queue.ecn_above_max_th": "mark_p",
                                        "topology.reverse_queue.ecn_above_max_th": "mark_p"}),
}


def value(text: str):
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text


def scenario(queue: str, load: float, seed: int, duration: float, warmup: float,
             extra: dict):
    from aqmlab.scenario import Scenario

    example, over = QUEUES[queue]
    return Scenario.load(EXAMPLES / f"{example}.toml").replace(**{
        "run.duration": f"{duration:g}s", "run.warmup": f"{warmup:g}s",
        "run.stop_after_responses": None, "run.seed": seed,
        "traffic[0].load": load, "traffic[1].load": load, **over, **extra})


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--queues", default="dt148,ared5,aredecn5")
    ap.add_argument("--loads", default="0.5,0.8,1.05")
    ap.add_argument("--duration", type=float, default=330.0)
    ap.add_argument("--warmup", type=float, default=30.0)
    ap.add_argument("--set", action="append", default=[], metavar="PATH=VALUE")
    ap.add_argument("--out", help="write the table as CSV")
    args = ap.parse_args()
    import aqmlab
    from aqmlab.studies.distances import distance, run_metrics, within

    extra = {k: value(v) for k, v in (s.split("=", 1) for s in args.set)}
    rows = []
    for queue in args.queues.split(","):
        for load in map(float, args.loads.split(",")):
            res = {}
            for seed in (1, 2):
                sc = scenario(queue, load, seed, args.duration, args.warmup, extra)
                for engine in ("ns3", "ns2"):
                    res[seed, engine] = aqmlab.run(sc.replace(**{"run.engine": engine}))
            floor = {e: distance(res[1, e], res[2, e])["ks"] for e in ("ns3", "ns2")}
            for seed in (1, 2):
                d = distance(res[seed, "ns3"], res[seed, "ns2"])
                ok = within(d, max(floor.values()))
                m3, m2 = run_metrics(res[seed, "ns3"]), run_metrics(res[seed, "ns2"])
                rows.append({"queue": queue, "load": load, "seed": seed, "ks": d["ks"],
                             "ks_floor_ns3": floor["ns3"], "ks_floor_ns2": floor["ns2"],
                             **{f"{k}_ns3": m3[k] for k in ("loss", "utilisation", "queue",
                                                             "timeouts")},
                             **{f"{k}_ns2": m2[k] for k in ("loss", "utilisation", "queue",
                                                             "timeouts")},
                             **{k: v for k, v in d.items() if k.endswith("_rel")},
                             "within": all(v is not False for v in ok.values())})
            print(pd.DataFrame(rows[-2:]).to_string(index=False), flush=True)
    table = pd.DataFrame(rows)
    if args.out:
        table.to_csv(args.out, index=False)
    with pd.option_context("display.width", 200, "display.float_format", "{:.4g}".format):
        print(table.to_string(index=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
