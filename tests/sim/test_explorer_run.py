"""The explorer runs real simulations headlessly: in a worker process, into the store."""

from __future__ import annotations

import time

import pytest

from aqmlab.campaign.store import Store
from aqmlab.widgets import Explorer
from aqmlab.workers import Runner

pytestmark = pytest.mark.ns3


@pytest.fixture(scope="module")
def runner():
    r = Runner(workers=1)
    yield r
    r.close()


def _run(ex: Explorer, timeout: float = 300) -> float:
    t0 = time.monotonic()
    assert ex.run() is not None
    assert ex.running and ex.run_button.disabled
    assert ex.wait(timeout), "the run did not finish"
    assert ex.last_error == ""
    assert not ex.run_button.disabled
    return time.monotonic() - t0


def test_a_run_adds_a_summary_row_a_curve_and_a_store_entry(tmp_path, runner):
    store = Store(tmp_path / "data")
    ex = Explorer(store=store, runner=runner, duration_s=4, flows=5)
    assert ex.summary.value == "" and not ex.runs
    took = _run(ex)
    assert ex.summary.value.count("aqmlab-summary-row") == 1
    assert ex.plot.value[:4] == b"\x89PNG"
    key = ex.runs[0].scenario.key
    assert store.check(key)[0] == "ok"
    row = ex.table().iloc[0]
    assert 0.5 < row["utilisation"] <= 1.01 and row["goodput (Mb/s)"] > 3
    print(f"explorer run: {took:.1f} s (includes starting the worker)")

    ex.set(queue="red", max_th=30)
    took = _run(ex)
    assert ex.summary.value.count("aqmlab-summary-row") == 2
    assert ex.labels() == ["queue=droptail", "queue=red"]
    print(f"explorer run: {took:.1f} s (warm worker)")

    # a new explorer (a new session) finds both in the store: nothing is simulated
    again = Explorer(store=store, runner=_Refuse(), duration_s=4, flows=5)
    _run(again)
    assert again.runs[0].source == "store" and again.runs[0].scenario.key == key
    assert "result store" in again.status.value


def test_a_web_run_draws_a_response_time_cdf(tmp_path, runner):
    ex = Explorer(store=None, runner=runner, traffic="web", load=0.6, duration_s=4,
                  queue="codel")
    _run(ex)
    row = ex.table().iloc[0]
    # a response takes two RTTs at least: SYN / SYN-ACK, then request / first byte back
    assert row["responses"] > 50 and row["median response (ms)"] >= 2 * ex.settings.rtt_ms
    assert ex.plot.value[:4] == b"\x89PNG"


class _Refuse:
    def submit(self, scenario):
        raise AssertionError("should have come from the store")
