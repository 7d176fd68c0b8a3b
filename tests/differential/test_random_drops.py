"""Single web connections under random drop lists, on both engines: a net for Full-TCP
mechanisms nobody thought of.

Forty connections (300 B request; responses of 1 to 40 segments, the last one short), each
alone on the 50 ms path, each losing a random 15 % of the first 4n + 20 packets that reach
the forward bottleneck queue (server -> client: SYN/ACK, data, FINs, ACKs of the request),
the same list on both engines (``DropTail.drop_packets``, ``drop_count = "all"``). Where
both engines run the same TCP, every response ends within a millisecond on both. Measured
at 0.8.1: 37 of 40 (at 0.8.0, before ``rto_rearm`` and ``owed_ack``: 36, and the two
mechanisms' cases, drawn with other seeds, were the ones that cost seconds). The three left
differ by about one round trip (Full-TCP's fast recovery sends new data one dupack earlier
in one; not modelled yet) or by a retransmission timer.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest

from aqmlab.engines import ns2
from tests.differential.planned import forward_drops, run

pytestmark = [pytest.mark.ns3, pytest.mark.ns2,
              pytest.mark.skipif(not ns2.available(), reason="ns-2 (`ns`) is not installed")]

CASES, LOSS, SEED = 40, 0.15, 2


def _cases() -> list[tuple[int, tuple[int, ...]]]:
    """(response bytes, dropped arrivals) per connection, drawn from SEED."""
    rng = np.random.default_rng(SEED)
    out = []
    for _ in range(CASES):
        seg = int(rng.choice([1, 2, 3, 5, 10, 20, 40]))
        response = seg * 1420 - int(rng.integers(0, 700))
        k = 4 * seg + 20
        drops = tuple(int(i) for i in np.nonzero(rng.random(k) < LOSS)[0] + 1)
        if drops:
            out.append((response, drops))
    return out


@functools.cache
def _response_times(engine: str) -> np.ndarray:
    times = []
    for response, drops in _cases():
        sc = forward_drops(drops, duration="400s")
        times.append(float(run(sc, engine, [300], [response])[0].response_time_s.iloc[0]))
    return np.array(times)


def test_random_drop_lists_give_the_same_response_times():
    """At least 37 of the 40 responses end within 1 ms on both engines, and the mean
    response time is within 2 % (measured 3.51 s on ns-3, 3.53 s on ns-2.35)."""
    a, b = _response_times("ns3"), _response_times("ns2")
    assert len(a) == len(b) >= 35
    same = int((np.abs(a - b) < 1e-3).sum())
    assert same >= len(a) - 3, (same, len(a))
    assert abs(a.mean() - b.mean()) < 0.02 * b.mean()
