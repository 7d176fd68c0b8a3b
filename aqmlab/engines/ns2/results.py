"""A whole ns-2 run as tidy :class:`~aqmlab.results.results.Results` (tests, benchmarks).

The same tables as :func:`aqmlab.run.worker.simulate_results` makes from an ns-3 run, from
the shared :mod:`aqmlab.results.tables`.
"""

from __future__ import annotations

import os
from typing import Any

from aqmlab.engines import ns2
from aqmlab.plan import make_plan
from aqmlab.results import tables
from aqmlab.results.results import Results, provenance
from aqmlab.scenario import Scenario


def run(scenario: Scenario, **kwargs: Any) -> Results:
    """Simulate ``scenario`` on ns-2 (``kwargs`` go to :func:`aqmlab.engines.ns2.simulate`)."""
    plan = make_plan(scenario)
    raw = ns2.simulate(scenario, plan, **kwargs)
    flows = tables.flows_table(scenario, plan, raw)
    queues = tables.queues_table(scenario, plan, raw)
    links = tables.links_table(raw)
    requests = tables.requests_table(scenario, plan, raw)
    summary = tables.summary_table(scenario, flows, queues, links, raw, requests, plan=plan)
    meta: dict[str, Any] = {**provenance(), "engine": ns2.NAME, "ns2_version": ns2.version(),
                            "key": scenario.key, "seed": scenario.run.seed,
                            "run": scenario.run.run, **raw.stats, "pid": os.getpid()}
    return Results(scenario=scenario, flows=flows, queues=queues, links=links,
                   queue_ts=tables.queue_ts_table(raw), summary=summary, meta=meta,
                   requests=requests)
