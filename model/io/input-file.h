/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef INPUT_FILE_H
#define INPUT_FILE_H

#include <cstdint>
#include <string>

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * A kind of input file and the most bytes a file of it may have. Every
 * reader of the module names its kind, so that a file too large for the
 * machine is refused by its size, before the first byte is read, with an
 * error naming the file (doc/scenario-format.md, "Input files").
 */
struct InputFileKind
{
    const char* name;  ///< what the file is, for errors: "SimAI workload"
    uint64_t maxBytes; ///< its limit
};

/// The kinds the module reads and their limits.
namespace InputFileKinds
{
constexpr uint64_t kMiB = uint64_t{1} << 20;
constexpr InputFileKind kScenario{"scenario", 64 * kMiB};
constexpr InputFileKind kJobTrace{"job trace", 256 * kMiB};
constexpr InputFileKind kSimaiWorkload{"SimAI workload", 64 * kMiB};
constexpr InputFileKind kChakraTrace{"Chakra trace", 1024 * kMiB};
constexpr InputFileKind kCommGroups{"communicator groups", 64 * kMiB};
constexpr InputFileKind kHpccConfig{"HPCC config", 1 * kMiB};
constexpr InputFileKind kHpccTopology{"topology", 256 * kMiB};
constexpr InputFileKind kHpccFlows{"flow", 256 * kMiB};
constexpr InputFileKind kLingjunTopology{"Lingjun topology", 64 * kMiB};
} // namespace InputFileKinds

/**
 * Throw std::runtime_error naming \p path unless it is a regular file (after
 * links) of at most \p kind's bytes: a directory, a FIFO, a device or a
 * socket is refused by its type before it is opened, since a FIFO would
 * block the open and a device never end.
 * \return the file's size
 */
uint64_t RequireInputFile(const std::string& path, const InputFileKind& kind);

/**
 * Remove a UTF-8 byte-order mark from the start of \p text, the first line
 * of an input file; every reader calls it, so that files saved by editors
 * that write one read alike.
 */
void StripByteOrderMark(std::string& text);

/**
 * The whole of input file \p path, as it is (bytes, no line-end change),
 * after RequireInputFile. Reading stops past the limit too, so a file that
 * grows while read, or reports no size (as /proc's do), stays bounded.
 * \throw std::runtime_error naming \p path if it is not a regular file,
 *        is over the limit, cannot be opened or cannot be read
 */
std::string ReadInputFile(const std::string& path, const InputFileKind& kind);

} // namespace ns3

#endif /* INPUT_FILE_H */
