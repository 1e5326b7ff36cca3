/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef FREE_LIST_ALLOCATED_H
#define FREE_LIST_ALLOCATED_H

#include "ns3/assert.h"

#include <cstddef>
#include <new>
#include <vector>

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * \brief Class-specific allocation of \p T from a free list of its own blocks.
 *
 * For the events created for nearly every frame (its arrival at a port, a
 * port's or NIC's wake-up): the next event of the class reuses the block
 * freed last, still in cache, without a call into malloc. The list keeps at
 * most as many blocks as were ever live at once; they are not returned.
 * Inherit publicly; \p T must be the most derived class (a larger subclass
 * would overrun the block, which debug builds check).
 */
template <typename T>
class FreeListAllocated
{
  public:
    static void* operator new(std::size_t size)
    {
        NS_ASSERT_MSG(size == sizeof(T), "FreeListAllocated used by a class larger than T");
        std::vector<void*>& blocks = Blocks();
        if (blocks.empty())
        {
            return ::operator new(size);
        }
        void* block = blocks.back();
        blocks.pop_back();
        return block;
    }

    static void operator delete(void* block)
    {
        Blocks().push_back(block);
    }

  private:
    static std::vector<void*>& Blocks()
    {
        static std::vector<void*> blocks;
        return blocks;
    }
};

} // namespace ns3

#endif /* FREE_LIST_ALLOCATED_H */
