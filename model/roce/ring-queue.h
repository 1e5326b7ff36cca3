/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef RING_QUEUE_H
#define RING_QUEUE_H

#include <cstddef>
#include <cstdint>
#include <memory>
#include <type_traits>

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * \brief A FIFO of trivially copyable records in one power-of-two ring
 * that doubles when full and never shrinks.
 *
 * A port's queue fills and drains millions of times in a run: a deque
 * allocates and frees a block every few records as it does, a ring only
 * while it grows to the deepest the queue has been, and its records sit in
 * one array. The ring itself is 24 bytes, so that a port's eight fit in
 * three cache lines.
 */
template <typename T>
class RingQueue
{
    static_assert(std::is_trivially_copyable<T>::value, "records are copied as bytes");

  public:
    bool empty() const
    {
        return m_size == 0;
    }

    std::size_t size() const
    {
        return m_size;
    }

    T& front()
    {
        return m_slots[m_head];
    }

    const T& front() const
    {
        return m_slots[m_head];
    }

    /// The i-th record from the front.
    T& at(std::size_t i)
    {
        return m_slots[(m_head + i) & m_mask];
    }

    void push_back(const T& record)
    {
        if (m_size == Capacity())
        {
            Grow();
        }
        m_slots[(m_head + m_size) & m_mask] = record;
        ++m_size;
        if (m_size < Capacity())
        {
            Prefetch<1>(&m_slots[(m_head + m_size) & m_mask]);
        }
    }

    void pop_front()
    {
        m_head = (m_head + 1) & m_mask;
        --m_size;
        if (m_size > 0)
        {
            Prefetch<0>(&m_slots[m_head]);
        }
    }

    void clear()
    {
        m_head = 0;
        m_size = 0;
    }

  private:
    /**
     * Ask for the record the next push (\p ForWrite 1) or pop (0) will
     * touch. A deep queue's records were last touched a whole queue's worth
     * of frames ago, long evicted; the port's next frame comes a frame time
     * later, by which time the line is in cache (in a fabric so large that
     * it is evicted again, the port's wake-up asks for the head once more:
     * BucketScheduler::HintNextInsert).
     */
    template <int ForWrite>
    static void Prefetch(const T* slot)
    {
        const char* first = reinterpret_cast<const char*>(slot);
        __builtin_prefetch(first, ForWrite);
        __builtin_prefetch(first + sizeof(T) - 1, ForWrite);
    }

    std::size_t Capacity() const
    {
        return m_slots ? std::size_t{m_mask} + 1 : 0;
    }

    void Grow()
    {
        const std::size_t capacity = m_slots ? 2 * Capacity() : 16;
        std::unique_ptr<T[]> bigger(new T[capacity]);
        for (std::size_t i = 0; i < m_size; ++i)
        {
            bigger[i] = m_slots[(m_head + i) & m_mask];
        }
        m_slots = std::move(bigger);
        m_head = 0;
        m_mask = static_cast<uint32_t>(capacity - 1);
    }

    std::unique_ptr<T[]> m_slots;
    uint32_t m_head{0};
    uint32_t m_size{0};
    uint32_t m_mask{0};
};

} // namespace ns3

#endif /* RING_QUEUE_H */
