"""``aqmlab.explore()``: an ipywidgets explorer of one dumbbell, run without freezing the kernel.

The controls are turned into a :class:`~aqmlab.scenario.Scenario` on every change (see
:mod:`aqmlab.widgets.model`); an invalid combination disables *Run* and shows the
ScenarioError's message. *Run* looks the scenario up in the result store (key =
``scenario.key``), otherwise submits it to a worker process and polls it from a background
thread that also updates the progress bar; the figure (PNG in an Image widget) and the
summary table (HTML) then show the last few runs, labelled by what differs between them.
"""

from __future__ import annotations

import concurrent.futures
import html
import math
import os
import threading
import time
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import ipywidgets as W
import pandas as pd

from aqmlab.campaign.store import Store
from aqmlab.errors import StoreError
from aqmlab.kinds.controls import Control
from aqmlab.scenario import TCP_VARIANTS, Scenario
from aqmlab.widgets import model
from aqmlab.widgets.model import (
    COMMON,
    Settings,
    controls,
    queue_kinds,
    tcp_choices,
    traffic_kinds,
)
from aqmlab.widgets.plots import COLORS, Curve, render_png
from aqmlab.workers import default_runner

__all__ = ["Explorer", "RunRecord", "explore"]

#: First-run allowance (s) for starting the worker: import ns-3, JIT aqmlab's C++.
STARTUP_S = 15.0
_STYLE = {"description_width": "150px"}
_WIDTH = "320px"
_POLL_S = 0.25


@dataclass
class RunRecord:
    """One run shown by the explorer."""

    number: int
    scenario: Scenario
    results: Any
    source: str  # "run" | "store" | "memory"
    wall_s: float

    @property
    def color(self) -> str:
        return COLORS[(self.number - 1) % len(COLORS)]


def _log10(x: float) -> float:
    return math.log10(x) if x > 0 else 0.0


def _css(name: str) -> str:
    return "aqmlab-" + name.replace("_", "-").replace(".", "-")


def _kind_widget(c: Control, value: float, slider: bool, layout: dict[str, Any]) -> W.Widget:
    """A kind's control: a slider for the traffic's size, a bounded box for parameters."""
    lo, hi = min(c.lo, value), max(c.hi, value)
    if slider:
        cls = W.IntSlider if c.integer else W.FloatSlider
        extra = {} if c.integer else {"readout_format": ".2f"}
        return cls(value=value, min=lo, max=hi, step=c.step, description=c.label,
                   continuous_update=False, **extra, **layout)
    cls = W.BoundedIntText if c.integer else W.BoundedFloatText
    return cls(value=value, min=lo, max=hi, step=c.step, description=c.label, **layout)


def _controls(s: Settings) -> dict[str, W.Widget]:
    """One widget per common control and per kind control (``"<kind>.<name>"``), each with
    its CSS class ``aqmlab-<name>`` (dots and underscores as dashes)."""
    # every widget needs a Layout of its own: hiding one must not hide the others
    def cu() -> dict[str, Any]:
        return {"continuous_update": False, **txt()}

    def txt() -> dict[str, Any]:
        return {"style": _STYLE, "layout": W.Layout(width=_WIDTH)}

    c: dict[str, W.Widget] = {
        "rate_mbps": W.FloatLogSlider(value=s.rate_mbps, base=10, min=min(-0.3, _log10(s.rate_mbps)),
                                      max=max(3, _log10(s.rate_mbps)), step=0.05,
                                      description="bottleneck (Mb/s)", readout_format=".3g",
                                      **cu()),
        "rtt_ms": W.IntSlider(value=int(s.rtt_ms), min=6, max=max(500, int(s.rtt_ms)), step=2,
                              description="base RTT (ms)", **cu()),
        "traffic": W.Dropdown(options=[(cls.EXPLORER.label, k)
                                       for k, cls in traffic_kinds().items()],
                              value=s.traffic, description="traffic", **txt()),
        "variant": W.Dropdown(options=tcp_choices(), value=s.variant,
                              description="TCP variant", **txt()),
        "sack": W.Checkbox(value=s.sack, description="SACK", indent=True, style=_STYLE,
                           layout=W.Layout(width="auto")),
        "ecn": W.Checkbox(value=s.ecn, description="ECN marking", indent=True,
                          style=_STYLE, layout=W.Layout(width="auto")),
        "queue": W.Dropdown(options=[(cls.LABEL or k, k) for k, cls in queue_kinds().items()],
                            value=s.queue, description="queue", **txt()),
        "limit": W.BoundedIntText(value=s.limit, min=1, max=100000, step=10,
                                  description="buffer limit (pkts)", **txt()),
        "duration_s": W.BoundedFloatText(value=s.duration_s, min=1, max=3600, step=5,
                                         description="duration (s)", **txt()),
        "seed": W.BoundedIntText(value=s.seed, min=1, max=2**31 - 1, description="seed", **txt()),
        "engine": W.Dropdown(options=[("ns-3", "ns3"), ("ns-2.35 (the papers')", "ns2")],
                             value=s.engine, description="simulator", **txt()),
    }
    traffic_keys = set(traffic_kinds())
    for key, control in controls().items():
        slider = key.split(".", 1)[0] in traffic_keys
        c[key] = _kind_widget(control, s.params[key], slider, txt())
    for name, w in c.items():
        w.add_class(_css(name))
        w.add_class("aqmlab-control")
    return c


