/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "collective.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/short-name-registry.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("Collective");
NS_OBJECT_ENSURE_REGISTERED(Collective);
NS_OBJECT_ENSURE_REGISTERED(SteppedCollective);

TypeId
Collective::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::Collective")
            .SetParent<Object>()
            .SetGroupName("CollectiveScheduling")
            .AddAttribute("Channels",
                          "Parallel rings / queue pairs per peer (NCCL channels); bytes are split "
                          "evenly over them. Takes effect at the next Start.",
                          UintegerValue(1),
                          MakeUintegerAccessor(&Collective::m_channels),
                          MakeUintegerChecker<uint32_t>(1))
            .AddTraceSource("MessageSent",
                            "A message was handed to the transport.",
                            MakeTraceSourceAccessor(&Collective::m_sendTrace),
                            "ns3::Collective::MessageTracedCallback")
            .AddTraceSource("MessageDelivered",
                            "The last byte of a message arrived.",
                            MakeTraceSourceAccessor(&Collective::m_deliverTrace),
                            "ns3::Collective::MessageTracedCallback")
            .AddTraceSource("Finished",
                            "Every rank finished the run (fired just before done is called).",
                            MakeTraceSourceAccessor(&Collective::m_finishTrace),
                            "ns3::TracedCallback::Void");
    return tid;
}

std::string
Collective::GetName() const
{
    const std::string name = ShortNameRegistry::Get(GetInstanceTypeId());
    return name.empty() ? GetInstanceTypeId().GetName() : name;
}

Collective::Collective()
    : m_channels(1)
{
    NS_LOG_FUNCTION(this);
}

Collective::~Collective()
{
    NS_LOG_FUNCTION(this);
}

void
Collective::DoDispose()
{
    m_done = nullptr;
    m_failure = nullptr;
    m_transport = nullptr;
    Object::DoDispose();
}

void
Collective::Configure(uint32_t nRanks, uint64_t bytes, CollectiveTransport* transport)
{
    NS_LOG_FUNCTION(this << nRanks << bytes << transport);
    if (m_running)
    {
        throw std::invalid_argument(GetName() + ": Configure called during a run");
    }
    if (nRanks == 0)
    {
        throw std::invalid_argument(GetName() + ": rank count N = 0; need at least one rank");
    }
    if (transport == nullptr)
    {
        throw std::invalid_argument(GetName() + ": transport is null");
    }
    uint32_t oldRanks = m_nRanks;
    uint64_t oldBytes = m_bytes;
    CollectiveTransport* oldTransport = m_transport;
    m_nRanks = nRanks;
    m_bytes = bytes;
    m_transport = transport;
    try
    {
        DoConfigure();
    }
    catch (...)
    {
        // A rejected configuration leaves the previous one in place.
        m_nRanks = oldRanks;
        m_bytes = oldBytes;
        m_transport = oldTransport;
        throw;
    }
}

void
Collective::DoConfigure()
{
}

void
Collective::Start(std::function<void()> done, FailedCallback failed)
{
    NS_LOG_FUNCTION(this);
    if (!IsConfigured())
    {
        throw std::logic_error(GetName() + ": Start called before Configure");
    }
    if (m_running)
    {
        throw std::logic_error(GetName() + ": Start called while a run is in progress");
    }
    m_running = true;
    ++m_runs;
    m_done = std::move(done);
    m_failure = std::make_shared<RunFailure>();
    m_failure->failed = std::move(failed);
    m_messagesSent = 0;
    m_bytesSent = 0;
    m_messagesDelivered = 0;
    DoStart();
}

