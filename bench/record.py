"""Record the exact ``aqmlab::Experiment`` calls that aqmlab makes for a scenario.

``aqmlab.engines.ns3.build.build(cpp, scenario, plan)`` only talks to ``cpp.Experiment()`` and the
methods of the object it returns. Passing a :class:`RecordingCpp` instead of the JIT'd C++
namespace captures that call sequence without importing ns-3. :func:`write_script` then
writes it as a small text script that ``bench/native/dumbbell_main.cc`` replays against
the same C++ class, so the native and the Python-driven simulation are built by the very
same calls (the benchmark checks this through equal event counts and checksums).

Script format (version 1): one call per line, fields separated by tabs, first field the
method name. Integers in decimal, doubles as Python ``repr`` (shortest round-trip form,
parsed back exactly by ``strtod``), booleans 0/1, a list of strings as its length followed
by its items (a float array the same way, its items in ``repr`` form). Lines starting with
``#`` are comments.

Standalone use: ``python bench/record.py SCENARIO.toml OUT.txt``.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from aqmlab.engines.ns3.build import build
from aqmlab.plan import make_plan
from aqmlab.scenario import Scenario

HEADER = "# aqmlab experiment script v1"
Field = str | int | float | bool | list[str]


def _field(value: Field) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, str):
        if "\t" in value or "\n" in value:
            raise ValueError(f"a script field must not contain tabs or newlines: {value!r}")
        return value
    return "\t".join([str(len(value)), *(_field(str(v)) for v in value)])


def _doubles(values: Any) -> list[str]:
    return [repr(float(v)) for v in values]


class RecordingExperiment:
    """Stands in for ``aqmlab::Experiment``: same method names (C++ style), signatures and
    return values."""

    def __init__(self, calls: list[str]) -> None:
        self._calls = calls
        self._nodes = 0
        self._links = 0
        self._profiles = 0
        self._flows = 0

    def _rec(self, name: str, *args: Field) -> None:
        self._calls.append("\t".join([name, *(_field(a) for a in args)]))

    def AddNodes(self, n: int) -> int:
        self._rec("AddNodes", int(n))
        first, self._nodes = self._nodes, self._nodes + int(n)
        return first

    def AddLink(self, a: int, b: int, rate: str, delay: str) -> int:
        self._rec("AddLink", int(a), int(b), str(rate), str(delay))
        self._links += 1
        return self._links - 1

    def SetQueue(self, link: int, direction: int, type_id: str,
                 attrs: list[str]) -> None:
        self._rec("SetQueue", int(link), int(direction), str(type_id), list(attrs))

    def ProbeQueue(self, link: int, direction: int, name: str, red_wq: float,
                   red_ptc: float) -> None:
        self._rec("ProbeQueue", int(link), int(direction), str(name), float(red_wq),
                  float(red_ptc))

    def AddTcpProfile(self, congestion: str, recovery: str, reno: bool,
                      rtt_alpha: float, rtt_beta: float, attrs: list[str]) -> int:
        self._rec("AddTcpProfile", str(congestion), str(recovery), bool(reno),
                  float(rtt_alpha), float(rtt_beta), list(attrs))
        self._profiles += 1
        return self._profiles - 1

    def AddFlow(self, src: int, dst: int, profile: int, start: float,
                size_bytes: float, processing: float, boot_phase: float) -> int:
        self._rec("AddFlow", int(src), int(dst), int(profile), float(start),
                  float(size_bytes), float(processing), float(boot_phase))
        self._flows += 1
        return self._flows - 1

    def AddWebFlows(self, n: int, *arrays: Any) -> None:
        """server, client, profile, start, request, response, delay, server delay: ``n``
        values each."""
        self._rec("AddWebFlows", int(n), *(_doubles(a) for a in arrays))
        self._flows += int(n)

    def AddBrowsing(self, n_users: int, *args: Any) -> int:
        """users (client, first page, pages, start), n_pages, pages (server, first object,
        objects, think), n_objects, objects (request, reply, delay), profile."""
        users, n_pages = args[:4], args[4]
        pages, n_obj = args[5:9], args[9]
        objs, profile = args[10:13], args[13]
        self._rec("AddBrowsing", int(n_users), *(_doubles(a) for a in users), int(n_pages),
                  *(_doubles(a) for a in pages), int(n_obj), *(_doubles(a) for a in objs),
                  int(profile))
        first, self._flows = self._flows, self._flows + int(n_obj)
        return first

    def SetFlowDelay(self, link: int, client: int = -1) -> None:
        self._rec("SetFlowDelay", int(link), int(client))

    def SetQueueWake(self, mode: str) -> None:
        self._rec("SetQueueWake", str(mode))

    def SetLinkHeader(self, mode: str) -> None:
        self._rec("SetLinkHeader", str(mode))

    def SetTxTime(self, mode: str) -> None:
        self._rec("SetTxTime", str(mode))

    def SetRandomStream(self, mode: str, seed: int, run: int) -> None:
        self._rec("SetRandomStream", str(mode), int(seed), int(run))

    def SetStopAfter(self, n: int) -> None:
        self._rec("SetStopAfter", int(n))

    def SetRunControl(self, duration: float, warmup: float, sample: float,
                      stop_when_done: bool) -> None:
        self._rec("SetRunControl", float(duration), float(warmup), float(sample),
                  bool(stop_when_done))

    def Build(self) -> None:
        self._rec("Build")


class RecordingCpp:
    """A fake ``aqmlab`` C++ namespace whose ``Experiment()`` records calls."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def ResetGlobals(self, seed: int, run: int) -> None:
        self.calls.append(f"ResetGlobals\t{int(seed)}\t{int(run)}")

    def UseEventClock(self, mode: str) -> None:
        self.calls.append(f"UseEventClock\t{mode}")

    def Experiment(self) -> RecordingExperiment:
        return RecordingExperiment(self.calls)


def record(scenario: Scenario) -> list[str]:
    """The call lines of ``aqmlab.engines.ns3.session.simulate`` for ``scenario`` up to ``Run()``:
    ``ResetGlobals(seed, run)``, then everything ``build()`` calls, then ``Run``."""
    cpp = RecordingCpp()
    plan = make_plan(scenario)
    cpp.ResetGlobals(scenario.run.seed, scenario.run.run)
    build(cpp, scenario, plan)
    return [*cpp.calls, "Run"]


def write_script(scenario: Scenario, path: Path) -> Path:
    """Write the replay script of ``scenario`` to ``path`` and return ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [HEADER, f"# scenario {scenario.key}", *record(scenario)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: python bench/record.py SCENARIO.toml|json OUT.txt")
    print(write_script(Scenario.load(sys.argv[1]), Path(sys.argv[2])))
