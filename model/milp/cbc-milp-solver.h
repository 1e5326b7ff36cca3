/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef CBC_MILP_SOLVER_H
#define CBC_MILP_SOLVER_H

#include "milp-solver.h"

/**
 * \file
 * MilpSolver adapter for COIN-OR CBC (Debian coinor-libcbc-dev, 2.10).
 *
 * The model goes to CBC through OsiClpSolverInterface and is solved by CBC's
 * own driver (CbcMain0 / CbcMain1), which adds the preprocessing, cuts and
 * heuristics of the cbc program to plain branch and bound. Output is silent.
 *
 * Options: the time limit is wall-clock time ("timeMode elapsed"); the gap is
 * CBC's "ratioGap"; threads > 1 use CBC's deterministic parallel mode
 * (100 + n), so results stay repeatable; the seed sets both CBC's and CLP's
 * random seeds. A warm start that passes MilpModel::IsFeasible is handed to
 * CBC as a MIP start and is never lost: if CBC returns nothing better, the
 * warm start is the result. Preprocessing (CglPreProcess) is on unless
 * MilpSolveOptions::preprocess is false. CGL 0.60 crashes when the time limit
 * passes between its preprocessing passes and a solution must be mapped back;
 * a solve whose limit passed during preprocessing therefore drops the
 * search's solutions (the search had no time left) and ends with the warm
 * start as FEASIBLE, or NO_SOLUTION, never a false INFEASIBLE.
 *
 * Status: OPTIMAL only when CBC finished the search, or stopped on the gap
 * with its bound equal to the objective; a stop on the gap with a positive
 * gap is FEASIBLE. A model whose linear relaxation is unbounded is reported
 * UNBOUNDED (CBC does not branch then). Integer variables are rounded to
 * exact integers in the returned values.
 *
 * CBC's driver keeps some process-wide state: do not call Solve() from
 * several threads at once.
 */

namespace ns3
{

/// MilpSolver backed by COIN-OR CBC.
class CbcMilpSolver : public MilpSolver
{
  public:
    std::string GetName() const override;
    MilpResult Solve(const MilpModel& model, const MilpSolveOptions& options) const override;
};

} // namespace ns3

#endif /* CBC_MILP_SOLVER_H */
