"""Slow start after idle (``tcp.idle_restart = "initial_window"``, the web default; "Slow
start after idle" in cpp/tcp_socket.h). ns-2's Full-TCP, about to send data with nothing
outstanding, restarts from the initial window if it has been idle for longer than its RTO
estimate (srtt + 4 rttvar in ticks, before the min RTO); ns-3 goes on with its window.
"""

from __future__ import annotations

import functools

import pytest

from aqmlab.engines import ns2
from aqmlab.kinds.tcp import mechanisms
from aqmlab.scenario import DropTail
from tests.differential.planned import MSS, arrivals, run, scenario

pytestmark = [pytest.mark.ns3, pytest.mark.ns2,
              pytest.mark.skipif(not ns2.available(), reason="ns-2 (`ns`) is not installed")]


@functools.cache
def _two(engine: str, idle_restart: str = "auto") -> tuple[tuple[float, ...], dict[str, int]]:
    """A 38-segment response from 1 s and a 150-segment one from 1.368 s on one 3-ms path
    (found by a random search over drop lists): the second's queue lengthens the first's
    round trips beyond its estimate, and the 116th forward arrival is lost."""
    sc = scenario({"syn_options": "none", "idle_restart": idle_restart}, delay="3ms").replace(
        **{"topology.link_header": "none",
           "topology.forward_queue": DropTail(limit="100p", drop_packets=(116,),
                                              drop_count="all")})
    df, raw = run(sc, engine, [300, 300], [38 * MSS, 150 * MSS], start=[1.0, 1.368134])
    assert df.completed.all(), engine
    return tuple(float(x) for x in df.response_time_s), arrivals(raw)


def test_web_connections_restart_after_idle_by_default():
    """"auto" is "initial_window" for web connections, "none" for one-way agents."""
    tcp = scenario().tcp
    assert mechanisms.resolve(tcp, "idle_restart", one_way=False) == "initial_window"
    assert mechanisms.resolve(tcp, "idle_restart", one_way=True) == "none"


def test_the_restart_sends_ns2s_packets():
    """With the restart both responses end at ns-2.35's instants and every link carries
    ns-2.35's packets; without it they do not."""
    (t2, p2), (t3, p3) = _two("ns2"), _two("ns3")
    assert p3 == p2 and t3 == pytest.approx(t2, abs=1e-9)
    t, p = _two("ns3", "none")
    assert p != p2 or t != pytest.approx(t2, abs=1e-6)
