/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef MLTCP_DCQCN_H
#define MLTCP_DCQCN_H

#include "dcqcn.h"

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * \brief DCQCN made iteration-aware as MLTCP (Rajasekaran et al., HotNets
 * 2024; NSDI 2025) does for DCQCN: every increase step is scaled by the
 * aggressiveness F = Slope x progress + Intercept and every decrease by 1/F,
 * where progress is the fraction of its iteration's bytes the job has
 * already sent.
 *
 * A job that is further into its communication phase takes bandwidth
 * faster and gives it back more slowly than one that has just started, so
 * competing jobs drift apart iteration by iteration until their
 * communication phases interleave.
 *
 * Scaled (Dcqcn::GetStepScale): the current rate's move towards the target
 * (F x (Rt - Rc) / 2 instead of (Rt - Rc) / 2, at every fast-recovery,
 * additive and hyper step), the additive and hyper steps of the target
 * (F x AdditiveIncreaseRate, on top of the scheduler's rate weight, and
 * F x HyperIncreaseRate), and the decrease (Rc cut by alpha 2^(10-Gd) / F of
 * itself, at most all of it, before MinDecreaseFactor and MinRate). All of
 * them matter: with the ConnectX defaults (32 KB byte counter, target rate
 * left at line rate by a cut) a collective recovers from a cut by the
 * Rc-towards-Rt moves alone and never sees a timer-driven additive step, so
 * scaling the additive step alone changes nothing.
 *
 * Progress is per job per NIC, not per queue pair: an iteration's
 * collective is many messages (ring steps, one queue pair each), and what
 * MLTCP scales by is how far the job is through the whole iteration's
 * communication, which no single message knows. The NIC counts, for each
 * job, the payload bytes first sent in the current iteration and in the one
 * before, and passes current/previous (capped at 1) before every packet; the
 * volume of an iteration is thus learned from the previous one, as an MLTCP
 * host learns it from the bytes it sent in the last iteration (training
 * iterations repeat the same volume). The first iteration has no estimate
 * and runs at F's mean over an iteration, Intercept + Slope / 2 (1 with the
 * defaults, i.e. DCQCN itself): a job whose position is unknown is neither
 * favoured nor handicapped. Running it at progress 0 (F = Intercept) made
 * both jobs' first collective half as aggressive, which measurably undid
 * head starts that DCQCN alone widens into interleaving (doc/design-notes.md).
 *
 * Timers run lazily (see Dcqcn): the steps that fell due since the
 * previous call use the progress set before the call, which is newer by at
 * most the bytes the job sent since this queue pair's previous packet.
 *
 * The defaults (Slope 1, Intercept 0.5) keep F in [0.5, 1.5], averaging 1
 * over an iteration whose bytes go out at a steady pace, and a job about to
 * finish its iteration recovers three times as fast as one that just
 * started. F's linear form is the paper's; its constants are attributes so
 * that other settings (a steeper slope converges in fewer iterations but
 * starves a starting job more) can be explored.
 */
class MltcpDcqcn : public Dcqcn
{
  public:
    /// Default slope of F (shared with MltcpScheduler).
    static constexpr double kDefaultSlope = 1.0;
    /// Default intercept of F (shared with MltcpScheduler).
    static constexpr double kDefaultIntercept = 0.5;

    static TypeId GetTypeId();

    MltcpDcqcn();
    /// Copies the configuration only (progress starts unknown); the copy needs Init().
    MltcpDcqcn(const MltcpDcqcn& other);
    ~MltcpDcqcn() override;

    std::string GetName() const override;
    Ptr<RdmaCongestionOps> Fork() const override;
    /// \throw std::runtime_error if F would not be positive for every progress in [0,1]
    void Init(DataRate lineRate, Time now) override;
    /// \param fraction the job's progress through its iteration, in [0,1], or kUnknownProgress
    void SetProgress(double fraction) override;
    bool UsesProgress() const override;

    /// \return the progress last set (kUnknownProgress before any)
    double GetProgress() const
    {
        return m_progress;
    }

    /**
     * \return F = Slope x progress + Intercept at the progress last set;
     * with the progress unknown, F's mean over an iteration,
     * Intercept + Slope / 2 (1 with the defaults: DCQCN itself)
     */
    double GetAggressiveness() const
    {
        return Aggressiveness(m_slope, m_intercept, m_progress);
    }

    /**
     * \return F = \p slope x \p progress + \p intercept; with the progress
     * unknown (kUnknownProgress), F's mean over an iteration, intercept + slope / 2
     */
    static double Aggressiveness(double slope, double intercept, double progress)
    {
        if (progress == kUnknownProgress)
        {
            return intercept + slope / 2;
        }
        return slope * progress + intercept;
    }

    /**
     * Check that F = \p slope x progress + \p intercept is positive for every
     * progress in [0,1].
     * \throw std::runtime_error naming \p where otherwise
     */
    static void CheckAggressiveness(double slope, double intercept, const std::string& where);

  protected:
    /// \return Dcqcn's additive step (rate weight included) times F
    DataRate GetAdditiveIncrease() const override;
    /// \return F at the progress last set
    double GetStepScale() const override;

  private:
    double m_slope;
    double m_intercept;
    double m_progress{kUnknownProgress};
};

} // namespace ns3

#endif /* MLTCP_DCQCN_H */
