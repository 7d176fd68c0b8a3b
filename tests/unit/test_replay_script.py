"""The benchmarks' replay scripts (bench/record.py, bench/native/dumbbell_main.cc) follow
aqmlab's build: every example scenario records without ns-3, and every call it records is one
the native replayer reads (a build step the recorder or the replayer does not know fails
here, not in a benchmark run)."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

from aqmlab.scenario import Scenario

ROOT = Path(__file__).parents[2]
EXAMPLES = sorted((ROOT / "examples").glob("*.toml"))


def _record_module():
    spec = importlib.util.spec_from_file_location("aqmlab_bench_record", ROOT / "bench" / "record.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _replayed_calls() -> set[str]:
    source = (ROOT / "bench" / "native" / "dumbbell_main.cc").read_text()
    return set(re.findall(r'call == "(\w+)"', source))


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_every_recorded_call_is_replayed(path):
    record = _record_module()
    sc = Scenario.load(path).replace(**{"run.duration": "2s", "run.warmup": "0s"})
    lines = record.record(sc)
    calls = {line.split("\t")[0] for line in lines}
    assert {"ResetGlobals", "UseEventClock", "AddNodes", "Build", "Run"} <= calls
    assert calls <= _replayed_calls(), calls - _replayed_calls()
    assert lines.index(next(x for x in lines if x.startswith("UseEventClock"))) == 1
