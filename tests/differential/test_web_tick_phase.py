"""Web connections' RTO tick phases from ns-2's stream ("WebBootPhases" in cpp/web.h, with
``run.random_stream = "ns2"``, the default). ns-2.35 draws each Full-TCP agent's
``boot_time_`` from the default stream at every reset: new agents twice, the server at each
open, the client at its first send, the client again when its passive close ends, and
DelayBox draws once per packet it takes. The phase decides how many ticks an RTT sample
counts, so a timeout after a lost packet comes up to a few ticks sooner or later.
"""

from __future__ import annotations

import functools

import pytest

from aqmlab.engines import ns2
from aqmlab.scenario import DropTail
from tests.differential.planned import arrivals, run, scenario

pytestmark = [pytest.mark.ns3, pytest.mark.ns2,
              pytest.mark.skipif(not ns2.available(), reason="ns-2 (`ns`) is not installed")]

#: (seed, extra one-way delay in DelayBox): base RTTs of 0.4-0.9 s, so RTO = 3 RTT
#: exceeds the 1-s minimum and the sample's tick count shows in the timeout.
CASES = [(671, 0.4424), (805, 0.3546), (571, 0.2136), (444, 0.2826), (348, 0.4011),
         (941, 0.3647)]


@functools.cache
def _times(engine: str, seed: int, delay: float, lost: str, stream: str = "ns2",
           n: int = 1, drop: int | None = None) -> tuple[float, ...]:
    """Response times of ``n`` connections 5 s apart (extra delay ``delay`` each way) on
    Weigle's web set-up; ``lost`` "response": the server's response (forward arrival
    ``drop``, default 2) is lost, its timer resends it; "request": the client's request
    (reverse arrival ``drop``, default 3) is lost, its timer resends it."""
    fwd = (drop or 2,) if lost == "response" else ()
    rev = (drop or 3,) if lost == "request" else ()
    sc = scenario({"syn_options": "none"}, delay="0ms", rtt="packmime").replace(**{
        "topology.link_header": "none", "topology.delay_box": "ns2", "run.seed": seed,
        "run.random_stream": stream,
        "topology.forward_queue": DropTail(limit="100p", drop_packets=fwd, drop_count="all"),
        "topology.reverse_queue": DropTail(limit="100p", drop_packets=rev, drop_count="all")})
    df, raw = run(sc, engine, [300] * n, [500] * n, gap=5.0, extra_delay=[delay] * n)
    assert df.completed.all(), engine
    return tuple(float(x) for x in df.response_time_s)


@pytest.mark.parametrize("lost", ["response", "request"])
def test_timeouts_after_one_sample_match_ns2(lost: str):
    """The server's (a lost response) and the client's (a lost request) retransmission
    timers, armed from one RTT sample, fire at ns-2.35's instants in every case; with
    phases hashed from the ports (``random_stream = "ns3"``) at least one is a few ticks
    off."""
    hashed_apart = 0
    for seed, delay in CASES:
        t2 = _times("ns2", seed, delay, lost)
        assert _times("ns3", seed, delay, lost) == pytest.approx(t2, abs=1e-9), (seed, delay)
        hashed_apart += abs(_times("ns3", seed, delay, lost, "ns3")[0] - t2[0]) > 1e-3
    assert hashed_apart >= 1


def test_a_pooled_connection_draws_after_the_earlier_ones():
    """Three connections on one client/server pair: the second and third reuse the pooled
    agents (no new-agent draws; one draw when each passive close ends) after every packet
    of the earlier ones went through DelayBox. The third's lost request is resent at
    ns-2.35's instant in every case; with hashed phases at least one is a few ticks off."""
    hashed_apart = 0
    for seed, delay in [(671, 0.4424), (444, 0.2826), (348, 0.4011), (135, 0.3661)]:
        sc = scenario({"syn_options": "none"}, delay="0ms", rtt="packmime").replace(**{
            "topology.link_header": "none", "topology.delay_box": "ns2", "run.seed": seed})
        two = {e: arrivals(run(sc, e, [300] * 2, [500] * 2, gap=5.0,
                               extra_delay=[delay] * 2)[1]) for e in ("ns2", "ns3")}
        assert two["ns2"] == two["ns3"]
        third_request = two["ns2"]["R1->R0"] + 3
        t2 = _times("ns2", seed, delay, "request", n=3, drop=third_request)
        assert t2[2] > 2 * 2 * delay + 1.0  # the request was lost and resent on its timer
        t3 = _times("ns3", seed, delay, "request", n=3, drop=third_request)
        assert t3 == pytest.approx(t2, abs=1e-9), (seed, delay)
        hashed = _times("ns3", seed, delay, "request", "ns3", n=3, drop=third_request)
        hashed_apart += abs(hashed[2] - t2[2]) > 1e-3
    assert hashed_apart >= 1
