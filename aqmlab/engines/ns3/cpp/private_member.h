// aqmlab/engines/ns3/cpp/private_member.h -- naming a private member of an ns-3 class from
// outside it, for the interposed libraries that read one (queue_accessors.cc,
// per_packet_memo.cc) and for the socket's look at TcpTxBuffer's sent list (sent_list.h).
//
// An explicit instantiation may name a private member, and a friend defined in the class
// template it instantiates hands that member out. Each use declares a tag in its own
// anonymous namespace,
//     struct Tag { using type = Member Class::*; friend type Get(Tag); };
//     template struct Bind<Tag, &Class::m_member>;
// and reads the member as `obj.*Get(Tag{})`. Bind lives in the anonymous namespace too, so
// that the friend it defines is the one the tag declares.
#pragma once

namespace
{

template <typename Tag, typename Tag::type Member>
struct Bind
{
    friend typename Tag::type Get(Tag)
    {
        return Member;
    }
};

} // namespace