#: Scenario field paths -> the common control that sets them (to name it in a message).
_FIELD_CONTROL = {
    "topology.forward_queue.limit": "limit",
    "topology.bottleneck.rate": "rate_mbps",
    "topology.bottleneck.delay": "rtt_ms",
    "tcp.ecn": "ecn",
    "tcp.variant": "variant",
    "run.duration": "duration_s",
    "run.seed": "seed",
    "run.engine": "engine",
}


def _control_for(field: str, s: Settings) -> str:
    """The control to change for a ScenarioError on ``field`` under settings ``s``: a
    common control, or the selected queue's or traffic's control of that field."""
    if field in _FIELD_CONTROL:
        return _FIELD_CONTROL[field]
    queues = queue_kinds()
    queue_field = field.removeprefix("topology.forward_queue.")
    for c in queues[s.queue].CONTROLS if s.queue in queues else ():
        if c.field == queue_field:
            return f"{s.queue}.{c.name}"
    traffic = traffic_kinds().get(s.traffic)
    if traffic is not None:
        name = traffic.EXPLORER.control.name
        if field in (name, f"traffic[0].{name}", "traffic[0].rate"):
            return f"{s.traffic}.{name}"
    return field


class Explorer:
    """The explorer: ``.widget`` is the ipywidgets tree (displaying the Explorer shows it).

    ``store``: a :class:`~aqmlab.campaign.store.Store`, its root folder (default
    ``"data"``, as ``aqmlab sweep``), or None for an in-memory cache only. ``runner``: an
    object with ``submit(scenario) -> Future`` of Results (default: the worker process
    that :func:`aqmlab.run` uses, :func:`~aqmlab.workers.default_runner`). ``max_runs``
    runs stay overlaid. Keyword arguments set the initial controls (see
    :class:`~aqmlab.widgets.model.Settings`).
    """

    def __init__(self, *, store: Store | str | os.PathLike | None = "data",
                 runner: Any = None, max_runs: int = 4, **settings: Any) -> None:
        self.store = (store if isinstance(store, Store) or store is None
                      else Store(Path(store)))
        self._runner = runner
        self.runs: deque[RunRecord] = deque(maxlen=max_runs)
        self._memory: dict[str, Any] = {}
        self._counter = 0
        self._lock = threading.RLock()
        self._thread: threading.Thread | None = None
        self._sim_speed: float | None = None  # wall seconds per simulated second
        self._warm = False
        self._syncing = False
        self.last_error = ""
        self.controls = _controls(Settings(**settings))
        self._build()
        for w in self.controls.values():
            w.observe(self._on_change, names="value")
        self._on_change()

    # -- layout ------------------------------------------------------------------------------

    def _build(self) -> None:
        c = self.controls
        self.web_note = W.HTML(
            "<small>Web load is approximate: connection rate = load &times; bottleneck rate "
            "/ 80 kbit (a PackMime connection carries about 10 kB); the table shows the "
            "utilisation reached.</small>", layout=W.Layout(width="320px"))
        self.web_note.add_class("aqmlab-web-note")
        self.run_button = W.Button(description="Run", button_style="primary", icon="play",
                                   tooltip="simulate these settings (or load them from the "
                                           "result store)")
        self.run_button.add_class("aqmlab-run")
        self.clear_button = W.Button(description="Clear", icon="trash",
                                     tooltip="forget the runs shown")
        self.clear_button.add_class("aqmlab-clear")
        self.keep = W.Checkbox(value=True, description="overlay earlier runs", indent=False)
        self.keep.add_class("aqmlab-keep")
        self.progress = W.FloatProgress(value=0, min=0, max=1, description="",
                                        layout=W.Layout(width="300px", visibility="hidden"))
        self.progress.add_class("aqmlab-progress")
        self.elapsed = W.HTML("")
        self.elapsed.add_class("aqmlab-elapsed")
        self.message = W.HTML("")
        self.message.add_class("aqmlab-message")
        self.status = W.HTML("<i>Set the controls and press Run.</i>")
        self.status.add_class("aqmlab-status")
        self.plot = W.Image(format="png", layout=W.Layout(max_width="100%"))
        self.plot.add_class("aqmlab-plot")
        self.plot_box = W.Box([W.HTML("<i>No run yet.</i>")])
        self.summary = W.HTML("")
        self.summary.add_class("aqmlab-summary")
        self.toml = W.HTML("")
        self.toml.add_class("aqmlab-toml")
        self.run_button.on_click(lambda _b: self.run())
        self.clear_button.on_click(lambda _b: self.clear())

        def box(title: str, *children: W.Widget) -> W.VBox:
            return W.VBox([W.HTML(f"<b>{title}</b>"), *children],
                          layout=W.Layout(margin="0 12px 0 0"))

        traffic_keys = set(traffic_kinds())
        kind_controls = list(controls())
        net = box("Network &amp; traffic", c["rate_mbps"], c["rtt_ms"], c["traffic"],
                  *(c[k] for k in kind_controls if k.split(".", 1)[0] in traffic_keys),
                  self.web_note)
        q = box("TCP &amp; queue", c["variant"], c["sack"], c["ecn"], c["queue"], c["limit"],
                *(c[k] for k in kind_controls if k.split(".", 1)[0] not in traffic_keys))
        run = box("Run", c["engine"], c["duration_s"], c["seed"], self.keep,
                  W.HBox([self.run_button, self.clear_button]), self.progress, self.elapsed)
        details = W.Accordion([self.toml], titles=("Scenario (TOML) of the current settings",),
                              selected_index=None)
        self.widget = W.VBox([W.HBox([net, q, run]), self.message, self.status,
                              self.plot_box, self.summary, details])
        self.widget.add_class("aqmlab-explorer")

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return self.widget._repr_mimebundle_(**kwargs)

    # -- controls -> settings ----------------------------------------------------------------

    @property
    def settings(self) -> Settings:
        c = self.controls
        return Settings({k: c[k].value for k in controls()},
                        **{k: c[k].value for k in COMMON})

    def set(self, **values: Any) -> Explorer:
        """Set controls as a user would: by common name (``queue``, ``flows``...), by a
        kind's control key or by its bare name for the selected kind (``min_th`` of RED);
        returns self."""
        for k in ("queue", "traffic"):  # first: they decide what a bare name means
            if k in values:
                self.controls[k].value = values[k]
        for k, v in values.items():
            if k in ("queue", "traffic"):
                continue
            if k not in self.controls:
                k = self.settings.param_key(k)
            self.controls[k].value = v
        return self

    def _on_change(self, change: dict | None = None) -> None:
        if self._syncing:
            return
        c = self.controls
        self._syncing = True
        try:
            if change is not None and change.get("owner") is c["sack"]:
                # SACK is a property of the variant: reno/newreno <-> sack.
                v = c["variant"].value
                if change["new"] and v in ("reno", "newreno"):
                    c["variant"].value = "sack"
                elif not change["new"] and v == "sack":
                    c["variant"].value = "reno"
            variant = c["variant"].value
            c["sack"].value = TCP_VARIANTS[variant].sack
            c["sack"].disabled = variant not in ("reno", "newreno", "sack")
            c["sack"].description = ("SACK" if not c["sack"].disabled
                                     else f"SACK (always with {variant})")
        finally:
            self._syncing = False
        s = self.settings
        selected = set(s.selected_params())
        for key in controls():
            _show(c[key], key in selected)
        _show(self.web_note, s.traffic == "web")
        self.validation = model.check(s)
        self._render_message()
        if self.validation.ok:
            self.toml.value = f"<pre>{html.escape(self.validation.scenario.to_toml(), quote=False)}</pre>"
        self._update_run_button()

    def _render_message(self) -> None:
        chk = self.validation
        parts = []
        if not chk.ok:
            w = self.controls.get(_control_for(chk.field, self.settings))
            where = f" &mdash; change <b>{html.escape(w.description)}</b>" if w else ""
            parts.append(f"<div class='aqmlab-invalid' style='color:#b00020'>&#9888; Cannot "
                         f"run: {html.escape(chk.error)}{where}</div>")
        for note in chk.notes:
            parts.append(f"<div class='aqmlab-note' style='color:#8a5a00'><b>Note:</b> "
                         f"{html.escape(note)}</div>")
        self.message.value = "".join(parts)

    def _update_run_button(self) -> None:
        self.run_button.disabled = self.running or not self.validation.ok
        self.run_button.tooltip = (self.validation.error if not self.validation.ok
                                   else "running..." if self.running
                                   else "simulate these settings (or load them from the store)")

    # -- running -----------------------------------------------------------------------------

    @property
    def runner(self) -> Any:
        if self._runner is None:
            self._runner = default_runner()
        return self._runner

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def run(self) -> threading.Thread | None:
        """Start a run of the current settings in the background; returns its thread (None
        if the settings are invalid or a run is in progress). See :meth:`wait`."""
        if self.running or not self.validation.ok:
            return None
        sc = self.validation.scenario
        self._thread = threading.Thread(target=self._run, args=(sc,), daemon=True,
                                        name=f"aqmlab-explore-{sc.key}")
        self._update_run_button()
        self.run_button.disabled = True
        self.progress.value = 0
        self.progress.bar_style = "info"
        self.progress.layout.visibility = "visible"
        self.status.value = f"<i>Running {html.escape(sc.key)} ...</i>"
        self._thread.start()
        return self._thread

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the current run (if any) is shown; False on timeout."""
        t = self._thread
        if t is not None:
            t.join(timeout)
            return not t.is_alive()
        return True

    def _lookup(self, sc: Scenario) -> tuple[Any, str]:
        key = sc.key
        if key in self._memory:
            return self._memory[key], "memory"
        if self.store is not None:
            try:
                if self.store.check(key)[0] == "ok":
                    return self.store.load(key), "store"
            except (StoreError, OSError):
                pass  # corrupt or unreadable: run it again
        return None, ""

    def _estimate(self, sc: Scenario) -> float:
        est = sc.run.duration_s * (self._sim_speed if self._sim_speed is not None else 0.5)
        return est + (0 if self._warm else STARTUP_S)

    def _run(self, sc: Scenario) -> None:
        t0 = time.monotonic()
        try:
            res, source = self._lookup(sc)
            if res is None:
                fut = self.runner.submit(sc)
                est = self._estimate(sc)
                while not fut.done():
                    concurrent.futures.wait([fut], timeout=_POLL_S)
                    el = time.monotonic() - t0
                    self.progress.value = min(0.97, el / est) if est > 0 else 0.5
                    self.elapsed.value = (f"<span class='aqmlab-elapsed-s'>{el:.0f} s</span> "
                                          f"elapsed (about {est:.0f} s expected)")
                res = fut.result()
                source = "run"
                wall = time.monotonic() - t0
                if self._warm:
                    self._sim_speed = wall / max(sc.run.duration_s, 1e-9)
                self._warm = True
                self._save(res)
            wall = time.monotonic() - t0
            self._memory[sc.key] = res
            self._add(sc, res, source, wall)
            self.progress.bar_style = "success"
            self.progress.value = 1
            self.elapsed.value = (f"<span class='aqmlab-elapsed-s'>{wall:.1f} s</span> "
                                  + ("to simulate" if source == "run" else f"(from {source})"))
        except Exception as err:  # shown in the widget: a thread has no caller to raise to
            self.last_error = f"{type(err).__name__}: {err}"
            self.progress.bar_style = "danger"
            self.status.value = (f"<pre class='aqmlab-run-error' style='color:#b00020;"
                                 f"white-space:pre-wrap'>{html.escape(self.last_error)}</pre>")
        finally:
            self._thread_done()

    def _thread_done(self) -> None:
        self._thread = None
        self._update_run_button()

    def _save(self, res: Any) -> None:
        if self.store is None:
            return
        try:
            self.store.put(res, params=model.describe(res.scenario))
        except (OSError, StoreError) as err:
            self.status.value = f"<i>could not store the run: {html.escape(str(err))}</i>"

    def _add(self, sc: Scenario, res: Any, source: str, wall: float) -> None:
        with self._lock:
            shown = next((r for r in self.runs if r.scenario.key == sc.key), None)
            if shown is not None:
                self.status.value = (f"Already shown as run {shown.number} "
                                     f"(<code>{sc.key}</code>).")
                return
            self._counter += 1
            if not self.keep.value:
                self.runs.clear()
            self.runs.append(RunRecord(self._counter, sc, res, source, wall))
            where = {"run": f"simulated in {wall:.1f} s",
                     "store": f"loaded from the result store ({self.store.root})"
                     if self.store is not None else "loaded",
                     "memory": "already run in this session"}[source]
            self.status.value = (f"Run {self._counter}: <code>{sc.key}</code> {where}; "
                                 f"{int(res.meta.get('events', 0)):,} events.")
            self._redraw()

    def clear(self) -> None:
        """Forget the runs shown (the store keeps them)."""
        with self._lock:
            self.runs.clear()
            self._redraw()

    # -- output ------------------------------------------------------------------------------

    def labels(self) -> list[str]:
        return model.diff_labels([model.describe(r.scenario) for r in self.runs])

    def table(self) -> pd.DataFrame:
        """The summary table: one row per run shown."""
        rows = []
        for r, label in zip(self.runs, self.labels(), strict=True):
            rows.append({"run": r.number, "label": label,
                         "took": "store" if r.source != "run" else f"{r.wall_s:.1f} s",
                         **model.summary_row(r.results)})
        return model.summary_frame(rows)

    def _redraw(self) -> None:
        runs = list(self.runs)
        if not runs:
            self.plot_box.children = [W.HTML("<i>No run yet.</i>")]
            self.summary.value = ""
            return
        curves = [Curve(r.results, lab, r.color) for r, lab in zip(runs, self.labels(),
                                                                   strict=True)]
        self.plot.value = render_png(curves)
        self.plot_box.children = [self.plot]
        self.summary.value = _table_html(self.table(), [r.color for r in runs])


def _show(w: W.Widget, visible: bool) -> None:
    w.layout.display = None if visible else "none"


def _fmt(col: str, v: Any) -> str:
    if isinstance(v, str):
        return html.escape(v)
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return ""
    if col in ("run", "timeouts", "responses"):
        return f"{int(v):,}"
    if col == "utilisation" or col == "fairness (Jain)":
        return f"{v:.3f}"
    return f"{v:.3g}" if abs(v) < 1000 else f"{v:,.0f}"


def _table_html(df: pd.DataFrame, colors: list[str]) -> str:
    head = "".join(f"<th>{html.escape(c)}</th>" for c in df.columns)
    body = []
    for color, (_, row) in zip(colors, df.iterrows(), strict=True):
        cells = [f"<td><span style='color:{color};font-size:1.3em'>&#9632;</span> "
                 f"{_fmt('run', row['run'])}</td>"]
        cells += [f"<td>{_fmt(c, row[c])}</td>" for c in df.columns if c != "run"]
        body.append(f"<tr class='aqmlab-summary-row'>{''.join(cells)}</tr>")
    return ("<table class='aqmlab-summary-table' style='border-collapse:collapse'>"
            f"<thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"
            "<style>.aqmlab-summary-table td,.aqmlab-summary-table th{padding:2px 8px;"
            "border-bottom:1px solid #ddd;text-align:right}"
            ".aqmlab-summary-table td{white-space:nowrap}"
            ".aqmlab-summary-table td:nth-child(2),.aqmlab-summary-table th:nth-child(2)"
            "{text-align:left}</style>")


def explore(*, store: Store | str | os.PathLike | None = "data", runner: Any = None,
            max_runs: int = 4, **settings: Any) -> Explorer:
    """Open the explorer (display the returned object, e.g. as a cell's last expression).

    >>> ex = aqmlab.explore(queue="red", flows=20, duration_s=10)   # doctest: +SKIP
    """
    return Explorer(store=store, runner=runner, max_runs=max_runs, **settings)
