/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ADAPTIVE_RETRANSMISSION_H
#define ADAPTIVE_RETRANSMISSION_H

#include "ns3/attribute.h"
#include "ns3/nstime.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * \brief Where one queue pair stands in its adaptive retransmission
 * profile: the exponent of its current timeout, the range it is in and how
 * many expiries that value has had. 4 bytes, kept in every send queue pair.
 */
struct AdaptiveRetransmissionState
{
    uint8_t exponent{0}; ///< the timeout is TimeBase x 2^exponent
    int8_t range{-1};    ///< index into the ranges; -1 before the first expiry
    uint8_t uses{0};     ///< expiries at this exponent within its range
};

/**
 * \ingroup collective-scheduling
 * \brief ConnectX adaptive retransmission (ADP, register ROCE_ACCL), as
 * NVIDIA's "Adaptive Retransmission: Parameters Control" documents it.
 *
 * A timeout is TimeBase x 2^e. A queue pair starts with e drawn uniformly
 * in [InitialExponent, InitialExponent + InitialSpread - 1] (so that queue
 * pairs do not expire together), used for one expiry. At that expiry it
 * continues in the range holding e, else at the low bound of StartRange.
 * Within range i (exponents low_i .. low_i + size_i) each value serves
 * retries_i expiries, then doubles (e + 1); past the top it moves to the low
 * bound of range i + 1; past the last range it stays at the top. Every
 * timeout is capped by the queue pair's InfiniBand local ACK timeout. On
 * forward progress e falls by one (Decrease "halve"), two ("quarter") or to
 * its range's low bound ("reset"); below its range's low bound it enters the
 * range before, if there is one. A queue pair that makes no progress for the
 * total timeout moves to the error state.
 *
 * The firmware's default profile (#0) is not published; the defaults here
 * are this model's choice (doc/collective-scheduling.rst).
 */
class AdaptiveRetransmissionProfile
{
  public:
    struct Range
    {
        uint8_t low{0};     ///< lowest exponent
        uint8_t size{0};    ///< the range holds exponents low .. low + size
        uint8_t retries{1}; ///< expiries each value serves
    };

    enum Decrease
    {
        HALVE,   ///< e - 1 per forward progress
        QUARTER, ///< e - 2
        RESET,   ///< the range's low bound
    };

    Time timeBase{MicroSeconds(4)};
    uint8_t initialExponent{10};
    uint8_t initialSpread{2}; ///< timeout_init_range_size: how many exponents the draw covers
    uint8_t startRange{0};
    std::vector<Range> ranges;
    Decrease decrease{Decrease::HALVE};

    /**
     * Ranges from text "LOW-HIGHxRETRIES,..." (exponents, HIGH >= LOW), e.g.
     * "5-7x2,8-10x2"; at most four ranges (the firmware's limit), sorted and
     * disjoint. \return an empty string, or why \p text is not valid
     */
    static std::string ParseRanges(const std::string& text, std::vector<Range>& ranges);
    /// \return the ranges as ParseRanges reads them
    static std::string FormatRanges(const std::vector<Range>& ranges);
    /// \return "halve", "quarter" or "reset"
    static const char* ToString(Decrease d);

    /// \return an empty string, or why the profile is not valid (StartRange out of range, ...)
    std::string Check() const;

    /// A new queue pair's state; \p draw is uniform in [0, 1).
    AdaptiveRetransmissionState Start(double draw) const;
    /// \p s's timeout now, capped at \p cap.
    Time Timeout(const AdaptiveRetransmissionState& s, Time cap) const;
    /// \p s expired without progress: its next timeout.
    void OnExpiry(AdaptiveRetransmissionState& s) const;
    /// \p s made forward progress (an ACK that advances, a NAK).
    void OnProgress(AdaptiveRetransmissionState& s) const;

    /// Whether \p t is a time_base the firmware takes: a power of two
    /// microseconds, at least 4 us.
    static bool IsTimeBase(Time t);

  private:
    /// The range holding exponent \p e, or -1.
    int RangeOf(uint8_t e) const;
};

/**
 * A checker for a StringValue of ranges as AdaptiveRetransmissionProfile::
 * ParseRanges reads them, so that a bad value is refused where it is set.
 */
Ptr<const AttributeChecker> MakeAdpRangesChecker();

/// A checker for AdpTimeBase's TimeValue: a power of two microseconds, at least 4 us.
Ptr<const AttributeChecker> MakeAdpTimeBaseChecker();

} // namespace ns3

#endif /* ADAPTIVE_RETRANSMISSION_H */
