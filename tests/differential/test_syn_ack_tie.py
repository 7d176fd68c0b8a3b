"""A lost SYN/ACK's tie, decided by ns-2.35's double clock (``run.event_clock = "ns2"``,
Weigle's examples): the client retries its SYN after the initial RTO (6 s) and the retry
reaches the server at the instant its own SYN/ACK timer fires (both 6 s after the first
SYN's arrival, over the same path). Full-TCP ignores the duplicate SYN but owes it an ACK,
which a SYN/ACK sent after it carries; so whether an ACK follows the handshake depends on
which event runs first. ns-3's integer clock always runs the timer first (scheduled
first); ns-2.35 runs them in the order of its rounded doubles: the replay's chained
``$ns at`` start times, DelayBox's release times (delay in milliseconds, then
``fl(now + fl(fl(now + d) - now))``), link times and ``fl(t + 6.0)``. With ns-2's event
clock ns-3 computes those doubles too (cpp/ns2_event_clock.h, delay_box.h, web.h).
"""

from __future__ import annotations

import functools

import pytest

from aqmlab.engines import ns2
from aqmlab.scenario import DropTail
from tests.differential.planned import arrivals, run, scenario

pytestmark = [pytest.mark.ns3, pytest.mark.ns2,
              pytest.mark.skipif(not ns2.available(), reason="ns-2 (`ns`) is not installed")]

#: (extra one-way delay in DelayBox, start time): random draws.
CASES = [(0.05167, 1.950464), (0.015272, 1.948649), (0.031871, 1.423326),
         (0.082943, 1.409199), (0.05541, 1.027559), (0.075598, 1.538143),
         (0.033643, 1.788429), (0.031016, 1.453498), (0.0123457, 1.2345678),
         (0.0654321, 1.8765432), (0.0987654, 1.1111111), (0.0421, 1.6180339)]


@functools.cache
def _one(engine: str, delay: float, start: float, clock: str) -> tuple[int, float]:
    """Forward packets and the response time of one connection whose SYN/ACK is lost."""
    sc = scenario({"syn_options": "none"}, delay="0ms", rtt="packmime").replace(**{
        "topology.link_header": "none", "topology.delay_box": "ns2", "run.event_clock": clock,
        "topology.forward_queue": DropTail(limit="100p", drop_packets=(1,), drop_count="all")})
    df, raw = run(sc, engine, [300], [500], start=[start], extra_delay=[delay])
    assert df.completed.all(), engine
    return arrivals(raw)["R0->R1"], float(df.response_time_s.iloc[0])


def test_ns2s_clock_decides_the_tie_as_ns235():
    """On ns-2's event clock ns-3 sends ns-2.35's packets in every case, whichever event
    ns-2.35 ran first (both orders occur among the cases); on ns-3's exact clock the timer
    always runs first, and the ACK owed to the SYN follows the handshake."""
    orders = set()
    for delay, start in CASES:
        n2, t2 = _one("ns2", delay, start, "exact")
        n3, t3 = _one("ns3", delay, start, "ns2")
        assert (n3, t3) == (n2, pytest.approx(t2, abs=1e-9)), (delay, start)
        orders.add(n2)
        assert _one("ns3", delay, start, "exact")[0] == 5
    assert orders == {4, 5}  # 4: the SYN ran first, its ACK went with the timer's SYN/ACK
