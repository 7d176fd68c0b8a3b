// bench/native/dumbbell_main.cc -- replay an aqmlab experiment script natively.
//
// Usage: dumbbell_main SCRIPT
//
// SCRIPT is written by bench/record.py: the exact sequence of aqmlab::Experiment calls
// that aqmlab's Python build (aqmlab/engines/ns3/build.py) makes for a scenario, one call per line,
// tab-separated (format in record.py). Replaying it against the same header-only C++
// class (aqmlab/engines/ns3/cpp/aqmlab.h), compiled by g++ instead of cling, gives the same
// simulation without Python; bench/bench_core.py compares the two.
//
// Prints one JSON object on stdout: Run() CPU seconds (Experiment::CpuSeconds), events,
// setup wall seconds, peak RSS, and checksums (probe-queue counters summed over probes,
// per-flow bytes_received summed and index-weighted).
// The module headers aqmlab/engines/ns3/loader.py parses before cppyy sees aqmlab.h, in the same
// order: aqmlab's headers rely on them (e.g. tcp_socket.h uses ns3::StringValue without
// including ns3/string.h, droplist_queue_disc.h uses DropTailQueue without
// ns3/drop-tail-queue.h), which goes unnoticed under cppyy.
#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/internet-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"
#include "ns3/applications-module.h"
// (keep this order: aqmlab.h last)
#include "aqmlab.h"

#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace
{

/// The tab-separated fields of one script line, consumed left to right.
class Fields
{
  public:
    Fields(const std::string& line, int lineNo)
        : m_line(lineNo)
    {
        std::string::size_type start = 0;
        while (true)
        {
            const auto tab = line.find('\t', start);
            m_f.push_back(line.substr(start, tab == std::string::npos ? tab : tab - start));
            if (tab == std::string::npos)
            {
                break;
            }
            start = tab + 1;
        }
    }

    std::string Str()
    {
        if (m_i >= m_f.size())
        {
            throw std::runtime_error("line " + std::to_string(m_line) + ": too few fields");
        }
        return m_f[m_i++];
    }

    uint64_t UInt() { return std::stoull(Str()); }
    int64_t Int() { return std::stoll(Str()); }

    double Dbl() { return std::stod(Str()); }

    bool Bool() { return UInt() != 0; }

    std::vector<double> Doubles()
    {
        std::vector<double> v(UInt());
        for (auto& x : v)
        {
            x = Dbl();
        }
        return v;
    }

    std::vector<std::string> List()
    {
        std::vector<std::string> v(UInt());
        for (auto& s : v)
        {
            s = Str();
        }
        return v;
    }

    void End() const
    {
        if (m_i != m_f.size())
        {
            throw std::runtime_error("line " + std::to_string(m_line) + ": too many fields");
        }
    }

  private:
    std::vector<std::string> m_f;
    size_t m_i = 0;
    int m_line;
};

size_t
IndexOf(const std::vector<std::string>& names, const std::string& name)
{
    for (size_t i = 0; i < names.size(); ++i)
    {
        if (names[i] == name)
        {
            return i;
        }
    }
    throw std::runtime_error("no result column " + name);
}

/// Peak resident set size of this process in MB: VmHWM from /proc/self/status. (getrusage's
/// ru_maxrss is not used: Linux carries the parent's high-water mark over fork+exec, so a
/// child of a large Python process would report the parent's peak.)
double
PeakRssMb()
{
    std::ifstream status("/proc/self/status");
    std::string key;
    while (status >> key)
    {
        if (key == "VmHWM:")
        {
            double kb = 0;
            status >> kb;
            return kb / 1024.0;
        }
        status.ignore(1 << 20, '\n');
    }
    return -1;
}

double
Sum(const std::vector<double>& v)
{
    double s = 0;
    for (double x : v)
    {
        s += x;
    }
    return s;
}

} // namespace

