"""The explorer's model, without widgets: control values -> Scenario, labels, summary rows.

Everything here is pure Python (no ipywidgets, no ns-3), so it is unit-tested directly.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from aqmlab import engines
from aqmlab.errors import ScenarioError
from aqmlab.kinds.controls import Control
from aqmlab.scenario import QUEUES, TCP_VARIANTS, TRAFFIC, QueueBase, Scenario, TrafficBase

__all__ = [
    "ACCESS_DELAY_MS",
    "COMMON",
    "Check",
    "Settings",
    "build_scenario",
    "check",
    "controls",
    "describe",
    "diff_labels",
    "queue_kinds",
    "summary_row",
    "tcp_choices",
    "traffic_kinds",
]

#: One-way delay of every access link (ms); the bottleneck delay makes up the rest of the RTT.
ACCESS_DELAY_MS = 1.0
MAX_SENDERS = 20
WEB_HOSTS = 4

#: The controls every scenario has, with their defaults.
COMMON: dict[str, Any] = {
    "rate_mbps": 10.0, "rtt_ms": 50.0, "traffic": "bulk", "variant": "reno", "ecn": False,
    "queue": "droptail", "limit": 100, "duration_s": 20.0, "seed": 1, "engine": "ns3",
}


def queue_kinds() -> dict[str, type[QueueBase]]:
    """The queue disciplines the explorer offers: every registered kind."""
    return dict(QUEUES)


def traffic_kinds() -> dict[str, type[TrafficBase]]:
    """Explorer key ("bulk", "web", ...) -> traffic kind, for the kinds that offer one."""
    return {cls.EXPLORER.key: cls for cls in TRAFFIC.values() if cls.EXPLORER is not None}


def tcp_choices() -> list[str]:
    """Every registered TCP variant."""
    return list(TCP_VARIANTS)


def controls() -> dict[str, Control]:
    """Every kind-specific control by ``"<kind>.<name>"``: each queue kind's parameters
    ("red.min_th") and each traffic kind's size ("bulk.flows", "web.load")."""
    out: dict[str, Control] = {}
    for kind, cls in queue_kinds().items():
        for c in cls.CONTROLS:
            out[f"{kind}.{c.name}"] = c
    for key, cls in traffic_kinds().items():
        out[f"{key}.{cls.EXPLORER.control.name}"] = cls.EXPLORER.control
    return out


class Settings:
    """The explorer's control values (plain numbers, as the widgets hold them).

    The common controls (:data:`COMMON`) are attributes; the kinds' controls are in
    ``params`` by ``"<kind>.<name>"`` (:func:`controls`), every kind remembering its own
    values. Keyword arguments may name a kind's control by its bare name (``min_th=10``,
    ``flows=20``, ``target=8``): it means the selected queue's or traffic's control of that
    name, or the only control so named."""

    def __init__(self, params: Mapping[str, float] | None = None, **values: Any) -> None:
        common = {k: values.pop(k) for k in list(values) if k in COMMON}
        self._common = {**COMMON, **common}
        self.params = {k: float(c.default) if not c.integer else int(c.default)
                       for k, c in controls().items()}
        self.params.update(params or {})
        for name, value in values.items():
            self.params[self.param_key(name)] = value

    def param_key(self, name: str) -> str:
        """The ``params`` key of control ``name`` (see the class docstring); KeyError if
        there is none."""
        if name in self.params:
            return name
        keys = [k for k in self.params if k.split(".", 1)[1] == name]
        selected = [k for k in keys if k.split(".", 1)[0] in (self.queue, self.traffic)]
        if len(selected) == 1:
            return selected[0]
        if len(keys) == 1:
            return keys[0]
        known = sorted({*COMMON, *(k.split(".", 1)[1] for k in self.params), *self.params})
        raise KeyError(f"no control {name!r}" + (f" for queue {self.queue!r}" if keys else "")
                       + f"; controls: {', '.join(known)}")

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_") or name == "params":
            raise AttributeError(name)
        if name in self._common:
            return self._common[name]
        try:
            return self.params[self.param_key(name)]
        except KeyError as err:
            raise AttributeError(str(err)) from None

    def value(self, name: str) -> Any:
        """A common control's value or a kind's (by key or bare name)."""
        return getattr(self, name)

    def replace(self, **changes: Any) -> Settings:
        common = {**self._common, **{k: v for k, v in changes.items() if k in COMMON}}
        new = Settings(self.params, **common)
        for name, value in changes.items():
            if name not in COMMON:
                new.params[new.param_key(name)] = value
        return new

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Settings) and self._common == other._common
                and self.params == other.params)

    def __hash__(self) -> int:
        return hash((tuple(sorted(self._common.items())), tuple(sorted(self.params.items()))))

    def __repr__(self) -> str:
        shown = {**self._common, **{k: self.params[k] for k in self.selected_params()}}
        return "Settings(" + ", ".join(f"{k}={v!r}" for k, v in shown.items()) + ")"

    def selected_params(self) -> list[str]:
        """The ``params`` keys the selected queue and traffic use."""
        return [k for k in self.params if k.split(".", 1)[0] in (self.queue, self.traffic)]

    @property
    def sack(self) -> bool:
        return TCP_VARIANTS[self.variant].sack if self.variant in TCP_VARIANTS else False

    @property
    def warmup_s(self) -> float:
        """Statistics skip the start-up: a quarter of the run, at most 5 s."""
        return min(5.0, self.duration_s / 4)


