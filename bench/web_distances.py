"""Weigle et al.'s two-way web set-up on both engines, replayed connections: the distance
table of issue 30 per configuration (queue x load), each engine's seed-to-seed KS as the
noise floor (``aqmlab.studies.distances``).

    .venv/bin/python bench/web_distances.py --duration 330 --warmup 30 --out web_distances.csv
    .venv/bin/python bench/web_distances.py --queues dt148 --loads 0.8 --set tcp.nagle=false
    .venv/bin/python bench/web_distances.py --queues dt148 --loads 0.8 --seeds 1,2,3,4,5,6

Queues: ``dt148`` (Reno, drop-tail 148 packets), ``ared5`` (Reno, ARED 5 ms), ``aredecn5``
(SACK + ECN, ARED 5 ms with ns-2.35's ``mark_p`` rule, the one both engines run). Each
configuration runs ``--seeds`` (default 1 and 2; the noise floor is the first two's KS) on
both engines, one simulation at a time, and reports each engine's drops at both bottleneck
queues (``drops_fwd``/``drops_rev``: drop-tail counts move by up to 10 % per queue under
perturbations as small as 2 header bytes, so compare them over several seeds). After each
configuration's per-seed-pair rows it prints the distance of the engines' means over the
seeds, each measure as ``distance +- standard error``
(:func:`aqmlab.studies.distances.distance_of_means`; no standard error with one seed): a
gap larger than a few standard errors is more than the engines' seed noise. ``--out``
writes the per-seed table as CSV, ``--means-out`` the means table (``<distance>`` and
``<distance>_se`` columns). Run it from a small working directory (the ns-3 loader scans
the cwd).

Measured 2026-11-25 (drop-tail 148, 330 s, warm-up 30 s; ns-2's web headers 42 B, as ns-3's
frames): at 80 % over seeds 1-10 ns-3 drops 5.3 +- 1.9 % (mean +- s.e.) more than ns-2.35
at the forward queue and 3.2 +- 1.8 % fewer at the reverse one, 0.8 +- 1.3 % more at both
together; single seeds range from -3 % to +14 % (forward). That spread is each engine's
own: ns-2.35's counts moved by -11 % to +16 % per queue when its web headers grew by 2 B,
and ns-3's by up to 10 % (32 % in 60 s) when the two PackMime groups swap sides of the
dumbbell, which changes nothing but each connection's RTO clock phase (ns-2's boot_time_,
which ns-3 hashes from addresses and ports; ns-2.35 gives the mirrored counts exactly, and
so does ns-3 with ``tcp.rto_clock = "exact"``). The engines cannot share those phases.
Counting each seed's mirrored ns-3 run too (20 phase draws per queue), ns-3 drops
2.3 +- 1.9 % more at the forward queue and 0.2 +- 1.6 % fewer at the reverse one (s.d. 8.7 %
and 7.2 % per run; ns-3's own mirror change: s.d. 7.4 %, up to 17 %): the 80 % excess is
that noise. With the quick profile's 180-s window the forward gap reads +9 % and +27 %
(seeds 1, 2) with 40-byte ns-2 headers and +15 % and +41 % with 42.
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


def drops(res, probe: int) -> int:
    """Drops at probed queue ``probe`` (0: forward bottleneck, 1: reverse) after the warm-up."""
    return int(res.queues.drops.iloc[probe])


def with_se(means: pd.DataFrame) -> pd.DataFrame:
    """The means table for reading: each distance and its standard error as one
    ``"value +- se"`` column; measures that are NaN throughout (Jain's index of web-only
    runs) left out."""
    from aqmlab.studies.distances import METRICS

    out = means[["queue", "load", "seeds"]].copy()
    for name in METRICS.values():
        if means[name].notna().any():
            out[name] = [f"{v:.3g} +- {e:.2g}" if e == e else f"{v:.3g}"
                         for v, e in zip(means[name], means[f"{name}_se"], strict=True)]
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--queues", default="dt148,ared5,aredecn5")
    ap.add_argument("--loads", default="0.5,0.8,1.05")
    ap.add_argument("--duration", type=float, default=330.0)
    ap.add_argument("--warmup", type=float, default=30.0)
    ap.add_argument("--seeds", default="1,2", help="at least two, comma-separated")
    ap.add_argument("--set", action="append", default=[], metavar="PATH=VALUE")
    ap.add_argument("--out", help="write the per-seed table as CSV")
    ap.add_argument("--means-out", help="write the distances of the means as CSV")
    args = ap.parse_args()
    import aqmlab
    from aqmlab.studies.distances import distance, distance_of_means, run_metrics, within

    extra = {k: value(v) for k, v in (s.split("=", 1) for s in args.set)}
    seeds = [int(s) for s in args.seeds.split(",")]
    rows, means = [], []
    for queue in args.queues.split(","):
        for load in map(float, args.loads.split(",")):
            res = {}
            for seed in seeds:
                sc = scenario(queue, load, seed, args.duration, args.warmup, extra)
                for engine in ("ns3", "ns2"):
                    res[seed, engine] = aqmlab.run(sc.replace(**{"run.engine": engine}))
            floor = {e: distance(res[seeds[0], e], res[seeds[1], e])["ks"]
                     for e in ("ns3", "ns2")}
            for seed in seeds:
                d = distance(res[seed, "ns3"], res[seed, "ns2"])
                ok = within(d, max(floor.values()))
                m3, m2 = run_metrics(res[seed, "ns3"]), run_metrics(res[seed, "ns2"])
                rows.append({"queue": queue, "load": load, "seed": seed, "ks": d["ks"],
                             "ks_floor_ns3": floor["ns3"], "ks_floor_ns2": floor["ns2"],
                             **{f"{k}_ns3": m3[k] for k in ("loss", "utilisation", "queue",
                                                             "timeouts")},
                             **{f"{k}_ns2": m2[k] for k in ("loss", "utilisation", "queue",
                                                             "timeouts")},
                             **{f"drops_{side}_{e}": drops(res[seed, e], i)
                                for e in ("ns3", "ns2") for i, side in enumerate(("fwd", "rev"))},
                             **{k: v for k, v in d.items() if k.endswith("_rel")},
                             "within": all(v is not False for v in ok.values())})
            per_seed = {e: pd.DataFrame([run_metrics(res[seed, e]) for seed in seeds])
                        for e in ("ns3", "ns2")}
            means.append({"queue": queue, "load": load, "seeds": len(seeds),
                          **distance_of_means(per_seed["ns3"], per_seed["ns2"])})
            with pd.option_context("display.width", 200, "display.float_format",
                                   "{:.4g}".format):
                print(pd.DataFrame(rows[-len(seeds):]).to_string(index=False))
            print("distance of the means over seeds (+- standard error):")
            print(with_se(pd.DataFrame(means[-1:])).to_string(index=False), flush=True)
    table, of_means = pd.DataFrame(rows), pd.DataFrame(means)
    if args.out:
        table.to_csv(args.out, index=False)
    if args.means_out:
        of_means.to_csv(args.means_out, index=False)
    with pd.option_context("display.width", 200, "display.float_format", "{:.4g}".format):
        print(table.to_string(index=False))
    print("\ndistance of the engines' means over seeds (+- standard error):")
    print(with_se(of_means).to_string(index=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
