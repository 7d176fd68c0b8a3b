"""ns-2.35 beside ns-3: the seed studies' set-ups on both engines (issues 29 and 30).

The papers ran ns-2; aqmlab runs ns-3 with ns-2's behaviour modelled mechanism by
mechanism. This study runs the same scenarios on both engines (``run.engine``), with the
very same planned connections for web traffic (aqmlab's PackMime generator, replayed by
ns-2's Full-TCP agents), and measures how far apart they are against each engine's own
seed-to-seed spread:

* **web**: Weigle et al.'s two-way PackMime dumbbell (10 Mb/s) at several loads and queues;
  response-time CDFs and their Kolmogorov-Smirnov distance, loss, utilisation, queue,
  timeouts;
* **qiu**: Qiu et al.'s T1 dumbbell (drop-tail 400) from 10 to 1000 Reno flows, one sender
  host per flow (their pipe-size regimes): loss, goodput, Jain, timeouts per flow;
* **qiu_random**: the same with random processing time U(0, one packet's service time) at
  every sender (Qiu et al.'s section 7): without it drop-tail runs are phase-locked, and
  which flow loses a packet depends on the order of events that coincide in exact
  arithmetic (a retransmission timer of a multiple of 0.5 s and the T1's ACK clock of 386
  packets a second), which each engine's rounding of the service time decides: Qiu's
  example sets ``topology.tx_time = "ns2"`` so that ns-3 orders them as ns-2.35 does;
* **pentikousis**: Pentikousis et al.'s five 20 MiB downloads through drop-tail, RED and
  RED+ECN, on 4 to 128 packets (at 4, slow start's ACK clock makes arrivals tie with
  departures at a full queue: ``topology.queue_wake = "ns2"`` hands on the next packet as
  ns-2.35 does, in the examples of every paper that ran on ns-2);
* **parking_lot**: the three-hop parking lot of bulk flows (``examples/parking_lot.toml``).

Each configuration runs with every seed on both engines. The distance between engines
of loss, utilisation, queue, timeouts, goodput and Jain is that of the engines' **means
over seeds** (:func:`aqmlab.studies.distances.distance_of_means`), with its standard
error: a study's answer is a mean over seeds, and the mean over seed pairs of per-pair
distances (kept as ``pairs_<measure>``) grows with the seed noise of both engines even
where their means agree (the parking lot over six seeds: 2.1x the bound per pair, 0.16 and
0.59 of it for the means). Web runs replay the same planned connections, yet their
dynamics still part within a few seconds, so the same holds there. The response-time KS
stays a per-seed-pair distance, held to the larger of the two engines' seed-to-seed KS
(seeds 1 and 2), which is already a noise floor. The claims are issue 30's bounds
(``claim_tables/ns2_vs_ns3.toml``). CPU seconds: ns-3's ``Simulator::Run``, ns-2's whole
``ns`` process.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from aqmlab.studies import plots
from aqmlab.studies.arms import Arm
from aqmlab.studies.claims import ClaimTable, Inputs, Measured, Metrics
from aqmlab.studies.common import Context, example, stack
from aqmlab.studies.distances import (
    BOUNDS,
    distance_of,
    distance_of_means,
    ks,
    response_times,
    run_metrics,
)
from aqmlab.studies.params import Params, Profiles
from aqmlab.studies.setups import pentikousis, qiu
from aqmlab.studies.setups.weigle import loads_zip, weigle_arm, weigle_base
from aqmlab.studies.style import figure, label, save_figure

STUDY = "ns2_vs_ns3"
TITLE = "ns-2.35 beside ns-3: the same scenarios on both engines"
#: This study runs both engines itself: no extra reference run (aqmlab.notebooks.plan).
REFERENCE = False
ENGINES = ("ns3", "ns2")
FAMILIES = ("web", "qiu", "qiu_random", "pentikousis", "parking_lot")
#: The measures compared, with the bound each is held to (issue 30).
MEASURES = ("ks", "loss_rel", "utilisation_rel", "queue_rel", "timeouts_rel", "goodput_abs",
            "jain_abs")


@dataclass(frozen=True, kw_only=True)
class CrossParams(Params):
    """``web_loads``/``web_queues`` (Weigle queue names: dt148, ared5, ...) and the web run
    length; ``qiu_flows`` (one sender per flow) and its run length; ``pent_schemes`` /
    ``pent_qls`` / ``pent_size`` (five clients); ``parking_lot``: run the three-hop lot.
    ``seeds``: at least two, for the seed-to-seed noise floor; ``bulk_seeds``: more seeds
    for the families without web traffic (Qiu, Pentikousis, parking lot), whose runs cost
    seconds, which run ``seeds`` and ``bulk_seeds``. Distances are of means over seeds, and
    with two seeds the standard error of a loss or timeout count is about its bound: quick
    runs six seeds of everything; full three of the web runs (each five times longer than
    quick's) and six of the rest."""

    study: ClassVar[str] = STUDY
    web_loads: tuple[float, ...]
    web_queues: tuple[str, ...]
    web_duration: float
    web_warmup: float
    qiu_flows: tuple[int, ...]
    qiu_duration: float
    qiu_warmup: float
    pent_schemes: tuple[str, ...]
    pent_qls: tuple[int, ...]
    pent_size: str
    parking_lot: bool
    bulk_seeds: tuple[int, ...] = ()

    @property
    def bulk_run_seeds(self) -> tuple[int, ...]:
        """The seeds of the families without web traffic: ``seeds`` and ``bulk_seeds``."""
        return tuple(sorted(set(self.seeds) | set(self.bulk_seeds)))

    def __post_init__(self) -> None:
        super().__post_init__()
        if len(self.seeds) < 2:
            raise ValueError(f"{STUDY}/{self.profile}: seeds = {list(self.seeds)}: give at "
                             "least two (the seed-to-seed noise floor)")


PROFILES = Profiles(
    tiny=CrossParams(profile="tiny", seeds=(1, 2), web_loads=(0.8,), web_queues=("dt148",),
                     web_duration=25.0, web_warmup=5.0, qiu_flows=(10, 100),
                     qiu_duration=20.0, qiu_warmup=5.0, pent_schemes=("dt",), pent_qls=(64,),
                     pent_size="1MiB", parking_lot=False),
    quick=CrossParams(profile="quick", seeds=(1, 2, 3, 4, 5, 6), web_loads=(0.5, 0.8, 1.05),
                      web_queues=("dt148", "ared5"), web_duration=240.0, web_warmup=60.0,
                      qiu_flows=(10, 100, 300, 1000), qiu_duration=200.0, qiu_warmup=50.0,
                      pent_schemes=("dt", "aggr-red", "aggr-ecn"), pent_qls=(4, 16, 64),
                      pent_size="20MiB", parking_lot=True),
    full=CrossParams(profile="full", seeds=(1, 2, 3), web_loads=(0.5, 0.7, 0.8, 0.9, 1.05),
                     web_queues=("dt148", "dt111", "ared5", "ared60"), web_duration=1200.0,
                     web_warmup=120.0, qiu_flows=(1, 10, 30, 100, 300, 600, 1000),
                     qiu_duration=500.0, qiu_warmup=100.0,
                     pent_schemes=("dt", "cons-red", "aggr-red", "cons-ecn", "aggr-ecn"),
                     pent_qls=(4, 8, 16, 32, 64, 128), pent_size="20MiB", parking_lot=True,
                     bulk_seeds=(1, 2, 3, 4, 5, 6)),
)


def profile(name: str = "quick", **overrides: Any) -> CrossParams:
    return PROFILES.get(name, **overrides)


def _both(family: str, config: str, changes: dict[str, Any], **tags: Any) -> list[Arm]:
    """One arm per engine (label ``x-<family>-<config>-<engine>``) with the same changes."""
    return [Arm(f"x-{family}-{config}-{e}", {**changes, "run.engine": e},
                tags={"family": family, "config": config, "engine": e, **tags})
            for e in ENGINES]


# -- runs --------------------------------------------------------------------------------------


def _reduce(sw: Any, arms: list[Arm], extra: dict[str, Any] | None = None
            ) -> tuple[list[dict[str, Any]], list[pd.DataFrame]]:
    """Per successful run: a row (tags, seed, metrics, CPU, events) and its response
    times; ``extra`` maps a grid column to the tag it becomes (e.g. a load)."""
    tags = {a.label: a.tags for a in arms}
    rows, rts = [], []
    for _, r in sw.ok.iterrows():
        res = sw.store.load(r["key"])
        t = dict(tags[r["name"]])
        for column, tag in (extra or {}).items():
            t[tag] = r[column]
            t["config"] = f"{t['config']} {tag}={r[column]:g}"
        meta = res.meta
        rows.append({**t, "seed": int(r["seed"]), "key": r["key"], **run_metrics(res),
                     "cpu_s": float(meta.get("run_cpu_s", math.nan)),
                     "events": float(meta.get("events", math.nan)),
                     "responses": int(len(response_times(res)))})
        rt = response_times(res)
        if len(rt):
            rts.append(pd.DataFrame({"family": t["family"], "config": t["config"],
                                     "engine": t["engine"], "seed": int(r["seed"]),
                                     "response_time_s": rt}))
    return rows, rts


def run(p: CrossParams, ctx: Context) -> dict[str, pd.DataFrame]:
    """Every configuration on both engines; returns ``runs`` (one row per run),
    ``rt`` (every response time of the web runs), ``distances`` (per configuration:
    between engines and each engine's seed-to-seed floor) and ``arms``."""
    rows: list[dict[str, Any]] = []
    rts: list[pd.DataFrame] = []

    def add(sw: Any, arms: list[Arm], extra: dict[str, Any] | None = None) -> None:
        r, t = _reduce(sw, arms, extra)
        rows.extend(r)
        rts.extend(t)

    if p.web_loads and p.web_queues:
        web = weigle_base(p.web_duration, p.web_warmup)
        arms = [a for q in p.web_queues
                for a in _both("web", q, weigle_arm(f"reno-{q}").changes, queue=q)]
        zip_ = loads_zip(list(p.web_loads))
        add(ctx.sweep(web, name="x-web", arms=arms, zip=zip_, seeds=p.seeds, skip_invalid=True), arms,
            {"traffic[0].load": "load"})
    if p.qiu_flows:
        # as the paper ran it, and with random processing time at the senders (Qiu et al.'s
        # section 7), which breaks drop-tail's phase effect: what remains is TCP's
        random = {"traffic[0].processing_time": f"{qiu.SERVICE_S:.5f}s"}
        arms = [a for n in p.qiu_flows for family, extra in (("qiu", {}), ("qiu_random", random))
                for a in _both(family, f"{n} flows", {"topology.senders": n,
                                                      "traffic[0].flows": n, **extra}, flows=n)]
        add(ctx.sweep(qiu.base(p.qiu_duration, p.qiu_warmup), name="x-qiu", arms=arms,
                      seeds=p.bulk_run_seeds, skip_invalid=True), arms)
    if p.pent_schemes and p.pent_qls:
        arms = [a for s in p.pent_schemes for ql in p.pent_qls
                for a in _both("pentikousis", f"{s} q{ql}",
                               pentikousis.scheme_arm(s, ql).changes, scheme=s, ql=ql)]
        add(ctx.sweep(pentikousis.base(p.pent_size), name="x-pentikousis", arms=arms,
                      seeds=p.bulk_run_seeds, skip_invalid=True), arms)
    if p.parking_lot:
        arms = _both("parking_lot", "3 hops", {})
        add(ctx.sweep(example("parking_lot"), name="x-parking-lot", arms=arms,
                      seeds=p.bulk_run_seeds, skip_invalid=True), arms)
    runs = pd.DataFrame(rows)
    rt = stack(rts, ["family", "config", "engine", "seed", "response_time_s"])
    return {"runs": runs, "rt": rt, "distances": distances(runs, rt),
            "arms": pd.DataFrame([{"family": f} for f in FAMILIES])}


def _rt(rt: pd.DataFrame, config: str, engine: str, seed: int) -> np.ndarray:
    if not len(rt):
        return np.zeros(0)
    sel = rt[(rt.config == config) & (rt.engine == engine) & (rt.seed == seed)]
    return sel.response_time_s.to_numpy(float)


def distances(runs: pd.DataFrame, rt: pd.DataFrame) -> pd.DataFrame:
    """Per configuration, the distance between engines of each of :data:`MEASURES`: ``ks``
    the mean over seed pairs of the response-time KS, every other measure the distance of
    the engines' means over seeds, with its standard error (``<measure>_se``); whether each
    is within its bound (``ok_<measure>``: True / False / None when it does not apply);
    the mean over seed pairs of per-pair distances (``pairs_<measure>``); each engine's
    seed-to-seed KS (``floor_ks_ns3``/``_ns2``: its two lowest seeds) and relative loss
    spread. A configuration's seeds are those it ran on both engines."""
    out = []
    if not len(runs):
        return pd.DataFrame(columns=["family", "config", *MEASURES])
    metrics = ["loss", "utilisation", "queue", "timeouts", "goodput", "jain"]
    for (family, config), g in runs.groupby(["family", "config"], sort=False):
        seeds = sorted(set(g.seed[g.engine == "ns3"]) & set(g.seed[g.engine == "ns2"]))
        if len(seeds) < 2:
            continue
        g = g[g.seed.isin(seeds)]
        between = []
        for seed in seeds:
            a = g[(g.engine == "ns3") & (g.seed == seed)]
            b = g[(g.engine == "ns2") & (g.seed == seed)]
            if len(a) and len(b):
                between.append(distance_of(_rt(rt, config, "ns3", seed), a.iloc[0][metrics],
                                           _rt(rt, config, "ns2", seed), b.iloc[0][metrics]))
        if not between:
            continue
        pairs = {m: float(np.nanmean([d[m] for d in between]))
                 if any(not math.isnan(d[m]) for d in between) else math.nan for m in MEASURES}
        s1, s2 = seeds[0], seeds[1]
        floor = {e: ks(_rt(rt, config, e, s1), _rt(rt, config, e, s2)) for e in ENGINES}
        floor_ks = np.nanmax([floor["ns3"], floor["ns2"]]) if any(
            not math.isnan(v) for v in floor.values()) else math.nan
        of_means = distance_of_means(g[g.engine == "ns3"], g[g.engine == "ns2"])
        row: dict[str, Any] = {"family": family, "config": config, "ks": pairs["ks"],
                               **of_means, "floor_ks_ns3": floor["ns3"],
                               "floor_ks_ns2": floor["ns2"], "floor_ks": floor_ks,
                               "seeds": len(between)}
        row.update({f"pairs_{m}": v for m, v in pairs.items() if m != "ks"})
        for e in ENGINES:
            x = g[g.engine == e].set_index("seed")
            if s1 in x.index and s2 in x.index:
                la, lb = float(x.loc[s1, "loss"]), float(x.loc[s2, "loss"])
                row[f"seed_loss_rel_{e}"] = abs(la - lb) / max(abs(la), abs(lb), 1e-12)
            row[f"cpu_s_{e}"] = float(x.cpu_s.mean()) if len(x) else math.nan
        for m in MEASURES:
            row[f"ok_{m}"] = _ok(m, row[m], floor_ks)
        out.append(row)
    return pd.DataFrame(out)


def _ok(measure: str, value: float, floor_ks: float) -> bool | None:
    if value is None or math.isnan(value):
        return None
    if measure == "ks":
        return None if math.isnan(floor_ks) else bool(value <= BOUNDS["ks_factor"] * floor_ks)
    return bool(value <= BOUNDS[measure])


def _ratio(measure: str, row: pd.Series, column: str | None = None) -> float:
    """A distance over its bound (<= 1: within); ``column`` (default ``measure``) picks
    which of the row's distances, e.g. ``pairs_loss_rel`` or ``loss_rel_se``."""
    v = row.get(column or measure, math.nan)
    if v is None or math.isnan(v):
        return math.nan
    if measure == "ks":
        f = row["floor_ks"]
        return math.nan if math.isnan(f) or f == 0 else v / (BOUNDS["ks_factor"] * f)
    return v / BOUNDS[measure]


# -- figures -----------------------------------------------------------------------------------


def fig_cdfs(data: dict, out: Path) -> Any:
    """Response-time CDFs, ns-3 against ns-2.35, per web configuration (the lowest seed
    solid, the others dashed)."""
    rt = data["rt"]
    if not len(rt):
        return plots.empty_figure(out, "response_time_cdfs", "no web runs in this profile")
    configs = list(dict.fromkeys(rt.config))
    n = len(configs)
    cols = min(n, 3)
    fig, axes = figure(ncols=cols, nrows=math.ceil(n / cols), width=4.2 * cols)
    grid = np.unique(np.concatenate([np.arange(0, 2000, 2.0), np.logspace(np.log10(2000), 5, 80)]))
    parts = []
    for ax, config in zip(axes.flat, configs, strict=False):
        for (engine, seed), g in rt[rt.config == config].groupby(["engine", "seed"]):
            v = np.sort(g.response_time_s.to_numpy() * 1e3)
            f = np.searchsorted(v, grid, side="right") / max(len(v), 1)
            ax.plot(grid, f, color="C0" if engine == "ns3" else "C3",
                    ls="-" if seed == min(rt.seed) else "--", lw=1.1,
                    label=f"{engine} seed {seed}")
            parts.append(pd.DataFrame({"config": config, "engine": engine, "seed": seed,
                                       "response_time_ms": grid, "cdf": f}))
        ax.set_xscale("log")
        ax.set_xlim(20, 1e5)
        ax.set_title(config)
        ax.set_xlabel(label("response_time_ms"))
        ax.set_ylabel(label("cdf"))
        ax.legend(fontsize=7)
    for ax in list(axes.flat)[n:]:
        ax.set_visible(False)
    save_figure(fig, pd.concat(parts, ignore_index=True), out, "response_time_cdfs",
                close=False)
    return fig


def fig_qiu(data: dict, out: Path) -> Any:
    """Qiu's regimes on both engines: loss, goodput (share of the link), Jain's index and
    timeouts per flow against the number of flows."""
    r = data["runs"]
    d = r[r.family == "qiu"] if len(r) else r
    if not len(d):
        return plots.empty_figure(out, "qiu_engines", "no Qiu runs in this profile")
    fig, axes = figure(ncols=4, width=16)
    for ax, col in zip(axes.flat, ("loss", "goodput", "jain", "timeouts"), strict=True):
        for engine, g in d.groupby("engine"):
            m = g.groupby("flows")[col].agg(["mean", "min", "max"]).reset_index()
            ax.errorbar(m.flows, m["mean"], yerr=[m["mean"] - m["min"], m["max"] - m["mean"]],
                        marker="o", capsize=2, color="C0" if engine == "ns3" else "C3",
                        label=engine)
        ax.set_xscale("log")
        ax.set_xlabel("flows (one sender host each)")
        ax.set_ylabel({"loss": "loss rate", "goodput": "goodput / link", "jain": "Jain index",
                       "timeouts": "timeouts per flow"}[col])
        ax.legend()
    save_figure(fig, d, out, "qiu_engines", close=False)
    return fig


def fig_distances(data: dict, out: Path) -> Any:
    """Every distance over its bound (<= 1: within issue 30's bounds), per configuration:
    response-time KS per seed pair, the rest the distance of the engines' means over seeds.
    Its CSV adds each one's standard error and the mean per-seed-pair distance
    (``pairs_*``), over the same bounds."""
    d = data["distances"]
    if not len(d):
        return plots.empty_figure(out, "distances", "no configuration ran on both engines")
    ratio = pd.DataFrame({m: [_ratio(m, row) for _, row in d.iterrows()] for m in MEASURES},
                         index=[f"{f}: {c}" for f, c in zip(d.family, d.config, strict=True)])
    fig, axes = figure(width=9, height=0.35 * len(ratio) + 1.5)
    ax = axes[0, 0]
    shown = np.clip(ratio.to_numpy(float), 0, 3)
    im = ax.imshow(shown, aspect="auto", cmap="RdYlGn_r", vmin=0, vmax=2)
    for (i, j), v in np.ndenumerate(ratio.to_numpy(float)):
        ax.text(j, i, "" if math.isnan(v) else f"{v:.2f}", ha="center", va="center", fontsize=7)
    ax.set_xticks(range(len(MEASURES)), MEASURES, rotation=30, ha="right")
    ax.set_yticks(range(len(ratio)), ratio.index)
    ax.grid(False)
    fig.colorbar(im, ax=ax, label="distance / bound")
    for m in MEASURES[1:]:
        for column in (f"{m}_se", f"pairs_{m}"):
            ratio[column] = [_ratio(m, row, column) for _, row in d.iterrows()]
    save_figure(fig, ratio.reset_index(names="configuration"), out, "distances", close=False)
    return fig


def fig_cpu(data: dict, out: Path) -> Any:
    """CPU seconds per run, ns-3 (Simulator::Run) and ns-2.35 (the whole ns process)."""
    r = data["runs"]
    if not len(r):
        return plots.empty_figure(out, "cpu_seconds", "no runs")
    d = r.groupby(["family", "config", "engine"], sort=False).cpu_s.mean().reset_index()
    return plots.bars(d.assign(configuration=d.family + ": " + d.config), out, "cpu_seconds",
                      x="configuration", metrics=["cpu_s"], hue="engine",
                      title="CPU seconds per run (mean over seeds)")


FIGURES = [fig_cdfs, fig_qiu, fig_distances, fig_cpu]


# -- claims ------------------------------------------------------------------------------------

METRICS = Metrics(STUDY)


@METRICS
def worst(inputs: Inputs, family: str, measure: str) -> Measured:
    """The largest distance/bound ratio of ``measure`` over ``family``'s configurations
    (<= 1: every configuration within issue 30's bound); template values ``n``, ``at`` (the
    worst configuration), ``se`` (its standard error over the bound) and ``pairs`` (its
    mean per-seed-pair distance over the bound)."""
    d = inputs.data["distances"]
    d = d[d.family == family] if len(d) else d
    ratios = np.array([_ratio(measure, row) for _, row in d.iterrows()], float)
    if not len(ratios) or np.isnan(ratios).all():
        return Measured(math.nan, tested=True, values={"n": 0, "at": "none", "se": "-",
                                                       "pairs": "-"})
    at = d.iloc[int(np.nanargmax(ratios))]
    extra = {"se": "-", "pairs": "-"} if measure == "ks" else {
        "se": f"{_ratio(measure, at, f'{measure}_se'):.2f}",
        "pairs": f"{_ratio(measure, at, f'pairs_{measure}'):.2f}"}
    return Measured(float(np.nanmax(ratios)),
                    values={"n": int((~np.isnan(ratios)).sum()), "at": at.config, **extra})


@METRICS
def cpu_ratio(inputs: Inputs, family: str) -> float:
    """aqmlab's CPU seconds over ns-2.35's, summed over the family's runs."""
    r = inputs.data["runs"]
    d = r[r.family == family] if len(r) else r
    if not len(d):
        return math.nan
    ns3, ns2 = d[d.engine == "ns3"].cpu_s.sum(), d[d.engine == "ns2"].cpu_s.sum()
    return float(ns3 / ns2) if ns2 > 0 else math.nan


CLAIMS = METRICS.table()


def claims(data: dict, p: CrossParams) -> ClaimTable:
    """Issue 30's bounds (``claim_tables/ns2_vs_ns3.toml``) measured on ``data``."""
    return CLAIMS.evaluate(data, p)


def table(data: dict) -> pd.DataFrame:
    """The distance table as the notebook shows it: distances, floors, and within or not."""
    d = data["distances"]
    if not len(d):
        return d
    cols = ["family", "config", *MEASURES, *(f"{m}_se" for m in MEASURES[1:]), "floor_ks",
            *(f"ok_{m}" for m in MEASURES), "cpu_s_ns3", "cpu_s_ns2"]
    return d[[c for c in cols if c in d.columns]]