def _num(x: float) -> str:
    return f"{x:g}"


def _queue_dict(s: Settings) -> dict[str, Any]:
    cls = QUEUES.lookup(s.queue, "queue")
    q: dict[str, Any] = {"kind": s.queue, "limit": f"{int(s.limit)}p"}
    if cls.MARKS:
        q["ecn"] = bool(s.ecn)
    for c in cls.CONTROLS:
        q[c.field] = c.to_field(s.params[f"{s.queue}.{c.name}"])
    return q


def _traffic_dict(s: Settings) -> dict[str, Any]:
    kinds = traffic_kinds()
    if s.traffic not in kinds:
        raise ScenarioError("traffic", s.traffic, f"one of {', '.join(kinds)}")
    cls = kinds[s.traffic]
    return cls.explorer_group(s.params[f"{s.traffic}.{cls.EXPLORER.control.name}"],
                              s.rate_mbps * 1e6)


def build_scenario(s: Settings) -> Scenario:
    """The Scenario of the control values ``s``; raises ScenarioError naming the field.

    Dumbbell with ``rate_mbps`` bottleneck; access links of max(100 Mb/s, 10 x bottleneck)
    and 1 ms; bottleneck delay = RTT/2 - 2 ms so that the base RTT is ``rtt_ms``. Bulk
    flows are spread over min(flows, 20) senders; web traffic uses 4 servers and 4 clients.
    """
    min_rtt = 4 * ACCESS_DELAY_MS
    if not s.rtt_ms > min_rtt:
        raise ScenarioError("rtt_ms", s.rtt_ms,
                            f"the base RTT must be > {min_rtt:g} ms (the access links' delay)")
    if not s.rate_mbps > 0:
        raise ScenarioError("rate_mbps", s.rate_mbps, "the bottleneck rate must be > 0")
    if not s.duration_s > 0:
        raise ScenarioError("duration_s", s.duration_s, "the duration must be > 0")
    delay_ms = s.rtt_ms / 2 - 2 * ACCESS_DELAY_MS
    hosts = min(int(s.params["bulk.flows"]), MAX_SENDERS) if s.traffic == "bulk" else WEB_HOSTS
    hosts = max(hosts, 1)
    sample = max(0.01, s.duration_s / 1000)
    return Scenario(
        name="explorer",
        description="aqmlab.explore()",
        topology={
            "kind": "dumbbell",
            "senders": hosts,
            "bottleneck": {"rate": f"{_num(s.rate_mbps)}Mbps", "delay": f"{_num(delay_ms)}ms"},
            "access": {"rate": f"{_num(max(100.0, 10 * s.rate_mbps))}Mbps",
                       "delay": f"{_num(ACCESS_DELAY_MS)}ms"},
            "forward_queue": _queue_dict(s),
        },
        tcp={"variant": s.variant, "ecn": bool(s.ecn)},
        traffic=[_traffic_dict(s)],
        run={"duration": f"{_num(s.duration_s)}s", "warmup": f"{_num(s.warmup_s)}s",
             "seed": int(s.seed), "sample_interval": f"{_num(round(sample, 4))}s",
             "engine": s.engine},
    )


