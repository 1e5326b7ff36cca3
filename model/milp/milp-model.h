/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef MILP_MODEL_H
#define MILP_MODEL_H

#include <cstddef>
#include <iosfwd>
#include <limits>
#include <string>
#include <vector>

/**
 * \file
 * A mixed-integer linear program as plain data: variables with bounds and a
 * kind, linear constraints, a linear objective with a constant. It knows no
 * solver; a MilpSolver adapter turns it into a solver's own problem. It can
 * evaluate and check a candidate solution itself, so a plan can be verified
 * independently of whichever solver produced it.
 *
 * Adding items is unchecked and cheap; Validate() checks the whole model
 * (solvers call it before solving).
 */

namespace ns3
{

/// A mixed-integer linear program, independent of any solver.
class MilpModel
{
  public:
    /// Bound meaning "no bound" (use -kInfinity for no lower bound).
    static constexpr double kInfinity = std::numeric_limits<double>::infinity();

    /// Domain of a variable.
    enum class VarKind
    {
        CONTINUOUS, ///< real
        INTEGER,    ///< integer within its bounds
        BINARY,     ///< integer within its bounds, which must lie in [0, 1]
    };

    /// Relation between a constraint's left-hand side and its right-hand side.
    enum class Sense
    {
        LESS_EQUAL,    ///< sum <= rhs
        GREATER_EQUAL, ///< sum >= rhs
        EQUAL,         ///< sum == rhs
    };

    /// One term coef * x[var] of a linear expression.
    struct Term
    {
        std::size_t var; ///< variable index, as returned by AddVariable
        double coef;     ///< coefficient
    };

    /// A decision variable.
    struct Variable
    {
        std::string name; ///< unique among variables, non-empty
        double lower;     ///< lower bound, may be -kInfinity
        double upper;     ///< upper bound, may be kInfinity
        VarKind kind;     ///< domain
    };

    /// A linear constraint sum(terms) <sense> rhs. A variable may appear in
    /// several terms; their coefficients add up.
    struct Constraint
    {
        std::string name;        ///< unique among constraints, non-empty
        std::vector<Term> terms; ///< left-hand side
        Sense sense;             ///< relation
        double rhs;              ///< right-hand side, finite
    };

    /**
     * Add a variable.
     * \param name unique, non-empty name
     * \param lower lower bound (-kInfinity for none)
     * \param upper upper bound (kInfinity for none)
     * \param kind domain
     * \return its index (0, 1, 2, ... in order of addition)
     */
    std::size_t AddVariable(const std::string& name,
                            double lower,
                            double upper,
                            VarKind kind = VarKind::CONTINUOUS);

    /// Add a binary variable with bounds [0, 1]; returns its index.
    std::size_t AddBinary(const std::string& name);

    /**
     * Add a constraint sum(terms) <sense> rhs.
     * \return its index (0, 1, 2, ... in order of addition)
     */
    std::size_t AddConstraint(const std::string& name,
                              std::vector<Term> terms,
                              Sense sense,
                              double rhs);

    /// Replace the objective: sum(terms) + constant, minimized or maximized.
    void SetObjective(std::vector<Term> terms, double constant = 0.0, bool minimize = true);

    /// Append one term to the objective (builders that accumulate it).
    void AddObjectiveTerm(std::size_t var, double coef);

    std::size_t GetNumVariables() const;
    std::size_t GetNumConstraints() const;
    /// Number of constraint terms, as stored (repeated variables counted each time).
    std::size_t GetNumNonzeros() const;
    const Variable& GetVariable(std::size_t index) const;
    const Constraint& GetConstraint(std::size_t index) const;
    const std::vector<Variable>& GetVariables() const;
    const std::vector<Constraint>& GetConstraints() const;
    const std::vector<Term>& GetObjectiveTerms() const;
    double GetObjectiveConstant() const;
    bool IsMinimize() const;
    /// True if at least one variable is INTEGER or BINARY.
    bool HasIntegers() const;

    /**
     * Check the whole model. Throws std::invalid_argument naming the first bad
     * item: empty or duplicate names, NaN or crossed bounds (lower > upper,
     * lower = +inf, upper = -inf), binary bounds outside [0, 1], NaN or
     * infinite coefficients, non-finite right-hand side or objective
     * constant, a term naming an unknown variable.
     */
    void Validate() const;

    /**
     * Objective value of \p values (one per variable, by index).
     * Throws std::invalid_argument if the size does not match or a term names
     * an unknown variable.
     */
    double Evaluate(const std::vector<double>& values) const;

    /**
     * Whether \p values (one per variable) satisfy every bound, integrality
     * and constraint within \p tolerance. A bound or integrality violation
     * is more than \p tolerance; a constraint violation is more than
     * tolerance * max(1, |rhs|).
     * \param violation if not null, receives a description of the first
     *        violation found (the variable or constraint name and by how
     *        much), or is cleared when feasible
     * Throws std::invalid_argument if the size does not match the variables.
     */
    bool IsFeasible(const std::vector<double>& values,
                    double tolerance = 1e-6,
                    std::string* violation = nullptr) const;

    /**
     * Write the model in CPLEX LP format, for reading by eye or by another
     * solver. Names are written with characters LP does not allow replaced
     * by '_'.
     */
    void WriteLp(std::ostream& os) const;

  private:
    std::vector<Variable> m_variables;     ///< by index
    std::vector<Constraint> m_constraints; ///< by index
    std::vector<Term> m_objective;         ///< objective terms
    double m_objectiveConstant{0.0};       ///< objective offset
    bool m_minimize{true};                 ///< direction
};

/// "<=", ">=" or "==".
const char* ToString(MilpModel::Sense sense);
/// "continuous", "integer" or "binary".
const char* ToString(MilpModel::VarKind kind);

} // namespace ns3

#endif /* MILP_MODEL_H */
