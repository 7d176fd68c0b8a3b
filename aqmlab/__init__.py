"""aqmlab: the classic TCP / active-queue-management studies, runnable on ns-3 (and on
ns-2.35, the papers' own simulator, for the set-ups it supports).

Importing aqmlab never imports a simulator: simulations run in worker processes that do.

>>> import aqmlab
>>> sc = aqmlab.Scenario.load("examples/qiu_t1_dumbbell.toml")
>>> res = aqmlab.run(sc)          # doctest: +SKIP
>>> res.summary                   # doctest: +SKIP
>>> sw = aqmlab.sweep(sc, grid={"traffic[0].flows": [20, 50]}, seeds=[1, 2])  # doctest: +SKIP
>>> sw.table                      # doctest: +SKIP
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.8.34"

#: The public API, by the module that defines it. Loaded on first use, so that
#: ``import aqmlab`` stays instant (the scenario model alone pulls in NumPy and pandas).
_API = {
    "Scenario": "aqmlab.scenario",
    "Dumbbell": "aqmlab.scenario",
    "ParkingLot": "aqmlab.scenario",
    "Link": "aqmlab.scenario",
    "Tcp": "aqmlab.scenario",
    "RunControl": "aqmlab.scenario",
    "run": "aqmlab.workers",
    "Results": "aqmlab.results.results",
    "load": "aqmlab.results.results",
    "sweep": "aqmlab.campaign",
    "Sweep": "aqmlab.campaign",
    "SweepResult": "aqmlab.campaign",
    "Store": "aqmlab.campaign",
    "explore": "aqmlab.widgets",
}
#: Registries whose kinds' classes are exported by class name (``aqmlab.Red``).
_KIND_REGISTRIES = (("aqmlab.kinds.queues", "QUEUES"), ("aqmlab.kinds.traffic", "TRAFFIC"))


def _kind_classes() -> dict[str, Any]:
    out = {}
    for module, registry in _KIND_REGISTRIES:
        for cls in getattr(importlib.import_module(module), registry).values():
            out[cls.__name__] = cls
    return out


def __getattr__(name: str) -> Any:
    module = _API.get(name)
    if module is not None:
        return getattr(importlib.import_module(module), name)
    kinds = _kind_classes() if not name.startswith("_") else {}
    if name in kinds:
        return kinds[name]
    raise AttributeError(f"module 'aqmlab' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *_API, *_kind_classes()])


__all__ = sorted(_API) + ["__version__"]
