/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef BUCKET_SCHEDULER_H
#define BUCKET_SCHEDULER_H

#include "ns3/nstime.h"
#include "ns3/scheduler.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * \brief An event scheduler for packet-level fabrics: a ring of time
 * buckets for the near future, a heap beyond it.
 *
 * A loaded fabric keeps thousands of events pending, nearly all of them a
 * link delay or a frame time ahead (arrivals, port wake-ups), and each pop
 * from one binary heap over all of them walks a dozen levels of cold
 * memory. Here an event due within `Buckets` x `BucketWidth` of the bucket
 * being drained is appended to its bucket (O(1)); only the bucket being
 * drained is sorted, small and warm; events further out wait in a
 * heap of their own and move into the ring as it reaches them.
 *
 * Events come out in exactly the order of every ns-3 scheduler, time then
 * insertion, so the choice of scheduler changes speed, never a result.
 * The bucket width is a tuning knob only: too narrow and the ring is mostly
 * empty buckets to skip, too wide and the bucket being drained is a long
 * sort again.
 */
class BucketScheduler : public Scheduler
{
  public:
    static TypeId GetTypeId();

    /**
     * Name the memory the next event scheduled will touch first and is
     * least likely to find in cache: the object it runs on, or a record it
     * will read through that object. The scheduler asks for its first lines
     * just before the event runs, as it does for the event itself, so that
     * the miss overlaps the event before instead of stalling this one.
     * Speed only: a wrong or stale hint costs a useless prefetch, and other
     * schedulers ignore it.
     */
    static void HintNextInsert(const void* target);

    /// A pending event and the memory it will touch first (may be null).
    struct Entry
    {
        Event ev;
        const void* hint;
    };

    BucketScheduler();
    ~BucketScheduler() override;

    void Insert(const Event& ev) override;
    bool IsEmpty() const override;
    Event PeekNext() const override;
    Event RemoveNext() override;
    void Remove(const Event& ev) override;

  private:
    /// Fix the bucket width in time steps; done at the first insertion, when
    /// the simulation's time resolution is settled.
    void Configure();

    uint64_t BucketOf(uint64_t ts) const
    {
        return ts >> m_shift;
    }

    std::vector<Entry>& Slot(uint64_t bucket)
    {
        return m_ring[bucket & m_mask];
    }

    void MarkOccupied(uint64_t bucket);
    void MarkEmpty(uint64_t bucket);
    /// The next occupied bucket after the cursor; the ring must hold events.
    uint64_t NextOccupied() const;
    /// Make the cursor's bucket hold the earliest pending event, if any.
    void Advance();
    /// Move the cursor to \p bucket and bring in the far events it reaches.
    void MoveCursor(uint64_t bucket);
    /// Empty the cursor's bucket \p current once every event of it is taken.
    void ClearIfDrained(std::vector<Entry>& current);

    Time m_width;      ///< attribute BucketWidth
    uint32_t m_slots;  ///< attribute Buckets (a power of two)
    bool m_configured; ///< whether m_shift is fixed
    uint32_t m_shift;  ///< bucket width = 2^m_shift time steps
    uint64_t m_mask;   ///< m_slots - 1

    /// Ring of buckets; the cursor's bucket is sorted, its events before
    /// m_head already taken, the others are unordered. It holds every event of
    /// a bucket below m_cursor + m_slots.
    std::vector<std::vector<Entry>> m_ring;
    std::vector<uint64_t> m_occupied; ///< one bit per slot other than the cursor's
    uint64_t m_cursor;                ///< absolute number of the bucket being drained
    std::size_t m_head;               ///< next event of the bucket being drained
    uint64_t m_inRing;                ///< events in the ring outside the cursor's bucket
    std::vector<Entry> m_far;         ///< min-heap of the events beyond the ring
};

} // namespace ns3

#endif /* BUCKET_SCHEDULER_H */
