"""The speed-up tests' one check: two runs of a scenario gave the very same results."""

from __future__ import annotations

import pandas as pd

TABLES = ("flows", "queues", "queue_ts", "links", "requests")
#: Summary columns that measure the run itself, not the network.
TIMING = ["run_cpu_s", "wall_s"]


def assert_same(a, b, *, same_events: bool = True) -> None:
    """Same event count (unless ``same_events`` is False: a speed-up that schedules fewer),
    every table and the summary (but its timings and event count) equal, exactly."""
    if same_events:
        assert a.meta["events"] == b.meta["events"]
    for name in TABLES:
        pd.testing.assert_frame_equal(getattr(a, name), getattr(b, name), check_exact=True)
    drop = TIMING if same_events else [*TIMING, "events"]
    pd.testing.assert_frame_equal(a.summary.drop(columns=drop), b.summary.drop(columns=drop),
                                  check_exact=True)


def off_then_on(simulate, scenario, switch: str):
    """Results of ``scenario`` with the C++ speed-up ``switch`` (``Set<switch>``, read when a
    run is built) off, then on (the default, restored whatever happens)."""
    from aqmlab.engines.ns3 import native

    setter = getattr(native.load(), f"Set{switch}")
    setter(False)
    try:
        off = simulate(scenario)
    finally:
        setter(True)
    return off, simulate(scenario)


_CHILD = """
import json, sys
from aqmlab.engines.ns3 import native, object_memo, socket_tables
from aqmlab.scenario import Scenario
from aqmlab.workers.worker import simulate
simulate(Scenario.load(sys.argv[1])).save(sys.argv[2])
print(json.dumps({"active": socket_tables.active(), **socket_tables.per_packet_memo_calls(),
                  **socket_tables.queue_accessor_calls(), **socket_tables.buffer_check_calls(),
                  **socket_tables.address_accessor_calls(),
                  **object_memo.calls(),
                  "event_bucket_loads": int(native.load().EventBuckets.Loads()),
                  "precompiled": native.precompiled_library() is not None}))
"""


def simulate_in_child(scenario, tmp_path, name: str, env: dict[str, str]):
    """``scenario`` simulated in a child process with ``env`` added (a switch read once per
    process): its Results, and the child's socket-tables state and memo counters (the
    socket-tables and object-memo libraries' counters, the event buckets' loads, whether the
    g++-compiled layer was loaded)."""
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    from aqmlab.results.results import load

    toml = tmp_path / f"{name}.toml"
    scenario.save(toml)
    out = tmp_path / name
    root = str(Path(__file__).parents[2])
    env = {**os.environ, **env,
           "PYTHONPATH": os.pathsep.join([root, os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-c", _CHILD, str(toml), str(out)], check=True,
                          cwd=tmp_path, capture_output=True, text=True, env=env)
    return load(out), json.loads(done.stdout.strip().splitlines()[-1])
