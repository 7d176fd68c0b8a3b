// aqmlab/engines/ns3/cpp/ns2_sacker.h -- the SACK blocks of ns-2.35's one-way SACK sink
// (Agent/TCPSink/Sack1: Sacker::append_ack in tcp/tcp-sink.cc), for an ns-3 receiver.
//
// ns-2's sink reports at most maxSackBlocks_ = 3 blocks: first the one holding the segment
// just received, then the blocks of earlier ACKs, newest first, from a 3-deep stack of the
// first blocks it sent, skipping (and forgetting) any the new block covers. ns-3's receiver
// keeps a merged list of every block and sends up to 4 (the option space without
// timestamps). With more than three holes the senders' scoreboards then differ: ns-3's
// Sack1 learnt a segment from the fourth block and skipped it, ns-2.35's resent it (Qiu's
// T1, 30 SACK flows, drop-tail 260, seed 1: flow 15 at 5.51 s, segment 280).
//
// Sequence numbers are bytes here; ns-2's are segments. With whole segments the blocks
// are the same ranges.
#pragma once
#include "private_member.h"

#include "ns3/packet.h"
#include "ns3/tcp-option-sack.h"
#include "ns3/tcp-rx-buffer.h"

#include <array>
#include <map>

namespace
{
struct RxDataTag
{
    using type = std::map<ns3::SequenceNumber32, ns3::Ptr<ns3::Packet>> ns3::TcpRxBuffer::*;
    friend type Get(RxDataTag);
};

template struct Bind<RxDataTag, &ns3::TcpRxBuffer::m_data>;

struct RxSackListTag
{
    using type = ns3::TcpOptionSack::SackList ns3::TcpRxBuffer::*;
    friend type Get(RxSackListTag);
};

template struct Bind<RxSackListTag, &ns3::TcpRxBuffer::m_sackList>;
} // namespace

namespace aqmlab
{
using namespace ns3;

class Ns2Sacker
{
  public:
    static constexpr size_t BLOCKS = 3; // ns-2's maxSackBlocks_ default

    /// A data segment starting at `seq` arrived: the next ACK answers it (ns-2's
    /// old_seqno). Without DSACK, ns-2's is_dup_ changes no block.
    void Received(SequenceNumber32 seq)
    {
        m_last = seq;
        m_valid = true;
    }

    /// The blocks ns-2's sink would put on the ACK it sends now, in order.
    TcpOptionSack::SackList Blocks(const TcpRxBuffer& rx)
    {
        TcpOptionSack::SackList out;
        if (!m_valid)
        {
            return out;
        }
        const SequenceNumber32 cum = rx.NextRxSequence();
        const SequenceNumber32 top = Top(rx, cum);
        if (cum >= top)
        {
            m_n = 0; // everything in order: the stack is emptied
            return out;
        }
        // the run of received bytes holding the segment just received
        const bool above = m_last >= cum;
        SequenceNumber32 right = above ? RunEnd(rx, m_last) : cum;
        SequenceNumber32 left = above ? RunStart(rx, m_last, cum) : SequenceNumber32(0);
        if (above)
        {
            out.emplace_back(left, right);
        }
        size_t k = 0;
        while (out.size() < BLOCKS && k < m_n)
        {
            const auto& b = m_stack[k];
            if (b.second > top)
            {
                break;
            }
            if ((!above || left <= b.first) && right >= b.second)
            {
                Pop(k); // the new block covers it
                continue;
            }
            out.push_back(b);
            ++k;
        }
        if (above)
        {
            Push({left, right});
        }
        return out;
    }

    /// Run `send` with the receive buffer's SACK list set to `blocks`, then restore it.
    template <typename F>
    static void WithSackList(TcpRxBuffer& rx, TcpOptionSack::SackList blocks, F&& send)
    {
        auto& list = rx.*Get(RxSackListTag{});
        std::swap(list, blocks);
        send();
        std::swap(list, blocks);
    }

  private:
    using Map = std::map<SequenceNumber32, Ptr<Packet>>;

    static const Map& Data(const TcpRxBuffer& rx)
    {
        return rx.*Get(RxDataTag{});
    }

    /// One past the highest byte received (ns-2's maxseen_ + 1), at least `cum`.
    static SequenceNumber32 Top(const TcpRxBuffer& rx, SequenceNumber32 cum)
    {
        const Map& d = Data(rx);
        if (d.empty())
        {
            return cum;
        }
        const auto& last = *d.rbegin();
        const SequenceNumber32 end = last.first + last.second->GetSize();
        return end > cum ? end : cum;
    }

    /// The end of the contiguous received bytes from `seq` (ns-2: the first hole at or
    /// after old_seqno, else maxseen_ + 1).
    static SequenceNumber32 RunEnd(const TcpRxBuffer& rx, SequenceNumber32 seq)
    {
        const Map& d = Data(rx);
        auto it = d.upper_bound(seq);
        if (it != d.begin())
        {
            --it;
        }
        SequenceNumber32 at = seq;
        for (; it != d.end() && it->first <= at; ++it)
        {
            const SequenceNumber32 e = it->first + it->second->GetSize();
            if (e > at)
            {
                at = e;
            }
        }
        return at;
    }

    /// The start of the contiguous received bytes ending at or holding `seq`, not below
    /// `cum` (ns-2: one past the first hole left of sack_right).
    static SequenceNumber32 RunStart(const TcpRxBuffer& rx, SequenceNumber32 seq,
                                     SequenceNumber32 cum)
    {
        const Map& d = Data(rx);
        auto it = d.upper_bound(seq);
        SequenceNumber32 start = seq;
        while (it != d.begin())
        {
            --it;
            const SequenceNumber32 e = it->first + it->second->GetSize();
            if (e < start)
            {
                break;
            }
            if (it->first < start)
            {
                start = it->first;
            }
        }
        return start < cum ? cum : start;
    }

    void Push(const TcpOptionSack::SackBlock& b)
    {
        if (m_n >= BLOCKS)
        {
            m_n = BLOCKS - 1; // the oldest is lost
        }
        for (size_t i = m_n; i > 0; --i)
        {
            m_stack[i] = m_stack[i - 1];
        }
        m_stack[0] = b;
        ++m_n;
    }

    void Pop(size_t k)
    {
        for (size_t i = k; i + 1 < m_n; ++i)
        {
            m_stack[i] = m_stack[i + 1];
        }
        --m_n;
    }

    std::array<TcpOptionSack::SackBlock, BLOCKS> m_stack{};
    size_t m_n = 0;
    SequenceNumber32 m_last{0};
    bool m_valid = false;
};

} // namespace aqmlab
