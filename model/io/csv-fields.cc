/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "csv-fields.h"

#include <cctype>
#include <stdexcept>

namespace ns3
{

void
ThrowInputError(const std::string& source,
                uint32_t line,
                const std::string& field,
                const std::string& what)
{
    throw std::runtime_error(source + ":" + std::to_string(line) + ": " + field + ": " + what);
}

std::string
TrimSpace(const std::string& s)
{
    size_t begin = 0;
    size_t end = s.size();
    while (begin < end && std::isspace(static_cast<unsigned char>(s[begin])))
    {
        ++begin;
    }
    while (end > begin && std::isspace(static_cast<unsigned char>(s[end - 1])))
    {
        --end;
    }
    return s.substr(begin, end - begin);
}

std::vector<std::string>
SplitCsvLine(const std::string& line)
{
    std::vector<std::string> fields;
    size_t start = 0;
    while (true)
    {
        size_t comma = line.find(',', start);
        fields.push_back(TrimSpace(line.substr(start, comma - start)));
        if (comma == std::string::npos)
        {
            return fields;
        }
        start = comma + 1;
    }
}

} // namespace ns3
