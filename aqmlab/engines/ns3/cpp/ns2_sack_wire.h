// aqmlab/engines/ns3/cpp/ns2_sack_wire.h -- SACK-bearing ACKs as long on the wire as ns-2's
// one-way sink makes them (sack_option_bytes = "ns2_sink").
//
// ns-2's Agent/TCPSink/Sack1 adds 8 bytes per SACK block to its ACK (tcp-sink.cc,
// append_ack: ch->size() += sack_index * 8): no kind, no length, no padding. ns-3's SACK
// option is 2 + 8n bytes padded to a 4-byte boundary, 8n + 4: every SACK-bearing ACK took 4
// bytes longer on each link, and on Qiu's T1 a duplicate ACK reached its sender 27 us after
// ns-2.35's, which moved the fast retransmit and every packet queued behind it.
//
// Here the receiving socket sends the blocks in an option of exactly 8n bytes: an
// experimental kind (253, RFC 4727), its length, then per block the left edge as a signed
// 24-bit offset from the ACK number and the block's length in 24 bits, zero-padded. The
// receiving socket arms Ns2SackWire around its ACK; the node's TCP down target (installed on
// every node) rewrites that one packet's header on its way to IPv4, all synchronously. The
// data sender's socket turns the option back into ns-3's SACK option before it reads the
// header (Expand). Blocks out of the 24-bit ranges keep ns-3's option.
#pragma once
#include "ns3/internet-module.h"
#include "ns3/network-module.h"

#include <vector>

namespace aqmlab
{
using namespace ns3;

/// The compact SACK option (8 bytes per block, see the file comment).
class Ns2SackOption : public TcpOption
{
  public:
    static constexpr uint8_t KIND = 253;

    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("aqmlab::Ns2SackOption").SetParent<TcpOption>();
        return tid;
    }

    TypeId GetInstanceTypeId() const override
    {
        return GetTypeId();
    }

    /// False if a block lies out of the encoding's range from `ack`.
    static bool Encodable(const TcpOptionSack::SackList& blocks, SequenceNumber32 ack)
    {
        if (blocks.empty() || blocks.size() > 4)
        {
            return false;
        }
        for (const auto& [left, right] : blocks)
        {
            const int64_t off = int64_t(left - ack);
            const int64_t len = int64_t(right - left);
            if (off < -(1 << 23) || off >= (1 << 23) || len < 0 || len >= (1 << 24))
            {
                return false;
            }
        }
        return true;
    }

    void Set(const TcpOptionSack::SackList& blocks, SequenceNumber32 ack)
    {
        m_blocks = blocks;
        m_ack = ack;
    }

    void Print(std::ostream& os) const override
    {
        os << "ns2-sack(" << m_blocks.size() << ")";
    }

    void Serialize(Buffer::Iterator i) const override
    {
        const uint32_t size = GetSerializedSize();
        i.WriteU8(KIND);
        i.WriteU8(uint8_t(size));
        uint32_t written = 2;
        for (const auto& [left, right] : m_blocks)
        {
            Write24(i, uint32_t(int32_t(left - m_ack)) & 0xffffff);
            Write24(i, uint32_t(right - left));
            written += 6;
        }
        for (; written < size; ++written)
        {
            i.WriteU8(0);
        }
    }

    uint32_t Deserialize(Buffer::Iterator) override
    {
        return 0; // a received packet's option is a TcpOptionUnknown: see Expand
    }

    /// SACK's kind: TcpHeader::AppendOption takes only kinds it knows. On the wire the
    /// option's kind byte is KIND, and the receiver's TcpHeader keeps it as an unknown
    /// option (TcpOptionUnknown), which Expand decodes.
    uint8_t GetKind() const override
    {
        return TcpOption::SACK;
    }

    uint32_t GetSerializedSize() const override
    {
        return 8 * uint32_t(m_blocks.size());
    }

    /// The blocks of a received compact option, from its serialized bytes.
    static TcpOptionSack::SackList Decode(const TcpOption& option, SequenceNumber32 ack)
    {
        const uint32_t size = option.GetSerializedSize();
        Buffer b;
        b.AddAtStart(size);
        option.Serialize(b.Begin());
        Buffer::Iterator i = b.Begin();
        i.Next(2);
        TcpOptionSack::SackList out;
        for (uint32_t k = 0; k < size / 8; ++k)
        {
            const uint32_t off = Read24(i);
            const uint32_t len = Read24(i);
            const int32_t signedOff = (off & 0x800000) ? int32_t(off) - (1 << 24) : int32_t(off);
            const SequenceNumber32 left = ack + signedOff;
            out.emplace_back(left, left + len);
        }
        return out;
    }

