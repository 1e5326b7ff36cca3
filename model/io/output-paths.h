/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef OUTPUT_PATHS_H
#define OUTPUT_PATHS_H

#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * A file a program reads or writes, and what names it ("--db", "config.txt:
 * FCT_OUTPUT_FILE"), for the error that names both of a clash.
 */
struct NamedPath
{
    std::string what; ///< the flag, key or role that gives the path
    std::string path; ///< as given; empty paths are skipped
};

/**
 * Throw std::invalid_argument naming both paths if an output is one of the
 * inputs or another output: compared after resolving links, and as the
 * same file (device and inode) when both exist, so a symbolic or hard link
 * to an input is caught too. Every program calls it before it opens its
 * first output, so that no run overwrites what it reads.
 */
void RequireDistinctOutputs(const std::vector<NamedPath>& inputs,
                            const std::vector<NamedPath>& outputs);

} // namespace ns3

#endif /* OUTPUT_PATHS_H */
