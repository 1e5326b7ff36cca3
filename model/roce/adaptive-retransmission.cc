/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "adaptive-retransmission.h"

#include "ns3/string.h"

#include <algorithm>
#include <sstream>

namespace ns3
{

namespace
{
constexpr unsigned kMaxRanges = 4;    // adp_retx_profile_max_range_num
constexpr unsigned kMaxExponent = 31; // keeps TimeBase x 2^e far inside int64 time steps
} // namespace

std::string
AdaptiveRetransmissionProfile::ParseRanges(const std::string& text, std::vector<Range>& ranges)
{
    ranges.clear();
    std::stringstream items(text);
    std::string item;
    while (std::getline(items, item, ','))
    {
        unsigned low = 0;
        unsigned high = 0;
        unsigned retries = 0;
        char dash = 0;
        char x = 0;
        std::istringstream in(item);
        if (!(in >> low >> dash >> high >> x >> retries) || dash != '-' || (x != 'x' && x != 'X') ||
            !(in >> std::ws).eof())
        {
            return "range '" + item + "' is not LOW-HIGHxRETRIES (e.g. 5-7x2)";
        }
        if (high < low || high > kMaxExponent)
        {
            return "range '" + item + "' must have LOW <= HIGH <= " + std::to_string(kMaxExponent);
        }
        if (retries < 1 || retries > 255)
        {
            return "range '" + item + "' must have 1-255 retries";
        }
        if (!ranges.empty() && low <= ranges.back().low + ranges.back().size)
        {
            return "range '" + item + "' must start above the range before it";
        }
        ranges.push_back({static_cast<uint8_t>(low),
                          static_cast<uint8_t>(high - low),
                          static_cast<uint8_t>(retries)});
    }
    if (ranges.empty())
    {
        return "at least one range is needed";
    }
    if (ranges.size() > kMaxRanges)
    {
        return "at most " + std::to_string(kMaxRanges) + " ranges (the firmware's limit)";
    }
    return "";
}

std::string
AdaptiveRetransmissionProfile::FormatRanges(const std::vector<Range>& ranges)
{
    std::string out;
    for (const Range& r : ranges)
    {
        out += (out.empty() ? "" : ",") + std::to_string(r.low) + "-" +
               std::to_string(r.low + r.size) + "x" + std::to_string(r.retries);
    }
    return out;
}

const char*
AdaptiveRetransmissionProfile::ToString(Decrease d)
{
    switch (d)
    {
    case Decrease::HALVE:
        return "halve";
    case Decrease::QUARTER:
        return "quarter";
    case Decrease::RESET:
        return "reset";
    }
    return "?";
}

std::string
AdaptiveRetransmissionProfile::Check() const
{
    if (ranges.empty())
    {
        return "no ranges";
    }
    if (startRange >= ranges.size())
    {
        return "AdpStartRange " + std::to_string(startRange) + " names no range (there are " +
               std::to_string(ranges.size()) + ")";
    }
    if (initialSpread < 1 || initialExponent + initialSpread - 1u > kMaxExponent)
    {
        return "AdpInitialExponent + AdpInitialSpread - 1 must be at most " +
               std::to_string(kMaxExponent) + ", with a spread of at least 1";
    }
    if (!IsTimeBase(timeBase))
    {
        return "AdpTimeBase must be a power of two microseconds, at least 4 us";
    }
    return "";
}

bool
AdaptiveRetransmissionProfile::IsTimeBase(Time t)
{
    // time_base is a power of two of its unit, at least the firmware's 4 us.
    const int64_t us = t.GetMicroSeconds();
    return t == MicroSeconds(us) && us >= 4 && (us & (us - 1)) == 0;
}

AdaptiveRetransmissionState
AdaptiveRetransmissionProfile::Start(double draw) const
{
    AdaptiveRetransmissionState s;
    const auto offset =
        std::min<unsigned>(initialSpread - 1, static_cast<unsigned>(draw * initialSpread));
    s.exponent = static_cast<uint8_t>(initialExponent + offset);
    return s;
}

Time
AdaptiveRetransmissionProfile::Timeout(const AdaptiveRetransmissionState& s, Time cap) const
{
    const Time t = TimeStep(timeBase.GetTimeStep() << s.exponent);
    return std::min(t, cap);
}

int
AdaptiveRetransmissionProfile::RangeOf(uint8_t e) const
{
    for (std::size_t i = 0; i < ranges.size(); ++i)
    {
        if (e >= ranges[i].low && e <= ranges[i].low + ranges[i].size)
        {
            return static_cast<int>(i);
        }
    }
    return -1;
}

void
AdaptiveRetransmissionProfile::OnExpiry(AdaptiveRetransmissionState& s) const
{
    if (s.range < 0)
    {
        // The initial value served its one expiry.
        const int r = RangeOf(s.exponent);
        if (r < 0)
        {
            s.range = static_cast<int8_t>(startRange);
            s.exponent = ranges[startRange].low;
            s.uses = 0;
            return;
        }
        s.range = static_cast<int8_t>(r);
        s.uses = 1;
    }
    else
    {
        ++s.uses;
    }
    const Range& r = ranges[s.range];
    if (s.uses < r.retries)
    {
        return;
    }
    s.uses = 0;
    if (s.exponent < r.low + r.size)
    {
        ++s.exponent;
    }
    else if (static_cast<std::size_t>(s.range) + 1 < ranges.size())
    {
        ++s.range;
        s.exponent = ranges[s.range].low;
    }
}

void
AdaptiveRetransmissionProfile::OnProgress(AdaptiveRetransmissionState& s) const
{
    if (s.range < 0)
    {
        return; // the initial value has not expired yet
    }
    s.uses = 0;
    const Range* r = &ranges[s.range];
    int e = s.exponent;
    switch (decrease)
    {
    case Decrease::HALVE:
        e -= 1;
        break;
    case Decrease::QUARTER:
        e -= 2;
        break;
    case Decrease::RESET:
        e = r->low;
        break;
    }
    while (e < r->low && s.range > 0)
    {
        --s.range;
        r = &ranges[s.range];
        e = std::min(e, r->low + r->size);
    }
    s.exponent = static_cast<uint8_t>(std::max<int>(e, r->low));
}

namespace
{
class AdpRangesChecker : public AttributeChecker
{
  public:
    bool Check(const AttributeValue& value) const override
    {
        const auto* text = dynamic_cast<const StringValue*>(&value);
        std::vector<AdaptiveRetransmissionProfile::Range> ranges;
        return text && AdaptiveRetransmissionProfile::ParseRanges(text->Get(), ranges).empty();
    }

