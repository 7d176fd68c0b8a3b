"""Check the cost model on a seeded sample of measured full-profile runs (issue 31).

Run: ``.venv/bin/python bench/cost_sample.py [--seed N] [--off-budget S] [--stop-starting HH:MM]
[--store DIR] [--list]``

The full profile's runs are expanded as ``aqmlab figures --profile full --dry-run`` does
(:func:`aqmlab.figures.planned_runs`: every study, ns-2.35 reference runs included, a run
shared by two studies counted once, under the first). **Sampling rule**: the runs are split
into strata (study, engine); from each, :data:`PER_STRATUM` runs (2 on ns-3, 1 on ns-2.35)
are drawn uniformly at random with ``random.Random(seed)`` over the stratum's runs sorted
by key. No run is rejected for its cost: the full profile's costliest run is ~4 CPU-minutes
by the model, so the 23 drawn runs predict well under an hour (seed 31: 24 CPU-minutes
by the model of 2026-11-25 before its refit, 28 after).

Each drawn run is a full-profile run, unchanged, simulated once in a child process
(``aqmlab run --in-process``, mimalloc preloaded as in the workers, :mod:`check_identical`)
with the speed-ups on. Measured: the CPU the engine reports (``run_cpu_s``: ns-3's
``Simulator::Run``, ns-2.35's whole ``ns`` process; what the model predicts) and the whole
child's CPU (``RUSAGE_CHILDREN``: Python, the ns-3 import and JIT, the tables). Then a
random subset of the ns-3 runs (one per study, drawn with the same seed, kept in drawn
order while their predicted CPU stays within ``--off-budget``) runs again with every switch
of ``aqmlab.engines.ns3.speedups`` at ``0``, and every Parquet table and run statistic of
the pair is compared (:func:`check_identical.differences`). All on-runs come first, so a
``--stop-starting`` deadline cuts off-runs before the sample.

Printed: per run, study, label, engine, predicted and measured CPU-s and their ratio; per
study, measured / predicted summed over its sample; the full profile's CPU-hours by the
model and re-scaled by those per-study ratios. Results (with each run's cost-model terms,
for refits) go to ``bench/results/cost_sample.json`` after every run.

Exit status 1 if any table differs with the speed-ups off.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from check_identical import differences, run_child

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "bench" / "results" / "cost_sample.json"
#: Runs drawn per (study, engine) stratum.
PER_STRATUM = {"ns3": 2, "ns2": 1}


def planned(store: Path | None) -> dict[str, tuple[dict[str, Any], list[Any]]]:
    """The full profile's runs per study (:func:`aqmlab.figures.planned_runs`), planned
    against ``store``, or against an empty temporary store (removed afterwards) if None."""
    from aqmlab.figures import planned_runs

    if store is not None:
        return planned_runs("full", store=store)
    with tempfile.TemporaryDirectory(prefix="aqmlab_cost_sample_store_") as tmp:
        return planned_runs("full", store=tmp)


def expand(seed: int, store: Path | None = None
           ) -> tuple[list[dict[str, Any]], dict[str, float]]:
    """The drawn runs (study, key, label, engine, predicted CPU-s, model terms, scenario)
    and the model's CPU-seconds per study for the whole full profile (planned as
    :func:`planned` does)."""
    from aqmlab.campaign.cost import estimate_cost, ns3_cpu_terms

    strata: dict[tuple[str, str], list[Any]] = defaultdict(list)
    model: dict[str, float] = {}
    for study, (_, new) in planned(store).items():
        model[study] = sum(estimate_cost(p.scenario) for p in new)
        for p in new:
            strata[study, p.scenario.run.engine].append(p)
    rng = random.Random(seed)
    drawn = []
    for (study, engine), points in strata.items():
        points = sorted(points, key=lambda p: p.key)
        for p in rng.sample(points, min(PER_STRATUM[engine], len(points))):
            sc = p.scenario
            drawn.append({"study": study, "key": p.key, "engine": engine,
                          "label": f"{sc.name} seed {sc.run.seed}",
                          "predicted_cpu_s": estimate_cost(sc),
                          "terms": ns3_cpu_terms(sc), "stratum_runs": len(points),
                          "scenario": sc})
    return drawn, model


def measured(toml: Path, out: Path, env: dict[str, str]) -> tuple[dict[str, Any], float]:
    """One child run: its meta and the whole child's CPU seconds (user + system, the
    ``ns`` process of an ns-2.35 run included)."""
    def cpu() -> float:
        r = resource.getrusage(resource.RUSAGE_CHILDREN)
        return r.ru_utime + r.ru_stime

    before = cpu()
    meta = run_child(toml, out, env)
    return meta, cpu() - before


def off_subset(runs: list[dict[str, Any]], seed: int, budget: float) -> list[dict[str, Any]]:
    """One drawn ns-3 run per study, at random, kept in drawn order while the predicted
    CPU of those kept stays within ``budget``."""
    rng = random.Random(seed + 1)
    by_study: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in runs:
        if r["engine"] == "ns3":
            by_study[r["study"]].append(r)
    picks = [rng.choice(rs) for rs in by_study.values()]
    rng.shuffle(picks)
    kept, total = [], 0.0
    for r in picks:
        if total + r["predicted_cpu_s"] <= budget:
            kept.append(r)
            total += r["predicted_cpu_s"]
    return kept


def summary(runs: list[dict[str, Any]], model: dict[str, float]) -> dict[str, Any]:
    """Per study: measured / predicted over its measured runs; the full profile re-scaled."""
    studies = {}
    for study, cpu in model.items():
        done = [r for r in runs if r["study"] == study and "run_cpu_s" in r]
        pred = sum(r["predicted_cpu_s"] for r in done)
        meas = sum(r["run_cpu_s"] for r in done)
        ratio = meas / pred if pred else None
        studies[study] = {"runs": len(done), "predicted_cpu_s": pred, "measured_cpu_s": meas,
                          "ratio": ratio, "model_cpu_h": cpu / 3600,
                          "rescaled_cpu_h": cpu * (ratio or 1.0) / 3600}
    return {"studies": studies,
            "model_cpu_h": sum(s["model_cpu_h"] for s in studies.values()),
            "rescaled_cpu_h": sum(s["rescaled_cpu_h"] for s in studies.values()),
            "unmeasured_studies": [k for k, s in studies.items() if not s["runs"]]}


def report(runs: list[dict[str, Any]], total: dict[str, Any]) -> str:
    """The per-run and per-study tables as text."""
    lines = [f"{'study':22s} {'run':44s} {'engine':6s} {'pred s':>8s} {'Run s':>8s} "
             f"{'ratio':>6s} {'child s':>8s} {'off s':>8s} identical"]
    for r in runs:
        if "run_cpu_s" not in r:
            lines.append(f"{r['study']:22s} {r['label'][:44]:44s} {r['engine']:6s} "
                         f"{r['predicted_cpu_s']:8.1f}  not run ({r.get('skipped', '')})")
            continue
        off = f"{r['off_cpu_s']:8.1f}" if "off_cpu_s" in r else f"{'':8s}"
        same = "" if "identical" not in r else "yes" if r["identical"] else "NO"
        lines.append(f"{r['study']:22s} {r['label'][:44]:44s} {r['engine']:6s} "
                     f"{r['predicted_cpu_s']:8.1f} {r['run_cpu_s']:8.1f} "
                     f"{r['run_cpu_s'] / r['predicted_cpu_s']:6.2f} {r['child_cpu_s']:8.1f} "
                     f"{off} {same}")
    lines.append("")
    lines.append(f"{'study':22s} {'runs':>4s} {'pred s':>8s} {'Run s':>8s} {'ratio':>6s} "
                 f"{'model h':>8s} {'rescaled h':>10s}")
    for study, s in total["studies"].items():
        ratio = f"{s['ratio']:6.2f}" if s["ratio"] is not None else f"{'–':>6s}"
        lines.append(f"{study:22s} {s['runs']:4d} {s['predicted_cpu_s']:8.1f} "
                     f"{s['measured_cpu_s']:8.1f} {ratio} {s['model_cpu_h']:8.2f} "
                     f"{s['rescaled_cpu_h']:10.2f}")
    lines.append(f"full profile: {total['model_cpu_h']:.1f} CPU-hours by the model, "
                 f"{total['rescaled_cpu_h']:.1f} re-scaled by the measured per-study ratios"
                 + (f" (unmeasured, at the model: {', '.join(total['unmeasured_studies'])})"
                    if total["unmeasured_studies"] else ""))
    return "\n".join(lines)


def save(runs: list[dict[str, Any]], total: dict[str, Any], meta: dict[str, Any]) -> None:
    OUT.parent.mkdir(parents=True, exist_ok=True)
    rows = [{k: v for k, v in r.items() if k != "scenario"} for r in runs]
    OUT.write_text(json.dumps({**meta, "runs": rows, "summary": total}, indent=1) + "\n")


def main(argv: list[str] | None = None) -> int:
    """Draw, run, compare, print; status 1 if the speed-ups changed a result."""
    from aqmlab.engines.ns3.speedups import all_off

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=31, help="sampling seed (default 31)")
    ap.add_argument("--off-budget", type=float, default=900.0,
                    help="predicted CPU-s of the runs repeated with the speed-ups off")
    ap.add_argument("--stop-starting", metavar="HH:MM",
                    help="start no run after this UTC time (today)")
    ap.add_argument("--list", action="store_true", help="print the sample, run nothing")
    ap.add_argument("--store", type=Path, help="plan against this store, as aqmlab figures "
                    "--dry-run --store does (default: an empty temporary one, removed)")
    args = ap.parse_args(argv)
    deadline = None
    if args.stop_starting:
        h, m = map(int, args.stop_starting.split(":"))
        now = time.gmtime()
        deadline = time.mktime((*now[:3], h, m, 0, 0, 0, 0)) - time.timezone
    t0 = time.time()
    runs, model = expand(args.seed, args.store)
    off = off_subset(runs, args.seed, args.off_budget)
    print(f"{len(runs)} runs drawn (seed {args.seed}), predicted "
          f"{sum(r['predicted_cpu_s'] for r in runs) / 60:.1f} CPU-min; off-path repeats: "
          f"{len(off)}, predicted {sum(r['predicted_cpu_s'] for r in off) / 60:.1f} CPU-min",
          flush=True)
    meta = {"seed": args.seed, "per_stratum": PER_STRATUM, "started": time.strftime(
        "%Y-%m-%d %H:%M UTC", time.gmtime(t0)), "load_at_start": list(os.getloadavg())}
    if args.list:
        print(report(runs, summary(runs, model)))
        return 0
    bad = []
    with tempfile.TemporaryDirectory(prefix="aqmlab_cost_sample_") as tmp:
        work = Path(tmp)
        for path, todo in (("on", runs), ("off", off)):
            for r in todo:
                if deadline is not None and time.time() > deadline:
                    r.setdefault("skipped", "deadline")
                    continue
                toml = work / f"{r['key']}.toml"
                r["scenario"].save(toml)
                run_dir = work / f"{r['key']}-{path}"
                meta_run, child = measured(toml, run_dir, all_off() if path == "off" else {})
                if meta_run.get("key", r["key"]) != r["key"]:
                    raise RuntimeError(f"{toml.name}: ran as {meta_run['key']}")
                if path == "on":
                    r.update(run_cpu_s=float(meta_run["run_cpu_s"]), child_cpu_s=child,
                             events=meta_run.get("events"), skipped=None)
                else:
                    r.update(off_cpu_s=float(meta_run["run_cpu_s"]), off_child_cpu_s=child)
                    diff = differences(run_dir, work / f"{r['key']}-on")
                    r.update(identical=not diff, differences=diff)
                    bad += [f"{r['label']}: {d}" for d in diff]
                    shutil.rmtree(work / f"{r['key']}-on")
                if path == "off" or r not in off:  # ns-3 scans its cwd: keep it small
                    shutil.rmtree(run_dir)
                print(f"{path:3s} {r['study']:22s} {r['label'][:44]:44s} {r['engine']} "
                      f"{meta_run['run_cpu_s']:.1f} CPU-s (predicted on: "
                      f"{r['predicted_cpu_s']:.1f}), child {child:.1f}", flush=True)
                save(runs, summary(runs, model), {**meta, "wall_s": time.time() - t0})
    total = summary(runs, model)
    save(runs, total, {**meta, "wall_s": time.time() - t0,
                       "load_at_end": list(os.getloadavg())})
    print()
    print(report(runs, total))
    compared = [r for r in off if "identical" in r]
    print(f"speed-ups off vs on: {len(compared)} runs compared, "
          f"{'all identical' if not bad else 'DIFFERENCES: ' + '; '.join(bad[:10])}; "
          f"{time.time() - t0:.0f} s wall")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
