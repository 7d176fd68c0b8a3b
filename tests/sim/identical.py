"""The speed-up tests' one check: two runs of a scenario gave the very same results."""

from __future__ import annotations

import pandas as pd

TABLES = ("flows", "queues", "queue_ts", "links", "requests")
#: Summary columns that measure the run itself, not the network.
TIMING = ["run_cpu_s", "wall_s"]


def assert_same(a, b) -> None:
    """Same event count, every table and the summary (but its timings) equal, exactly."""
    assert a.meta["events"] == b.meta["events"]
    for name in TABLES:
        pd.testing.assert_frame_equal(getattr(a, name), getattr(b, name), check_exact=True)
    pd.testing.assert_frame_equal(a.summary.drop(columns=TIMING), b.summary.drop(columns=TIMING),
                                  check_exact=True)
