/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The pcap files of roce-incast read back with tshark: RoCEv2 as Wireshark
 * dissects it, and nanosecond timestamps that resolve 100 Gb/s frames.
 */
#include "examples-test-util.h"

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <gtest/gtest.h>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

using namespace ns3::test;
namespace fs = std::filesystem;

namespace
{

/// The fields of one frame, in the order asked from tshark.
enum Field
{
    kOpcode,
    kDestQp,
    kPsn,
    kUdpDstPort,
    kAethSyndrome,
    kIpChecksumStatus,
    kIpSrc,
    kIpDst,
    kEcn,
    kEthType,
    kDmaLength,
    kNFields
};

TEST_F(ExamplesTest, IncastPcapDecodesAsRoceV2InTshark)
{
    ASSERT_EQ(access(kTshark, X_OK), 0)
        << kTshark << " not found: install Debian's tshark package to run this test";

    // 4 senders of 200 KB give only 3-5 ECN marks and CNPs at the receiver,
    // depending on the seed; 8 give about 60, a margin that does not depend on luck.
    const uint64_t senders = 8;
    const uint64_t bytes = 204800;
    const uint64_t packets = bytes / 1024;
    const Outcome run =
        Example("roce-incast",
                {"--senders=8", "--bytes=204800", "--mtu=1024", "--cc=dcqcn", "--pcap=trace"});
    ASSERT_EQ(run.exitCode, 0) << run.Describe();
    const fs::path pcap = Path("trace-1-0.pcap"); // the receiver, host 0, is ns-3 node 1
    ASSERT_TRUE(fs::exists(pcap)) << "no " << pcap;

    const Outcome ts = Shell(std::string(kTshark) + " -n -r " + ShellQuote(pcap.string()) +
                             " -o ip.check_checksum:TRUE -T fields -E separator=,"
                             " -e infiniband.bth.opcode -e infiniband.bth.destqp"
                             " -e infiniband.bth.psn -e udp.dstport -e infiniband.aeth.syndrome"
                             " -e ip.checksum.status -e ip.src -e ip.dst -e ip.dsfield.ecn"
                             " -e eth.type -e infiniband.reth.dmalen");
    ASSERT_EQ(ts.exitCode, 0) << ts.Describe();

    std::map<std::string, uint64_t> byOpcode;
    std::map<std::string, std::vector<uint64_t>> psnsFrom; // sender ip -> data PSNs in order
    std::map<std::string, std::set<uint64_t>> ackedPsns;   // sender ip -> PSNs ACKed to it
    std::map<std::string, std::set<std::string>> qpsFrom;  // sender ip -> destination QPs
    std::map<std::string, uint64_t> ceFrom;                // sender ip -> CE-marked packets
    std::map<std::string, uint64_t> cnpsTo;                // sender ip -> CNPs
    std::map<std::string, std::string> firstOpcodeFrom;    // sender ip -> opcode of 1st
    std::map<std::string, std::string> lastOpcodeFrom;     // sender ip -> opcode of last
    // Per-frame checks are counted, so that a systematic fault is reported
    // once with an example frame rather than once per frame.
    std::map<std::string, std::pair<uint64_t, std::string>> faults; // what -> (count, 1st frame)
    uint64_t frames = 0;
    std::string current;
    auto check = [&](bool ok, const std::string& what) {
        if (!ok && faults[what].first++ == 0)
        {
            faults[what].second = current;
        }
    };
    std::istringstream lines(ts.out);
    std::string line;
    while (std::getline(lines, line))
    {
        ++frames;
        std::vector<std::string> f = Split(line, ',');
        ASSERT_EQ(f.size(), static_cast<size_t>(kNFields)) << "frame " << frames << ": " << line;
        if (f[kEthType] == "0x8808")
        {
            continue; // MAC control: PFC PAUSE, not RoCE
        }
        current = "frame " + std::to_string(frames) + ": " + line;
        check(!f[kOpcode].empty(), "neither RoCE nor PFC");
        check(f[kUdpDstPort] == "4791", "UDP destination port is not 4791");
        // Wireshark's checksum status: 0 Bad, 1 Good, 2 Unverified (2 only without the check).
        check(f[kIpChecksumStatus] == "1", "IPv4 header checksum not Good");
        const std::string& op = f[kOpcode];
        ++byOpcode[op];
        if (op == "6" || op == "7" || op == "8" || op == "10")
        {
            const std::string& sender = f[kIpSrc];
            psnsFrom[sender].push_back(std::stoull(f[kPsn]));
            qpsFrom[sender].insert(f[kDestQp]);
            ceFrom[sender] += f[kEcn] == "3";
            check(f[kEcn] != "0", "data packet not ECN-capable");
            if (!firstOpcodeFrom.count(sender))
            {
                firstOpcodeFrom[sender] = op;
                check(f[kDmaLength] == std::to_string(bytes), "RETH DMA length != message");
            }
            else
            {
                check(f[kDmaLength].empty(), "RETH on a packet other than the first");
            }
            lastOpcodeFrom[sender] = op;
        }
        else if (op == "17")
        {
            check(!f[kAethSyndrome].empty(), "ACK without an AETH");
            // Syndrome bits 7-5 are 0 for an ACK (3 for a NAK).
            check(!f[kAethSyndrome].empty() && (std::stoul(f[kAethSyndrome]) >> 5) == 0,
                  "AETH syndrome is not an ACK");
            ackedPsns[f[kIpDst]].insert(std::stoull(f[kPsn]));
        }
        else if (op == "129")
        {
            ++cnpsTo[f[kIpDst]];
        }
        else
        {
            check(false, "unexpected opcode");
        }
    }
    ASSERT_GT(frames, 0U) << ts.Describe();
    for (const auto& [what, fault] : faults)
    {
        ADD_FAILURE() << what << ": " << fault.first << " of " << frames << " frames, first "
                      << fault.second;
    }

    const uint64_t data = byOpcode["6"] + byOpcode["7"] + byOpcode["8"] + byOpcode["10"];
    EXPECT_EQ(data, senders * packets) << "data packets (WRITE first/middle/last/only)";
    EXPECT_GT(byOpcode["17"], 0U) << "no ACKs";
    EXPECT_GT(byOpcode["129"], 0U) << "no CNPs";
    ASSERT_EQ(psnsFrom.size(), senders);
    for (const auto& [sender, psns] : psnsFrom)
    {
        SCOPED_TRACE("sender " + sender);
        // One WRITE in consecutive PSNs (24-bit, wrapping), without retransmission.
        ASSERT_EQ(psns.size(), packets);
        for (size_t i = 1; i < psns.size(); ++i)
        {
            EXPECT_EQ(psns[i], (psns[0] + i) & 0xFFFFFF) << "packet " << i;
        }
        EXPECT_EQ(firstOpcodeFrom[sender], "6");
        EXPECT_EQ(lastOpcodeFrom[sender], "8");
        EXPECT_EQ(qpsFrom[sender].size(), 1U) << "one queue pair per message";
        // Every ACK names a PSN that was sent, and the last packet is ACKed.
        for (uint64_t psn : ackedPsns[sender])
        {
            EXPECT_LT((psn - psns[0]) & 0xFFFFFF, packets) << "ACK of PSN " << psn << " never sent";
        }
        EXPECT_EQ(ackedPsns[sender].count(psns.back()), 1U) << "last packet not ACKed";
        // A CNP answers a CE mark.
        EXPECT_LE(cnpsTo[sender], ceFrom[sender]) << "more CNPs than CE-marked packets";
    }
    std::set<std::string> queuePairs;
    for (const auto& [sender, qps] : qpsFrom)
    {
        queuePairs.insert(qps.begin(), qps.end());
    }
    EXPECT_EQ(queuePairs.size(), senders) << "each sender writes to its own receive queue pair";
    for (const auto& [ip, n] : cnpsTo)
    {
        EXPECT_EQ(psnsFrom.count(ip), 1U) << "CNP to " << ip << ", which sent nothing";
    }
    for (const auto& [ip, psns] : ackedPsns)
    {
        EXPECT_EQ(psnsFrom.count(ip), 1U) << "ACK to " << ip << ", which sent nothing";
    }
}

/// Nanoseconds from tshark's "seconds.fraction" (up to 9 fractional digits).
int64_t
ParseSecondsNs(const std::string& s)
{
    const auto dot = s.find('.');
    const int64_t whole = std::stoll(s.substr(0, dot));
    std::string frac = dot == std::string::npos ? "" : s.substr(dot + 1);
    frac.resize(9, '0');
    return whole * 1000000000 + std::stoll(frac);
}

TEST_F(ExamplesTest, PcapTimestampsResolveBackToBackFramesAt100G)
{
    ASSERT_EQ(access(kTshark, X_OK), 0)
        << kTshark << " not found: install Debian's tshark package to run this test";
    // Two senders keep the receiver's 100 Gb/s link busy: its data frames
    // arrive back to back, one serialization time apart. With microsecond
    // timestamps (the classic pcap format) that gap, under 100 ns, is lost.
    const Outcome run =
        Example("roce-incast",
                {"--senders=2", "--bytes=40960", "--mtu=1024", "--cc=none", "--pcap=nano"});
    ASSERT_EQ(run.exitCode, 0) << run.Describe();
    const fs::path pcap = Path("nano-1-0.pcap");
    ASSERT_TRUE(fs::exists(pcap)) << "no " << pcap;

    // The file header announces nanosecond resolution (magic 0xa1b23c4d).
    std::ifstream in(pcap, std::ios::binary);
    unsigned char magic[4] = {};
    in.read(reinterpret_cast<char*>(magic), 4);
    const uint32_t m = magic[0] | (magic[1] << 8) | (magic[2] << 16) | (uint32_t(magic[3]) << 24);
    EXPECT_EQ(m, 0xa1b23c4dU) << std::hex << "pcap magic 0x" << m;

    const Outcome ts = Shell(std::string(kTshark) + " -n -r " + ShellQuote(pcap.string()) +
                             " -T fields -E separator=, -e frame.time_relative"
                             " -e infiniband.bth.opcode -e frame.len");
    ASSERT_EQ(ts.exitCode, 0) << ts.Describe();
    std::vector<int64_t> dataTimes;
    uint64_t fullFrameLen = 0;
    std::istringstream lines(ts.out);
    std::string line;
    while (std::getline(lines, line))
    {
        const std::vector<std::string> f = Split(line, ',');
        ASSERT_EQ(f.size(), 3U) << line;
        if (f[1] == "7") // RDMA WRITE middle: a full 1024-byte payload
        {
            dataTimes.push_back(ParseSecondsNs(f[0]));
            fullFrameLen = std::stoull(f[2]);
        }
    }
    ASSERT_GT(dataTimes.size(), 20U) << ts.Describe();
    // Ethernet 14 + IPv4 20 + UDP 8 + BTH 12 + payload 1024 + ICRC 4.
    EXPECT_EQ(fullFrameLen, 1082U);
    // On the wire the frame also takes preamble, SFD, FCS and the inter-frame
    // gap (24 bytes): (1082 + 24) x 8 bits at 100 Gb/s = 88.48 ns.
    const double serializationNs = (1082.0 + 24) * 8 / 100.0;
    int64_t minGap = std::numeric_limits<int64_t>::max();
    for (size_t i = 1; i < dataTimes.size(); ++i)
    {
        const int64_t gap = dataTimes[i] - dataTimes[i - 1];
        ASSERT_GE(gap, 0) << "frames out of order at " << i;
        minGap = std::min(minGap, gap);
    }
    EXPECT_GE(static_cast<double>(minGap), serializationNs - 1.0);
    EXPECT_LE(static_cast<double>(minGap), serializationNs + 1.0);
}

} // namespace
