/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef HPCC_NETWORK_CONFIG_H
#define HPCC_NETWORK_CONFIG_H

#include "roce-fabric-helper.h"

#include "ns3/hpcc-config-reader.h"
#include "ns3/nstime.h"

#include <cstdint>
#include <functional>
#include <string>

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * \brief The network settings of an HPCC-lineage config file (HPCC's
 * third.cc, SimAI's SimAI.conf, astra-network-ns3) as this module's
 * attributes: the NIC (payload, ACK interval, the simulators' fixed 4 ms
 * timeout), the switches (lossless buffer carved per port, ECN marking and
 * its per-rate thresholds, PFC) and DCQCN, each key onto its attribute
 * (the table in doc/hpcc-compat.md). Both hpcc-compat (HpccScenario) and
 * a scenario's `fabric.hpccConfig` use it, so a config means the same
 * fabric beside a flow file as beside a workload.
 *
 * Without a file, every key takes the simulators' default.
 */
class HpccNetworkConfig
{
  public:
    /// No config file: the simulators' defaults.
    HpccNetworkConfig() = default;

    /**
     * Read and map \p path.
     * \param strict refuse keys (or values) the module does not model
     * \throw std::runtime_error "path:line: KEY: message"
     */
    HpccNetworkConfig(const std::string& path, bool strict);

    /// The file's path; empty without one.
    const std::string& GetPath() const
    {
        return m_file.path;
    }

    /// The file's lines as read.
    const HpccConfigFile& GetFile() const
    {
        return m_file;
    }

    /// The modelled settings and the keys not modelled.
    const HpccConfigMapping& GetMapping() const
    {
        return m_mapping;
    }

    /// Line of \p key in the file, 0 if absent.
    uint32_t Line(const std::string& key) const;

    /// Throw "path:line: KEY: message" for \p key.
    [[noreturn]] void Fail(const std::string& key, const std::string& message) const;

    /// "path: N config keys not modelled, ignored: KEY (line n): why, ..."; empty if none.
    std::string DescribeUnmodelledKeys() const;

    /// PACKET_PAYLOAD_SIZE, or 1000 bytes (the simulators' default).
    uint32_t GetPayloadBytes() const;

    /// Packets per ACK: L2_ACK_INTERVAL's bytes in payloads, rounded up; 1 without it.
    uint32_t GetAckIntervalPackets() const;

    /// SIMULATOR_STOP_TIME, or 3.01 s (the simulators' default).
    Time GetStopTime() const;

    /// SIMULATOR_STOP_TIME is beyond the simulator's range, which the
    /// simulators' configs use for "no limit": run until nothing is left.
    bool RunsUntilDone() const;

    /**
     * Configure \p helper, each key onto its attribute: payload size, ACK
     * interval, switch buffer, ECN marking on or off, DCQCN and its
     * parameters. PFC stays on (the simulators are lossless). Keys the file
     * omits keep the module's defaults.
     * \throw std::runtime_error at the key whose value an attribute refuses
     */
    void Configure(RoceFabricHelper& helper) const;

    /**
     * The congestion control Configure sets, in RoceFabricHelper::
     * SetCongestionControl syntax: "ns3::Dcqcn" with every value of its
     * "hpcc" profile (Dcqcn::GetProfile), the config's DCQCN keys replacing
     * theirs (rates in bps, times in ns). DCQCN is CC_MODE 1, and also what
     * runs when the config asks for a mode that is reported as not modelled.
     */
    std::string GetCongestionControlSpec() const;

    /**
     * Check that KMIN_MAP, KMAX_MAP and PMAX_MAP, where given, have an entry
     * for the rate of every switch port of \p topology, as the simulators
     * require.
     * \param where names link \p l for the error (e.g. its topology file line)
     * \throw std::runtime_error at the map's key otherwise
     */
    void CheckEcnMaps(const FabricTopology& topology,
                      const std::function<std::string(uint32_t l)>& where) const;

    /**
     * Build \p topology with \p helper (configured by Configure), set every
     * switch port's ECN thresholds from KMIN_MAP / KMAX_MAP / PMAX_MAP by
     * the port's rate (those the file omits keep the MMU's rate-scaled
     * defaults), give each link whose \p errorRate is above 0 a receive
     * error model at both ends, and fix all random streams from \p stream
     * (RoceFabric::AssignStreams).
     * \param errorRate link id -> its loss rate (ERROR_RATE_PER_LINK unless
     *        the link has its own)
     * \throw std::runtime_error at BUFFER_SIZE if the switch buffer cannot
     *        hold its reserves, at KMAX_MAP if a threshold pair is reversed
     */
    Ptr<RoceFabric> Install(const RoceFabricHelper& helper,
                            const FabricTopology& topology,
                            const std::function<double(uint32_t link)>& errorRate,
                            int64_t stream = 0) const;

  private:
    HpccConfigFile m_file;
    HpccConfigMapping m_mapping;
};

} // namespace ns3

#endif /* HPCC_NETWORK_CONFIG_H */
