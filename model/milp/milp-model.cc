/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "milp-model.h"

#include "ns3/unit-strings.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <unordered_set>

namespace ns3
{

namespace
{

[[noreturn]] void
Fail(const std::string& what)
{
    throw std::invalid_argument("MilpModel: " + what);
}

std::string
Quoted(const std::string& name)
{
    return "'" + name + "'";
}

/// Checks the terms of one linear expression; \p where names it in messages.
void
ValidateTerms(const std::vector<MilpModel::Term>& terms,
              const std::vector<MilpModel::Variable>& variables,
              const std::string& where)
{
    for (std::size_t k = 0; k < terms.size(); ++k)
    {
        const MilpModel::Term& t = terms[k];
        if (t.var >= variables.size())
        {
            Fail(where + " term " + std::to_string(k) + ": unknown variable index " +
                 std::to_string(t.var) + " (model has " + std::to_string(variables.size()) +
                 " variables)");
        }
        if (!std::isfinite(t.coef))
        {
            Fail(where + " term " + std::to_string(k) + " (variable " +
                 Quoted(variables[t.var].name) + "): coefficient must be finite, got " +
                 FormatReal(t.coef));
        }
    }
}

/// sum(coef * values[var]); throws on an unknown variable.
double
Activity(const std::vector<MilpModel::Term>& terms,
         const std::vector<double>& values,
         const std::string& where)
{
    double sum = 0.0;
    for (const auto& t : terms)
    {
        if (t.var >= values.size())
        {
            Fail(where + ": unknown variable index " + std::to_string(t.var));
        }
        sum += t.coef * values[t.var];
    }
    return sum;
}

/// A name LP readers accept: letters, digits and a few symbols; no leading
/// digit, period or 'e' (which readers may take for a number or exponent).
std::string
LpName(const std::string& name)
{
    static const char* kAllowed = "_.(){},!#$%&;?@|~";
    std::string out;
    out.reserve(name.size() + 1);
    for (char c : name)
    {
        const bool ok = std::isalnum(static_cast<unsigned char>(c)) || std::strchr(kAllowed, c);
        out.push_back(ok && c != '\0' ? c : '_');
    }
    if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0])) || out[0] == '.' ||
        out[0] == 'e' || out[0] == 'E')
    {
        out.insert(out.begin(), '_');
    }
    return out;
}

/// Unique LP names for \p names: sanitized, with "_<index>" appended on a clash.
std::vector<std::string>
LpNames(const std::vector<std::string>& names)
{
    std::vector<std::string> out;
    out.reserve(names.size());
    std::unordered_set<std::string> used;
    for (std::size_t i = 0; i < names.size(); ++i)
    {
        std::string n = LpName(names[i]);
        if (!used.insert(n).second)
        {
            n += "_" + std::to_string(i);
            used.insert(n);
        }
        out.push_back(std::move(n));
    }
    return out;
}

/// Writes " + 3 x - 2 y" terms, a few per line (LP readers limit line length).
void
WriteTerms(std::ostream& os,
           const std::vector<MilpModel::Term>& terms,
           const std::vector<std::string>& varNames)
{
    std::size_t written = 0;
    for (const auto& t : terms)
    {
        if (written > 0 && written % 8 == 0)
        {
            os << "\n   ";
        }
        const bool first = written == 0;
        if (t.coef < 0)
        {
            os << (first ? "- " : " - ") << FormatReal(-t.coef);
        }
        else
        {
            os << (first ? "" : " + ") << FormatReal(t.coef);
        }
        os << " " << (t.var < varNames.size() ? varNames[t.var] : "?");
        ++written;
    }
}

} // namespace

const char*
ToString(MilpModel::Sense sense)
{
    switch (sense)
    {
    case MilpModel::Sense::LESS_EQUAL:
        return "<=";
    case MilpModel::Sense::GREATER_EQUAL:
        return ">=";
    case MilpModel::Sense::EQUAL:
        return "==";
    }
    return "?";
}

const char*
ToString(MilpModel::VarKind kind)
{
    switch (kind)
    {
    case MilpModel::VarKind::CONTINUOUS:
        return "continuous";
    case MilpModel::VarKind::INTEGER:
        return "integer";
    case MilpModel::VarKind::BINARY:
        return "binary";
    }
    return "?";
}

std::size_t
MilpModel::AddVariable(const std::string& name, double lower, double upper, VarKind kind)
{
    m_variables.push_back(Variable{name, lower, upper, kind});
    return m_variables.size() - 1;
}

std::size_t
MilpModel::AddBinary(const std::string& name)
{
    return AddVariable(name, 0.0, 1.0, VarKind::BINARY);
}

std::size_t
MilpModel::AddConstraint(const std::string& name, std::vector<Term> terms, Sense sense, double rhs)
{
    m_constraints.push_back(Constraint{name, std::move(terms), sense, rhs});
    return m_constraints.size() - 1;
}

void
MilpModel::SetObjective(std::vector<Term> terms, double constant, bool minimize)
{
    m_objective = std::move(terms);
    m_objectiveConstant = constant;
    m_minimize = minimize;
}

