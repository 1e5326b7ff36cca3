/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "cbc-milp-solver.h"

#include <CbcModel.hpp>
#include <CbcSolver.hpp>
#include <CoinError.hpp>
#include <CoinFinite.hpp>
#include <CoinPackedMatrix.hpp>
#include <OsiClpSolverInterface.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <numeric>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

namespace
{

/// The step between the objective values of any two solutions when they
/// differ (the greatest common divisor of its coefficients, all integers on
/// integer variables, with an integer constant); 0 if there is none.
int64_t
ObjectiveStep(const MilpModel& model)
{
    if (std::floor(model.GetObjectiveConstant()) != model.GetObjectiveConstant())
    {
        return 0;
    }
    int64_t step = 0;
    for (const MilpModel::Term& t : model.GetObjectiveTerms())
    {
        if (model.GetVariable(t.var).kind == MilpModel::VarKind::CONTINUOUS ||
            std::floor(t.coef) != t.coef || std::fabs(t.coef) > 1e15)
        {
            return 0;
        }
        step = std::gcd(step, static_cast<int64_t>(std::llabs(static_cast<int64_t>(t.coef))));
    }
    return step;
}

/// Below this relative gap a stop "on the gap" has proven optimality.
constexpr double kProvenGap = 1e-9;

double
ToCoin(double bound)
{
    if (bound == MilpModel::kInfinity)
    {
        return COIN_DBL_MAX;
    }
    if (bound == -MilpModel::kInfinity)
    {
        return -COIN_DBL_MAX;
    }
    return bound;
}

std::string
Arg(double value)
{
    std::ostringstream s;
    s.precision(17);
    s << value;
    return s.str();
}

/// CBC's column name for column \p i (model names may not suit CBC).
std::string
ColumnName(std::size_t i)
{
    return "c" + std::to_string(i);
}

/// The model as CBC's LP solver: objective always minimized (negated when
/// the model maximizes), repeated variables in a row merged.
void
Load(const MilpModel& model, double sign, OsiClpSolverInterface& solver)
{
    const std::size_t n = model.GetNumVariables();
    const std::size_t m = model.GetNumConstraints();
    std::vector<double> colLower(n);
    std::vector<double> colUpper(n);
    std::vector<double> objective(n, 0.0);
    for (std::size_t i = 0; i < n; ++i)
    {
        const MilpModel::Variable& v = model.GetVariable(i);
        colLower[i] = ToCoin(v.lower);
        colUpper[i] = ToCoin(v.upper);
    }
    for (const auto& t : model.GetObjectiveTerms())
    {
        objective[t.var] += sign * t.coef;
    }

    std::vector<CoinBigIndex> starts;
    std::vector<int> lengths;
    std::vector<int> indices;
    std::vector<double> elements;
    std::vector<double> rowLower(m);
    std::vector<double> rowUpper(m);
    std::vector<double> dense(n, 0.0);
    std::vector<char> touched(n, 0);
    std::vector<int> order;
    starts.reserve(m);
    lengths.reserve(m);
    indices.reserve(model.GetNumNonzeros());
    elements.reserve(model.GetNumNonzeros());
    for (std::size_t r = 0; r < m; ++r)
    {
        const MilpModel::Constraint& c = model.GetConstraint(r);
        for (const auto& t : c.terms)
        {
            if (!touched[t.var])
            {
                touched[t.var] = 1;
                order.push_back(static_cast<int>(t.var));
            }
            dense[t.var] += t.coef;
        }
        starts.push_back(static_cast<CoinBigIndex>(indices.size()));
        for (int j : order)
        {
            if (dense[j] != 0.0)
            {
                indices.push_back(j);
                elements.push_back(dense[j]);
            }
            dense[j] = 0.0;
            touched[j] = 0;
        }
        order.clear();
        lengths.push_back(static_cast<int>(indices.size() - starts.back()));
        switch (c.sense)
        {
        case MilpModel::Sense::LESS_EQUAL:
            rowLower[r] = -COIN_DBL_MAX;
            rowUpper[r] = c.rhs;
            break;
        case MilpModel::Sense::GREATER_EQUAL:
            rowLower[r] = c.rhs;
            rowUpper[r] = COIN_DBL_MAX;
            break;
        case MilpModel::Sense::EQUAL:
            rowLower[r] = c.rhs;
            rowUpper[r] = c.rhs;
            break;
        }
    }
    const CoinPackedMatrix matrix(false,
                                  static_cast<int>(n),
                                  static_cast<int>(m),
                                  static_cast<CoinBigIndex>(elements.size()),
                                  elements.data(),
                                  indices.data(),
                                  starts.data(),
                                  lengths.data());
    solver.loadProblem(matrix,
                       colLower.data(),
                       colUpper.data(),
                       objective.data(),
                       rowLower.data(),
                       rowUpper.data());
    for (std::size_t i = 0; i < n; ++i)
    {
        if (model.GetVariable(i).kind != MilpModel::VarKind::CONTINUOUS)
        {
            solver.setInteger(static_cast<int>(i));
        }
    }
}

/// Slack on CBC's clock when telling whether the time limit had passed.
constexpr double kClockSlackSeconds = 1e-3;

/// What CbcMain1's callback learns during one solve (the model's
/// application data).
struct DriverState
{
    /// The time limit had passed when preprocessing ended, so it may have
    /// skipped passes.
    bool preprocessingCut{false};
    /// Branch and bound ran.
    bool searched{false};
};

/**
 * CbcMain1's callback. CBC 2.10's preprocessing (CglPreProcess 0.60) stops
 * its passes when the time limit passes but keeps counting the passes it
 * skipped, so postProcess, which maps the search's solutions back to the
 * model, dereferences their missing models and crashes (seen with a warm
 * start, which always leaves a solution to map back). Whether passes were
 * skipped is only known inside CGL; they can have been only if the limit had
 * passed when preprocessing returned (whereFrom 2). The search then starts
 * with no time left, so its solutions are dropped after it (whereFrom 4):
 * CBC then skips postProcess and falls back on the solution it had before
 * preprocessing, the warm start if there was one.
 */
int
DriverCallback(CbcModel* model, int whereFrom)
{
    auto* state = static_cast<DriverState*>(model->getApplicationData());
    if (whereFrom == 2)
    {
        state->preprocessingCut =
            model->getCurrentSeconds() >= model->getMaximumSeconds() - kClockSlackSeconds;
    }
    else if (whereFrom == 3)
    {
        state->searched = true;
    }
    else if (whereFrom == 4 && state->preprocessingCut)
    {
        model->deleteSolutions();
        model->setMinimizationObjValue(COIN_DBL_MAX);
    }
    return 0;
}

/// Runs CBC's driver on \p model and fills \p result.
void
RunCbc(const MilpModel& model, const MilpSolveOptions& options, bool warm, MilpResult& result)
{
    const std::size_t n = model.GetNumVariables();
    const double sign = model.IsMinimize() ? 1.0 : -1.0;

    OsiClpSolverInterface solver;
    Load(model, sign, solver);
    solver.messageHandler()->setLogLevel(0);
    if (warm)
    {
        // CBC matches a MIP start to columns by name.
        solver.setIntParam(OsiNameDiscipline, 1);
        for (std::size_t i = 0; i < n; ++i)
        {
            solver.setColName(static_cast<int>(i), ColumnName(i));
        }
    }

    CbcModel cbc(solver);
    cbc.messageHandler()->setLogLevel(0);
    CbcSolverUsefulData data;
    data.noPrinting_ = true;
    data.useSignalHandler_ = false;
    CbcMain0(cbc, data);
    if (warm)
    {
        std::vector<std::pair<std::string, double>> start;
        start.reserve(n);
        for (std::size_t i = 0; i < n; ++i)
        {
            start.emplace_back(ColumnName(i), options.warmStart[i]);
        }
        cbc.setMIPStart(start);
    }

    std::vector<std::string> args{"cbc",
                                  "-log",
                                  "0",
                                  "-slog",
                                  "0",
                                  "-timeMode",
                                  "elapsed",
                                  "-ratioGap",
                                  Arg(options.relativeGap),
                                  "-randomCbcSeed",
                                  std::to_string(options.seed),
                                  "-randomSeed",
                                  std::to_string(options.seed)};
    if (options.timeLimitSeconds > 0.0)
    {
        args.insert(args.end(), {"-seconds", Arg(options.timeLimitSeconds)});
    }
    if (options.threads > 1)
    {
        // 100 + n: n threads with a repeatable search.
        args.insert(args.end(), {"-threads", std::to_string(100 + options.threads)});
    }
    if (!options.preprocess)
    {
        args.insert(args.end(), {"-preprocess", "off"});
    }
    args.insert(args.end(), {"-solve", "-quit"});
    std::vector<const char*> argv;
    for (const auto& a : args)
    {
        argv.push_back(a.c_str());
    }
    DriverState state;
    cbc.setApplicationData(&state);
    CbcMain1(static_cast<int>(argv.size()), argv.data(), cbc, DriverCallback, data);

    result.nodes = static_cast<uint64_t>(std::max(0, cbc.getNodeCount()));
    result.iterations = static_cast<uint64_t>(std::max(0, cbc.getIterationCount()));
    const int status = cbc.status();
    const int secondary = cbc.secondaryStatus();
    const double rawBound = cbc.getBestPossibleObjValue();
    // CBC uses huge values (1e50, COIN_DBL_MAX) for "no bound"; its bound
    // is a search's, and preprocessing that ran out of time may end the
    // solve without one.
    const bool hasBound = std::isfinite(rawBound) && std::fabs(rawBound) < 1e40 &&
                          (!state.preprocessingCut || state.searched);
    if (hasBound)
    {
        result.bound = sign * rawBound + model.GetObjectiveConstant();
    }

    const double* best = cbc.bestSolution();
    if (best)
    {
        result.values.assign(best, best + n);
        for (std::size_t i = 0; i < n; ++i)
        {
            if (model.GetVariable(i).kind != MilpModel::VarKind::CONTINUOUS)
            {
                result.values[i] = std::round(result.values[i]);
            }
        }
        result.objective = model.Evaluate(result.values);
        // A bound that meets the incumbent proves it optimal, whatever made
        // CBC stop (it may stop at the root when a heuristic or the warm
        // start closed the gap), unless the time limit cut the search short:
        // CBC's statuses and bound are then not to be trusted.
        const bool timedOut =
            cbc.isSecondsLimitReached() || secondary == 4 || state.preprocessingCut;
        bool meetsBound = !timedOut && std::isfinite(result.bound) &&
                          MilpRelativeGap(result.objective, result.bound) <= kProvenGap;
        if (const int64_t step = ObjectiveStep(model); std::isfinite(result.bound) && step > 0)
        {
            // Every solution's objective is the constant plus a multiple of
            // the coefficients' greatest common divisor: a bound less than one
            // step below the incumbent (CBC stops on its objective increment)
            // proves it.
            const double c = model.GetObjectiveConstant();
            const double g = static_cast<double>(step);
            const double rounded = model.IsMinimize()
                                       ? c + g * std::ceil((result.bound - c - 1e-6) / g)
                                       : c + g * std::floor((result.bound - c + 1e-6) / g);
            meetsBound = meetsBound || (!timedOut && rounded == result.objective);
            result.bound = rounded;
        }
        if (std::isfinite(result.bound))
        {
            // A bound past the objective is rounding noise.
            result.bound = model.IsMinimize() ? std::min(result.bound, result.objective)
                                              : std::max(result.bound, result.objective);
        }
        result.gap = MilpRelativeGap(result.objective, result.bound);
        const bool finished = status == 0 && secondary == 0;
        const bool closedGap = (secondary == 2 && result.gap <= kProvenGap) || meetsBound;
        result.status = finished || closedGap ? MilpStatus::OPTIMAL : MilpStatus::FEASIBLE;
        return;
    }
    if (state.preprocessingCut)
    {
        // Preprocessing that runs out of time may say "infeasible".
        result.status = MilpStatus::NO_SOLUTION;
    }
    else if (cbc.isProvenInfeasible() || secondary == 1)
    {
        result.status = MilpStatus::INFEASIBLE;
    }
    else if (cbc.isContinuousUnbounded() || secondary == 7)
    {
        result.status = MilpStatus::UNBOUNDED;
    }
    else if (status == 1)
    {
        result.status = MilpStatus::NO_SOLUTION;
    }
    else
    {
        result.status = MilpStatus::ERROR;
        result.message = "CBC stopped with status " + std::to_string(status) + "/" +
                         std::to_string(secondary) + " and no solution";
    }
    result.bound = std::numeric_limits<double>::quiet_NaN();
    if (result.status == MilpStatus::NO_SOLUTION && hasBound)
    {
        result.bound = sign * rawBound + model.GetObjectiveConstant();
    }
}

/// A model without variables: its constraints are constants.
void
SolveEmpty(const MilpModel& model, MilpResult& result)
{
    if (model.IsFeasible({}))
    {
        result.status = MilpStatus::OPTIMAL;
        result.objective = model.GetObjectiveConstant();
        result.bound = result.objective;
        result.gap = 0.0;
    }
    else
    {
        result.status = MilpStatus::INFEASIBLE;
    }
}

/// Falls back on a feasible warm start that CBC did not improve on.
void
KeepWarmStart(const MilpModel& model, const std::vector<double>& warmStart, MilpResult& result)
{
    // A feasible warm start disproves an INFEASIBLE claim: CBC says so when a
    // time limit stops its preprocessing, so the search simply ended early.
    const bool replaceable = result.status == MilpStatus::NO_SOLUTION ||
                             result.status == MilpStatus::ERROR ||
                             result.status == MilpStatus::INFEASIBLE || result.HasSolution();
    if (!replaceable)
    {
        return;
    }
    const double warmObjective = model.Evaluate(warmStart);
    if (result.HasSolution())
    {
        const bool better = model.IsMinimize() ? warmObjective < result.objective
                                               : warmObjective > result.objective;
        if (!better)
        {
            return;
        }
    }
    result.status = MilpStatus::FEASIBLE;
    result.values = warmStart;
    result.objective = warmObjective;
    result.gap = MilpRelativeGap(result.objective, result.bound);
}

} // namespace

