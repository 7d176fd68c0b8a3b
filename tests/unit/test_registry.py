"""Kind registries: built-in kinds register themselves, other packages add kinds through
entry points, and every family's kinds carry what the rest of aqmlab reads from them."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import ClassVar

import pytest

import aqmlab.kinds.registry as registry_mod
from aqmlab.errors import UnknownKindError
from aqmlab.kinds.queues import QUEUES, QueueBase
from aqmlab.kinds.queues.base import Ns3Queue
from aqmlab.kinds.registry import Registry
from aqmlab.scenario import TCP_VARIANTS, TRAFFIC, Scenario


@pytest.mark.parametrize("kind", list(QUEUES))
def test_every_queue_kind_describes_itself(kind):
    """Name, label, cost, a default instance that maps onto ns-3, controls that name real
    fields."""
    cls = QUEUES[kind]
    q = cls()
    assert cls.KIND == kind == q.kind and cls.LABEL and cls.COST >= 1.0
    fields = {f.name for f in dataclasses.fields(cls)}
    assert all(c.field in fields for c in cls.CONTROLS)
    cfg = q.ns3(10e6, 0.01)
    assert isinstance(cfg, Ns3Queue) and cfg.type_id.count("::") == 1 and cfg.attributes


@pytest.mark.parametrize("variant", list(TCP_VARIANTS))
def test_every_tcp_variant_describes_itself(variant):
    v = TCP_VARIANTS[variant]
    assert v.name == variant and v.label and v.congestion.startswith("ns3::Tcp")
    assert v.doc


@pytest.mark.parametrize("kind", list(TRAFFIC))
def test_every_traffic_kind_has_a_planner(kind):
    cls = TRAFFIC[kind]
    assert cls.KIND == kind and "plan" in vars(cls)


def test_unknown_kind_names_the_field_and_the_closest_kind():
    with pytest.raises(UnknownKindError, match=r"topology\.forward_queue\.kind = 'fq_pi'.*"
                       r"did you mean 'fq_pie'"):
        Scenario(topology={"forward_queue": {"kind": "fq_pi"}})


def test_a_name_cannot_be_registered_twice():
    reg: Registry = Registry("things", "thing")

    @dataclass(frozen=True)
    class A:
        KIND: ClassVar[str] = "a"

    @dataclass(frozen=True)
    class B:
        KIND: ClassVar[str] = "a"

    reg.register(A)
    reg.register(A)  # the same class again is harmless
    with pytest.raises(ValueError, match="registered twice"):
        reg.register(B)


def test_another_package_adds_a_queue_kind_through_an_entry_point(monkeypatch):
    """A kind from an entry point of group ``aqmlab.queues`` is listed and usable in
    scenarios like a built-in one."""

    @dataclass(frozen=True, kw_only=True)
    class Sfq(QueueBase):
        KIND: ClassVar[str] = "sfq_plugin"
        LABEL: ClassVar[str] = "SFQ (plugin)"
        kind: str = "sfq_plugin"
        limit: str | int = "100p"
        ecn: bool = False

        def ns3(self, rate_bps: float, delay_s: float) -> Ns3Queue:
            return Ns3Queue("ns3::FqCoDelQueueDisc", (("MaxSize", "98p"),))

    class EntryPoint:
        def load(self):
            return Sfq

    monkeypatch.setattr(QUEUES, "_plugins_loaded", False)
    monkeypatch.setattr(QUEUES, "_kinds", dict(QUEUES._kinds))
    monkeypatch.setattr(registry_mod, "entry_points",
                        lambda group: [EntryPoint()] if group == "aqmlab.queues" else [])
    assert "sfq_plugin" in QUEUES
    sc = Scenario(topology={"forward_queue": {"kind": "sfq_plugin"}})
    assert sc.topology.forward_queue.ns3(1e6, 0).type_id == "ns3::FqCoDelQueueDisc"