    std::string GetValueTypeName() const override
    {
        return "ns3::StringValue";
    }

    bool HasUnderlyingTypeInformation() const override
    {
        return true;
    }

    std::string GetUnderlyingTypeInformation() const override
    {
        return "up to 4 sorted, disjoint exponent ranges LOW-HIGHxRETRIES, e.g. 5-7x2,8-10x2";
    }

    Ptr<AttributeValue> Create() const override
    {
        return ns3::Create<StringValue>();
    }

    bool Copy(const AttributeValue& source, AttributeValue& destination) const override
    {
        const auto* src = dynamic_cast<const StringValue*>(&source);
        auto* dst = dynamic_cast<StringValue*>(&destination);
        if (!src || !dst)
        {
            return false;
        }
        *dst = *src;
        return true;
    }
};

/// A Time checker that also refuses what AdaptiveRetransmissionProfile::IsTimeBase refuses.
class AdpTimeBaseChecker : public AttributeChecker
{
  public:
    bool Check(const AttributeValue& value) const override
    {
        const auto* t = dynamic_cast<const TimeValue*>(&value);
        return t && AdaptiveRetransmissionProfile::IsTimeBase(t->Get());
    }

    std::string GetValueTypeName() const override
    {
        return m_time->GetValueTypeName();
    }

    bool HasUnderlyingTypeInformation() const override
    {
        return true;
    }

    std::string GetUnderlyingTypeInformation() const override
    {
        return "a power of two microseconds, at least 4us";
    }

    Ptr<AttributeValue> Create() const override
    {
        return m_time->Create();
    }

    bool Copy(const AttributeValue& source, AttributeValue& destination) const override
    {
        return m_time->Copy(source, destination);
    }

  private:
    Ptr<const AttributeChecker> m_time{MakeTimeChecker()};
};
} // namespace

Ptr<const AttributeChecker>
MakeAdpTimeBaseChecker()
{
    return Create<AdpTimeBaseChecker>();
}

Ptr<const AttributeChecker>
MakeAdpRangesChecker()
{
    return Create<AdpRangesChecker>();
}

} // namespace ns3