void
Collective::SendMessage(const CollectiveMessage& m)
{
    NS_LOG_FUNCTION(this << m.srcRank << m.dstRank << m.bytes << m.channel << m.step);
    NS_ASSERT(m_running);
    NS_ASSERT(m.srcRank < m_nRanks && m.dstRank < m_nRanks && m.srcRank != m.dstRank);
    // The reference keeps the collective alive while its messages are in flight.
    Ptr<Collective> self(this);
    const uint64_t run = m_runs;
    // A collective of fewer bytes than ranks has empty chunks. NCCL puts
    // nothing on the wire for them: the step is done at once, with no
    // message sent, traced or counted.
    const bool empty = m.bytes == 0;
    if (!empty)
    {
        ++m_messagesSent;
        m_bytesSent += m.bytes;
        m_sendTrace(m);
    }
    std::function<void()> deliver = [self, m, run]() {
        if (!self->m_running || self->m_runs != run)
        {
            return; // its run failed or was aborted: nothing waits for it any more
        }
        ++self->m_messagesDelivered;
        self->m_deliverTrace(m);
        self->HandleDelivery(m);
    };
    // A zero-delay transport delivers from inside Post, and each delivery
    // posts the next step: handled at once, a whole collective became one
    // recursion as deep as its messages (a 128-rank ring overflowed the
    // stack). Deliveries made during a Post are queued instead, and the
    // outermost Post's caller runs them in order, in a loop.
    const bool outermost = !m_posting;
    m_posting = true;
    try
    {
        if (empty)
        {
            m_inlineDeliveries.push_back([self, m, run]() {
                if (self->m_running && self->m_runs == run)
                {
                    self->HandleDelivery(m);
                }
            });
        }
        else
        {
            m_transport->Post(
                m,
                [self, deliver]() {
                    if (self->m_posting)
                    {
                        self->m_inlineDeliveries.push_back(deliver);
                    }
                    else
                    {
                        deliver();
                    }
                },
                [self, m, run, state = m_failure](const std::string& reason) {
                    self->MessageFailed(run, state, m, reason);
                });
        }
        while (outermost && !m_inlineDeliveries.empty())
        {
            std::function<void()> next = std::move(m_inlineDeliveries.front());
            m_inlineDeliveries.pop_front();
            next();
        }
    }
    catch (...)
    {
        if (outermost)
        {
            m_posting = false;
            m_inlineDeliveries.clear();
        }
        throw;
    }
    if (outermost)
    {
        m_posting = false;
    }
}

void
Collective::MessageFailed(uint64_t run,
                          const std::shared_ptr<RunFailure>& state,
                          const CollectiveMessage& m,
                          const std::string& reason)
{
    NS_LOG_FUNCTION(this << m.srcRank << m.dstRank << m.channel << m.step << reason);
    if (state->reported)
    {
        return; // another message of the same run failed first
    }
    state->reported = true;
    if (m_running && m_runs == run)
    {
        m_running = false;
        m_done = nullptr;
    }
    NS_ABORT_MSG_UNLESS(state->failed,
                        GetName() << ": the message from rank " << m.srcRank << " to rank "
                                  << m.dstRank << " (channel " << m.channel << ", step " << m.step
                                  << ") failed: " << reason
                                  << "; Start was given no failure callback");
    // Moved out first: the callback may start another run of this collective.
    FailedCallback failed = std::move(state->failed);
    state->failed = nullptr;
    failed(m, reason);
}

void
Collective::Abort()
{
    NS_LOG_FUNCTION(this);
    m_running = false;
    m_done = nullptr;
}

void
Collective::Finish()
{
    NS_LOG_FUNCTION(this);
    NS_ASSERT_MSG(m_running, "Finish called twice");
    m_running = false;
    // Moved out first: done may start the next run.
    std::function<void()> done = std::move(m_done);
    m_done = nullptr;
    m_finishTrace();
    if (done)
    {
        done();
    }
}

uint64_t
Collective::GetMessagesSent() const
{
    return m_messagesSent;
}

uint64_t
Collective::GetBytesSent() const
{
    return m_bytesSent;
}

uint64_t
Collective::GetMessagesDelivered() const
{
    return m_messagesDelivered;
}

uint32_t
Collective::GetRankCount() const
{
    return m_nRanks;
}

uint64_t
Collective::GetBytes() const
{
    return m_bytes;
}

uint32_t
Collective::GetChannels() const
{
    return m_channels;
}

bool
Collective::IsConfigured() const
{
    return m_nRanks > 0 && m_transport != nullptr;
}

bool
Collective::IsRunning() const
{
    return m_running;
}