@dataclass
class Check:
    """The outcome of checking control values: a scenario, or an error; plus notes."""

    scenario: Scenario | None
    error: str = ""
    field: str = ""
    notes: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return self.scenario is not None


def check(s: Settings) -> Check:
    """Validate ``s``: build its Scenario (error message naming the field on failure) and
    explain combinations that run but may surprise (ECN on drop-tail, overload, ...)."""
    notes: list[str] = []
    marks = s.queue in QUEUES and QUEUES[s.queue].MARKS
    label = QUEUES[s.queue].LABEL if s.queue in QUEUES else s.queue
    if s.ecn and not marks:
        notes.append(f"{label} never marks packets: with ECN on, flows still only see drops.")
    if s.variant in TCP_VARIANTS and TCP_VARIANTS[s.variant].needs_ecn and not marks:
        notes.append(f"{TCP_VARIANTS[s.variant].label} reacts to ECN marks; a {label} queue "
                     "gives it none.")
    if s.traffic == "web" and s.params["web.load"] >= 1:
        notes.append("offered load >= 1: the bottleneck is overloaded, response times grow "
                     "with the run.")
    if marks and s.variant == "bbr":
        notes.append("BBR largely ignores losses; AQM drops affect it little.")
    try:
        sc = engines.check(build_scenario(s))  # and what the chosen engine can run
    except ScenarioError as err:
        return Check(None, str(err), err.field, tuple(notes))
    return Check(sc, "", "", tuple(notes))


# -- describing runs -----------------------------------------------------------------------------

def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.3g} ms"


def describe(sc: Scenario) -> dict[str, str]:
    """The explorer-level parameters of a scenario, with short names, for legends/tables.

    Only the parameters that matter for this run are included (e.g. RED's thresholds
    only for a RED queue), so a difference in kind shows as the kind itself.
    """
    d: dict[str, str] = {}
    topo = sc.topology
    d["rate"] = f"{topo.bottleneck_rate_bps / 1e6:g} Mb/s"
    if hasattr(topo, "bottleneck"):
        rtt = 2 * (topo.bottleneck.delay_s + 2 * topo.access.delay_s)
        d["RTT"] = _ms(rtt)
    q = topo.forward_queue
    g = sc.traffic[0]
    d["traffic"] = g.EXPLORER.key if g.EXPLORER is not None else g.kind
    name, value = g.explorer_describe()
    d[name] = value
    tcp = sc.tcp
    d["tcp"] = tcp.variant
    d["ECN"] = "on" if tcp.ecn else "off"
    d["queue"] = q.kind
    d["limit"] = str(q.limit)
    for c in q.CONTROLS:
        d[c.name] = c.describe(getattr(q, c.field))
    d["duration"] = f"{sc.run.duration_s:g} s"
    d["seed"] = str(sc.run.seed)
    d["engine"] = sc.run.engine
    return d


def short_label(desc: dict[str, str]) -> str:
    """A one-run label: queue, TCP and load, e.g. ``droptail 100p, reno, 10 flows``."""
    load = next((f"{desc[k]} {k}" for k in ("flows", "load", "users", "transfers")
                 if k in desc), desc.get("traffic", ""))
    ecn = "+ECN" if desc.get("ECN") == "on" else ""
    return f"{desc.get('queue', '?')} {desc.get('limit', '')}, {desc.get('tcp', '?')}{ecn}, {load}"