void
MilpModel::AddObjectiveTerm(std::size_t var, double coef)
{
    m_objective.push_back(Term{var, coef});
}

std::size_t
MilpModel::GetNumVariables() const
{
    return m_variables.size();
}

std::size_t
MilpModel::GetNumConstraints() const
{
    return m_constraints.size();
}

std::size_t
MilpModel::GetNumNonzeros() const
{
    std::size_t n = 0;
    for (const auto& c : m_constraints)
    {
        n += c.terms.size();
    }
    return n;
}

const MilpModel::Variable&
MilpModel::GetVariable(std::size_t index) const
{
    if (index >= m_variables.size())
    {
        Fail("unknown variable index " + std::to_string(index));
    }
    return m_variables[index];
}

const MilpModel::Constraint&
MilpModel::GetConstraint(std::size_t index) const
{
    if (index >= m_constraints.size())
    {
        Fail("unknown constraint index " + std::to_string(index));
    }
    return m_constraints[index];
}

const std::vector<MilpModel::Variable>&
MilpModel::GetVariables() const
{
    return m_variables;
}

const std::vector<MilpModel::Constraint>&
MilpModel::GetConstraints() const
{
    return m_constraints;
}

const std::vector<MilpModel::Term>&
MilpModel::GetObjectiveTerms() const
{
    return m_objective;
}

double
MilpModel::GetObjectiveConstant() const
{
    return m_objectiveConstant;
}

bool
MilpModel::IsMinimize() const
{
    return m_minimize;
}

bool
MilpModel::HasIntegers() const
{
    for (const auto& v : m_variables)
    {
        if (v.kind != VarKind::CONTINUOUS)
        {
            return true;
        }
    }
    return false;
}

void
MilpModel::Validate() const
{
    std::unordered_map<std::string, std::size_t> seen;
    for (std::size_t i = 0; i < m_variables.size(); ++i)
    {
        const Variable& v = m_variables[i];
        const std::string where =
            "variable " + Quoted(v.name) + " (index " + std::to_string(i) + ")";
        if (v.name.empty())
        {
            Fail(where + ": empty name");
        }
        auto [it, inserted] = seen.emplace(v.name, i);
        if (!inserted)
        {
            Fail(where + ": duplicate name (first used by index " + std::to_string(it->second) +
                 ")");
        }
        if (std::isnan(v.lower) || std::isnan(v.upper))
        {
            Fail(where + ": bound is NaN");
        }
        if (v.lower > v.upper || v.lower == kInfinity || v.upper == -kInfinity)
        {
            Fail(where + ": bad bounds [" + FormatReal(v.lower) + ", " + FormatReal(v.upper) + "]");
        }
        if (v.kind == VarKind::BINARY && (v.lower < 0.0 || v.upper > 1.0))
        {
            Fail(where + ": binary bounds [" + FormatReal(v.lower) + ", " + FormatReal(v.upper) +
                 "] outside [0, 1]");
        }
    }
    seen.clear();
    for (std::size_t i = 0; i < m_constraints.size(); ++i)
    {
        const Constraint& c = m_constraints[i];
        const std::string where =
            "constraint " + Quoted(c.name) + " (index " + std::to_string(i) + ")";
        if (c.name.empty())
        {
            Fail(where + ": empty name");
        }
        auto [it, inserted] = seen.emplace(c.name, i);
        if (!inserted)
        {
            Fail(where + ": duplicate name (first used by index " + std::to_string(it->second) +
                 ")");
        }
        if (!std::isfinite(c.rhs))
        {
            Fail(where + ": right-hand side must be finite, got " + FormatReal(c.rhs));
        }
        ValidateTerms(c.terms, m_variables, where);
    }
    ValidateTerms(m_objective, m_variables, "objective");
    if (!std::isfinite(m_objectiveConstant))
    {
        Fail("objective: constant must be finite, got " + FormatReal(m_objectiveConstant));
    }
}

double
MilpModel::Evaluate(const std::vector<double>& values) const
{
    if (values.size() != m_variables.size())
    {
        Fail("Evaluate: " + std::to_string(values.size()) + " values for " +
             std::to_string(m_variables.size()) + " variables");
    }
    return m_objectiveConstant + Activity(m_objective, values, "objective");
}

