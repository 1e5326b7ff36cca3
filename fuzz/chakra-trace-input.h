/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef CHAKRA_TRACE_INPUT_H
#define CHAKRA_TRACE_INPUT_H

// The Chakra trace reader's entry point for its fuzz target and for the
// test that replays the target's corpus (fuzz/corpus/chakra-trace). One
// input holds a whole job: pieces, each a varint length and that many
// bytes (the framing of the .et files themselves, so that a mutated length
// reaches the reader too). Each piece is a rank file, rank 0 first, except
// a piece that starts with '{' (the communicator-group JSON) and a piece
// "data" (read data_deps only). When a length does not fit, the rest of the
// input is the last piece.

#include "ns3/chakra-trace-reader.h"

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace ns3
{
namespace fuzz
{

/// Most pieces an input is split into: rank files, the JSON and "data".
constexpr size_t kChakraMaxPieces = 10;

/**
 * Read \p input as a job's Chakra trace.
 * \param sources out: the names the reader was given (rank files
 *        "rank.<r>.et", "groups.json"), one of which its errors must start with
 * \throw std::runtime_error or std::invalid_argument: the reader's error
 */
inline JobGraph
ReadChakraFuzzInput(const std::string& input, std::vector<std::string>& sources)
{
    std::vector<std::string> pieces;
    size_t pos = 0;
    while (pos < input.size() && pieces.size() < kChakraMaxPieces)
    {
        size_t p = pos;
        uint64_t length = 0;
        bool ok = false;
        for (int i = 0; i < 5 && p < input.size(); ++i)
        {
            const auto b = static_cast<unsigned char>(input[p++]);
            length |= static_cast<uint64_t>(b & 0x7f) << (7 * i);
            if (!(b & 0x80))
            {
                ok = true;
                break;
            }
        }
        if (!ok || length > input.size() - p)
        {
            pieces.push_back(input.substr(pos));
            break;
        }
        pieces.push_back(input.substr(p, length));
        pos = p + length;
    }
    std::vector<ChakraRankBytes> ranks;
    std::string groups;
    ChakraTraceOptions options;
    options.maxFileBytes = 16 << 20;
    for (const std::string& piece : pieces)
    {
        if (piece == "data")
        {
            options.deps = ChakraDeps::Data;
        }
        else if (!piece.empty() && piece[0] == '{' && groups.empty())
        {
            groups = piece;
        }
        else
        {
            ranks.push_back({"rank." + std::to_string(ranks.size()) + ".et", piece});
        }
    }
    if (ranks.empty())
    {
        ranks.push_back({"rank.0.et", ""});
    }
    sources.clear();
    for (const ChakraRankBytes& r : ranks)
    {
        sources.push_back(r.source);
    }
    sources.push_back("groups.json");
    return ReadChakraTraceBytes(ranks, groups, "groups.json", options);
}

} // namespace fuzz
} // namespace ns3

#endif /* CHAKRA_TRACE_INPUT_H */
