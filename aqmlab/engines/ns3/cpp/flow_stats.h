// aqmlab/engines/ns3/cpp/flow_stats.h -- per-flow counters shared by sockets, applications and probes.
// Plain data collected in C++ during the run and exported once as columns at the end.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace aqmlab
{

/// Counters of one flow (one TCP connection). Sender-side counters are filled by
/// AqmTcpSocket, receiver-side ones by Receiver, queue-side ones by QueueProbe.
struct FlowStats
{
    double dataPacketsSent = 0;   // data segments handed to IP, retransmissions included
    double dataBytesSent = 0;     // payload bytes of those segments
    double retransPackets = 0;    // retransmitted data segments
    double timeouts = 0;          // retransmission timeouts (RTO expiries)
    double fastRecoveries = 0;    // entries into fast recovery
    double bytesReceived = 0;     // in-order payload bytes delivered to the receiving application
    double drops = 0;             // data packets of this flow dropped by a probed queue
    double marks = 0;             // data packets of this flow CE-marked by a probed queue
    double ackDrops = 0;          // pure ACKs of this flow dropped by a probed queue
    double ecnEchoes = 0;         // congestion-window reductions caused by ECN echoes
    double cwrRecoveries = 0;     // of fastRecoveries, those entered from ECN's CWR state

    static std::vector<std::string> Names()
    {
        return {"data_packets_sent", "data_bytes_sent", "retrans_packets", "timeouts",
                "fast_recoveries", "bytes_received", "drops", "marks", "ack_drops",
                "ecn_reductions", "cwr_recoveries"};
    }

    double Get(size_t i) const
    {
        const double* v[] = {&dataPacketsSent, &dataBytesSent, &retransPackets, &timeouts,
                             &fastRecoveries, &bytesReceived, &drops, &marks, &ackDrops,
                             &ecnEchoes, &cwrRecoveries};
        return *v[i];
    }
};

/// What a flow is, plus its lifetime stamps (seconds, -1 when not reached).
struct FlowInfo
{
    uint32_t src = 0;
    uint32_t dst = 0;
    uint32_t profile = 0;
    uint32_t kind = 0;        // 0: bulk/transfer (src sends target bytes), 1: web request/response
    double start = 0;
    double target = 0;        // bytes to transfer; 0 = unlimited (bulk)
    double processing = 0;    // max random processing delay at the sender (s)
    double bootPhase = -1;    // RTO clock's tick phase, fraction of a tick (-1: from ports)
    double serverBoot = -1;   // web: the server's tick phase, drawn at the open (ns2_rng.h)
    double startDue = -1;     // web: ns-2's double for the open (event_clock "ns2"), or -1
    double request = 0;       // web: request bytes the client sends before the response
    double delay = 0;         // extra one-way delay of this flow (FlowDelayChannel)
    double serverDelay = 0;   // web: seconds between the whole request and the response
    double completion = -1;   // time the last byte reached the receiver application
    double firstRx = -1;      // time the first byte reached the receiver application
};

} // namespace aqmlab