  private:
    static void Write24(Buffer::Iterator& i, uint32_t v)
    {
        i.WriteU8(uint8_t(v >> 16));
        i.WriteU8(uint8_t(v >> 8));
        i.WriteU8(uint8_t(v));
    }

    static uint32_t Read24(Buffer::Iterator& i)
    {
        uint32_t v = uint32_t(i.ReadU8()) << 16;
        v |= uint32_t(i.ReadU8()) << 8;
        return v | i.ReadU8();
    }

    TcpOptionSack::SackList m_blocks;
    SequenceNumber32 m_ack{0};
};

struct Ns2SackWire
{
    /// Set by a socket around the ACK it sends; the down target rewrites that packet.
    static bool& Armed()
    {
        static bool armed = false;
        return armed;
    }

    /// Put the rewriting down target in front of `node`'s TCP.
    static void Install(Ptr<Node> node)
    {
        Ptr<TcpL4Protocol> tcp = node->GetObject<TcpL4Protocol>();
        if (tcp)
        {
            tcp->SetDownTarget(MakeBoundCallback(&Ns2SackWire::Send, tcp->GetDownTarget()));
        }
    }

    /// `h` with its SACK option in the compact form (false: left as it is).
    static bool Compact(const TcpHeader& h, TcpHeader& out)
    {
        Ptr<const TcpOptionSack> sack = DynamicCast<const TcpOptionSack>(h.GetOption(TcpOption::SACK));
        if (!sack || !Ns2SackOption::Encodable(sack->GetSackList(), h.GetAckNumber()))
        {
            return false;
        }
        out = WithoutSack(h);
        Ptr<Ns2SackOption> compact = CreateObject<Ns2SackOption>();
        compact->Set(sack->GetSackList(), h.GetAckNumber());
        out.AppendOption(compact);
        return true;
    }

    /// A received header with ns-3's SACK option in place of the compact one; `h` itself
    /// when it has none. `storage` holds the copy.
    static const TcpHeader& Expand(const TcpHeader& h, TcpHeader& storage)
    {
        if (!h.HasOption(Ns2SackOption::KIND))
        {
            return h;
        }
        CopyFields(h, storage);
        for (const auto& option : h.GetOptionList())
        {
            if (option->GetKind() == Ns2SackOption::KIND)
            {
                Ptr<TcpOptionSack> sack = CreateObject<TcpOptionSack>();
                for (const auto& block : Ns2SackOption::Decode(*option, h.GetAckNumber()))
                {
                    sack->AddSackBlock(block);
                }
                storage.AppendOption(sack);
            }
            else
            {
                storage.AppendOption(option);
            }
        }
        return storage;
    }

    /// A header identical to `h` without its SACK option.
    static TcpHeader WithoutSack(const TcpHeader& h)
    {
        TcpHeader c;
        CopyFields(h, c);
        for (const auto& option : h.GetOptionList())
        {
            if (option->GetKind() != TcpOption::SACK)
            {
                c.AppendOption(option);
            }
        }
        return c;
    }

    /// `h`'s fields, not its options, into `c` (a header is rebuilt to change an option).
    static void CopyFields(const TcpHeader& h, TcpHeader& c)
    {
        c.SetSourcePort(h.GetSourcePort());
        c.SetDestinationPort(h.GetDestinationPort());
        c.SetSequenceNumber(h.GetSequenceNumber());
        c.SetAckNumber(h.GetAckNumber());
        c.SetFlags(h.GetFlags());
        c.SetWindowSize(h.GetWindowSize());
        c.SetUrgentPointer(h.GetUrgentPointer());
    }

  private:
    static void Send(IpL4Protocol::DownTargetCallback down,
                     Ptr<Packet> p,
                     Ipv4Address src,
                     Ipv4Address dst,
                     uint8_t protocol,
                     Ptr<Ipv4Route> route)
    {
        if (Armed())
        {
            Armed() = false;
            TcpHeader h;
            p->RemoveHeader(h);
            TcpHeader c;
            p->AddHeader(Compact(h, c) ? c : h);
        }
        down(p, src, dst, protocol, route);
    }
};

} // namespace aqmlab
