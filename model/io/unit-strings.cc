/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "unit-strings.h"

#include "csv-fields.h"

#include <cctype>
#include <cstdint>
#include <cstring>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>

namespace ns3
{

bool
ScanDecimalDigits(const std::string& s, size_t& pos, std::string& digits, int64_t& exp10)
{
    bool any = false;
    while (pos < s.size() && std::isdigit(static_cast<unsigned char>(s[pos])))
    {
        digits += s[pos++];
        any = true;
    }
    if (pos < s.size() && s[pos] == '.')
    {
        ++pos;
        while (pos < s.size() && std::isdigit(static_cast<unsigned char>(s[pos])))
        {
            digits += s[pos++];
            --exp10;
            any = true;
        }
    }
    return any;
}

namespace
{

// 128 bits keep unit scaling exact; __extension__ keeps -Wpedantic quiet.
__extension__ typedef unsigned __int128 Uint128;

/// A decimal number split into an integer mantissa and a power of ten.
struct Decimal
{
    Uint128 mantissa{0};
    int exp10{0};
};

/**
 * Parse the unsigned decimal number at the start of \p s ("12", "1.5",
 * "2e-3"); \p pos is left at the first character after it. Mantissas keep
 * at most 24 significant digits, so scaling them by a unit stays exact in
 * 128 bits.
 */
Decimal
ParseDecimal(const std::string& s, size_t& pos)
{
    if (pos < s.size() && s[pos] == '-')
    {
        throw std::invalid_argument("must not be negative");
    }
    std::string digits;
    int64_t exp10 = 0;
    if (!ScanDecimalDigits(s, pos, digits, exp10))
    {
        throw std::invalid_argument("expected a number");
    }
    // An exponent: 'e' never starts a unit, so "e" + digits is unambiguous.
    if (pos < s.size() && (s[pos] == 'e' || s[pos] == 'E'))
    {
        size_t p = pos + 1;
        bool negative = false;
        if (p < s.size() && (s[p] == '+' || s[p] == '-'))
        {
            negative = s[p] == '-';
            ++p;
        }
        if (p >= s.size() || !std::isdigit(static_cast<unsigned char>(s[p])))
        {
            throw std::invalid_argument("malformed exponent");
        }
        int e = 0;
        while (p < s.size() && std::isdigit(static_cast<unsigned char>(s[p])))
        {
            e = std::min(e * 10 + (s[p] - '0'), 100000);
            ++p;
        }
        exp10 += negative ? -e : e;
        pos = p;
    }
    // Drop leading zeros, move trailing zeros into the exponent.
    size_t first = digits.find_first_not_of('0');
    if (first == std::string::npos)
    {
        return Decimal{};
    }
    digits.erase(0, first);
    while (digits.back() == '0')
    {
        digits.pop_back();
        ++exp10;
    }
    if (digits.size() > 24)
    {
        throw std::invalid_argument("too many significant digits");
    }
    Decimal d;
    for (char c : digits)
    {
        d.mantissa = d.mantissa * 10 + static_cast<unsigned>(c - '0');
    }
    d.exp10 = static_cast<int>(exp10);
    return d;
}

/**
 * d x multiplier x 10^unitExp10 as an exact integer no larger than \p max.
 * \p what names the unit of the result in the error ("nanoseconds").
 */
uint64_t
ScaleExact(const Decimal& d, uint64_t multiplier, int unitExp10, uint64_t max, const char* what)
{
    Uint128 v = d.mantissa * multiplier;
    int e = d.exp10 + unitExp10;
    if (v == 0)
    {
        return 0;
    }
    for (; e > 0; --e)
    {
        if (v > max / 10)
        {
            throw std::invalid_argument("too large");
        }
        v *= 10;
    }
    for (; e < 0; ++e)
    {
        if (v % 10 != 0)
        {
            throw std::invalid_argument(std::string("not a whole number of ") + what);
        }
        v /= 10;
    }
    if (v > max)
    {
        throw std::invalid_argument("too large");
    }
    return static_cast<uint64_t>(v);
}

} // namespace

const char* const kTimeRangeError =
    "beyond the simulator's range of 2^63 ps (about 106 days; time would wrap)";

namespace
{

/**
 * \p text as a count of 10^\p resolutionExp10 seconds (-9: ns, -12: ps),
 * exact, no later than \p max of them.
 */
int64_t
ParseTimeIn(const std::string& text, int resolutionExp10, int64_t max, const char* unitName)
{
    const std::string s = TrimSpace(text);
    size_t pos = 0;
    Decimal d = ParseDecimal(s, pos);
    const std::string unit = s.substr(pos);

    struct Unit
    {
        const char* name;
        uint64_t multiplier;
        int exp10; ///< of seconds
    };

    static const Unit units[] = {{"s", 1, 0},
                                 {"ms", 1, -3},
                                 {"us", 1, -6},
                                 {"ns", 1, -9},
                                 {"ps", 1, -12},
                                 {"fs", 1, -15},
                                 {"min", 6, 1},
                                 {"h", 36, 2},
                                 {"d", 864, 2}};
    if (unit.empty())
    {
        throw std::invalid_argument("missing unit (s, ms, us, ns, ps, fs, min, h or d)");
    }
    for (const Unit& u : units)
    {
        if (unit == u.name)
        {
            uint64_t count = 0;
            try
            {
                count = ScaleExact(d,
                                   u.multiplier,
                                   u.exp10 - resolutionExp10,
                                   std::numeric_limits<int64_t>::max(),
                                   unitName);
            }
            catch (const std::invalid_argument& e)
            {
                if (std::string(e.what()) != "too large")
                {
                    throw;
                }
                count = std::numeric_limits<uint64_t>::max();
            }
            if (count > static_cast<uint64_t>(max))
            {
                throw std::invalid_argument(kTimeRangeError);
            }
            return static_cast<int64_t>(count);
        }
    }
    throw std::invalid_argument("unknown unit \"" + unit +
                                "\" (use s, ms, us, ns, ps, fs, min, h or d)");
}

} // namespace

int64_t
ParseTimeNs(const std::string& text)
{
    return ParseTimeIn(text, -9, kMaxSimulatedTimeNs, "nanoseconds");
}

int64_t
ParseTimePs(const std::string& text)
{
    return ParseTimeIn(text, -12, std::numeric_limits<int64_t>::max(), "picoseconds");
}

uint64_t
ParseRateBps(const std::string& text)
{
    const std::string s = TrimSpace(text);
    size_t pos = 0;
    Decimal d = ParseDecimal(s, pos);
    const std::string unit = s.substr(pos);
    if (unit.empty())
    {
        throw std::invalid_argument("missing unit (e.g. Gbps)");
    }
    uint64_t multiplier = 0;
    std::string prefix;
    for (const char* base : {"bps", "b/s", "Bps", "B/s"})
    {
        const size_t n = std::strlen(base);
        if (unit.size() >= n && unit.compare(unit.size() - n, n, base) == 0)
        {
            multiplier = base[0] == 'B' ? 8 : 1;
            prefix = unit.substr(0, unit.size() - n);
            break;
        }
    }
    int exp10 = 0;
    if (multiplier != 0)
    {
        if (prefix == "k" || prefix == "K")
        {
            exp10 = 3;
        }
        else if (prefix == "M")
        {
            exp10 = 6;
        }
        else if (prefix == "G")
        {
            exp10 = 9;
        }
        else if (prefix == "T")
        {
            exp10 = 12;
        }
        else if (prefix == "Ki" || prefix == "Mi" || prefix == "Gi" || prefix == "Ti")
        {
            const std::string order = "KMGT";
            multiplier <<= 10 * (order.find(prefix[0]) + 1);
        }
        else if (!prefix.empty())
        {
            multiplier = 0;
        }
    }
    if (multiplier == 0)
    {
        throw std::invalid_argument("unknown unit \"" + unit +
                                    "\" (use bps, Kbps, Mbps, Gbps, Tbps, Bps, ... or b/s, B/s)");
    }
    return ScaleExact(d,
                      multiplier,
                      exp10,
                      std::numeric_limits<uint64_t>::max(),
                      "bits per second");
}

std::string
FormatReal(double value)
{
    std::ostringstream s;
    s.precision(15);
    s << value;
    return s.str();
}

} // namespace ns3
