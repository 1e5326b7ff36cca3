/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "input-file.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <system_error>

namespace ns3
{

void
RequireNotDirectory(const std::string& path)
{
    std::error_code error;
    if (std::filesystem::is_directory(path, error))
    {
        throw std::runtime_error(path + ": is a directory, not a file");
    }
}

void
StripByteOrderMark(std::string& text)
{
    if (text.compare(0, 3, "\xEF\xBB\xBF") == 0)
    {
        text.erase(0, 3);
    }
}

std::string
ReadInputFile(const std::string& path)
{
    RequireNotDirectory(path);
    std::ifstream in(path, std::ios::binary);
    if (!in)
    {
        throw std::runtime_error(path + ": cannot open");
    }
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad())
    {
        throw std::runtime_error(path + ": cannot read");
    }
    return text.str();
}

} // namespace ns3
