/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef WAKE_TIMER_H
#define WAKE_TIMER_H

#include "free-list-allocated.h"

#include "ns3/bucket-scheduler.h"
#include "ns3/event-id.h"
#include "ns3/event-impl.h"
#include "ns3/simulator.h"

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * \brief A one-shot wake-up held at the earliest time asked for.
 *
 * The per-packet path asks for a wake-up after nearly every frame; keeping
 * the pending time here avoids asking the simulator whether the event is
 * still pending (EventId::IsRunning), which costs more than the rest of the
 * request. The owner's handler must call Fired() first. A wake-up is
 * requested for nearly every queued frame, so its event comes from a free
 * list instead of malloc.
 */
class WakeTimer
{
  public:
    /// Make sure \p fn runs on \p obj no later than \p at (and not earlier than now).
    template <typename OBJ>
    void RequestAt(Time at, void (OBJ::*fn)(), OBJ* obj)
    {
        RequestAt(at, Simulator::Now(), fn, obj);
    }

    /**
     * As above, for a caller that already has the current time \p now;
     * \p first is what \p fn will touch first, if not \p obj itself
     * (BucketScheduler::HintNextInsert).
     */
    template <typename OBJ>
    void RequestAt(Time at, Time now, void (OBJ::*fn)(), OBJ* obj, const void* first = nullptr)
    {
        if (Covers(at))
        {
            return;
        }
        if (m_pending)
        {
            m_event.Cancel();
        }
        m_pending = true;
        m_at = at;
        BucketScheduler::HintNextInsert(first ? first : obj);
        m_event = Simulator::Schedule(at - now, Ptr<EventImpl>(new WakeEvent<OBJ>(fn, obj), false));
    }

    /// Whether a wake-up is already due no later than \p at (RequestAt would do nothing).
    bool Covers(Time at) const
    {
        return m_pending && m_at <= at;
    }

    /// The wake-up ran.
    void Fired()
    {
        m_pending = false;
    }

    void Cancel()
    {
        m_event.Cancel();
        m_pending = false;
    }

  private:
    /// The wake-up event: \p fn on \p obj.
    template <typename OBJ>
    class WakeEvent : public EventImpl, public FreeListAllocated<WakeEvent<OBJ>>
    {
      public:
        WakeEvent(void (OBJ::*fn)(), OBJ* obj)
            : m_fn(fn),
              m_obj(obj)
        {
        }

      protected:
        void Notify() override
        {
            (m_obj->*m_fn)();
        }

      private:
        void (OBJ::*m_fn)();
        OBJ* m_obj;
    };

    EventId m_event;
    Time m_at;
    bool m_pending{false};
};

} // namespace ns3

#endif /* WAKE_TIMER_H */
