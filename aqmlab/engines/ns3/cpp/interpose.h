// aqmlab/engines/ns3/cpp/interpose.h -- shared by the libraries whose definitions replace the
// wheel's own members (object_memo.cc, socket_tables.cc's companions; built and loaded by
// aqmlab/engines/ns3/interposer.py before any ns-3 library).
//
// A replacement that keeps ns-3's code as its "off" path calls the wheel's definition, the
// next one after this library in symbol resolution (dlsym RTLD_NEXT).
#pragma once
#include "switches.h"

#include "ns3/fatal-error.h"

#include <dlfcn.h>

#include <cstddef>
#include <cstring>

namespace aqmlab
{

/// The wheel's definition of `symbol` (mangled), a static member or free function.
template <typename Fn>
Fn
NextFunction(const char* symbol)
{
    void* address = dlsym(RTLD_NEXT, symbol);
    if (address == nullptr)
    {
        NS_FATAL_ERROR("aqmlab: " << symbol << " not found in the ns-3 libraries");
    }
    return reinterpret_cast<Fn>(address);
}

/// The wheel's definition of the non-virtual member function `symbol` (mangled).
template <typename MemberFn>
MemberFn
NextMember(const char* symbol)
{
    struct
    {
        void* ptr;
        std::ptrdiff_t adj;
    } rep{NextFunction<void*>(symbol), 0}; // Itanium C++ ABI: a non-virtual member pointer
    static_assert(sizeof(MemberFn) == sizeof(rep));
    MemberFn fn;
    std::memcpy(&fn, &rep, sizeof(fn));
    return fn;
}

} // namespace aqmlab
