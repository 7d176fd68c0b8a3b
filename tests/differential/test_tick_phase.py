"""The RTO clock's tick phase: flow i's ``boot_time_`` is the same draw on both engines.

ns-2.35 keeps round-trip times in ticks of ``tcpTick_`` on a clock whose phase each agent
draws from the default generator at its start-of-run reset. Before 0.7.0 ns-2.35's draws
depended on the script (flow i got draw 5+i of seed 1) and aqmlab's ns-3 hashed the seed
and ports: the same distribution, other values. At Pentikousis' drop-tail limit 64
(2 MiB, seed 1) the runs parted at 3.16 s, when flow 4's RTT samples counted 5 ticks on
ns-3 where ns-2.35's counted 4 and its timeout came one tick (0.1 s) late; over the 20-MiB
downloads 386 drops and 73 timeouts on ns-3 against 378 and 83. Now the plan gives each
bulk flow a seed (``aqmlab.workload.tick_phase``), the ns-2 engine reseeds the generator
with it before the agent's reset and ns-3 computes that draw.
"""

from __future__ import annotations

import functools
import subprocess

import pytest

from aqmlab.engines.flow_trace import flow_trace
from aqmlab.engines.ns2.runner import binary
from aqmlab.studies.setups import pentikousis
from aqmlab.workload.tick_phase import MAX_SEED, first_uniform
from tests.differential.packets import data_packets, parting_index
from tests.differential.scenarios import MARKS

pytestmark = MARKS
FLOWS = [0, 1, 2, 3, 4]
SEEDS = [1, 2, 12345, 987654321, MAX_SEED]


@functools.cache
def _run(engine: str, ql: int, size: str):
    sc = pentikousis.base(size).replace(**dict(pentikousis.scheme_arm("dt", ql).changes))
    return flow_trace(sc.replace(**{"run.engine": engine}), FLOWS)


def test_first_uniform_is_ns235s_first_draw(tmp_path):
    """ns-2.35's ``next-random`` after ``seed s`` is int(2^31 U) of the same U."""
    script = tmp_path / "rng.tcl"
    script.write_text("".join(f"set r [new RNG]; $r seed {s}; puts [$r next-random]\n"
                              for s in SEEDS))
    out = subprocess.run([binary(), str(script)], capture_output=True, text=True,
                         check=True, cwd=tmp_path).stdout.split()
    assert [int(x) for x in out] == [int(2**31 * first_uniform(s)) for s in SEEDS]


def test_drop_tail_64_times_out_on_the_same_tick():
    """The timeout that came a tick late at 3.16 s (2 MiB) now comes at the same instant,
    and every flow sends the same packets at the same times to the end of the run."""
    for size in ("2MiB", "20MiB"):
        res2, ev2 = _run("ns2", 64, size)
        res3, ev3 = _run("ns3", 64, size)
        first_done = float(res2.flows.completion_time_s.min())
        to = [ev[(ev.flow == 4) & (ev.event == "timeout") & (ev.t < 3.3)].t.tolist()
              for ev in (ev2, ev3)]
        assert len(to[0]) == len(to[1]) == 1 and to[0][0] == pytest.approx(to[1][0], abs=1e-6)
        for f in FLOWS:
            a, b = data_packets(ev2, f), data_packets(ev3, f)
            i = parting_index(a, b)
            assert i == min(len(a), len(b)) or a.t[i] > first_done - 1, (size, f, a.t[i])
        if size == "20MiB":
            for res in (res2, res3):
                assert int(res.queues.iloc[0].drops) == 386
                assert int(res.flows.timeouts.sum()) == 73
                assert int(res.flows.retransmitted_packets.sum()) == 457
