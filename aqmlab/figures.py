"""Batch figure regeneration (``make figures`` / ``aqmlab figures``): the study notebooks.

Every study of :data:`aqmlab.studies.STUDIES` is a notebook in ``notebooks/``; this runs
them with papermill (:func:`aqmlab.notebooks.regenerate`) in a profile:

* ``quick`` (``make figures``): short runs, few points, one seed; all seven notebooks in
  about 20 minutes on 2 cores;
* ``full``: the papers' grids and run lengths (CPU-hours per study in
  ``notebooks/README.md``; use ``--scheduler`` to spread them over a Dask cluster);
* ``tiny``: seconds per notebook, for CI.

The runs of all selected studies execute first, through one executor and longest first
(shared runs once); then each notebook executes, reading its runs from the store, and is
kept as ``<out>/<study>/<study>.ipynb`` beside its figures (PNG, SVG and the data as CSV)
and ``claims.csv``. A failing notebook is reported with its cell and error; the others run.
``--stored-only`` simulates nothing: figures and claims from the runs already stored, to
look at a long campaign while it runs (its claim tables are marked interim).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from aqmlab.notebooks import Report

__all__ = ["regenerate", "estimate"]


def regenerate(profile: str = "quick", out: str | Path = "figures",
               workers: int | None = None, scheduler: str | None = None,
               only: Sequence[str] | None = None, store: str | Path = "data",
               params: Mapping[str, Any] | None = None, stored_only: bool = False) -> Report:
    """Run the study notebooks (all, or ``only`` these) in ``profile`` into ``out``;
    ``params`` override notebook parameters (e.g. ``{"seeds": [1]}``); ``stored_only``:
    simulate nothing, draw what the store has (interim claims say what is missing)."""
    from aqmlab.notebooks import regenerate as run  # noqa: PLC0415

    return run(profile, out, store, workers, scheduler, only, params=params,
               stored_only=stored_only)


def estimate(profile: str = "full", only: Sequence[str] | None = None,
             store: str | Path = "data", params: Mapping[str, Any] | None = None
             ) -> list[dict]:
    """Per study: runs planned, runs missing from the store and the estimated CPU-hours of
    the missing ones (:func:`aqmlab.campaign.estimate_cost`); for the runs already stored, the
    measured CPU-hours (``run_cpu_s``) beside the model's figure for them, so the estimate
    can be judged."""
    from aqmlab.campaign import Store, estimate_cost  # noqa: PLC0415
    from aqmlab.notebooks import check_params, plan  # noqa: PLC0415
    from aqmlab.studies import STUDIES  # noqa: PLC0415

    st = Store(store)
    rows, seen = [], set()
    names = list(only or STUDIES)
    check_params(names, params or {})
    for name in names:
        points = {p.key: p for spec in plan([name], profile, store, params)
                  for p in spec.points()}
        new = [p for k, p in points.items() if k not in seen]
        seen |= set(points)
        stored = {p.key: p for p in new if st.check(p.key)[0] == "ok"}
        missing = [p for p in new if p.key not in stored]
        cpu = {k: st.summary(k).get("run_cpu_s") for k in stored}
        timed = [k for k, v in cpu.items() if v is not None]
        rows.append({"study": name, "runs": len(points), "new": len(new),
                     "missing": len(missing),
                     "cpu_hours": round(sum(estimate_cost(p.scenario) for p in missing) / 3600, 2),
                     "stored": len(stored),
                     "stored_cpu_hours": sum(float(cpu[k]) for k in timed) / 3600,
                     "stored_model_hours": sum(estimate_cost(stored[k].scenario)
                                               for k in timed) / 3600})
    return rows