uint64_t
Collective::SplitEvenly(uint64_t total, uint64_t parts, uint64_t index)
{
    NS_ASSERT(parts > 0 && index < parts);
    return total / parts + (index < total % parts ? 1 : 0);
}

uint64_t
Collective::ChannelBytes(uint32_t channel) const
{
    return SplitEvenly(m_bytes, GetChannels(), channel);
}

uint64_t
Collective::ChunkBytes(uint32_t channel, uint32_t chunk) const
{
    return SplitEvenly(ChannelBytes(channel), m_nRanks, chunk);
}

// ----------------------------------------------------------- SteppedCollective

TypeId
SteppedCollective::GetTypeId()
{
    static TypeId tid = TypeId("ns3::SteppedCollective")
                            .SetParent<Collective>()
                            .SetGroupName("CollectiveScheduling");
    return tid;
}

uint64_t
SteppedCollective::BytesPerRank() const
{
    // Chunks and halves may differ by a byte: report the busiest rank.
    uint64_t most = 0;
    for (uint32_t rank = 0; rank < GetRankCount(); ++rank)
    {
        uint64_t sent = 0;
        for (uint32_t channel = 0; channel < GetChannels(); ++channel)
        {
            for (uint32_t step = 0; step < GetStepCount(); ++step)
            {
                sent += GetStepBytes(rank, channel, step);
            }
        }
        most = std::max(most, sent);
    }
    return most;
}

std::size_t
SteppedCollective::Slot(uint32_t rank, uint32_t channel) const
{
    return static_cast<std::size_t>(rank) * m_runChannels + channel;
}

void
SteppedCollective::DoStart()
{
    NS_LOG_FUNCTION(this);
    uint32_t n = GetRankCount();
    uint64_t run = ++m_run;
    m_steps = GetStepCount();
    m_runChannels = GetChannels();
    m_posted.assign(static_cast<std::size_t>(n) * m_runChannels, 0);
    m_received.assign(static_cast<std::size_t>(n) * m_runChannels * m_steps, false);
    m_expected = static_cast<uint64_t>(n) * m_runChannels * m_steps;
    m_delivered = 0;
    if (m_expected == 0)
    {
        Finish();
        return;
    }
    // Advance() reads the state afresh, so a transport that delivers from
    // inside Send() (and makes later ranks post early) is harmless here.
    for (uint32_t rank = 0; rank < n; ++rank)
    {
        for (uint32_t channel = 0; channel < m_runChannels; ++channel)
        {
            if (!IsRunning() || run != m_run)
            {
                return;
            }
            Advance(rank, channel);
        }
    }
}

void
SteppedCollective::Advance(uint32_t rank, uint32_t channel)
{
    std::size_t slot = Slot(rank, channel);
    uint64_t run = m_run;
    while (m_posted[slot] < m_steps &&
           (m_posted[slot] == 0 || m_received[slot * m_steps + m_posted[slot] - 1]))
    {
        uint32_t step = m_posted[slot]++;
        PostStep(rank, channel, step);
        if (!IsRunning() || run != m_run)
        {
            return; // a delivery from inside Send() finished (or restarted) the run
        }
    }
}

Time
SteppedCollective::GetStepDelay() const
{
    return Time(0);
}

void
SteppedCollective::PostStep(uint32_t rank, uint32_t channel, uint32_t step)
{
    CollectiveMessage m;
    m.srcRank = rank;
    m.dstRank = GetSendPeer(rank, channel, step);
    m.bytes = GetStepBytes(rank, channel, step);
    m.channel = channel;
    m.step = step;
    m.delay = GetStepDelay();
    SendMessage(m);
}

void
SteppedCollective::HandleDelivery(const CollectiveMessage& m)
{
    NS_LOG_FUNCTION(this << m.srcRank << m.dstRank << m.channel << m.step);
    std::size_t slot = Slot(m.dstRank, m.channel);
    NS_ASSERT_MSG(!m_received[slot * m_steps + m.step], "step delivered twice");
    m_received[slot * m_steps + m.step] = true;
    ++m_delivered;
    if (m_delivered == m_expected)
    {
        Finish();
        return;
    }
    Advance(m.dstRank, m.channel);
}

} // namespace ns3
