"""The planned RTO tick phase of bulk flows (aqmlab.workload.tick_phase), without a simulator."""

from __future__ import annotations

import re

import pytest

from aqmlab.engines.ns2 import tcl
from aqmlab.plan import make_plan
from aqmlab.scenario import Bulk, Dumbbell, RunControl, Scenario
from aqmlab.workload.tick_phase import MAX_SEED, boot_seed, first_uniform


def test_first_uniform_is_mrg32k3a_from_an_all_equal_state():
    """Seed 1: p1 = 1403580 - 810728, p2 = 527612 - 1370589 mod m2, u = (p1 - p2 + m1) / (m1 + 1)."""
    m1, m2 = 4294967087, 4294944443
    p1, p2 = 1403580 - 810728, (527612 - 1370589) % m2
    assert first_uniform(1) == (p1 - p2 + m1) / (m1 + 1)
    us = [first_uniform(s) for s in range(1, 2000, 7)] + [first_uniform(MAX_SEED)]
    assert all(0 < u < 1 for u in us)


@pytest.mark.parametrize("bad", [0, -1, MAX_SEED + 1])
def test_first_uniform_refuses_what_ns2_refuses(bad):
    with pytest.raises(ValueError, match="ns-2 seed"):
        first_uniform(bad)


def test_boot_seeds_are_per_flow_seed_and_run():
    seeds = {boot_seed(s, r, f) for s in (1, 2) for r in (1, 2) for f in range(50)}
    assert len(seeds) == 200 and all(1 <= s <= MAX_SEED for s in seeds)
    assert boot_seed(7, 1, 3) == boot_seed(7, 1, 3)


def test_the_plan_and_the_ns2_script_carry_each_flows_seed():
    sc = Scenario(topology=Dumbbell(senders=3), traffic=[Bulk(flows=3)],
                  run=RunControl(duration="5s", seed=4, run=2))
    plan = make_plan(sc)
    assert [f.boot_seed for f in plan.flows] == [boot_seed(4, 2, i) for i in range(3)]
    text = tcl.script_text(sc, plan)
    lines = re.findall(r"^aq_flow .* (\d+)$", text, re.M)
    assert [int(x) for x in lines] == [f.boot_seed for f in plan.flows]
    assert re.search(r"^proc aq_seed_run \{\} \{ global defaultRNG; \$defaultRNG seed 4; "
                     r"for .*next-substream \}", text, re.M)
