/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PACKET_HANDOFF_H
#define PACKET_HANDOFF_H

#include "ns3/ptr.h"

#include <new>

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * \file
 * Handing a packet reference on without touching the packet.
 *
 * ns-3.37's Ptr has no move constructor: std::move(p) copies, which writes
 * the packet's reference count now and again when the source dies. A switch
 * hop otherwise never reads a frame's memory (its forwarding fields and size
 * travel beside it), and in a large fabric that memory was last touched
 * thousands of frames ago: each such copy is a cache miss. These functions
 * pass the one reference along instead.
 */

/**
 * Empty \p p and return its object, whose reference the caller now owns
 * (give it back with Ptr<T>(raw, false) or Unref it).
 */
template <typename T>
inline T*
ReleaseRef(Ptr<T>& p)
{
    T* raw = PeekPointer(p);
    // Reuse p's storage for an empty Ptr without running its destructor,
    // which would drop the reference we hand over.
    new (&p) Ptr<T>();
    return raw;
}

/// Make \p dst own \p raw's reference (adopted, not added); its old object is released.
template <typename T>
inline void
AdoptRef(Ptr<T>& dst, T* raw)
{
    T* old = ReleaseRef(dst);
    new (&dst) Ptr<T>(raw, false);
    if (old)
    {
        old->Unref();
    }
}

/// The reference \p p held, in a new Ptr; \p p is left empty.
template <typename T>
inline Ptr<T>
TakeRef(Ptr<T>& p)
{
    return Ptr<T>(ReleaseRef(p), false);
}

} // namespace ns3

#endif /* PACKET_HANDOFF_H */