std::string
CbcMilpSolver::GetName() const
{
    return "cbc";
}

MilpResult
CbcMilpSolver::Solve(const MilpModel& model, const MilpSolveOptions& options) const
{
    const auto started = std::chrono::steady_clock::now();
    model.Validate();
    options.Validate(model.GetNumVariables());

    MilpResult result;
    result.variables = model.GetNumVariables();
    result.constraints = model.GetNumConstraints();
    result.nonzeros = model.GetNumNonzeros();
    const bool warm = !options.warmStart.empty() && model.IsFeasible(options.warmStart);
    result.warmStartUsed = warm;

    if (model.GetNumVariables() == 0)
    {
        SolveEmpty(model, result);
    }
    else
    {
        try
        {
            RunCbc(model, options, warm, result);
        }
        catch (const CoinError& e)
        {
            result.status = MilpStatus::ERROR;
            result.message = "CBC: " + e.className() + "::" + e.methodName() + ": " + e.message();
        }
        catch (const std::exception& e)
        {
            result.status = MilpStatus::ERROR;
            result.message = std::string("CBC: ") + e.what();
        }
        if (result.status == MilpStatus::ERROR)
        {
            result.values.clear();
            result.objective = std::numeric_limits<double>::quiet_NaN();
            result.gap = std::numeric_limits<double>::quiet_NaN();
        }
    }
    if (warm)
    {
        KeepWarmStart(model, options.warmStart, result);
    }
    result.wallSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return result;
}

} // namespace ns3
