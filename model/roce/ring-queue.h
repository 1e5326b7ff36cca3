/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef RING_QUEUE_H
#define RING_QUEUE_H

#include <cstddef>
#include <type_traits>
#include <vector>

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
 * one array.
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
        if (m_size == m_slots.size())
        {
            Grow();
        }
        m_slots[(m_head + m_size) & m_mask] = record;
        ++m_size;
    }

    void pop_front()
    {
        m_head = (m_head + 1) & m_mask;
        --m_size;
    }

    void clear()
    {
        m_head = 0;
        m_size = 0;
    }

  private:
    void Grow()
    {
        const std::size_t capacity = m_slots.empty() ? 16 : 2 * m_slots.size();
        std::vector<T> bigger(capacity);
        for (std::size_t i = 0; i < m_size; ++i)
        {
            bigger[i] = m_slots[(m_head + i) & m_mask];
        }
        m_slots.swap(bigger);
        m_head = 0;
        m_mask = capacity - 1;
    }

    std::vector<T> m_slots;
    std::size_t m_head{0};
    std::size_t m_size{0};
    std::size_t m_mask{0};
};

} // namespace ns3

#endif /* RING_QUEUE_H */
