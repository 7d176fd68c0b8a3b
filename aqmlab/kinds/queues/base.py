"""What every queue discipline shares: ``limit`` (ns-2 accounting), the ns-3 queue-disc
description a kind maps to, and the class attributes the explorer and the cost model read.

``limit`` follows ns-2 accounting. A drop-tail ``limit`` counts the packet in
transmission (ns-2 DropTail holds ``limit - 1`` waiting packets), so the ns-3 queue disc is
given ``limit - 2`` packets (ns-3 keeps one more in the 1-packet device queue). RED and ARED
(ns-2's REDQueue, like ALTQ's RED) hold ``limit`` waiting packets and compare the average of
the waiting packets with the thresholds: the disc gets ``limit - 1`` packets and measures
the device queue's packet too (``measured_queue = "waiting"``), or its thresholds are one
packet lower (``"disc"``, ns-3's own measure; :data:`RED_DEVICE_WAITING`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from aqmlab.errors import ScenarioError
from aqmlab.kinds.controls import Control
from aqmlab.kinds.registry import Registry
from aqmlab.units import Spec, parse_size

__all__ = ["QUEUES", "QueueBase", "Ns3Queue", "DEVICE_PACKETS", "RED_DEVICE_WAITING", "max_size",
           "ns_time", "ns_bool"]

MIN_LIMIT_PACKETS = 3
MIN_LIMIT_BYTES = 3000

#: Packets the device adds to the queue disc's limit: 1 in the 1-packet device queue,
#: 1 in transmission. ns-2's DropTail ``limit_`` counts both (it holds ``limit_ - 1``
#: waiting packets: ``(q_->length() + 1) >= qlim_`` drops).
DEVICE_PACKETS = 2
#: ns-2's REDQueue (and ALTQ's RED, derived from it) holds ``limit_`` *waiting* packets
#: (``qlen >= qlim`` drops) and averages the waiting packets; in ns-3 one of them sits in
#: the 1-packet device queue whenever the disc is not empty. So a RED disc gets
#: ``limit - 1`` packets. With ``measured_queue = "disc"`` its thresholds are lowered by
#: that one packet, which makes ns-3's comparisons (average of the disc) those of ns-2
#: (average of disc + device packet) whenever packets wait, but not the early test of an
#: arrival that finds only the device packet and one more (ns-2 may drop early once 2
#: wait, ns-3 once 2 are in the disc), nor the idle decay; "waiting" (the default)
#: measures disc + device queue as ns-2 does (``Ns2RedQueueDisc``) with ns-2's thresholds.
RED_DEVICE_WAITING = 1


@dataclass(frozen=True)
class Ns3Queue:
    """A queue disc as ns-3 sees it: TypeId, attributes (name, value string), and for RED
    the EWMA weight and packets/s with which the probe re-derives the average queue."""

    type_id: str
    attributes: tuple[tuple[str, str], ...]
    red_wq: float = 0.0  # > 0: re-derive RED's average queue in the probe
    red_ptc: float = 0.0

    def flat(self) -> list[str]:
        return [x for pair in self.attributes for x in pair]


def ns_time(seconds: float) -> str:
    """An ns-3 time attribute in whole nanoseconds."""
    return f"{seconds * 1e9:.0f}ns"


def ns_bool(v: bool) -> str:
    return "true" if v else "false"


class QueueBase(Spec):
    """A queue discipline. A kind is a frozen dataclass subclass that sets:

    ``KIND`` its name; ``LABEL`` the explorer's name for it; ``COST`` the CPU cost of a
    run relative to tail-drop on the same traffic (``bench/bench_queues.py``);
    ``CONTROLS`` the parameters the explorer offers (besides ``limit``); ``MARKS``
    whether it can ECN-mark; and implements :meth:`ns3`."""

    KIND: ClassVar[str]
    LABEL: ClassVar[str] = ""
    COST: ClassVar[float] = 1.0
    CONTROLS: ClassVar[tuple[Control, ...]] = ()
    MARKS: ClassVar[bool] = True

    limit: str | int
    ecn: bool

    def _check_limit(self) -> None:
        amount, unit = parse_size(self.limit, "limit")
        if (unit == "p" and amount < MIN_LIMIT_PACKETS) or (
            unit == "B" and amount < MIN_LIMIT_BYTES
        ):
            raise ScenarioError(
                "limit",
                self.limit,
                "limit must be >= 3 packets (or 3000 bytes)",
                "ns-2 accounting counts the packet in transmission",
            )

    @property
    def limit_size(self) -> tuple[int, str]:
        """``(amount, unit)`` of ``limit``; unit ``"p"`` (packets) or ``"B"`` (bytes)."""
        return parse_size(self.limit, "limit")

    def limit_packets(self, mean_pkt_size: int) -> float:
        """``limit`` in packets; a byte limit is divided by ``mean_pkt_size``."""
        amount, unit = self.limit_size
        return float(amount) if unit == "p" else amount / mean_pkt_size

    def check_link(self, link_rate_bps: float) -> None:
        """Checks that need the rate of the link the queue feeds (none by default)."""

    def ns3(self, rate_bps: float, delay_s: float) -> Ns3Queue:
        """The ns-3 queue disc for this queue on a link of ``rate_bps`` and ``delay_s``."""
        raise NotImplementedError(f"queue kind {self.KIND!r} has no ns-3 mapping")


def max_size(q: QueueBase, mean_pkt: int, byte_mode: bool = False, red: bool = False) -> str:
    """ns-3 ``MaxSize``: ns-2 ``limit_`` minus the device's packets (two for drop-tail-like
    queues, one for RED: :data:`RED_DEVICE_WAITING`). For RED the unit selects packet or
    byte mode, so it follows ``mode`` whatever unit ``limit`` has."""
    device = DEVICE_PACKETS - RED_DEVICE_WAITING if red else DEVICE_PACKETS
    amount, unit = q.limit_size
    pkts = amount - device if unit == "p" else None
    if byte_mode:
        return f"{pkts * mean_pkt if pkts is not None else amount}B"
    if pkts is None and red:
        pkts = max(1, round(amount / mean_pkt) - device)
    return f"{pkts}p" if pkts is not None else f"{amount}B"


#: The queue disciplines by ``kind``.
QUEUES: Registry[type[QueueBase]] = Registry(
    "queues", "queue", not_a_spec="must be a queue or a table/dict with a 'kind' key")
QUEUES.base = QueueBase
