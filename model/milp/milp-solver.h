/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef MILP_SOLVER_H
#define MILP_SOLVER_H

#include "milp-model.h"

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

/**
 * \file
 * What a MILP solver adapter offers: solve a MilpModel under a time limit and
 * a gap, and say what it proved. Schedulers depend on this interface only;
 * CbcMilpSolver is one implementation.
 */

namespace ns3
{

/// Outcome of a solve.
enum class MilpStatus
{
    OPTIMAL,     ///< search finished, solution proven optimal (bound equals objective)
    FEASIBLE,    ///< stopped by the time limit or the gap with a solution; see bound and gap
    INFEASIBLE,  ///< proven to have no solution
    UNBOUNDED,   ///< the (linear relaxation of the) objective is unbounded
    NO_SOLUTION, ///< stopped by the time limit before any solution was found
    ERROR,       ///< the solver failed; see MilpResult::message
};

/// "optimal", "feasible", "infeasible", "unbounded", "no-solution" or "error".
const char* ToString(MilpStatus status);

/// Knobs of one solve.
struct MilpSolveOptions
{
    double timeLimitSeconds{0.0}; ///< wall-clock limit, 0 = none
    /// Stop when |objective - bound| <= relativeGap * max(|objective|, |bound|);
    /// 0 asks for a proof of optimality.
    double relativeGap{1e-4};
    uint32_t threads{1}; ///< > 1 only if the solver supports it; results stay repeatable
    /// Optional incumbent hint, one value per variable; empty = none. Used
    /// only if it satisfies the model (MilpModel::IsFeasible).
    std::vector<double> warmStart;
    uint32_t seed{1}; ///< random seed of the solver's heuristics, >= 1
    /// Let the solver simplify the model before its search (CBC: CglPreProcess).
    /// The optimum is the same either way; off is for comparing solve times
    /// and for ruling preprocessing out when diagnosing a solver problem.
    bool preprocess{true};

    /// Throws std::invalid_argument naming the bad field, for a model with
    /// \p numVariables variables.
    void Validate(std::size_t numVariables) const;
};

/// What a solve found and proved.
struct MilpResult
{
    MilpStatus status{MilpStatus::ERROR}; ///< outcome
    /// Objective of #values (model's own sense and constant); NaN without a solution.
    double objective{std::numeric_limits<double>::quiet_NaN()};
    /// Best proven bound on the optimum (a lower bound when minimizing, an
    /// upper bound when maximizing); NaN if none is known.
    double bound{std::numeric_limits<double>::quiet_NaN()};
    /// |objective - bound| / max(|objective|, |bound|) (0 if both are 0); NaN
    /// unless both are known.
    double gap{std::numeric_limits<double>::quiet_NaN()};
    std::vector<double> values; ///< one per variable for OPTIMAL / FEASIBLE, else empty
    double wallSeconds{0.0};    ///< wall time of the whole Solve() call
    uint64_t nodes{0};          ///< branch-and-bound nodes explored
    uint64_t iterations{0};     ///< simplex iterations, root LP and search together
    std::size_t variables{0};   ///< model size: variables
    std::size_t constraints{0}; ///< model size: constraints
    std::size_t nonzeros{0};    ///< model size: constraint terms
    bool warmStartUsed{false};  ///< a warm start was given and was feasible
    std::string message;        ///< detail for ERROR, else empty

    /// True for OPTIMAL and FEASIBLE (values hold a solution).
    bool HasSolution() const;
};

/**
 * |objective - bound| / max(|objective|, |bound|), 0 when both are 0, NaN if
 * either is not finite. The definition MilpResult::gap uses.
 */
double MilpRelativeGap(double objective, double bound);

/// A MILP solver adapter.
class MilpSolver
{
  public:
    virtual ~MilpSolver() = default;

    /// Short name of the solver, for logs and results ("cbc").
    virtual std::string GetName() const = 0;

    /**
     * Solve \p model. Throws std::invalid_argument if the model or the
     * options are invalid (MilpModel::Validate, MilpSolveOptions::Validate);
     * solver failures are reported as MilpStatus::ERROR. The same model and
     * options give the same result unless a time limit stops the search.
     */
    virtual MilpResult Solve(const MilpModel& model, const MilpSolveOptions& options) const = 0;
};

} // namespace ns3

#endif /* MILP_SOLVER_H */