int
main(int argc, char** argv)
{
    if (argc != 2)
    {
        std::cerr << "usage: " << argv[0] << " SCRIPT\n";
        return 2;
    }
    std::ifstream in(argv[1]);
    if (!in)
    {
        std::cerr << "cannot read " << argv[1] << "\n";
        return 2;
    }
    // ns-3's time step, as aqmlab/engines/ns3/native.py sets it (AQMLAB_TIME_RESOLUTION,
    // default fs) before any simulation
    const char* res = std::getenv("AQMLAB_TIME_RESOLUTION");
    const std::string resolution = res && *res ? res : "fs";
    if (resolution == "fs")
    {
        ns3::Time::SetResolution(ns3::Time::FS);
    }
    else if (resolution == "ps")
    {
        ns3::Time::SetResolution(ns3::Time::PS);
    }
    else if (resolution != "ns")
    {
        std::cerr << "AQMLAB_TIME_RESOLUTION must be fs, ps or ns\n";
        return 2;
    }
    const auto t0 = std::chrono::steady_clock::now();
    auto t1 = t0;
    std::unique_ptr<aqmlab::Experiment> exp;
    uint64_t seed = 1, run = 1;
    bool ran = false;
    std::string line;
    int lineNo = 0;
    while (std::getline(in, line))
    {
        ++lineNo;
        if (line.empty() || line[0] == '#')
        {
            continue;
        }
        Fields f(line, lineNo);
        const std::string call = f.Str();
        if (call == "ResetGlobals")
        {
            seed = f.UInt();
            run = f.UInt();
            aqmlab::ResetGlobals(seed, run);
            f.End();
            continue;
        }
        if (call == "UseEventClock")
        {
            aqmlab::UseEventClock(f.Str()); // before the Experiment, as build() calls it
            f.End();
            continue;
        }
        if (!exp)
        {
            exp = std::make_unique<aqmlab::Experiment>(); // as build() does after the reset
        }
        if (call == "AddNodes")
        {
            exp->AddNodes(f.UInt());
        }
        else if (call == "AddLink")
        {
            const auto a = f.UInt(), b = f.UInt();
            const auto rate = f.Str(), delay = f.Str();
            exp->AddLink(a, b, rate, delay);
        }
        else if (call == "SetQueue")
        {
            const auto link = f.UInt();
            const int dir = f.UInt();
            const auto type = f.Str();
            exp->SetQueue(link, dir, type, f.List());
        }
        else if (call == "ProbeQueue")
        {
            const auto link = f.UInt();
            const int dir = f.UInt();
            const auto name = f.Str();
            const double wq = f.Dbl(), ptc = f.Dbl();
            exp->ProbeQueue(link, dir, name, wq, ptc);
        }
        else if (call == "AddTcpProfile")
        {
            const auto cong = f.Str(), rec = f.Str();
            const bool reno = f.Bool();
            const double alpha = f.Dbl(), beta = f.Dbl();
            exp->AddTcpProfile(cong, rec, reno, alpha, beta, f.List());
        }
        else if (call == "AddFlow")
        {
            const auto src = f.UInt(), dst = f.UInt(), prof = f.UInt();
            const double start = f.Dbl(), bytes = f.Dbl(), proc = f.Dbl(), boot = f.Dbl();
            exp->AddFlow(src, dst, prof, start, bytes, proc, boot);
        }
        else if (call == "AddWebFlows")
        {
            const auto n = f.UInt();
            std::vector<std::vector<double>> a;
            for (int i = 0; i < 8; ++i)
            {
                a.push_back(f.Doubles());
            }
            exp->AddWebFlows(n, a[0].data(), a[1].data(), a[2].data(), a[3].data(),
                             a[4].data(), a[5].data(), a[6].data(), a[7].data());
        }
        else if (call == "AddBrowsing")
        {
            const auto nUsers = f.UInt();
            std::vector<std::vector<double>> u, p, o;
            for (int i = 0; i < 4; ++i)
            {
                u.push_back(f.Doubles());
            }
            const auto nPages = f.UInt();
            for (int i = 0; i < 4; ++i)
            {
                p.push_back(f.Doubles());
            }
            const auto nObj = f.UInt();
            for (int i = 0; i < 3; ++i)
            {
                o.push_back(f.Doubles());
            }
            exp->AddBrowsing(nUsers, u[0].data(), u[1].data(), u[2].data(), u[3].data(), nPages,
                             p[0].data(), p[1].data(), p[2].data(), p[3].data(), nObj,
                             o[0].data(), o[1].data(), o[2].data(), f.UInt());
        }
        else if (call == "SetFlowDelay")
        {
            const auto link = f.UInt();
            exp->SetFlowDelay(link, static_cast<int32_t>(f.Int()));
        }
        else if (call == "SetQueueWake")
        {
            exp->SetQueueWake(f.Str());
        }
        else if (call == "SetLinkHeader")
        {
            exp->SetLinkHeader(f.Str());
        }
        else if (call == "SetTxTime")
        {
            exp->SetTxTime(f.Str());
        }
        else if (call == "SetRandomStream")
        {
            const auto mode = f.Str();
            const auto seed = f.UInt(), run = f.UInt();
            exp->SetRandomStream(mode, seed, run);
        }
        else if (call == "SetStopAfter")
        {
            exp->SetStopAfter(f.UInt());
        }
        else if (call == "SetRunControl")
        {
            const double dur = f.Dbl(), warm = f.Dbl(), sample = f.Dbl();
            exp->SetRunControl(dur, warm, sample, f.Bool());
        }
        else if (call == "Build")
        {
            exp->Build();
        }
        else if (call == "Run")
        {
            t1 = std::chrono::steady_clock::now();
            exp->Run();
            ran = true;
        }
        else
        {
            throw std::runtime_error("line " + std::to_string(lineNo) + ": unknown call " + call);
        }
        f.End();
    }
    if (!ran)
    {
        std::cerr << "the script has no Run line\n";
        return 2;
    }

    const auto qcols = exp->QueueColumns();
    const auto fcols = exp->FlowColumns();
    const auto bytes = exp->FlowColumn(IndexOf(fcols, "bytes_received"), false);
    double weighted = 0;
    for (size_t i = 0; i < bytes.size(); ++i)
    {
        weighted += double(i + 1) * bytes[i];
    }

    std::ostringstream out;
    out.precision(17);
    out << "{\"run_cpu_s\": " << exp->CpuSeconds() << ", \"events\": " << exp->Events()
        << ", \"end_s\": " << exp->EndTime() << ", \"setup_wall_s\": "
        << std::chrono::duration<double>(t1 - t0).count()
        << ", \"peak_rss_mb\": " << PeakRssMb() << ", \"flows\": " << exp->NFlows()
        << ", \"bytes_received\": " << Sum(bytes) << ", \"bytes_received_weighted\": "
        << weighted;
    for (const char* name : {"arrivals", "departures", "drops", "marks"})
    {
        out << ", \"queue_" << name << "\": " << Sum(exp->QueueColumn(IndexOf(qcols, name), false));
    }
    out << "}";
    std::cout << out.str() << std::endl;
    exp.reset();
    aqmlab::ResetGlobals(seed, run); // free the simulation's objects, as aqmlab's session does
    return 0;
}
