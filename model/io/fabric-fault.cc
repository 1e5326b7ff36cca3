/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "fabric-fault.h"

#include "unit-strings.h"

#include <limits>
#include <stdexcept>

namespace ns3
{

const char*
ToString(FabricFault::Target target)
{
    switch (target)
    {
    case FabricFault::Target::LINK:
        return "link";
    case FabricFault::Target::SWITCH:
        return "switch";
    case FabricFault::Target::HOST:
        return "host";
    }
    return "unknown";
}

std::vector<FabricFault>
ParseFaultList(const std::string& text, const std::string& flag)
{
    std::vector<FabricFault> faults;
    if (text.empty())
    {
        return faults;
    }
    std::size_t begin = 0;
    while (begin <= text.size())
    {
        std::size_t end = text.find(',', begin);
        if (end == std::string::npos)
        {
            end = text.size();
        }
        const std::string item = text.substr(begin, end - begin);
        const std::string itemName =
            "item " + std::to_string(faults.size() + 1) + " '" + item + "'";
        auto fail = [&itemName](const std::string& what) {
            throw std::invalid_argument(itemName + ": " + what);
        };
        const std::size_t colon = item.find(':');
        const std::size_t at = item.find('@');
        if (colon == std::string::npos || at == std::string::npos || at < colon)
        {
            fail("expected KIND:ID@DOWN[-UP], e.g. link:12@1ms-3ms");
        }
        FabricFault f;
        f.where = "--" + flag + " " + itemName;
        const std::string kind = item.substr(0, colon);
        if (kind == "link")
        {
            f.target = FabricFault::Target::LINK;
        }
        else if (kind == "switch")
        {
            f.target = FabricFault::Target::SWITCH;
        }
        else if (kind == "host")
        {
            f.target = FabricFault::Target::HOST;
        }
        else
        {
            fail("kind must be link, switch or host, got '" + kind + "'");
        }
        const std::string id = item.substr(colon + 1, at - colon - 1);
        if (id.empty() || id.size() > 10 ||
            id.find_first_not_of("0123456789") != std::string::npos ||
            std::stoull(id) > std::numeric_limits<uint32_t>::max())
        {
            fail("id must be an unsigned 32-bit integer, got '" + id + "'");
        }
        f.id = static_cast<uint32_t>(std::stoull(id));
        const std::string times = item.substr(at + 1);
        // A '-' after the first character separates the times (none has a sign).
        const std::size_t dash = times.find('-', 1);
        try
        {
            f.downNs = ParseTimeNs(times.substr(0, dash));
        }
        catch (const std::invalid_argument& e)
        {
            fail(std::string("down time: ") + e.what());
        }
        if (dash != std::string::npos)
        {
            try
            {
                f.upNs = ParseTimeNs(times.substr(dash + 1));
            }
            catch (const std::invalid_argument& e)
            {
                fail(std::string("up time: ") + e.what());
            }
            if (f.upNs <= f.downNs)
            {
                fail("the up time must be after the down time");
            }
        }
        faults.push_back(f);
        begin = end + 1;
    }
    return faults;
}

} // namespace ns3
