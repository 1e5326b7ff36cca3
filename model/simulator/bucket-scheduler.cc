/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "bucket-scheduler.h"

#include "ns3/abort.h"
#include "ns3/assert.h"
#include "ns3/log.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("BucketScheduler");
NS_OBJECT_ENSURE_REGISTERED(BucketScheduler);

namespace
{

/// Time-then-insertion order (a function object, so that the sort inlines it).
struct Earlier
{
    bool operator()(const BucketScheduler::Entry& a, const BucketScheduler::Entry& b) const
    {
        return a.ev.key < b.ev.key;
    }
};

/// Heap order of the far events: the earliest on top.
struct Later
{
    bool operator()(const BucketScheduler::Entry& a, const BucketScheduler::Entry& b) const
    {
        return b.ev.key < a.ev.key;
    }
};

/// What the next inserted event will touch first (BucketScheduler::HintNextInsert).
/// Not thread-local: a simulation runs its events, and so its model code, on
/// one thread, and a hint read by another costs at most a useless prefetch.
const void* g_nextHint = nullptr;

/// Lines asked for from a hint.
constexpr int kHintLines = 4;

void
PrefetchLines(const void* at, int lines)
{
    const char* line = static_cast<const char*>(at);
    for (int i = 0; i < lines; ++i)
    {
        __builtin_prefetch(line + 64 * i, 1);
    }
}

} // namespace

void
BucketScheduler::HintNextInsert(const void* target)
{
    g_nextHint = target;
}

TypeId
BucketScheduler::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::BucketScheduler")
            .SetParent<Scheduler>()
            .SetGroupName("CollectiveScheduling")
            .AddConstructor<BucketScheduler>()
            .AddAttribute("BucketWidth",
                          "Span of one bucket, rounded down to a power of two time steps. "
                          "Speed only: events come out in the same order whatever it is.",
                          TimeValue(NanoSeconds(8)),
                          MakeTimeAccessor(&BucketScheduler::m_width),
                          MakeTimeChecker(TimeStep(1)))
            .AddAttribute("Buckets",
                          "Buckets in the ring (a power of two); events due beyond "
                          "Buckets x BucketWidth wait in a heap until the ring reaches them.",
                          UintegerValue(2048),
                          MakeUintegerAccessor(&BucketScheduler::m_slots),
                          MakeUintegerChecker<uint32_t>(64, 1U << 24));
    return tid;
}

BucketScheduler::BucketScheduler()
    : m_slots(2048),
      m_configured(false),
      m_shift(0),
      m_mask(0),
      m_cursor(0),
      m_head(0),
      m_inRing(0)
{
}

BucketScheduler::~BucketScheduler() = default;

void
BucketScheduler::Configure()
{
    NS_ABORT_MSG_IF((m_slots & (m_slots - 1)) != 0,
                    "ns3::BucketScheduler::Buckets must be a power of two, not " << m_slots);
    const int64_t steps = m_width.GetTimeStep();
    NS_ABORT_MSG_IF(steps < 1, "ns3::BucketScheduler::BucketWidth must be positive");
    m_shift = 0;
    while ((int64_t{2} << m_shift) <= steps)
    {
        ++m_shift;
    }
    m_mask = m_slots - 1;
    m_ring.assign(m_slots, {});
    m_occupied.assign((m_slots + 63) / 64, 0);
    m_configured = true;
}

void
BucketScheduler::MarkOccupied(uint64_t bucket)
{
    const uint64_t slot = bucket & m_mask;
    m_occupied[slot >> 6] |= uint64_t{1} << (slot & 63);
}

void
BucketScheduler::MarkEmpty(uint64_t bucket)
{
    const uint64_t slot = bucket & m_mask;
    m_occupied[slot >> 6] &= ~(uint64_t{1} << (slot & 63));
}

void
BucketScheduler::Insert(const Event& event)
{
    const Entry entry{event, g_nextHint};
    g_nextHint = nullptr;
    if (!m_configured)
    {
        Configure();
        m_cursor = BucketOf(event.key.m_ts);
    }
    const uint64_t bucket = BucketOf(event.key.m_ts);
    if (bucket <= m_cursor)
    {
        // Also an event earlier than the cursor's bucket (the cursor may have
        // moved ahead to peek): the order puts it before everything else. A
        // new event is usually the latest (its uid is), so this appends.
        std::vector<Entry>& current = Slot(m_cursor);
        current.insert(std::upper_bound(current.begin() + static_cast<std::ptrdiff_t>(m_head),
                                        current.end(),
                                        entry,
                                        Earlier{}),
                       entry);
    }
    else if (bucket - m_cursor < m_slots)
    {
        std::vector<Entry>& slot = Slot(bucket);
        slot.push_back(entry);
        // A bucket's storage was last written a whole turn of the ring ago;
        // ask for the line its next events go to. An entry is half a line,
        // so the slot after the next is on the first line not yet written.
        if (slot.size() + 1 < slot.capacity())
        {
            __builtin_prefetch(slot.data() + slot.size() + 1, 1);
        }
        MarkOccupied(bucket);
        ++m_inRing;
    }
    else
    {
        m_far.push_back(entry);
        std::push_heap(m_far.begin(), m_far.end(), Later{});
    }
}

