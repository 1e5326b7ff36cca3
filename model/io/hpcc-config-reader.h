/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef HPCC_CONFIG_READER_H
#define HPCC_CONFIG_READER_H

// Keys of the HPCC-lineage simulators' config file (HPCC's third.cc reads
// them; SimAI's ns-3-alibabacloud and astra-network-ns3 inherit them) and
// what MapHpccConfig does with each. "not modelled" keys are returned by
// name (and refused in strict mode); so is any key not in this table, and a
// modelled key whose value asks for behaviour this module does not have
// (the "reported if" notes). doc/hpcc-compat.md maps the fields onto the
// module's attributes.
//
// Key                        Meaning in the simulators              Maps to (HpccConfig)
// -------------------------  -------------------------------------  ---------------------------
// PACKET_PAYLOAD_SIZE        payload bytes per packet (MTU)         payloadBytes
// BUFFER_SIZE                switch buffer, MB (third.cc            bufferBytes = value x 2^20
//                            multiplies by 1024*1024)
// CC_MODE                    1 DCQCN, 3 HPCC, 7 TIMELY, 8 DCTCP,    ccMode; reported if not 1
//                            10 HPCC-PINT
// ENABLE_QCN                 ECN marking at switches (0/1)          enableQcn
// KMIN_MAP                   n rate1 kmin1 ... (rate bit/s, KB)     kminBytes: rate -> KB x 1000
// KMAX_MAP                   n rate1 kmax1 ... (rate bit/s, KB)     kmaxBytes: rate -> KB x 1000
// PMAX_MAP                   n rate1 pmax1 ... (probability)        pmax: rate -> probability
// RATE_AI                    DCQCN additive increase (rate string)  rateAiBps
// RATE_HAI                   DCQCN hyper increase (rate string)     rateHaiBps
// MIN_RATE                   DCQCN minimum rate (rate string)       minRateBps
// ALPHA_RESUME_INTERVAL      DCQCN alpha update period, us          alphaResumeIntervalNs
// RATE_DECREASE_INTERVAL     DCQCN rate decrease period, us         rateDecreaseIntervalNs
// RP_TIMER                   DCQCN rate increase timer, us          rpTimerNs
// FAST_RECOVERY_TIMES        DCQCN fast recovery steps              fastRecoveryTimes
// EWMA_GAIN                  DCQCN alpha gain g, in (0,1]           ewmaGain
// CLAMP_TARGET_RATE          DCQCN target clamp at decrease (0/1)   clampTargetRate
// L2_ACK_INTERVAL            receiver ACK interval, bytes           l2AckInterval
// L2_BACK_TO_ZERO            go-back-0 instead of go-back-N (0/1)   l2BackToZero; reported if 1
// USE_DYNAMIC_PFC_THRESHOLD  PFC dynamic threshold (0/1)            useDynamicPfcThreshold;
//                                                                   reported if 0
// ERROR_RATE_PER_LINK        error rate of links whose own is 0     errorRatePerLink
// SIMULATOR_STOP_TIME        stop time, seconds                     stopTimeNs
// TOPOLOGY_FILE              topology file path                     topologyFile
// FLOW_FILE                  flow file path                         flowFile
// FCT_OUTPUT_FILE            flow completion time output path       fctOutputFile
// PFC_OUTPUT_FILE            PFC event output path                  pfcOutputFile
// TRACE_FILE                 file of node ids to trace              not modelled
// TRACE_OUTPUT_FILE          packet trace (binary) output path      not modelled
// PAUSE_TIME                 PFC pause time                         not modelled
// DATA_RATE, LINK_DELAY      unused defaults (the topology rules)   not modelled
// L2_CHUNK_SIZE              go-back-N chunk size                   not modelled
// HAS_WIN, GLOBAL_T, VAR_WIN window-based sending (HPCC)            not modelled
// FAST_REACT, U_TARGET,      HPCC control loop                      not modelled
// MI_THRESH, INT_MULTI,
// MULTI_RATE, SAMPLE_FEEDBACK
// RATE_BOUND                 pace at the current rate               not modelled
// DCTCP_RATE_AI              DCTCP additive increase                not modelled
// PINT_LOG_BASE, PINT_PROB   HPCC-PINT                              not modelled
// ACK_HIGH_PRIO              ACKs in the highest priority           not modelled
// LINK_DOWN                  time(us) a b: link a-b down at 2 s +   linkDown
//                            time, for good (0: none)
// ENABLE_TRACE               packet tracing on/off                  not modelled
// QLEN_MON_FILE              queue monitor: SimAI's CSV, or HPCC's  qlenMonFile
//                            histogram with QLEN_MON_START/_END
// BW_MON_FILE                SimAI's port bandwidth monitor (CSV)   bwMonFile
// RATE_MON_FILE              SimAI's queue-pair rate monitor (CSV)  rateMonFile
// CNP_MON_FILE               SimAI's queue-pair CNP monitor (CSV)   cnpMonFile
// MON_START                  monitors' first sample, us             monStartNs
// QLEN_MON_INTERVAL          queue monitor period, us               qlenMonIntervalNs
// BW_MON_INTERVAL            bandwidth monitor period, us           bwMonIntervalNs
// QP_MON_INTERVAL            rate and CNP monitors' period, us      qpMonIntervalNs
// MON_END                    unused by SimAI's monitors             not modelled
// QLEN_MON_START, _END       HPCC's histogram queue monitor, ns     qlenMonStartNs, qlenMonEndNs
//
// The DCQCN keys are applied over ns3::Dcqcn's "hpcc" profile, the HPCC
// simulator's values for the keys a file omits (HpccScenario).
//
// Units are converted exactly (a value that is not a whole number of bytes,
// nanoseconds or bit/s is an error). Paths are kept as written; relative
// paths are the caller's to resolve.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ns3
{

/// One `KEY value...` line of an HPCC config file.
struct HpccConfigEntry
{
    std::string key;                 ///< the key, as written
    std::vector<std::string> values; ///< the value tokens, at least one
    uint32_t line;                   ///< line number in the file
};

/// An HPCC config file: its entries in file order.
struct HpccConfigFile
{
    std::string path;                     ///< the file, for error messages
    std::vector<HpccConfigEntry> entries; ///< in file order, keys unique
};

/**
 * \ingroup collective-scheduling
 * Read an HPCC-lineage simulator config file: one `KEY value...` per line,
 * fields separated by white space. Blank lines and lines whose first
 * non-blank character is '#' are skipped (the simulators themselves have no
 * comments); a '#' later in a line is an ordinary token. CRLF line ends are
 * tolerated.
 *
 * \param path the config file
 * \return the entries in file order
 * \throw std::runtime_error "path:line: KEY: message" for a key without a
 *        value or a key given twice (naming the first line);
 *        "path: file: ..." for a file that cannot be opened
 */
HpccConfigFile ReadHpccConfig(const std::string& path);

/**
 * Settings of an HPCC config this module models, in SI units. A field is
 * empty (std::nullopt, or an empty map) when the file does not give its key;
 * callers keep their own defaults then.
 */
struct HpccConfig
{
    std::optional<uint32_t> payloadBytes;          ///< PACKET_PAYLOAD_SIZE
    std::optional<uint64_t> bufferBytes;           ///< BUFFER_SIZE x 2^20
    std::optional<uint32_t> ccMode;                ///< CC_MODE
    std::optional<bool> enableQcn;                 ///< ENABLE_QCN
    std::map<uint64_t, uint64_t> kminBytes;        ///< KMIN_MAP: rate bit/s -> bytes
    std::map<uint64_t, uint64_t> kmaxBytes;        ///< KMAX_MAP: rate bit/s -> bytes
    std::map<uint64_t, double> pmax;               ///< PMAX_MAP: rate bit/s -> probability
    std::optional<uint64_t> rateAiBps;             ///< RATE_AI
    std::optional<uint64_t> rateHaiBps;            ///< RATE_HAI
    std::optional<uint64_t> minRateBps;            ///< MIN_RATE
    std::optional<int64_t> alphaResumeIntervalNs;  ///< ALPHA_RESUME_INTERVAL (us in the file)
    std::optional<int64_t> rateDecreaseIntervalNs; ///< RATE_DECREASE_INTERVAL (us in the file)
    std::optional<int64_t> rpTimerNs;              ///< RP_TIMER (us in the file)
    std::optional<uint32_t> fastRecoveryTimes;     ///< FAST_RECOVERY_TIMES
    std::optional<double> ewmaGain;                ///< EWMA_GAIN
    std::optional<bool> clampTargetRate;           ///< CLAMP_TARGET_RATE
    std::optional<uint32_t> l2AckInterval;         ///< L2_ACK_INTERVAL, bytes
    std::optional<bool> l2BackToZero;              ///< L2_BACK_TO_ZERO
    std::optional<bool> useDynamicPfcThreshold;    ///< USE_DYNAMIC_PFC_THRESHOLD
    std::optional<double> errorRatePerLink;        ///< ERROR_RATE_PER_LINK, in [0,1]

    /// LINK_DOWN: the link between topology nodes a and b fails at 2 s +
    /// time (the simulators' flows start at 2 s) and never comes back.
    struct LinkDown
    {
        int64_t timeNs{0}; ///< the file's time, in us, as ns; 0: no failure
        uint32_t a{0};     ///< node id in the topology file
        uint32_t b{0};     ///< node id in the topology file
    };

    std::optional<LinkDown> linkDown;  ///< LINK_DOWN
    std::optional<int64_t> stopTimeNs; ///< SIMULATOR_STOP_TIME (s in the file)
    /// SIMULATOR_STOP_TIME is beyond the simulator's range: the run goes on until it is done
    bool stopTimeBeyondRange{false};
    std::optional<std::string> topologyFile;  ///< TOPOLOGY_FILE
    std::optional<std::string> flowFile;      ///< FLOW_FILE
    std::optional<std::string> fctOutputFile; ///< FCT_OUTPUT_FILE
    std::optional<std::string> pfcOutputFile; ///< PFC_OUTPUT_FILE
    // SimAI's monitors (its common.h): CSV files sampled from MON_START every
    // interval (us in the file).
    std::optional<std::string> qlenMonFile;   ///< QLEN_MON_FILE
    std::optional<std::string> bwMonFile;     ///< BW_MON_FILE
    std::optional<std::string> rateMonFile;   ///< RATE_MON_FILE
    std::optional<std::string> cnpMonFile;    ///< CNP_MON_FILE
    std::optional<int64_t> monStartNs;        ///< MON_START
    std::optional<int64_t> qlenMonIntervalNs; ///< QLEN_MON_INTERVAL
    std::optional<int64_t> bwMonIntervalNs;   ///< BW_MON_INTERVAL
    std::optional<int64_t> qpMonIntervalNs;   ///< QP_MON_INTERVAL (RATE_ and CNP_MON_FILE)
    // HPCC's queue-length histogram monitor (its third.cc): given either of
    // these, QLEN_MON_FILE is written in HPCC's format, not SimAI's.
    std::optional<int64_t> qlenMonStartNs; ///< QLEN_MON_START (ns in the file)
    std::optional<int64_t> qlenMonEndNs;   ///< QLEN_MON_END (ns in the file)
};

/// A config entry MapHpccConfig did not apply.
struct HpccUnmodelledKey
{
    std::string key;    ///< the key
    uint32_t line;      ///< its line
    std::string reason; ///< why: what the key means and that it is not modelled
};

/// What MapHpccConfig made of a config file.
struct HpccConfigMapping
{
    HpccConfig config;                         ///< the modelled settings
    std::vector<HpccUnmodelledKey> unmodelled; ///< the rest, in file order
};

/**
 * Apply the keys of the table at the top of this header to an HpccConfig.
 * Every other key, and a modelled key with a value the module does not
 * model (CC_MODE other than 1, L2_BACK_TO_ZERO 1,
 * USE_DYNAMIC_PFC_THRESHOLD 0), is returned in HpccConfigMapping::unmodelled;
 * nothing is silently dropped.
 *
 * \param file the entries of a config file
 * \param strict if true, throw when anything is unmodelled
 * \return the settings and the unmodelled keys
 * \throw std::runtime_error "path:line: KEY: message" for a modelled key with
 *        a wrong number of values or a bad value (in both modes), and in
 *        strict mode for the first unmodelled key, the message listing all
 *        of them with their lines
 */
HpccConfigMapping MapHpccConfig(const HpccConfigFile& file, bool strict);

} // namespace ns3

#endif /* HPCC_CONFIG_READER_H */
