"""The seven studies: thin notebooks over these modules (runs through the sweep API, figures
in one style with their data, and the papers' checkable claims).

A study is mostly data. Each study module has ``STUDY``, ``TITLE``, a frozen dataclass of
typed parameters with one instance per profile (``PROFILES``: tiny, quick, full;
``profile(name, **overrides)``, :mod:`.params`), its arms as :class:`~.arms.Arm` objects
(label = scenario name, dotted changes, tags), ``run(params, ctx)`` returning tidy frames
(with an ``arms`` frame of the tags), ``FIGURES`` (functions ``(data, out) -> Figure``) and
``claims(data, params) -> ClaimTable``, which evaluates the study's claim table
(``claim_tables/<study>.toml``: text, paper value, kind, tolerance, the named metric of the
module that measures it, the profiles that decide it; :mod:`.claims`). What studies share
lives in :mod:`.setups` (the papers' set-ups) and :mod:`.common`; no study imports another.
:func:`execute` runs a whole study without a notebook (what the notebooks do, cell by cell).

Adding a claim: a row in the study's TOML file and, if no metric of the module measures it
yet, a function registered with ``@METRICS``; reading the table checks names, ids, kinds and
profiles, and ``tests/unit/test_study_tables.py`` lists the claims each profile gives.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from types import ModuleType
from typing import Any

from aqmlab.studies.common import context

__all__ = ["STUDIES", "load_study", "execute"]

#: Study name -> module, in the order ``aqmlab figures`` runs them.
STUDIES = {
    "tail_drop_tuning": "tail_drop",
    "red_parameter_search": "red_search",
    "ecn_sack_web": "ecn_sack_web",
    "ecn_bulk": "ecn_bulk",
    "many_flows_regimes": "many_flows",
    "multiple_bottlenecks": "multiple_bottlenecks",
    "beyond_the_papers": "beyond",
    "ns2_vs_ns3": "ns2_vs_ns3",
}


def load_study(name: str) -> ModuleType:
    """The module of a study, by notebook name ("tail_drop_tuning") or module name."""
    module = STUDIES.get(name, name)
    if module not in STUDIES.values():
        raise KeyError(f"unknown study {name!r}; studies: {', '.join(STUDIES)}")
    return importlib.import_module(f"aqmlab.studies.{module}")


def execute(name: str, profile: str = "quick", out: str | Path = "figures",
            store: Any = "data", workers: int | None = None, scheduler: str | None = None,
            progress: bool = False, **overrides: Any) -> Any:
    """Run study ``name`` end to end (runs, figures, claims) without a notebook; returns
    its ClaimTable. Figures and ``claims.csv`` go to ``out/<notebook name>/``."""
    mod = load_study(name)
    nb = next((k for k, v in STUDIES.items() if v == mod.__name__.rsplit(".", 1)[1]), name)
    folder = Path(out) / nb
    p = mod.profile(profile, **overrides)
    with context(store=store, workers=workers, scheduler=scheduler, progress=progress) as ctx:
        data = mod.run(p, ctx)
    for fig in mod.FIGURES:
        fig(data, folder)
    table = mod.claims(data, p)
    table.save(folder / "claims.csv")
    return table
