/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef SPLIT_MIX64_H
#define SPLIT_MIX64_H

#include <cstdint>

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * The SplitMix64 finalizer: every bit of \p x spread over the result. Used
 * to derive per-job values from a run's seed that are the same in every
 * process and on every standard library.
 */
inline uint64_t
SplitMix64Finalize(uint64_t x)
{
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

/// One SplitMix64 step from state \p x: the golden-ratio increment, then the finalizer.
inline uint64_t
SplitMix64(uint64_t x)
{
    return SplitMix64Finalize(x + 0x9e3779b97f4a7c15ULL);
}

} // namespace ns3

#endif /* SPLIT_MIX64_H */
