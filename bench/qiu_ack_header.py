"""Qiu's T1 with ns-2's 40-byte ACKs against aqmlab's default, on both engines.

Qiu's ns-2 (before ``useHeaders_``) sent 500-byte data packets and 40-byte ACKs. The
study's example gives ns-3's PPP frames the papers' data-packet time with ``rate_scale``
1.004 (502 bytes at 1.004 x 1.544 Mb/s), which leaves a 40-byte ACK 42 bytes at that rate,
the time of 41.8 bytes (216.8 against 207.2 us on the T1). ``topology.link_header = "none"``
with ``rate_scale`` 1 gives every packet its ns-2 size at the paper's rate, on both engines
(the ns-2 engine's agents then keep 40-byte headers). This sweeps both set-ups over flows,
drop-tail buffers, seeds and the two engines, and prints, per configuration, the means over
seeds under each set-up, their ratio, and the seed-to-seed coefficient of variation, so
that the size of the mechanism reads against the seed noise; and how many (configuration,
seed) pairs give the same numbers on both engines.

    .venv/bin/python bench/qiu_ack_header.py --store /tmp/ack-data      # ~6 min, 2 workers

Run it from a small working directory (the ns-3 loader scans the cwd).
"""

from __future__ import annotations

import argparse

import pandas as pd

SETUPS = {"ppp": 1.004, "none": 1.0}  # link_header -> rate_scale
MEASURES = ["loss_rate", "timeouts_per_flow", "jain", "goodput", "q_mean"]


def rows(result) -> pd.DataFrame:
    from aqmlab.studies.setups.qiu import T1_BPS, run_row

    out = []
    for _, res in result:
        row = run_row(res)
        sc = res.scenario
        out.append({**{k: row[k] for k in ("conn", "buffer", "loss_rate", "jain", "q_mean")},
                    "timeouts_per_flow": row["timeouts"] / row["conn"],
                    # payload over the paper's T1 rate, the same yardstick for both set-ups
                    "goodput": float(res.summary.iloc[0].goodput_mbps) * 1e6 / T1_BPS,
                    "engine": sc.run.engine, "header": sc.topology.link_header,
                    "seed": sc.run.seed})
    return pd.DataFrame(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--store", default="data-ack-header", help="the runs' store")
    ap.add_argument("--flows", type=int, nargs="+", default=[50, 100, 300, 600, 1000])
    ap.add_argument("--buffers", type=int, nargs="+", default=[60, 160, 400],
                    help="drop-tail limits in packets (W_c = B + 40)")
    ap.add_argument("--seeds", type=int, default=3, help="seeds 1..N")
    ap.add_argument("--duration", type=float, default=200.0, help="simulated s (20 s warm-up)")
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args(argv)

    import aqmlab
    from aqmlab.studies.setups.qiu import base, conns_zip

    result = aqmlab.sweep(
        base(args.duration, 20.0),
        grid={"topology.forward_queue.limit": [f"{b}p" for b in args.buffers],
              "run.engine": ["ns3", "ns2"]},
        zip=[conns_zip(args.flows), {"topology.link_header": list(SETUPS),
                                     "topology.rate_scale": list(SETUPS.values())}],
        seeds=list(range(1, args.seeds + 1)), store=args.store, workers=args.workers,
        name="qiu-ack-header")
    d = rows(result)
    pd.set_option("display.width", 200)
    keys = ["engine", "buffer", "conn"]
    means = d.groupby([*keys, "header"])[MEASURES].mean().unstack("header")
    spread = d[d.header == "ppp"].groupby(keys)[MEASURES].agg(lambda x: x.std() / x.mean())
    for m in MEASURES:
        t = means[m].copy()
        t["none / ppp"] = t["none"] / t["ppp"]
        t["seed cv (ppp)"] = spread[m]
        print(f"== {m}: means over {args.seeds} seeds")
        print(t.round(4).to_string())
    pair = d.pivot_table(index=["header", "buffer", "conn", "seed"], columns="engine",
                         values=MEASURES)
    same = pd.concat([pair[m]["ns2"] == pair[m]["ns3"] for m in MEASURES], axis=1).all(axis=1)
    print("== runs whose measures are equal on both engines")
    print(same.groupby(level="header").agg(["sum", "count"]).to_string())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
