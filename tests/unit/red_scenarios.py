"""A small dumbbell around one bottleneck queue, shared by the tests of RED's ns-2 rules."""

from __future__ import annotations

from typing import Any

from aqmlab.scenario import Bulk, Dumbbell, RunControl, Scenario


def dumbbell(q: Any, **kw: Any) -> Scenario:
    """Two bulk flows through ``q`` for 5 s; ``kw`` are further Scenario fields (e.g. tcp)."""
    return Scenario(topology=Dumbbell(senders=2, forward_queue=q), traffic=[Bulk(flows=2)],
                    run=RunControl(duration="5s"), **kw)
