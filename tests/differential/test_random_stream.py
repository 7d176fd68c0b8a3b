"""ns-2.35's default random stream on ns-3 (``run.random_stream = "ns2"``, cpp/ns2_rng.h).

ns-2.35 draws RED's early-drop tests (red.cc drop_early()) and the senders' processing
times (tcp.cc send_much(), ``overhead_``) from its one default generator in event order.
With ``random_stream = "ns2"`` the ns-3 engine draws them from the same MRG32k3a stream,
seeded as the ns-2 engine seeds it. At Pentikousis' aggressive RED, limit 8 (2 MiB, seed 1)
the packet sequences of the five downloads (1 ms apart at most) part at 7.78 s with ns-3's
own streams and match to 41.26 s with the shared one, also to the traces' microsecond
(with the plan's whole-bit-per-second rates: 1.5 Mb/s x 1.028767 had been 1,543,150.5 b/s
on ns-2 and 1,543,150 on ns-3, a drift of 1.6 us every 5 s).
"""

from __future__ import annotations

import functools
import subprocess

from aqmlab.engines.flow_trace import flow_trace
from aqmlab.engines.ns2.runner import binary
from aqmlab.engines.ns3 import native
from aqmlab.studies.setups import pentikousis
from aqmlab.workload.tick_phase import ns2_seed
from tests.differential.packets import data_packets, parting_time
from tests.differential.scenarios import MARKS

pytestmark = MARKS
FLOWS = [0, 1, 2, 3, 4]
CASES = [(1, 1), (1, 2), (2, 3), (12345, 1), (987654321, 5), (2**31 - 2, 2), (2**32 - 1, 3)]


@functools.cache
def _run(engine: str, stream: str):
    sc = pentikousis.base("2MiB").replace(**dict(pentikousis.scheme_arm("aggr-red", 8).changes))
    return flow_trace(sc.replace(**{"run.engine": engine, "run.random_stream": stream}), FLOWS)


def test_ns2rng_draws_as_ns235(tmp_path):
    """50 draws after the ns-2 engine's seeding (seed mod 2^31 - 1, run - 1 substreams):
    ``next-random`` is int(2^31 U) of the same U."""
    tcl = ""
    for seed, run in CASES:
        tcl += f"set r [new RNG]; $r seed {ns2_seed(seed)}; "
        tcl += "$r next-substream; " * (run - 1)
        tcl += "set o {}; for {set i 0} {$i < 50} {incr i} { lappend o [$r next-random] }\n"
        tcl += "puts $o\n"
    script = tmp_path / "rng.tcl"
    script.write_text(tcl)
    out = subprocess.run([binary(), str(script)], capture_output=True, text=True, check=True,
                         cwd=tmp_path).stdout.splitlines()
    cpp = native.load()
    for (seed, run), line in zip(CASES, out, strict=True):
        g = cpp.Ns2Rng()
        cpp.SeedNs2Run(g, ns2_seed(seed), run)
        assert [int(2**31 * g.U01()) for _ in range(50)] == [int(x) for x in line.split()]


def test_red_early_drops_share_ns2s_draws():
    """With ns-3's streams the downloads part before 10 s; with ns-2's they match past 40 s."""
    ev2 = _run("ns2", "ns2")[1]
    for stream, lo, hi in (("ns3", 0.0, 10.0), ("ns2", 40.0, float("inf"))):
        ev3 = _run("ns3", stream)[1]
        first = min(parting_time(data_packets(ev2, f), data_packets(ev3, f), tol=1.5e-6)
                    for f in FLOWS)
        assert lo <= first <= hi, (stream, first)