bool
MilpModel::IsFeasible(const std::vector<double>& values,
                      double tolerance,
                      std::string* violation) const
{
    if (values.size() != m_variables.size())
    {
        Fail("IsFeasible: " + std::to_string(values.size()) + " values for " +
             std::to_string(m_variables.size()) + " variables");
    }
    if (!(tolerance >= 0.0))
    {
        Fail("IsFeasible: tolerance must be >= 0, got " + FormatReal(tolerance));
    }
    auto report = [violation](const std::string& text) {
        if (violation)
        {
            *violation = text;
        }
        return false;
    };
    for (std::size_t i = 0; i < m_variables.size(); ++i)
    {
        const Variable& v = m_variables[i];
        const double x = values[i];
        const std::string where = "variable " + Quoted(v.name) + " = " + FormatReal(x);
        if (std::isnan(x))
        {
            return report("variable " + Quoted(v.name) + " is NaN");
        }
        if (x < v.lower - tolerance)
        {
            return report(where + " below its lower bound " + FormatReal(v.lower) + " by " +
                          FormatReal(v.lower - x));
        }
        if (x > v.upper + tolerance)
        {
            return report(where + " above its upper bound " + FormatReal(v.upper) + " by " +
                          FormatReal(x - v.upper));
        }
        if (v.kind != VarKind::CONTINUOUS && std::fabs(x - std::round(x)) > tolerance)
        {
            return report(where + " is not integral");
        }
    }
    for (const Constraint& c : m_constraints)
    {
        const std::string where = "constraint " + Quoted(c.name);
        const double lhs = Activity(c.terms, values, where);
        const double slack = tolerance * std::max(1.0, std::fabs(c.rhs));
        double excess = 0.0; // how far lhs is on the wrong side of rhs
        switch (c.sense)
        {
        case Sense::LESS_EQUAL:
            excess = lhs - c.rhs;
            break;
        case Sense::GREATER_EQUAL:
            excess = c.rhs - lhs;
            break;
        case Sense::EQUAL:
            excess = std::fabs(lhs - c.rhs);
            break;
        }
        if (std::isnan(lhs) || excess > slack)
        {
            return report(where + ": " + FormatReal(lhs) + " " + ToString(c.sense) + " " +
                          FormatReal(c.rhs) + " violated by " + FormatReal(excess));
        }
    }
    if (violation)
    {
        violation->clear();
    }
    return true;
}

void
MilpModel::WriteLp(std::ostream& os) const
{
    std::vector<std::string> names;
    names.reserve(m_variables.size());
    for (const auto& v : m_variables)
    {
        names.push_back(v.name);
    }
    const std::vector<std::string> varNames = LpNames(names);
    names.clear();
    for (const auto& c : m_constraints)
    {
        names.push_back(c.name);
    }
    const std::vector<std::string> rowNames = LpNames(names);

    os << "\\ " << m_variables.size() << " variables, " << m_constraints.size() << " constraints\n";
    os << (m_minimize ? "Minimize\n" : "Maximize\n") << " obj: ";
    WriteTerms(os, m_objective, varNames);
    if (m_objectiveConstant != 0.0 || m_objective.empty())
    {
        const double k = m_objectiveConstant;
        if (m_objective.empty())
        {
            os << FormatReal(k);
        }
        else
        {
            os << (k < 0 ? " - " : " + ") << FormatReal(std::fabs(k));
        }
    }
    os << "\nSubject To\n";
    for (std::size_t i = 0; i < m_constraints.size(); ++i)
    {
        const Constraint& c = m_constraints[i];
        os << " " << rowNames[i] << ": ";
        if (c.terms.empty())
        {
            // LP needs a variable on the left; a zero coefficient keeps the row.
            os << "0 " << (varNames.empty() ? "_none" : varNames[0]);
        }
        else
        {
            WriteTerms(os, c.terms, varNames);
        }
        os << " " << (c.sense == Sense::EQUAL ? "=" : ToString(c.sense)) << " " << FormatReal(c.rhs)
           << "\n";
    }
    os << "Bounds\n";
    std::vector<std::size_t> generals;
    std::vector<std::size_t> binaries;
    for (std::size_t i = 0; i < m_variables.size(); ++i)
    {
        const Variable& v = m_variables[i];
        const std::string& n = varNames[i];
        // A declared binary gets [0, 1] from the Binaries section; other
        // binaries (fixed ones) are written as bounded integers.
        const bool plainBinary = v.kind == VarKind::BINARY && v.lower == 0.0 && v.upper == 1.0;
        if (plainBinary)
        {
            binaries.push_back(i);
            continue;
        }
        if (v.kind != VarKind::CONTINUOUS)
        {
            generals.push_back(i);
        }
        if (v.lower == -kInfinity && v.upper == kInfinity)
        {
            os << " " << n << " free\n";
        }
        else if (v.lower == v.upper)
        {
            os << " " << n << " = " << FormatReal(v.lower) << "\n";
        }
        else if (v.upper == kInfinity)
        {
            if (v.lower != 0.0)
            {
                os << " " << n << " >= " << FormatReal(v.lower) << "\n";
            }
        }
        else
        {
            os << " " << (v.lower == -kInfinity ? std::string("-inf") : FormatReal(v.lower))
               << " <= " << n << " <= " << FormatReal(v.upper) << "\n";
        }
    }
    auto writeList = [&os, &varNames](const char* section, const std::vector<std::size_t>& list) {
        if (list.empty())
        {
            return;
        }
        os << section << "\n";
        for (std::size_t k = 0; k < list.size(); ++k)
        {
            os << (k % 8 == 0 ? (k == 0 ? " " : "\n ") : " ") << varNames[list[k]];
        }
        os << "\n";
    };
    writeList("Generals", generals);
    writeList("Binaries", binaries);
    os << "End\n";
}

} // namespace ns3
