"""One scenario on both engines with seeds 1..N: are the engines apart, or is it seed noise?

The cross-simulator study (``ns2_vs_ns3``) holds each configuration to issue 30's bounds
as the distance of the engines' means over seeds; a mean of per-seed-pair distances would
carry both engines' seed noise (outside web traffic a seed pair is two unrelated samples).
This does the same for any one scenario file: per measure of
:func:`aqmlab.studies.distances.run_metrics`, each engine's mean and standard error over
the seeds, the mean per-seed-pair distance and the distance of the means with its
standard error (:func:`~aqmlab.studies.distances.distance_of_means`).

    .venv/bin/python bench/seed_means.py examples/parking_lot.toml --seeds 8
    .venv/bin/python bench/seed_means.py examples/qiu_t1_dumbbell.toml --seeds 6 \
        --set topology.senders=100 --set traffic[0].flows=100 --set run.duration=200s

Run it from a small working directory (the ns-3 loader scans the cwd). One worker
process per engine run, in turn.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from compare_engines import value  # noqa: E402  (bench/ is not a package)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("scenario", help="scenario file (.toml or .json)")
    ap.add_argument("--seeds", type=int, default=6, help="seeds 1..N on each engine")
    ap.add_argument("--set", action="append", default=[], metavar="PATH=VALUE",
                    help="override a dotted scenario field (repeatable)")
    ap.add_argument("--json", type=Path, help="also write every run's metrics here")
    args = ap.parse_args()
    from aqmlab.scenario import Scenario
    from aqmlab.studies.distances import METRICS, distance_of, distance_of_means, run_metrics
    from aqmlab.workers import Runner

    sc = Scenario.load(args.scenario)
    if args.set:
        sc = sc.replace(**{k: value(v) for k, v in (s.split("=", 1) for s in args.set)})
    print(f"# {sc.name} {sc.key}  seeds 1-{args.seeds}  " + "  ".join(args.set), flush=True)
    rows = []
    runner = Runner(workers=1, start="spawn")
    try:
        for seed in range(1, args.seeds + 1):
            for engine in ("ns3", "ns2"):
                res = runner.run(sc.replace(**{"run.engine": engine, "run.seed": seed}))
                rows.append({"engine": engine, "seed": seed, **run_metrics(res)})
                print(json.dumps(rows[-1]), flush=True)
    finally:
        runner.close()
    runs = pd.DataFrame(rows)
    if args.json:
        args.json.write_text(runs.to_json(orient="records", indent=1))
    a, b = runs[runs.engine == "ns3"], runs[runs.engine == "ns2"]
    pairs = [distance_of(np.zeros(0), x, np.zeros(0), y)
             for (_, x), (_, y) in zip(a.iterrows(), b.iterrows(), strict=True)]
    means = distance_of_means(a, b)
    table = pd.DataFrame({
        metric: {"ns3 mean": a[metric].mean(), "ns3 se": a[metric].sem(),
                 "ns2 mean": b[metric].mean(), "ns2 se": b[metric].sem(),
                 "per-seed distance": float(np.nanmean([p[name] for p in pairs])),
                 "distance of means": means[name], "its se": means[f"{name}_se"]}
        for metric, name in METRICS.items()}).T
    with pd.option_context("display.width", 160, "display.float_format", "{:.4g}".format):
        print(table.to_string())
    return 0


if __name__ == "__main__":
    sys.exit(main())
