/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef SCENARIO_SPEC_H
#define SCENARIO_SPEC_H

#include "job-spec.h"

#include "ns3/attribute.h"
#include "ns3/fabric-fault.h"
#include "ns3/topology-builder.h"

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * \brief One simulation scenario as plain data: fabric, jobs, scheduler and
 * output, as read from a scenario file (see ReadScenarioFile and
 * doc/scenario-format.md, which gives the JSON key of every field).
 *
 * The reader checks the shape of the file and every range it can check on
 * its own; names that only other components know (models, congestion
 * control, scheduler, placement, collective, dtype, gpu) are checked where
 * they are used. Those checks can still point at the file: lines maps every
 * field path to its line, and Where() formats it.
 */
struct ScenarioSpec
{
    /// The fabric to build: a TopologyBuilder of short name kind, with the
    /// keys given for its block. Blocks of other kinds keep what was given
    /// for them (a file's are checked all the same) and are not used.
    struct Topology
    {
        /// The builder's short name (TopologyBuilder::GetNames)
        std::string kind{"fat-tree"};
        /// GPUs per fabric host (one RDMA NIC); a kind may dictate it
        /// (TopologyBuilder::GetGpusPerHost: 1 for rail-optimized, whose hosts are NICs)
        uint32_t gpusPerHost{8};
        /// Topology file, required when the kind reads one (lingjun: the Lingjun
        /// topo.csv). A relative path is resolved against the scenario file's directory.
        std::string path;
        /// Per kind, the keys given for its block (a key names its builder's
        /// attribute, "k" for FatTreeBuilder's K), each with its checked value,
        /// in the order given; a key given again replaces its value.
        std::map<std::string, std::vector<std::pair<std::string, Ptr<const AttributeValue>>>>
            blocks;

        /**
         * Give key \p key of the block of kind \p kind the value \p value,
         * e.g. Set("fat-tree", "k", UintegerValue(8)).
         * \throw std::invalid_argument for an unknown kind or key, or a value
         *        the key's attribute does not accept
         */
        Topology& Set(const std::string& kind, const std::string& key, const AttributeValue& value)
        {
            Ptr<const AttributeValue> checked = TopologyBuilder::CheckedValue(kind, key, value);
            auto& block = blocks[kind];
            for (auto& [given, old] : block)
            {
                if (given == key)
                {
                    old = checked;
                    return *this;
                }
            }
            block.emplace_back(key, checked);
            return *this;
        }

        /// As above, for the block of this->kind: Set("k", UintegerValue(8)).
        Topology& Set(const std::string& key, const AttributeValue& value)
        {
            return Set(kind, key, value);
        }

        /**
         * The builder of kind \p of with the values given for its block (the
         * defaults of the others) and, if it reads a file, path.
         * \throw std::invalid_argument for an unknown kind
         */
        Ptr<TopologyBuilder> MakeBuilder(const std::string& of) const
        {
            Ptr<TopologyBuilder> builder = TopologyBuilder::Create(of);
            auto it = blocks.find(of);
            if (it != blocks.end())
            {
                for (const auto& [key, value] : it->second)
                {
                    builder->SetKey(key, *value);
                }
            }
            builder->SetPath(path);
            return builder;
        }

        /// The builder of this->kind, as MakeBuilder(kind).
        Ptr<TopologyBuilder> MakeBuilder() const
        {
            return MakeBuilder(kind);
        }
    } topology;

