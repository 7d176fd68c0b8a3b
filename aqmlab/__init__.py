"""aqmlab: the classic TCP / active-queue-management studies, runnable on ns-3.

Importing aqmlab never imports ns-3: simulations run in worker processes that do.

>>> import aqmlab
>>> sc = aqmlab.Scenario.load("examples/qiu_t1_dumbbell.toml")
>>> res = aqmlab.run(sc)          # doctest: +SKIP
>>> res.summary                   # doctest: +SKIP
>>> sw = aqmlab.sweep(sc, grid={"traffic[0].flows": [20, 50]}, seeds=[1, 2])  # doctest: +SKIP
>>> sw.table                      # doctest: +SKIP
"""

from __future__ import annotations

from typing import Any

__version__ = "0.2.3"

_LAZY = {
    "Scenario": "aqmlab.scenario",
    "Dumbbell": "aqmlab.scenario",
    "ParkingLot": "aqmlab.scenario",
    "Link": "aqmlab.scenario",
    "Tcp": "aqmlab.scenario",
    "RunControl": "aqmlab.scenario",
    "Bulk": "aqmlab.scenario",
    "Transfers": "aqmlab.scenario",
    "DropTail": "aqmlab.scenario",
    "Red": "aqmlab.scenario",
    "Ared": "aqmlab.scenario",
    "CoDel": "aqmlab.scenario",
    "FqCoDel": "aqmlab.scenario",
    "Pie": "aqmlab.scenario",
    "run": "aqmlab.run",
    "Results": "aqmlab.results.results",
    "load": "aqmlab.results.results",
    "sweep": "aqmlab.campaign",
    "Sweep": "aqmlab.campaign",
    "SweepResult": "aqmlab.campaign",
    "Store": "aqmlab.campaign",
    "explore": "aqmlab.widgets",
}

__all__ = sorted(_LAZY) + ["__version__"]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'aqmlab' has no attribute {name!r}")
    import importlib  # noqa: PLC0415

    return getattr(importlib.import_module(module), name)
