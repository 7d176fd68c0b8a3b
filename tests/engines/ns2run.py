"""Run a scenario on the ns-2 engine in this process (the tests' shortcut)."""

from __future__ import annotations

from typing import Any

from aqmlab import engines
from aqmlab.results.results import Results
from aqmlab.scenario import Scenario


def run(scenario: Scenario, **options: Any) -> Results:
    """``scenario`` on ns-2.35 (``run.engine = "ns2"``); ``options`` go to the engine
    (``workdir``, ``keep``)."""
    return engines.simulate(scenario.replace(**{"run.engine": "ns2"}), **options)
