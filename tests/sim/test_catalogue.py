"""Every queue discipline and TCP variant builds and carries traffic in a short dumbbell
(catches wrong ns-3 attribute names and type ids), and the results tables are consistent."""

from __future__ import annotations

import pytest

from aqmlab.scenario import (
    QUEUES,
    TCP_VARIANTS,
    Bulk,
    DropTail,
    Dumbbell,
    Link,
    Red,
    RunControl,
    Scenario,
    Tcp,
)

pytestmark = pytest.mark.ns3


def short(queue, tcp: Tcp | None = None, flows: int = 4) -> Scenario:
    return Scenario(
        name="catalogue",
        topology=Dumbbell(senders=2, bottleneck=Link(rate="10Mbps", delay="10ms"),
                          forward_queue=queue),
        tcp=tcp or Tcp(variant="sack"), traffic=[Bulk(flows=flows, start_spread="0.5s")],
        run=RunControl(duration="6s", warmup="2s", sample_interval="500ms"))


#: Every registered queue kind with its defaults, plus settings that need their own check.
CASES = {kind: cls() for kind, cls in QUEUES.items()} | {
    "droptail": DropTail(limit="40p"),
    "red": Red(limit="60p", min_th=5, max_th=15),
    "red-byte": Red(limit="60p", min_th=5, max_th=15, mode="byte", mean_pkt_size=1000),
}


#: 4 SACK flows over 10 Mb/s keep the link busy whatever the queue (measured 0.977 for PIE,
#: 0.991-1.000 for the others; 0.998-1.000 for every TCP variant over drop-tail).
BUSY = 0.95
#: Payload rate of the busy 10 Mb/s link: 1000-byte segments in 1040-byte packets. The
#: flows' goodput is most of it (retransmissions are the rest: measured 0.98-1.00 of it;
#: a little more than all of it, with the data queued at the warm-up delivered after).
PAYLOAD_MBPS = 10 * 1000 / 1040


@pytest.mark.parametrize("name", sorted(CASES))
def test_each_queue_kind_runs_and_accounts(simulate, name):
    """Each queue kind builds, keeps the link busy, and accounts for every packet: after
    the warm-up, what arrived was dropped, left, or is still queued, and what left was
    queued before or arrived since, so arrivals - drops - departures (the change of the
    queue over the measured interval) lies within +-max_qlen_pkts. A packet that CoDel
    and FQ-CoDel drop at dequeue is a drop, not a departure (before aqmlab 0.2.4 it was
    both, and the difference fell to -39 here)."""
    res = simulate(short(CASES[name]))
    q, link = res.queues.iloc[0], res.links.iloc[0]
    assert q.kind == CASES[name].kind
    assert link.utilisation > BUSY
    assert res.flows.goodput_mbps.sum() > 0.9 * link.utilisation * PAYLOAD_MBPS
    assert abs(q.arrivals - q.drops - q.departures) <= q.max_qlen_pkts
    assert q.drops == q.forced_drops + q.unforced_drops + q.overflow_drops
    assert q.syn_drops + q.ack_only_drops <= q.drops and q.ect_drops == 0  # ECN is off
    assert res.flows.drops.sum() <= q.drops
    assert len(res.queue_ts) == 2 * 12  # two probed queues, one sample each 0.5 s


@pytest.mark.parametrize("variant", [v for v, k in TCP_VARIANTS.items() if not k.needs_ecn])
def test_each_tcp_variant_moves_data(simulate, variant):
    """Every variant's flows all deliver, and together keep the link busy with goodput."""
    res = simulate(short(DropTail(limit="40p"), Tcp(variant=variant)))
    assert (res.flows.bytes_delivered > 0).all()
    assert res.links.iloc[0].utilisation > BUSY
    assert res.flows.goodput_mbps.sum() > 0.9 * res.links.iloc[0].utilisation * PAYLOAD_MBPS


def test_dctcp_with_marking_red(simulate):
    red = Red(limit="100p", min_th=10, max_th=10.001, max_p=1.0, w_q=1.0, ecn=True,
              hard_drop=False, gentle=False, ecn_above_max_th="mark")
    res = simulate(short(red, Tcp(variant="dctcp", ecn=True)))
    assert res.queues.iloc[0].marks > 0
    assert res.flows.ecn_reductions.sum() > 0
    assert res.links.iloc[0].utilisation > 0.8


def test_drops_by_packet_kind_under_ared_ecn_overload(simulate):
    """Two-way web traffic through ARED+ECN at 105 %: ECN-capable data is marked below
    max_th, so the drops there fall on what is not ECN-capable: SYNs (never ECT) and pure
    ACKs; ECT packets are dropped only above max_th or on overflow."""
    from pathlib import Path

    sc = Scenario.load(Path(__file__).parents[2] / "examples" / "weigle_ecn_ared_105.toml")
    res = simulate(sc.replace(**{"run.duration": "25s", "run.warmup": "5s",
                                 "run.stop_after_responses": None,
                                 "run.sample_interval": None}))
    q = res.queues.set_index("queue").iloc[0]
    assert q.marks > 0 and q.drops > 100
    assert q.syn_drops > 0 and q.ack_only_drops > 0
    assert q.syn_drops + q.ack_only_drops + q.ect_drops <= q.drops
    assert q.ect_drops < q.drops  # not everything dropped was ECN-capable


def test_ared_byte_mode_spares_small_packets(simulate):
    """ns-2's byte mode scales a packet's drop probability by its size / mean_pkt_size, so
    under the same overload ARED drops far fewer SYNs and pure ACKs (40-60 B against a
    1250-B mean) than in packet mode; ECN-capable data is still marked."""
    from pathlib import Path

    sc = Scenario.load(Path(__file__).parents[2] / "examples" / "weigle_ecn_ared_105.toml")
    sc = sc.replace(**{"run.duration": "25s", "run.warmup": "5s",
                       "run.stop_after_responses": None, "run.sample_interval": None})
    small = {}
    for mode in ("packet", "byte"):
        res = simulate(sc.replace(**{"topology.forward_queue.mode": mode}))
        q = res.queues.set_index("queue").iloc[0]
        assert q.marks > 0
        small[mode] = q.syn_drops + q.ack_only_drops
    assert small["byte"] < small["packet"] / 3