    /// RoCE settings shared by every NIC and switch.
    struct Fabric
    {
        uint32_t mtu{4096};                ///< RoCE path MTU: payload bytes per packet
        std::string cc{"dcqcn"};           ///< congestion control name
        bool pfc{true};                    ///< lossless classes (PFC) on
        uint64_t bufferBytes{32ull << 20}; ///< shared buffer per switch, >= 1
        uint32_t ackInterval{16};          ///< packets per ACK, >= 1 (RdmaNic::AckInterval)
        int64_t rtoNs{0};                  ///< fixed retransmission timeout; 0: InfiniBand's
        uint32_t ackTimeoutExponent{20};   ///< local ACK timeout 4.096 us x 2^N, 1-31
        uint32_t retryCount{7};            ///< timeouts retried before the queue pair errors, 0-7
        /// "adaptive" (ConnectX adaptive retransmission) or "local-ack"
        /// (the local ACK timeout itself); while rtoNs is 0
        std::string retransmission{"adaptive"};
        bool selectiveRepeat{false}; ///< RdmaNic::SelectiveRepeat
        bool slowRestart{true};      ///< RdmaNic::SlowRestart
        /// An HPCC-lineage config (SimAI.conf) whose network settings replace
        /// the keys above (HpccNetworkConfig); resolved against the scenario
        /// file's directory; empty for none.
        std::string hpccConfig;
    } fabric;

    /// Links, switches and hosts to take down and up (FabricFaults), in file order.
    std::vector<FabricFault> faults;

    /// ns-3 attribute defaults ("ns3::Dcqcn::G" -> "0.00390625"), in file
    /// order, for Config::SetDefault before the fabric is built.
    std::vector<std::pair<std::string, std::string>> attributes;

    /// Field values every job starts from: jobs in the file, trace rows and
    /// synthetic jobs override them. Its id and hosts are never used.
    JobSpec jobDefaults;

    /// Jobs given in the file; id defaults to the position in the list.
    std::vector<JobSpec> jobs;

    /// CSV job trace (see ReadJobTrace); empty for none. A relative path is
    /// resolved against the scenario file's directory.
    std::string jobTrace;

    /// A synthetic job mix (see GenerateSyntheticJobs).
    struct Synthetic
    {
        bool enabled{false};       ///< true when the file has a synthetic block
        uint32_t jobs{0};          ///< number of jobs, >= 1
        double arrivalRatePerS{0}; ///< Poisson arrival rate (jobs per second), > 0
        /// Model name -> relative weight (>= 0, positive total), in file order.
        std::vector<std::pair<std::string, double>> modelMix;
        /// Worker count -> relative weight (>= 0, positive total), in file order.
        std::vector<std::pair<uint32_t, double>> workerSizes;
        /// Placement policy -> relative weight, in file order; empty: every job
        /// takes jobDefaults' placement.
        std::vector<std::pair<std::string, double>> placementMix;
        uint32_t iterations{0}; ///< iterations of every job; 0: take jobDefaults.iterations
        uint64_t seed{1};       ///< generator seed; the file's top-level seed unless given
    } synthetic;

    /// Network model: "packet" (the RoCE fabric, packet by packet) or "flow"
    /// (FlowNetwork: max-min fair fluid flows on the same topology and routes).
    std::string backend{"packet"};

    std::string scheduler{"fair"};     ///< scheduler name
    std::string schedulerParams{"{}"}; ///< scheduler parameters: a JSON object, as text

    /// Where results go.
    struct Output
    {
        std::string db;      ///< SQLite file; empty for none. Relative to the working directory.
        bool flowRows{true}; ///< store one row per flow (large for big runs)
    } output;

    std::string name; ///< run name (results database); default: source base name, no extension
    std::string description; ///< free text, stored with the run
    uint64_t seed{1};        ///< ns-3 RNG seed, 1 .. 2^32-1
    int64_t stopTimeNs{0};   ///< simulation end; 0: run until every job has finished
    double scale{1.0};       ///< multiplies every job's scale (gradient bytes, compute time)

    std::string source;                    ///< the file (or source name) read
    std::map<std::string, uint32_t> lines; ///< field path ("jobs[2].model") -> 1-based line

    /**
     * Locate a field for an error message.
     * \param field a field path as in lines, e.g. "jobs[2].model"
     * \return "source:line: field", or "source: field" when the field has no line
     */
    std::string Where(const std::string& field) const
    {
        auto it = lines.find(field);
        if (it == lines.end())
        {
            return source + ": " + field;
        }
        return source + ":" + std::to_string(it->second) + ": " + field;
    }
};

} // namespace ns3

#endif /* SCENARIO_SPEC_H */
