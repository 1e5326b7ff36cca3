/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_PSN_H
#define ROCE_PSN_H

#include <cstdint>

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * InfiniBand packet sequence numbers are 24 bits on the wire. Inside the
 * model every sequence is a 64-bit packet index that never wraps; these
 * helpers convert at the wire boundary.
 */
namespace RocePsn
{

constexpr uint32_t kBits = 24;
constexpr uint32_t kMask = (1u << kBits) - 1;

/// The 24-bit wire PSN of packet \p index of a message whose first PSN is \p initialPsn.
inline uint32_t
ToWire(uint32_t initialPsn, uint64_t index)
{
    return static_cast<uint32_t>((initialPsn + index) & kMask);
}

/**
 * The packet index a wire PSN stands for, taken as the index nearest to
 * \p reference (within +/- 2^23), which is how a receiver or sender
 * disambiguates a wrapped PSN against its expected one.
 */
inline uint64_t
FromWire(uint32_t initialPsn, uint32_t wirePsn, uint64_t reference)
{
    uint32_t refWire = ToWire(initialPsn, reference);
    // Signed 24-bit distance from the reference.
    int32_t delta = static_cast<int32_t>(((wirePsn - refWire) & kMask) << 8) >> 8;
    int64_t index = static_cast<int64_t>(reference) + delta;
    return index < 0 ? 0 : static_cast<uint64_t>(index);
}

} // namespace RocePsn
} // namespace ns3

#endif /* ROCE_PSN_H */
