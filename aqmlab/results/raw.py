"""What an engine hands back from one simulation: columns with engine-neutral meanings.

Every engine (ns-3's C++ Experiment, ns-2's Tcl script and traces) fills a :class:`RawRun`
with the same columns meaning the same thing, so :mod:`aqmlab.results.tables` turns any
of them into the same tidy tables. Counters are cumulative; ``*_warm`` are their values at
the end of the warm-up, so a measured quantity is the difference.

* ``flows`` per connection (bulk flows and transfers first, in plan order, then web
  connections in plan order): ``data_packets_sent`` (data segments handed to IP,
  retransmissions included), ``data_bytes_sent`` (their payload), ``retrans_packets``,
  ``timeouts`` (RTO expiries with data outstanding; web connections: every RTO of the
  server, SYN/ACK and FIN included, as ns-2's Full-TCP ``nrexmit_``), ``fast_recoveries``, ``bytes_received`` (in-order payload
  delivered to the receiving application), ``drops``/``marks`` (data packets of the flow
  dropped / CE-marked by a probed queue), ``ack_drops`` (its pure ACKs dropped by a probed
  queue), ``ecn_reductions`` (window reductions on ECN echoes), ``cwr_recoveries`` (fast
  recoveries entered from ECN's CWR state).
* ``flow_info`` per connection: ``src``, ``dst``, ``start`` (s; web: the SYN), ``target``
  (bytes; 0 = unlimited), ``completion`` (s the last byte reached the receiving
  application, -1 if never), ``first_rx``, ``request`` (web request bytes), ``delay`` (extra
  one-way delay), ``kind`` (0 flow, 1 web).
* ``queues`` per probed queue (``probe_names`` order): ``arrivals``, ``departures``,
  ``drops`` and by reason ``forced_drops``/``unforced_drops``/``overflow_drops``, ``marks``,
  by packet ``syn_drops``/``ack_only_drops``/``ect_drops``/``ect_unforced_drops``,
  ``area_pkts``/``area_bytes`` (time integrals of the queue length; bytes, like
  ``arrival_bytes`` and ``drop_bytes``, as frames on the link: ns-3's IP packets plus the
  2-byte PPP header, ns-2's whole packets), ``max_pkts``,
  ``red_avg_sum``/``red_avg_n`` (RED's average, sampled).
* ``link_bytes`` (bytes sent on each probed link direction), ``link_rates`` (bit/s),
  ``sample_times`` and ``series`` (per probe: packets, bytes, RED average at each sample).
* ``stats``: ``run_cpu_s``, ``events``, ``end_s``, ``warmup_s``, ``build_wall_s``,
  ``wall_s``, and ``sockets_<state>`` (connections left in each TCP state at the end).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = ["FLOW_COLUMNS", "QUEUE_COLUMNS", "RawRun", "TCP_STATES"]

#: TCP states, in ns-3's order (``ns3::TcpSocket::TcpStates_t``).
TCP_STATES = ("CLOSED", "LISTEN", "SYN_SENT", "SYN_RCVD", "ESTABLISHED", "CLOSE_WAIT",
              "LAST_ACK", "FIN_WAIT_1", "FIN_WAIT_2", "CLOSING", "TIME_WAIT")


@dataclass
class RawRun:
    """Columns exactly as the C++ side produced them, plus run statistics."""

    flows: dict[str, np.ndarray] = field(default_factory=dict)
    flows_warm: dict[str, np.ndarray] = field(default_factory=dict)
    flow_info: dict[str, np.ndarray] = field(default_factory=dict)
    queues: dict[str, np.ndarray] = field(default_factory=dict)
    queues_warm: dict[str, np.ndarray] = field(default_factory=dict)
    probe_names: list[str] = field(default_factory=list)
    link_bytes: np.ndarray | None = None
    link_bytes_warm: np.ndarray | None = None
    link_rates: np.ndarray | None = None
    sample_times: np.ndarray | None = None
    series: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] = field(default_factory=dict)
    stats: dict[str, float] = field(default_factory=dict)


#: Per-flow counters (``RawRun.flows`` keys), as aqmlab/engines/ns3/cpp/flow_stats.h names them.
FLOW_COLUMNS = ("data_packets_sent", "data_bytes_sent", "retrans_packets", "timeouts",
                "fast_recoveries", "bytes_received", "drops", "marks", "ack_drops",
                "ecn_reductions", "cwr_recoveries")

#: Per-queue counters (``RawRun.queues`` keys), as aqmlab/engines/ns3/cpp/probes.h names them.
QUEUE_COLUMNS = ("arrivals", "departures", "drops", "forced_drops", "unforced_drops",
                 "overflow_drops", "marks", "arrival_bytes", "drop_bytes", "area_pkts",
                 "area_bytes", "max_pkts", "red_avg_sum", "red_avg_n", "syn_drops",
                 "ack_only_drops", "ect_drops", "ect_unforced_drops")