bool
BucketScheduler::IsEmpty() const
{
    return m_inRing == 0 && m_far.empty() && (!m_configured || m_ring[m_cursor & m_mask].empty());
}

uint64_t
BucketScheduler::NextOccupied() const
{
    const uint64_t start = (m_cursor + 1) & m_mask;
    const uint64_t words = m_occupied.size();
    uint64_t word = start >> 6;
    uint64_t bits = m_occupied[word] & (~uint64_t{0} << (start & 63));
    for (uint64_t n = 0; bits == 0; ++n)
    {
        NS_ASSERT_MSG(n <= words, "ring marked empty while holding events");
        word = (word + 1) % words;
        bits = m_occupied[word];
    }
    const uint64_t slot = (word << 6) | static_cast<uint64_t>(__builtin_ctzll(bits));
    // Slots below the start belong to the ring's next turn.
    return m_cursor + 1 + ((slot - start) & m_mask);
}

void
BucketScheduler::MoveCursor(uint64_t bucket)
{
    m_cursor = bucket;
    std::vector<Entry>& current = Slot(m_cursor);
    if (!current.empty())
    {
        MarkEmpty(m_cursor);
        m_inRing -= current.size();
    }
    // The ring now reaches further: bring in the far events it covers.
    while (!m_far.empty() && BucketOf(m_far.front().ev.key.m_ts) - m_cursor < m_slots)
    {
        std::pop_heap(m_far.begin(), m_far.end(), Later{});
        const Entry ev = m_far.back();
        m_far.pop_back();
        const uint64_t b = BucketOf(ev.ev.key.m_ts);
        Slot(b).push_back(ev);
        if (b != m_cursor)
        {
            MarkOccupied(b);
            ++m_inRing;
        }
    }
    std::sort(current.begin(), current.end(), Earlier{});
    m_head = 0;
}

void
BucketScheduler::Advance()
{
    if (!m_ring[m_cursor & m_mask].empty())
    {
        return;
    }
    if (m_inRing > 0)
    {
        MoveCursor(NextOccupied());
    }
    else if (!m_far.empty())
    {
        MoveCursor(BucketOf(m_far.front().ev.key.m_ts));
    }
}

Scheduler::Event
BucketScheduler::PeekNext() const
{
    // Advancing the cursor changes where events sit, not which are pending.
    const_cast<BucketScheduler*>(this)->Advance();
    NS_ASSERT_MSG(!IsEmpty(), "PeekNext on an empty scheduler");
    return m_ring[m_cursor & m_mask][m_head].ev;
}

Scheduler::Event
BucketScheduler::RemoveNext()
{
    Advance();
    NS_ASSERT_MSG(!IsEmpty(), "RemoveNext on an empty scheduler");
    std::vector<Entry>& current = Slot(m_cursor);
    const Event ev = current[m_head++].ev;
    if (m_head < current.size())
    {
        // Ask for the next event's lines now, while this one runs: in a large
        // fabric they were evicted since they were written, and each is a
        // miss the event would otherwise wait for. The simulator's first
        // write is to the event's reference count.
        const Entry& next = current[m_head];
        PrefetchLines(next.ev.impl, 2);
        if (next.hint)
        {
            PrefetchLines(next.hint, kHintLines);
        }
    }
    ClearIfDrained(current);
    return ev;
}

void
BucketScheduler::ClearIfDrained(std::vector<Entry>& current)
{
    if (m_head == current.size())
    {
        current.clear(); // drained: empty again, as every other bucket
        m_head = 0;
    }
}

void
BucketScheduler::Remove(const Event& ev)
{
    NS_ASSERT(m_configured);
    const uint64_t bucket = BucketOf(ev.key.m_ts);
    auto same = [&ev](const Entry& e) { return e.ev.key.m_uid == ev.key.m_uid; };
    if (bucket <= m_cursor)
    {
        std::vector<Entry>& current = Slot(m_cursor);
        auto it = std::find_if(current.begin() + static_cast<std::ptrdiff_t>(m_head),
                               current.end(),
                               same);
        NS_ASSERT_MSG(it != current.end(), "removing an event that is not pending");
        current.erase(it);
        ClearIfDrained(current);
    }
    else if (bucket - m_cursor < m_slots)
    {
        std::vector<Entry>& slot = Slot(bucket);
        auto it = std::find_if(slot.begin(), slot.end(), same);
        NS_ASSERT_MSG(it != slot.end(), "removing an event that is not pending");
        *it = slot.back();
        slot.pop_back();
        --m_inRing;
        if (slot.empty())
        {
            MarkEmpty(bucket);
        }
    }
    else
    {
        auto it = std::find_if(m_far.begin(), m_far.end(), same);
        NS_ASSERT_MSG(it != m_far.end(), "removing an event that is not pending");
        m_far.erase(it);
        std::make_heap(m_far.begin(), m_far.end(), Later{});
    }
}

} // namespace ns3
