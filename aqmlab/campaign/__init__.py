"""Campaigns: parameter sweeps over scenarios, a content-addressed result store, executors.

>>> import aqmlab
>>> res = aqmlab.sweep("examples/qiu_t1_dumbbell.toml",                 # doctest: +SKIP
...                    grid={"traffic[0].flows": [20, 50, 100]}, seeds=[1, 2])
>>> res.table                                   # params + status + summary  # doctest: +SKIP
>>> res.results(0).flows                        # every run's full tables   # doctest: +SKIP
"""

from __future__ import annotations

from aqmlab.campaign.executors import DaskExecutor, Job, LocalExecutor
from aqmlab.campaign.grid import Point, Sweep, SweepError
from aqmlab.campaign.store import Store, version_tag
from aqmlab.campaign.sweep import StoreWarning, SweepResult, estimate_cost, sweep

__all__ = ["DaskExecutor", "Job", "LocalExecutor", "Point", "Store", "StoreWarning", "Sweep",
           "SweepError", "SweepResult", "estimate_cost", "sweep", "version_tag"]
