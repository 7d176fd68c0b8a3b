"""Which events an ns-3 run schedules: one scenario in this process, with ns-3's default
Map scheduler replaced (after the build, before ``Simulator::Run``) by a subclass that
counts every inserted event by its C++ type. Prints the kinds, counts and shares.

    .venv/bin/python bench/event_census.py examples/qiu_t1_dumbbell.toml \
        --set topology.senders=1 --set traffic[0].flows=1 --set run.duration=100s

Run it from a small working directory (the ns-3 loader scans the cwd). The counting adds
one map update per event, so its CPU seconds are not the run's; the events are (a cancelled
timer is counted when it is scheduled; ns-3's event count counts it when it is popped).
"""

from __future__ import annotations

import argparse
import re
import tomllib
from typing import Any

COUNTING_SCHEDULER = r"""
#include "ns3/map-scheduler.h"
#include <cxxabi.h>
#include <cstdlib>
#include <map>
#include <string>
#include <typeinfo>
#include <vector>

namespace aqmlab_bench
{
class CountingScheduler : public ns3::MapScheduler
{
  public:
    static ns3::TypeId GetTypeId()
    {
        static ns3::TypeId tid = ns3::TypeId("aqmlab_bench::CountingScheduler")
                                     .SetParent<ns3::MapScheduler>()
                                     .AddConstructor<CountingScheduler>();
        return tid;
    }

    void Insert(const ns3::Scheduler::Event& ev) override
    {
        ++s_counts[&typeid(*ev.impl)];
        ns3::MapScheduler::Insert(ev);
    }

    /// "demangled type<TAB>count", one per event type seen since the last call.
    static std::vector<std::string> Census()
    {
        std::vector<std::string> out;
        for (const auto& [type, n] : s_counts)
        {
            int status = 0;
            char* name = abi::__cxa_demangle(type->name(), nullptr, nullptr, &status);
            out.push_back(std::string(status == 0 ? name : type->name()) + "\t" +
                          std::to_string(n));
            std::free(name);
        }
        s_counts.clear();
        return out;
    }

  private:
    static inline std::map<const std::type_info*, uint64_t> s_counts;
};
} // namespace aqmlab_bench
"""


def value(text: str) -> Any:
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text


def short(name: str) -> str:
    """The event's callee signature without namespaces and allocator noise."""
    name = re.sub(r"(ns3|std|__cxx11|aqmlab)::", "", name)
    name = re.sub(r", allocator<[^<>]*(<[^<>]*(<[^<>]*>)?[^<>]*>)?[^<>]*>", "", name)
    name = name.removesuffix("::EventMemberImpl").removesuffix("::EventFunctionImpl")
    m = re.match(r"MakeEvent<(.*)>\(", name)
    return (m.group(1) if m else name)[:150]


def census(scenario: Any) -> tuple[list[tuple[str, int]], float]:
    """(event type, count) by count, and ns-3's own event count of the run."""
    from aqmlab.engines.ns3 import native, session
    from aqmlab.plan import make_plan

    native.load()  # ns-3 and aqmlab's C++, which the counting scheduler builds on
    import cppyy  # noqa: PLC0415  (bench only: the package imports cppyy in native.load)

    if not hasattr(cppyy.gbl, "aqmlab_bench"):
        cppyy.cppdef(COUNTING_SCHEDULER)
    bench = cppyy.gbl.aqmlab_bench
    built = session.build

    def build_then_count(*args: Any, **kwargs: Any) -> Any:
        exp = built(*args, **kwargs)
        bench.CountingScheduler.GetTypeId()
        factory = cppyy.gbl.ns3.ObjectFactory()
        factory.SetTypeId("aqmlab_bench::CountingScheduler")
        cppyy.gbl.ns3.Simulator.SetScheduler(factory)
        bench.CountingScheduler.Census()  # events moved over from the old scheduler
        return exp

    session.build = build_then_count
    try:
        raw = session.simulate(scenario, make_plan(scenario))
    finally:
        session.build = built
    rows = [(short(line.split("\t")[0]), int(line.split("\t")[1]))
            for line in map(str, bench.CountingScheduler.Census())]
    merged: dict[str, int] = {}
    for name, n in rows:
        merged[name] = merged.get(name, 0) + n
    return sorted(merged.items(), key=lambda kv: -kv[1]), raw.stats.get("events", 0.0)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("scenario", help="scenario file (.toml or .json)")
    ap.add_argument("--set", action="append", default=[], metavar="PATH=VALUE",
                    help="override a dotted scenario field (repeatable)")
    ap.add_argument("--top", type=int, default=15)
    args = ap.parse_args()
    from aqmlab.scenario import Scenario

    sc = Scenario.load(args.scenario).replace(**{"run.engine": "ns3"})
    if args.set:
        sc = sc.replace(**{k: value(v) for k, v in (s.split("=", 1) for s in args.set)})
    rows, events = census(sc)
    total = sum(n for _, n in rows)
    print(f"# {sc.name}  {' '.join(args.set)}")
    print(f"# scheduled {total:,} events (ns-3's count of processed events: {events:,.0f})")
    print("| events | share | callee |\n|---|---|---|")
    for name, n in rows[:args.top]:
        print(f"| {n:,} | {n / total:.1%} | `{name}` |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
