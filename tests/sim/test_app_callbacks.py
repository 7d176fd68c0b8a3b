"""Web applications handing each connection's socket callbacks they made once
(AQMLAB_APP_CALLBACKS, cpp/web.h: WebClient's connect, receive and close callbacks,
WebServer's receive and close callbacks, ByteSender's send callback) change cost, never
results: a copy of a Callback calls the same member function on the same application as a
new MakeCallback does. Each case runs with the switch off, then on (in this process,
``SetAppCallbacks``), and compares the event count, every table and the summary."""

from __future__ import annotations

from pathlib import Path

import pytest

from aqmlab.scenario import Scenario
from tests.sim.identical import assert_same, off_then_on

pytestmark = pytest.mark.ns3
EXAMPLES = Path(__file__).parents[2] / "examples"


def both(simulate, scenario):
    return off_then_on(simulate, scenario, "AppCallbacks")


def test_two_way_web_identical(simulate):
    """Two-way PackMime over drop-tail 148: clients and servers on both clouds, requests
    and responses sent as buffer space frees, closes, SYN and data losses (connect
    failures and retries)."""
    sc = Scenario.load(EXAMPLES / "weigle_droptail_80.toml").replace(
        **{"traffic[0].rate": 107.0, "traffic[1].rate": 107.0, "run.duration": "15s",
           "run.warmup": "5s", "run.stop_after_responses": None, "run.sample_interval": "1s"})
    slow, fast = both(simulate, sc)
    assert len(fast.requests) > 2000 and fast.queues.drops.sum() > 0
    assert fast.meta["app_callbacks"] is True and slow.meta["app_callbacks"] is False
    assert_same(slow, fast)


def test_browsing_identical(simulate):
    """Christiansen's browsing users over RED (several objects per page, one connection
    each, through WebClient::OpenNow)."""
    sc = Scenario.load(EXAMPLES / "christiansen_red_90.toml").replace(
        **{"run.duration": "15s", "run.warmup": "5s"})
    slow, fast = both(simulate, sc)
    assert len(fast.requests) > 500
    assert_same(slow, fast)
