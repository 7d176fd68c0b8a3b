"""What an engine hands back from one run: raw columns and run statistics, no tables.

Engine-neutral: :mod:`aqmlab.results.tables` turns a :class:`RawRun` into the tidy tables,
whichever simulator produced it. Every column means the same in every engine (see the
engines' module docstrings for what one of them cannot measure).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass
class RawRun:
    """Columns exactly as the simulator side produced them, plus run statistics."""

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


#: ns3::TcpSocket::TcpStates_t, in order (the ``sockets_<state>`` statistics).
TCP_STATES = ("CLOSED", "LISTEN", "SYN_SENT", "SYN_RCVD", "ESTABLISHED", "CLOSE_WAIT",
              "LAST_ACK", "FIN_WAIT_1", "FIN_WAIT_2", "CLOSING", "TIME_WAIT")

#: Per-flow counters (``RawRun.flows`` keys), as aqmlab/ns3/cpp/flow_stats.h names them.
FLOW_COLUMNS = ("data_packets_sent", "data_bytes_sent", "retrans_packets", "timeouts",
                "fast_recoveries", "bytes_received", "drops", "marks", "ack_drops",
                "ecn_reductions", "cwr_recoveries")

#: Per-queue counters (``RawRun.queues`` keys), as aqmlab/ns3/cpp/probes.h names them.
QUEUE_COLUMNS = ("arrivals", "departures", "drops", "forced_drops", "unforced_drops",
                 "overflow_drops", "marks", "arrival_bytes", "drop_bytes", "area_pkts",
                 "area_bytes", "max_pkts", "red_avg_sum", "red_avg_n", "syn_drops",
                 "ack_only_drops", "ect_drops", "ect_unforced_drops")
