"""The ns-2.35 engine: aqmlab scenarios on the papers' own simulator (Debian's ``ns``).

:func:`simulate` writes one Tcl script for the scenario's plan (:mod:`.tcl`, procs in
lib.tcl and web.tcl), runs ``ns`` in a subprocess in its own directory (:mod:`.runner`)
and parses the small files it writes into a :class:`~aqmlab.results.raw.RawRun`
(:mod:`.parse`) whose columns mean what the ns-3 engine's mean, so that
:mod:`aqmlab.results.tables` makes the same tables. :func:`check` refuses what ns-2.35
cannot honour, naming the field (:mod:`.support`); :mod:`.mapping` documents how every
queue and TCP field becomes an ns-2 variable.

Where the columns come from, and what ns-2 cannot give:

- Flows (bulk, transfers): the sender's ``ndatapack_`` (minus packet 0, ns-2's 40-byte
  ``syn_`` packet, which carries no payload), ``ndatabytes_``, ``nrexmitpack_``;
  timeouts: the TIMEOUT events of the agents' event trace (``nrexmit_`` leaves out those
  during recovery from an ECN echo) with data outstanding (at int(cwnd_) 0, an ECN-halved
  window's wait, only when the packet sent next had been seen at a probed queue before:
  :func:`.parse.read_timeouts`), minus the flow's packet-0 drops (each costs one
  timeout, and aqmlab counts data timeouts only); ``necnresponses_`` (ECN reductions);
  fast recoveries = ``ncwndcuts1_`` - ECN reductions - TIMEOUT events (every other
  window cut); ``cwr_recoveries`` is 0 (ns-2's Reno
  retransmits a loss found in CWR without a window cut and counts nothing).
  ``bytes_received``: the sink's in-order ``bytes_`` in whole segments of payload.
  Completion of a transfer: the sink delivers its last byte (a Tcl upcall per delivery).
- Web connections (replay): see :mod:`.web`.
- Per-flow drops, ack drops and marks: from drop traces ("d" queue drops, "e" RED early
  drops) and, with ECN, dequeue traces of the probed queues, joined on the flow id
  (``fid_`` = flow index). A packet marked upstream counts as a mark only at the first
  probed queue that sends it with CE; a packet RED marks and the full queue then drops
  (red.cc: ``drop_early()`` sets CE, then ``qlen >= qlim`` forces the drop) counts as a
  mark and a drop, as ns-3 counts RED's Mark before its overflow drop.
- Queues: ``QueueMonitor/ED`` on each probed queue (arrivals and drops counted at the
  link's entry, departures when the link takes a packet, so ``pkts_`` is the waiting
  packets, as ns-3's disc + device queue), integrals from its ``Integrator`` objects. ns-2
  counts RED's queue-full drops as forced: for RED ``overflow_drops`` is 0 and
  ``forced_drops`` holds both; for drop-tail every drop is an overflow. With
  ``forced_region = "early_test"`` (``use_mark_p_ 1``, ns-2.35's default) RED has no
  forced region: its drops at an average above it are early drops ("e", p = 1), counted
  in ``unforced_drops``, on ns-3 too. ``max_qlen_pkts``
  is the sampled maximum (every ``sample_interval``), or limit - 1 when a drop-tail queue
  overflowed after the warm-up (ns-2 keeps no running maximum). The RED average is RED's
  own ``ave_`` at every arrival (a variable trace); in byte mode divided by
  ``mean_pktsize_``. ``link_bytes``: bytes that left the queue for the link.
- Run: ``events`` is 0 (ns-2 does not count events); ``run_cpu_s`` is the whole ``ns``
  process (Tcl set-up included); no socket census (ns-2 has no TIME_WAIT).
"""

from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path

from aqmlab.engines.ns2 import parse, tcl
from aqmlab.engines.ns2.runner import available, run_ns, version
from aqmlab.engines.ns2.support import check
from aqmlab.results.raw import RawRun

NAME = "ns2"

__all__ = ["NAME", "version", "available", "check", "simulate", "run_meta"]


def simulate(scenario, plan, *, workdir=None, timeout=None, keep=False,
             trace_flows=()) -> RawRun:
    """Run ``scenario`` (with ``plan = make_plan(scenario)``) on ns-2 and return its RawRun.

    ``workdir``: where to write the script and outputs (default: a new temporary folder,
    removed afterwards unless ``keep``); ``timeout``: wall seconds before the run is killed
    (:class:`~aqmlab.errors.SimulationTimeout`; default ``run.max_wall_time``); a crash
    raises :class:`~aqmlab.errors.SimulationCrashed`. On failure the folder is kept.
    Groups run by ns-2's own PackMimeHTTP (``generator = "ns2"``) have their ``plan.web``
    entries replaced by the connections ns-2 made, so that tables built from this plan
    and the RawRun describe them. ``trace_flows``: bulk flows/transfers whose packets
    and sender variables are traced into ``workdir`` (:mod:`aqmlab.engines.flow_trace`).
    """
    check(scenario)
    t0 = time.perf_counter()
    own = workdir is None
    wd = Path(tempfile.mkdtemp(prefix="aqmlab-ns2-")) if own else Path(workdir)
    wd.mkdir(parents=True, exist_ok=True)
    script, part = tcl.write_script(scenario, plan, wd, trace_flows)
    t_built = time.perf_counter()
    if timeout is None:
        timeout = scenario.run.max_wall_time_s
    done = run_ns(script, wd, timeout)  # raises, leaving wd in place
    raw = parse.parse_run(wd, plan, part.results(wd, plan))
    raw.stats.update({"run_cpu_s": done.cpu_s, "build_wall_s": t_built - t0,
                      "ns_wall_s": done.wall_s, "wall_s": time.perf_counter() - t0})
    if own and not keep:
        shutil.rmtree(wd, ignore_errors=True)
    return raw


#: CPU of ns-2.35 (the whole ``ns`` process) against ns-3 (``Simulator::Run``, speed-ups
#: on) per term of the cost model, from the cross-simulator study's full profile at 0.8.31
#: (the same 660 scenarios on both engines, run side by side; refitted 2026-11-29): web
#: 0.87 (60 pairs of 1,200-s PackMime runs, 0.82-0.94 per queue), a link's packets 0.1
#: (Qiu's T1 with one flow 0.08-0.09, the bulk parking lot 0.09), each flow 1.1x (Qiu's
#: T1 from 1 to 1000 flows: ns-2's per-agent Tcl objects and timers; 0.6x at 300 flows,
#: 1.14x at 1000, where the model charges the most).
RELATIVE_COST = {"web": 0.87, "link": 0.1, "flows": 1.1}


def run_meta() -> dict[str, object]:
    """Nothing engine-specific to record beyond the version (``engines.simulate`` adds it)."""
    return {}
