"""Drop-tail (FIFO): ns-3's FifoQueueDisc, or aqmlab's deterministic drop list."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from aqmlab.errors import ScenarioError
from aqmlab.kinds.queues.base import DEVICE_PACKETS, QUEUES, Ns3Queue, QueueBase, max_size
from aqmlab.units import check_choice, check_int, check_list, set_attr

#: What DropTail.drop_packets numbers: TCP data packets, or every packet arriving.
DROP_COUNTS = ("data", "all")


@QUEUES.register
@dataclass(frozen=True, kw_only=True)
class DropTail(QueueBase):
    """FIFO tail drop. ``limit`` default 100 packets. Never marks (``ecn`` is always False).

    ``drop_packets`` (default None) makes losses deterministic, for Fall & Floyd (1996)-style
    tests: 1-based arrival numbers of the TCP *data* packets (payload > 0, all flows through
    this queue, retransmissions included) that the queue drops, e.g. ``(14, 26, 28)``
    (``()`` drops none); otherwise it is a plain drop-tail. Needs a ``limit`` in packets. Omitted from
    ``to_dict`` while None, so scenario hashes without it are unchanged. ``drop_count``
    "all" numbers every packet arriving instead (SYNs, pure ACKs and FINs too), which both
    engines can do (ns-2: an ``ErrorModel/List`` at the link's head); serialised only when
    "all".
    """

    KIND: ClassVar[str] = "droptail"
    LABEL: ClassVar[str] = "drop-tail"
    MARKS: ClassVar[bool] = False
    kind: str = "droptail"
    limit: str | int = "100p"
    drop_packets: tuple[int, ...] | None = None
    drop_count: str = "data"

    def __post_init__(self) -> None:
        self._check_kind()
        self._check_limit()
        check_choice(self.drop_count, "drop_count", DROP_COUNTS)
        if self.drop_count != "data" and self.drop_packets is None:
            raise ScenarioError("drop_count", self.drop_count, "drop_count needs drop_packets")
        if self.drop_packets is not None:
            indices = tuple(
                check_int(v, f"drop_packets[{i}]", ge=1)
                for i, v in enumerate(check_list(self.drop_packets, "drop_packets"))
            )
            dup = sorted({v for v in indices if indices.count(v) > 1})
            if dup:
                raise ScenarioError(
                    "drop_packets",
                    self.drop_packets,
                    "drop_packets indices must be unique",
                    f"repeated: {', '.join(map(str, dup))}",
                )
            if self.limit_size[1] != "p":
                raise ScenarioError(
                    "drop_packets",
                    self.drop_packets,
                    "drop_packets needs a limit in packets",
                    f"limit = {self.limit!r}",
                )
            set_attr(self, "drop_packets", indices)

    def to_dict(self) -> dict[str, Any]:
        d = super().to_dict()
        if d["drop_packets"] is None:
            del d["drop_packets"]
        if d["drop_count"] == "data":
            del d["drop_count"]
        return d

    @property
    def ecn(self) -> bool:  # type: ignore[override]
        return False

    def ns3(self, rate_bps: float, delay_s: float) -> Ns3Queue:
        if self.drop_packets is not None:
            # aqmlab's FIFO with a deterministic drop list (droplist_queue_disc.h); the
            # limit is in packets (validated), device packets subtracted as for MaxSize.
            return Ns3Queue("aqmlab::DropListQueueDisc", (
                ("Limit", str(self.limit_size[0] - DEVICE_PACKETS)),
                ("Drops", ",".join(str(i) for i in self.drop_packets)),
                ("Count", self.drop_count)))
        return Ns3Queue("ns3::FifoQueueDisc", (("MaxSize", max_size(self, 1)),))
