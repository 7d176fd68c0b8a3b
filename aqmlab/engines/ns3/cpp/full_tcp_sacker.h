// aqmlab/engines/ns3/cpp/full_tcp_sacker.h -- the SACK blocks of ns-2.35's Full-TCP
// receiver (SackFullTcpAgent::build_options: ReassemblyQueue::gensack in tcp/rq.cc), for an
// ns-3 receiver of a web connection.
//
// ns-2's reassembly queue keeps its out-of-order blocks twice: in sequence order and on a
// LIFO stack in the order they were created. An ACK carries the first max_sack_blocks_ = 3
// of the stack. A segment that extends a block leaves that block where it was on the stack
// (ReassemblyQueue::add / coalesce: the new entry is removed, its neighbour grows); one that
// joins two blocks keeps the left one's place and drops the right one; only a segment
// touching no block goes on top. ns-3's receiver puts the block of the segment just
// received first (RFC 2018) and sends up to 4.
//
// Sequence numbers are bytes on both simulators here (Full-TCP counts bytes).
#pragma once
#include "ns3/sequence-number.h"
#include "ns3/tcp-option-sack.h"

#include <algorithm>
#include <vector>

namespace aqmlab
{
using namespace ns3;

class FullTcpSacker
{
  public:
    static constexpr size_t BLOCKS = 3; // Agent/TCP/FullTcp/Sack max_sack_blocks_

    /// A data segment [start, end) arrived; `cum` is the cumulative ACK point before it
    /// (ns-2 trims old data to rcv_nxt_ before adding the rest to its queue).
    void Received(SequenceNumber32 start, SequenceNumber32 end, SequenceNumber32 cum)
    {
        ClearTo(cum);
        start = std::max(start, cum);
        if (end <= start)
        {
            return;
        }
        for (const auto& b : m_lifo)
        {
            if (b.first <= start && end <= b.second)
            {
                return; // already held: nothing changes
            }
        }
        // blocks the segment covers go (ns-2: "complete overlap"), losing their places
        m_lifo.erase(std::remove_if(m_lifo.begin(), m_lifo.end(),
                                    [&](const auto& b) {
                                        return start <= b.first && b.second <= end;
                                    }),
                     m_lifo.end());
        auto left = std::find_if(m_lifo.begin(), m_lifo.end(), [&](const auto& b) {
            return b.first < start && start <= b.second;
        });
        auto right = std::find_if(m_lifo.begin(), m_lifo.end(), [&](const auto& b) {
            return start < b.first && b.first <= end;
        });
        if (left != m_lifo.end() && right != m_lifo.end())
        {
            left->second = std::max(end, right->second); // fills the hole: the left one stays
            m_lifo.erase(right);
        }
        else if (left != m_lifo.end())
        {
            left->second = std::max(left->second, end);
        }
        else if (right != m_lifo.end())
        {
            right->first = start;
        }
        else
        {
            m_lifo.insert(m_lifo.begin(), {start, end}); // push
        }
    }

    /// The blocks of an ACK sent with cumulative ACK point `cum`: the stack's first three.
    TcpOptionSack::SackList Blocks(SequenceNumber32 cum)
    {
        ClearTo(cum);
        TcpOptionSack::SackList out;
        for (size_t i = 0; i < m_lifo.size() && i < BLOCKS; ++i)
        {
            out.push_back(m_lifo[i]);
        }
        return out;
    }

  private:
    /// ReassemblyQueue::clearto: blocks below `cum` go, one across it is trimmed.
    void ClearTo(SequenceNumber32 cum)
    {
        m_lifo.erase(std::remove_if(m_lifo.begin(), m_lifo.end(),
                                    [&](const auto& b) { return b.second <= cum; }),
                     m_lifo.end());
        for (auto& b : m_lifo)
        {
            b.first = std::max(b.first, cum);
        }
    }

    std::vector<TcpOptionSack::SackBlock> m_lifo; // top first
};

} // namespace aqmlab
