"""Differential tests: the same scenario on ns-3 and ns-2.35 (run in this process, one at a
time). ``record`` keeps each test's distances between the engines in
``tests/differential/artifacts/distances.jsonl`` (git-ignored), one JSON line per case."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from aqmlab import engines
from aqmlab.engines import ns2
from aqmlab.results.results import Results
from aqmlab.scenario import Scenario
from aqmlab.studies.distances import distance

ARTIFACTS = Path(__file__).resolve().parent / "artifacts"


def pytest_collection_modifyitems(items):
    skip = pytest.mark.skip(reason="ns-2 (`ns`) is not installed: `make ns2`")
    for item in items:
        if "differential" in str(item.fspath) and not ns2.available():
            item.add_marker(skip)


@pytest.fixture(scope="session")
def both(simulate):
    """``both(scenario) -> (ns-3 Results, ns-2.35 Results)`` of one scenario."""

    def run(scenario: Scenario) -> tuple[Results, Results]:
        a = simulate(scenario.replace(**{"run.engine": "ns3"}))
        b = engines.simulate(scenario.replace(**{"run.engine": "ns2"}))
        return a, b

    return run


@pytest.fixture
def record(request):
    """``record(ns3_results, ns2_results, **extra)``: write the engines' distance."""

    def write(a: Results, b: Results, **extra: object) -> dict[str, float]:
        d = distance(a, b)
        ARTIFACTS.mkdir(exist_ok=True)
        line = {"test": request.node.name, **{k: round(v, 4) for k, v in d.items()},
                **extra}
        with open(ARTIFACTS / "distances.jsonl", "a", encoding="utf-8") as f:
            f.write(json.dumps(line) + "\n")
        print(line)
        return d

    return write
