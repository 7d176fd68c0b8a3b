// aqmlab/engines/ns3/cpp/switches.h -- on/off switches of aqmlab's speed-ups, from the environment.
//
// Every speed-up in these headers changes cost, never results, and each can be turned off
// for a process by setting its variable to 0 (listed in aqmlab/engines/ns3/speedups.py), so that
// bench/check_identical.py and the tests can compare both paths. Each switch is read once,
// at first use, and can be flipped in-process by its Set... function (AQMLAB_SWITCH below;
// the interposed libraries, interpose.h, read theirs once with EnvSwitch and keep them).
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

/// A speed-up's switch in namespace aqmlab: `bool& <Name>Enabled()`, set at its first use
/// to `initial` (usually `EnvSwitch("AQMLAB_...", true)`), and `void Set<Name>(bool on)`,
/// which flips it in-process (tests, benchmarks). Used inside `namespace aqmlab`, with no
/// semicolon after it; the header using it says what the switch turns off.
#define AQMLAB_SWITCH(Name, initial)                                                        \
    inline bool& Name##Enabled()                                                           \
    {                                                                                      \
        static bool on = (initial);                                                        \
        return on;                                                                         \
    }                                                                                      \
                                                                                           \
    inline void Set##Name(bool on)                                                         \
    {                                                                                      \
        Name##Enabled() = on;                                                              \
    }
