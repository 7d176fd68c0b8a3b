"""The cost model against every run a store already holds: measured / modelled CPU per
study, engine, configuration, offered load and run length (issue 31).

Run: ``.venv/bin/python bench/cost_residuals.py --store DIR [--version TAG] [--profile full]
[--only STUDY] [--by family|load|length] [--json FILE]``

The runs are planned as ``aqmlab figures --profile P --dry-run --store DIR`` plans them
(:func:`aqmlab.figures.planned_runs`); every one the store holds with a ``run_cpu_s`` is
compared with :func:`aqmlab.campaign.cost.estimate_cost`. Nothing is simulated, so a refit
can be judged on a campaign's own runs. Where ``bench/cost_sample.py`` measures a small
random sample one run at a time, this reads whole campaigns: many runs, but measured as
the campaign ran them (two workers, sometimes beside other work), so read the shape (how the
ratio moves with load, length, flows and engine) more than the level.

Printed per group: runs, measured and modelled CPU-s (sums), their ratio, and the
smallest and largest ratio of one run. Groups: ``family`` (the run's scenario name without
its seed and engine suffix), ``load`` (web runs by offered load, PackMime connections
against the bottleneck), ``length`` (simulated seconds).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any


def stored_runs(store: Path, profile: str, only: list[str] | None,
                version: str | None = None) -> list[dict[str, Any]]:
    """Every planned run the store holds with its ``run_cpu_s``: study, family, engine,
    measured and modelled CPU-s, offered web load (0 for bulk-only runs), simulated
    seconds and the model's terms. ``version``: read that namespace of the store (an
    earlier aqmlab's runs of the same scenarios) instead of this installation's."""
    from aqmlab.campaign.cost import cost_of_terms, ns3_cpu_terms, web_load
    from aqmlab.campaign.store import Store
    from aqmlab.figures import planned_runs, stored_cpu

    st = Store(store, version=version)
    out = []
    for study, (_, new) in planned_runs(profile, only, store).items():
        measured = stored_cpu(st, new)
        for p in new:
            if (cpu := measured.get(p.key)) is None:
                continue
            sc = p.scenario
            terms = ns3_cpu_terms(sc)
            out.append({"study": study, "family": family(sc.name), "engine": sc.run.engine,
                        "measured": float(cpu), "model": cost_of_terms(sc, terms),
                        "load": web_load(sc.resolve()), "length": sc.run.duration_s,
                        "terms": terms})
    return out


def family(name: str) -> str:
    """A run's configuration: its scenario name without a trailing engine suffix."""
    return re.sub(r"-(ns2|ns3)$", "", name)


def key(run: dict[str, Any], by: str) -> tuple:
    if by == "load":
        return run["study"], run["engine"], f"{run['load']:.2f}" if run["load"] else "bulk"
    if by == "length":
        return run["study"], run["engine"], f"{run['length']:.0f} s"
    return run["study"], run["engine"], run["family"]


def table(runs: list[dict[str, Any]], by: str) -> str:
    groups: dict[tuple, list[dict[str, Any]]] = defaultdict(list)
    for r in runs:
        groups[key(r, by)].append(r)
    lines = [f"{'study':20s} {'engine':6s} {by:44s} {'runs':>4s} {'measured':>9s} "
             f"{'model':>9s} {'ratio':>6s} {'min':>5s} {'max':>5s}"]
    for k in sorted(groups):
        g = groups[k]
        meas, model = sum(r["measured"] for r in g), sum(r["model"] for r in g)
        ratios = [r["measured"] / r["model"] for r in g]
        lines.append(f"{k[0]:20s} {k[1]:6s} {k[2][:44]:44s} {len(g):4d} {meas:9.1f} "
                     f"{model:9.1f} {meas / model:6.2f} {min(ratios):5.2f} {max(ratios):5.2f}")
    meas, model = sum(r["measured"] for r in runs), sum(r["model"] for r in runs)
    if runs:
        lines.append(f"{'all':20s} {'':6s} {'':44s} {len(runs):4d} {meas:9.1f} {model:9.1f} "
                     f"{meas / model:6.2f}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--store", type=Path, required=True)
    ap.add_argument("--profile", default="full")
    ap.add_argument("--only", action="append", help="a study (repeatable)")
    ap.add_argument("--by", choices=("family", "load", "length"), default="family")
    ap.add_argument("--version", help="the store's namespace to read, e.g. 0.8.31-3.44.post0 "
                    "(default: this installation's)")
    ap.add_argument("--json", type=Path, help="write every run's row here")
    args = ap.parse_args(argv)
    runs = stored_runs(args.store, args.profile, args.only, args.version)
    print(table(runs, args.by))
    if args.json:
        args.json.write_text(json.dumps(runs, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
