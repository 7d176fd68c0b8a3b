// aqmlab/engines/ns3/cpp/sent_list.h -- the items of TcpTxBuffer's sent list, which
// AqmTcpSocket reads to steer ns-3's partial-ACK retransmission (see
// QuietPartialAck in tcp_socket.h). TcpTxBuffer keeps the list and each
// item's start private; private_member.h names them.
#pragma once
#include "private_member.h"

#include "ns3/tcp-tx-buffer.h"

#include <list>

namespace
{
struct SentListTag
{
    using type = std::list<ns3::TcpTxItem*> ns3::TcpTxBuffer::*;
    friend type Get(SentListTag);
};

template struct Bind<SentListTag, &ns3::TcpTxBuffer::m_sentList>;

struct StartSeqTag
{
    using type = ns3::SequenceNumber32 ns3::TcpTxItem::*;
    friend type Get(StartSeqTag);
};

template struct Bind<StartSeqTag, &ns3::TcpTxItem::m_startSeq>;
} // namespace

namespace aqmlab
{
/// The item of `buffer`'s sent list that starts at `seq`, or null.
inline ns3::TcpTxItem*
SentItemAt(ns3::TcpTxBuffer& buffer, ns3::SequenceNumber32 seq)
{
    for (ns3::TcpTxItem* item : buffer.*Get(SentListTag{}))
    {
        const ns3::SequenceNumber32 start = item->*Get(StartSeqTag{});
        if (start == seq)
        {
            return item;
        }
        if (start > seq)
        {
            break;
        }
    }
    return nullptr;
}
} // namespace aqmlab
