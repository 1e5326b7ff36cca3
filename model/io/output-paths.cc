/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "output-paths.h"

#include <filesystem>
#include <stdexcept>
#include <system_error>

namespace ns3
{

namespace
{

/// Whether \p a and \p b name one file: the same existing file, or the same path once resolved.
bool
SameFile(const std::string& a, const std::string& b)
{
    std::error_code error;
    if (std::filesystem::equivalent(a, b, error))
    {
        return true;
    }
    const std::filesystem::path x = std::filesystem::weakly_canonical(a, error);
    if (error)
    {
        return a == b;
    }
    const std::filesystem::path y = std::filesystem::weakly_canonical(b, error);
    return error ? a == b : x == y;
}

} // namespace

void
RequireDistinctOutputs(const std::vector<NamedPath>& inputs, const std::vector<NamedPath>& outputs)
{
    for (std::size_t o = 0; o < outputs.size(); ++o)
    {
        const NamedPath& out = outputs[o];
        if (out.path.empty())
        {
            continue;
        }
        for (const NamedPath& in : inputs)
        {
            if (!in.path.empty() && SameFile(out.path, in.path))
            {
                throw std::invalid_argument(out.what + " " + out.path + " is the input " + in.what +
                                            " " + in.path + ": the run would overwrite it");
            }
        }
        for (std::size_t p = 0; p < o; ++p)
        {
            if (!outputs[p].path.empty() && SameFile(out.path, outputs[p].path))
            {
                throw std::invalid_argument(out.what + " " + out.path + " is also the output " +
                                            outputs[p].what + " " + outputs[p].path +
                                            ": one would overwrite the other");
            }
        }
    }
}

} // namespace ns3