def diff_labels(descs: list[dict[str, str]]) -> list[str]:
    """One legend label per run, naming only the parameters that differ between runs.

    A parameter that some runs lack (RED's ``max_p`` next to a CoDel run) is left out of
    the label when the kind already differs. With one run, or runs that do not differ,
    :func:`short_label` is used (identical runs get ``#k`` appended).
    """
    if not descs:
        return []
    keys: list[str] = []
    for d in descs:
        keys.extend(k for k in d if k not in keys)
    differing = [k for k in keys if len({d.get(k) for d in descs}) > 1]
    if len(descs) == 1 or not differing:
        labels = [short_label(d) for d in descs]
        if len(descs) > 1:
            labels = [f"{lab} #{i + 1}" for i, lab in enumerate(labels)]
        return labels
    # a parameter only some runs have is implied by a differing kind: skip it then
    parent = {k.split(".", 1)[1]: "traffic" if k.split(".", 1)[0] in traffic_kinds()
              else "queue" for k in controls()}
    parent["transfers"] = "traffic"
    shown = []
    for k in differing:
        partial = any(k not in d for d in descs)
        if partial and parent.get(k) in differing:
            runs_with = [d for d in descs if k in d]
            if len({d[k] for d in runs_with}) <= 1:
                continue
        shown.append(k)
    labels = []
    for d in descs:
        parts = [f"{k}={d[k]}" for k in shown if k in d]
        labels.append(", ".join(parts) if parts else short_label(d))
    return labels


# -- summary ---------------------------------------------------------------------------------

def _f(x: Any) -> float:
    try:
        v = float(x)
    except (TypeError, ValueError):
        return math.nan
    return v


def response_times(res: Any) -> np.ndarray:
    """Completed response times (s) of requests that started after the warm-up."""
    req = res.requests
    if req is None or len(req) == 0 or "response_time_s" not in req:
        return np.array([])
    sel = req[req["completed"].astype(bool) & req["after_warmup"].astype(bool)]
    return np.sort(sel["response_time_s"].to_numpy(dtype=float))


def summary_row(res: Any) -> dict[str, Any]:
    """The headline numbers of one run (Results) for the explorer's table."""
    s = res.summary.iloc[0].to_dict() if len(res.summary) else {}
    q = res.queues.iloc[0].to_dict() if len(res.queues) else {}
    row: dict[str, Any] = {
        "goodput (Mb/s)": _f(s.get("goodput_mbps")),
        "utilisation": _f(s.get("utilisation")),
        "loss (%)": 100 * _f(s.get("loss_rate")),
        "marks (%)": 100 * _f(s.get("mark_rate")),
        "avg queue (pkts)": _f(s.get("avg_qlen_pkts")),
        "avg queue delay (ms)": 1e3 * _f(q.get("avg_delay_s")),
        "timeouts": _f(s.get("timeouts")),
        "fairness (Jain)": _f(s.get("jain_fairness")),
    }
    rt = response_times(res)
    if len(rt) or res.scenario.traffic[0].n_flows == 0:
        req = res.requests
        n_after = int(req["after_warmup"].sum()) if len(req) else 0
        row["goodput (Mb/s)"] = math.nan  # web: bytes are in requests, not flows
        row["timeouts"] = math.nan  # counted per response below
        after = req[req["after_warmup"].astype(bool)] if len(req) else req
        row.update({
            "responses": float(n_after),
            "median response (ms)": 1e3 * float(np.median(rt)) if len(rt) else math.nan,
            "p90 response (ms)": 1e3 * float(np.quantile(rt, 0.9)) if len(rt) else math.nan,
            "responses with loss (%)": 100 * _f(s.get("share_responses_with_loss")),
            "responses with timeout (%)": (100 * float(after["timeout"].mean())
                                           if n_after else math.nan),
            "incomplete (%)": 100 * (1 - len(rt) / n_after) if n_after else math.nan,
        })
    return row


#: Decimals kept by :func:`summary_frame` (others: 2).
_DECIMALS = {"utilisation": 3, "fairness (Jain)": 3, "loss (%)": 3, "marks (%)": 3}


def summary_frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    """Rows -> a DataFrame, rounded for reading, without all-NaN columns."""
    df = pd.DataFrame(rows).dropna(axis=1, how="all")
    for col in df.columns:
        if pd.api.types.is_float_dtype(df[col]):
            df[col] = df[col].round(_DECIMALS.get(col, 2))
    return df
