/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "input-file.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <sys/stat.h>

namespace ns3
{

namespace
{

std::string
TypeName(mode_t mode)
{
    if (S_ISDIR(mode))
    {
        return "a directory";
    }
    if (S_ISFIFO(mode))
    {
        return "a FIFO";
    }
    if (S_ISCHR(mode))
    {
        return "a character device";
    }
    if (S_ISBLK(mode))
    {
        return "a block device";
    }
    if (S_ISSOCK(mode))
    {
        return "a socket";
    }
    return "";
}

[[noreturn]] void
TooLarge(const std::string& path, const InputFileKind& kind, const std::string& size)
{
    throw std::runtime_error(path + ": " + size + ", over the limit of " +
                             std::to_string(kind.maxBytes) + " bytes for a " + kind.name + " file");
}

} // namespace

uint64_t
RequireInputFile(const std::string& path, const InputFileKind& kind)
{
    struct stat st;
    if (stat(path.c_str(), &st) != 0)
    {
        throw std::runtime_error(path + ": cannot open: " + std::strerror(errno));
    }
    if (!S_ISREG(st.st_mode))
    {
        const std::string type = TypeName(st.st_mode);
        throw std::runtime_error(
            path + (type.empty() ? ": is not a regular file" : ": is " + type + ", not a file"));
    }
    const uint64_t size = static_cast<uint64_t>(st.st_size);
    if (size > kind.maxBytes)
    {
        TooLarge(path, kind, std::to_string(size) + " bytes");
    }
    return size;
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
ReadInputFile(const std::string& path, const InputFileKind& kind)
{
    const uint64_t size = RequireInputFile(path, kind);
    std::ifstream in(path, std::ios::binary);
    if (!in)
    {
        throw std::runtime_error(path + ": cannot open");
    }
    std::string text;
    text.reserve(size);
    char chunk[1 << 16];
    while (in)
    {
        in.read(chunk, sizeof(chunk));
        text.append(chunk, static_cast<size_t>(in.gcount()));
        if (text.size() > kind.maxBytes)
        {
            TooLarge(path, kind, "more than " + std::to_string(kind.maxBytes) + " bytes");
        }
    }
    if (in.bad())
    {
        throw std::runtime_error(path + ": cannot read");
    }
    return text;
}

} // namespace ns3
