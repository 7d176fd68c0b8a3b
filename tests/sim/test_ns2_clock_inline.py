"""Work ns-2 does inside an event, run as part of it on ns-2's event clock
(cpp/ns2_event_clock.h, Ns2ClockSimulatorImpl::RunNextNowInline).

ns-3's listener forks in an event of its own (TcpSocketBase::ProcessListen schedules
CompleteFork now), so the SYN/ACK leaves after every other event already due at the SYN's
instant, and its arrival at the router is ordered after the arrivals those events schedule
for the same double. ns-2's Full-TCP answers inside the SYN's event. The clock runs the
event marked inline right after the running one, before any other event due now, with the
running event's uid (the place its random draws take, Ns2Rng::CatchUp); the socket marks
the fork (AqmTcpSocket::Fork). The web-level consequence is in
tests/differential/test_fork_in_syn_event.py.
"""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.ns3

ORDER_PROBE = r"""
namespace aqmlab_test_clock_inline
{
std::vector<std::string> g_ran;
std::vector<uint32_t> g_uid;
bool g_inline = true;

inline uint32_t Uid()
{
    return aqmlab::Ns2ClockSimulatorImpl::Current()->CurrentUid();
}

inline void Later(std::string name)
{
    g_ran.push_back(name);
}

inline void Forked()
{
    g_ran.push_back("fork");
    g_uid.push_back(Uid());
    ns3::Simulator::Schedule(ns3::MilliSeconds(1), &Later, std::string("fork's arrival"));
}

inline void Syn()
{
    g_ran.push_back("syn");
    g_uid.push_back(Uid());
    if (g_inline)
    {
        aqmlab::Ns2ClockSimulatorImpl::Current()->RunNextNowInline();
    }
    ns3::Simulator::ScheduleNow(&Forked);
}

inline void Other()
{
    g_ran.push_back("other");
    ns3::Simulator::Schedule(ns3::MilliSeconds(1), &Later, std::string("other's arrival"));
}

/// A SYN's event and another event due at the same instant, the SYN's first; the SYN's
/// event schedules its fork now, and both the fork and the other event schedule an arrival
/// 1 ms later (the same double): the order everything ran in.
inline std::vector<std::string> Order(bool inlined)
{
    ns3::Simulator::Destroy();
    aqmlab::UseEventClock("ns2");
    g_ran.clear();
    g_uid.clear();
    g_inline = inlined;
    ns3::Simulator::Schedule(ns3::Seconds(1), &Syn);
    ns3::Simulator::Schedule(ns3::Seconds(1), &Other);
    ns3::Simulator::Run();
    ns3::Simulator::Destroy();
    aqmlab::UseEventClock("exact");
    return g_ran;
}
} // namespace aqmlab_test_clock_inline
"""


@pytest.fixture(scope="module")
def probe():
    from aqmlab.engines.ns3 import loader, native

    native.load()
    loader.cppdef(ORDER_PROBE)
    return loader.gbl().aqmlab_test_clock_inline


def test_inline_work_runs_before_other_events_due_now(probe):
    """Marked inline, the fork runs right after the SYN's event, and the arrival it
    schedules comes before the one the other same-time event schedules for the same
    instant; the fork sees the SYN's event's uid."""
    ran = list(probe.Order(True))
    assert ran == ["syn", "fork", "other", "fork's arrival", "other's arrival"]
    assert probe.g_uid[0] == probe.g_uid[1]


def test_without_the_mark_now_means_after_the_events_due_now(probe):
    """The control, ns-3's ScheduleNow: the fork waits for the other event, and the
    arrivals swap."""
    ran = list(probe.Order(False))
    assert ran == ["syn", "other", "fork", "other's arrival", "fork's arrival"]
    assert probe.g_uid[0] != probe.g_uid[1]
