// aqmlab/engines/ns3/cpp/switches.h -- on/off switches of aqmlab's speed-ups, from the environment.
//
// Every speed-up in these headers changes cost, never results, and each can be turned off
// for a process by setting its variable to 0 (listed in aqmlab/engines/ns3/speedups.py), so that
// bench/check_identical.py and the tests can compare both paths. Each switch is read once,
// at first use, and can be flipped in-process by its Set... function.
#pragma once
#include <cstdlib>
#include <cstring>

namespace aqmlab
{

/// The switch `name` from the environment: unset or empty means `dflt`, "0" means off.
inline bool EnvSwitch(const char* name, bool dflt)
{
    const char* v = std::getenv(name);
    return (v == nullptr || *v == '\0') ? dflt : std::strcmp(v, "0") != 0;
}

} // namespace aqmlab
