/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "strict-numbers.h"

#include "unit-strings.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <stdexcept>

namespace ns3
{

namespace
{

/**
 * The magnitude of a decimal integer written with optional fraction and
 * exponent ("12", "1.5e3"), or throw. \p negative tells whether it had a
 * minus sign. Values over \p limit are "too large"; the text is never read
 * in part.
 */
uint64_t
ParseWholeMagnitude(const std::string& s, uint64_t limit, bool& negative)
{
    size_t pos = 0;
    negative = false;
    if (pos < s.size() && (s[pos] == '-' || s[pos] == '+'))
    {
        negative = s[pos] == '-';
        ++pos;
    }
    std::string digits;
    int64_t exp10 = 0;
    if (!ScanDecimalDigits(s, pos, digits, exp10))
    {
        throw std::invalid_argument(s.empty() ? "expected an integer, got nothing"
                                              : "expected an integer");
    }
    if (pos < s.size() && (s[pos] == 'e' || s[pos] == 'E'))
    {
        ++pos;
        bool negativeExp = false;
        if (pos < s.size() && (s[pos] == '+' || s[pos] == '-'))
        {
            negativeExp = s[pos] == '-';
            ++pos;
        }
        if (pos >= s.size())
        {
            throw std::invalid_argument("expected an integer (malformed exponent)");
        }
        int64_t e = 0;
        while (pos < s.size() && std::isdigit(static_cast<unsigned char>(s[pos])))
        {
            e = std::min<int64_t>(e * 10 + (s[pos] - '0'), 1000000);
            ++pos;
        }
        exp10 += negativeExp ? -e : e;
    }
    if (pos != s.size())
    {
        throw std::invalid_argument("expected an integer");
    }
    // Leading zeros carry nothing; trailing ones move into the exponent.
    const size_t first = digits.find_first_not_of('0');
    if (first == std::string::npos)
    {
        return 0;
    }
    digits.erase(0, first);
    while (digits.back() == '0')
    {
        digits.pop_back();
        ++exp10;
    }
    if (exp10 < 0)
    {
        throw std::invalid_argument("expected a whole number");
    }
    if (static_cast<int64_t>(digits.size()) + exp10 > 20)
    {
        throw std::invalid_argument("too large");
    }
    uint64_t v = 0;
    for (char c : digits)
    {
        const uint64_t d = static_cast<uint64_t>(c - '0');
        if (v > (limit - d) / 10)
        {
            throw std::invalid_argument("too large");
        }
        v = v * 10 + d;
    }
    for (int64_t i = 0; i < exp10; ++i)
    {
        if (v > limit / 10)
        {
            throw std::invalid_argument("too large");
        }
        v *= 10;
    }
    return v;
}

std::string
RangeText(const std::string& min, const std::string& max)
{
    return "must be an integer from " + min + " to " + max;
}

} // namespace

uint64_t
ParseUnsignedText(const std::string& text, uint64_t min, uint64_t max)
{
    bool negative = false;
    uint64_t v = 0;
    try
    {
        v = ParseWholeMagnitude(text, std::numeric_limits<uint64_t>::max(), negative);
    }
    catch (const std::invalid_argument& e)
    {
        throw std::invalid_argument(std::string(e.what()) + "; " +
                                    RangeText(std::to_string(min), std::to_string(max)));
    }
    if (negative && v != 0)
    {
        throw std::invalid_argument("must not be negative; " +
                                    RangeText(std::to_string(min), std::to_string(max)));
    }
    if (v < min || v > max)
    {
        throw std::invalid_argument(RangeText(std::to_string(min), std::to_string(max)));
    }
    return v;
}

int64_t
ParseSignedText(const std::string& text, int64_t min, int64_t max)
{
    bool negative = false;
    uint64_t magnitude = 0;
    const std::string range = RangeText(std::to_string(min), std::to_string(max));
    try
    {
        // One more than INT64_MAX is the magnitude of INT64_MIN.
        magnitude =
            ParseWholeMagnitude(text,
                                static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) + 1,
                                negative);
    }
    catch (const std::invalid_argument& e)
    {
        throw std::invalid_argument(std::string(e.what()) + "; " + range);
    }
    int64_t v;
    if (negative)
    {
        v = magnitude == static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) + 1
                ? std::numeric_limits<int64_t>::min()
                : -static_cast<int64_t>(magnitude);
    }
    else if (magnitude > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
    {
        throw std::invalid_argument("too large; " + range);
    }
    else
    {
        v = static_cast<int64_t>(magnitude);
    }
    if (v < min || v > max)
    {
        throw std::invalid_argument(range);
    }
    return v;
}

double
ParseRealText(const std::string& text)
{
    // strtod alone would skip leading space and take hexadecimal, nan and inf.
    bool form = !text.empty();
    for (char c : text)
    {
        form = form && (std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == 'e' ||
                        c == 'E' || c == '+' || c == '-');
    }
    if (!form)
    {
        throw std::invalid_argument(text.empty() ? "expected a number, got nothing"
                                                 : "expected a finite number");
    }
    char* end = nullptr;
    errno = 0;
    const double v = std::strtod(text.c_str(), &end);
    if (end != text.c_str() + text.size())
    {
        throw std::invalid_argument("expected a number");
    }
    if (!std::isfinite(v))
    {
        throw std::invalid_argument("too large for a number");
    }
    return v;
}

bool
ParseBoolText(const std::string& text)
{
    if (text == "true" || text == "t" || text == "1")
    {
        return true;
    }
    if (text == "false" || text == "f" || text == "0")
    {
        return false;
    }
    throw std::invalid_argument("expected true or false");
}

} // namespace ns3
