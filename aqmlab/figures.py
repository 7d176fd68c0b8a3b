"""Batch figure regeneration (``make figures``): run the example scenarios and plot them.

Quick profile: each example is shortened to ``QUICK_DURATION`` simulated seconds (finite
transfers are scaled down instead). Full profile: the examples as written. Each figure is
written as PNG and SVG with its data beside it (CSV), so it can be re-plotted.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from aqmlab.results.results import Results
from aqmlab.scenario import Scenario, Transfers

QUICK_DURATION = 30.0


def quick(sc: Scenario) -> Scenario:
    """The quick-profile version of a scenario."""
    changes: dict = {}
    if sc.run.duration_s > QUICK_DURATION and not all(
            isinstance(g, Transfers) for g in sc.traffic):
        changes["run.duration"] = f"{QUICK_DURATION:g}s"
        changes["run.warmup"] = f"{min(sc.run.warmup_s, QUICK_DURATION / 4):g}s"
    for k, g in enumerate(sc.traffic):
        if isinstance(g, Transfers):
            changes[f"traffic[{k}].size"] = [max(1, s // 10) for s in g.sizes_bytes]
    return sc.replace(**changes) if changes else sc


def plot_run(res: Results, out: Path) -> list[Path]:
    """Queue length over time and per-flow goodput of one run; returns written files."""
    import matplotlib  # noqa: PLC0415

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # noqa: PLC0415
    import seaborn as sns  # noqa: PLC0415

    sns.set_theme(style="whitegrid", context="paper")
    out.mkdir(parents=True, exist_ok=True)
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 3.5))
    ts = res.queue_ts
    fwd = ts[ts.queue.str.match(r"R(\d+)->R(\d+)") & ts.queue.map(_forward)]
    sns.lineplot(data=fwd, x="time_s", y="qlen_pkts", hue="queue", ax=ax1, linewidth=0.8)
    ax1.set(xlabel="time (s)", ylabel="queue length (packets)", title=res.scenario.name)
    flows = res.flows.sort_values("goodput_mbps").reset_index(drop=True)
    flows["rank"] = range(len(flows))
    sns.barplot(data=flows, x="rank", y="goodput_mbps", hue="group", ax=ax2, dodge=False)
    ax2.set(xlabel="flow (sorted by goodput)", ylabel="goodput (Mb/s)", xticks=[])
    fig.tight_layout()
    files = []
    for ext in ("png", "svg"):
        fig.savefig(out / f"overview.{ext}", dpi=120)
        files.append(out / f"overview.{ext}")
    plt.close(fig)
    fwd.to_csv(out / "queue_ts.csv", index=False)
    res.flows.to_csv(out / "flows.csv", index=False)
    res.summary.to_csv(out / "summary.csv", index=False)
    return files


def _forward(name: str) -> bool:
    a, b = name.replace("R", "").split("->")
    return int(a) < int(b)


def regenerate(examples: Path, out: Path, profile: str = "quick", workers: int | None = None,
               data: Path | None = None) -> pd.DataFrame:
    """Run every ``examples/*.toml`` and plot it under ``out/examples/<name>/``."""
    from aqmlab.run.engine import LocalEngine  # noqa: PLC0415

    scenarios = [Scenario.load(p) for p in sorted(examples.glob("*.toml"))]
    if profile == "quick":
        scenarios = [quick(s) for s in scenarios]
    engine = LocalEngine(workers=workers)
    rows = []
    try:
        jobs = [(s, *engine.submit(s)) for s in scenarios]
        for sc, fut, log in jobs:
            res = engine.result(sc, fut, log)
            if data is not None:
                res.save(data / "examples" / sc.key)
            plot_run(res, out / "examples" / sc.name)
            rows.append(res.summary.iloc[0])
            print(f"{sc.name}: {res}", flush=True)
    finally:
        engine.close()
    summary = pd.DataFrame(rows)
    (out / "examples").mkdir(parents=True, exist_ok=True)
    summary.to_csv(out / "examples" / "summary.csv", index=False)
    return summary
