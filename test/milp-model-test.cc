/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The MILP model builder on its own: Validate names the bad item, IsFeasible
 * reports the violation, solver options are checked, and the LP text it
 * writes is exactly the expected one and reads back through CBC's LP reader.
 */
#include "ns3/cbc-milp-solver.h"
#include "ns3/milp-model.h"
#include "ns3/milp-solver.h"

#include <CoinLpIO.hpp>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
#include <stdexcept>
#include <string>
#include <unistd.h>
#include <vector>

using namespace ns3;

namespace
{

using Kind = MilpModel::VarKind;
using Sense = MilpModel::Sense;
constexpr double kInf = MilpModel::kInfinity;

/// Runs \p fn and returns the message of the std::invalid_argument it throws
/// ("" if it throws nothing).
template <typename F>
std::string
InvalidArgumentMessage(F fn)
{
    try
    {
        fn();
    }
    catch (const std::invalid_argument& e)
    {
        return e.what();
    }
    return "";
}

TEST(MilpModel, ValidateNamesTheBadItem)
{
    auto base = []() {
        MilpModel m;
        m.AddVariable("x", 0.0, 1.0);
        m.AddVariable("y", 0.0, 1.0, Kind::INTEGER);
        m.AddConstraint("c", {{0, 1.0}, {1, 1.0}}, Sense::LESS_EQUAL, 1.0);
        m.SetObjective({{0, 1.0}});
        return m;
    };
    EXPECT_EQ(InvalidArgumentMessage([&] { base().Validate(); }), "");

    struct Case
    {
        const char* what;
        void (*mutate)(MilpModel&);
        const char* expected; ///< substring of the message
    };

    const std::vector<Case> cases{
        {"duplicate variable",
         [](MilpModel& m) { m.AddVariable("x", 0, 1); },
         "variable 'x' (index 2): duplicate name"},
        {"empty variable name", [](MilpModel& m) { m.AddVariable("", 0, 1); }, "empty name"},
        {"crossed bounds", [](MilpModel& m) { m.AddVariable("z", 2, 1); }, "variable 'z'"},
        {"NaN bound", [](MilpModel& m) { m.AddVariable("z", std::nan(""), 1); }, "'z'"},
        {"lower bound +inf", [](MilpModel& m) { m.AddVariable("z", kInf, kInf); }, "'z'"},
        {"binary bounds",
         [](MilpModel& m) { m.AddVariable("b", 0, 2, Kind::BINARY); },
         "variable 'b' (index 2): binary bounds"},
        {"duplicate constraint",
         [](MilpModel& m) { m.AddConstraint("c", {}, Sense::EQUAL, 0); },
         "constraint 'c' (index 1): duplicate name"},
        {"NaN coefficient",
         [](MilpModel& m) {
             m.AddConstraint("d", {{1, std::nan("")}}, Sense::EQUAL, 0);
         },
         "constraint 'd' (index 1) term 0 (variable 'y'): coefficient"},
        {"unknown variable",
         [](MilpModel& m) {
             m.AddConstraint("d", {{0, 1.0}, {9, 1.0}}, Sense::EQUAL, 0);
         },
         "constraint 'd' (index 1) term 1: unknown variable index 9"},
        {"infinite rhs",
         [](MilpModel& m) {
             m.AddConstraint("d", {{0, 1.0}}, Sense::LESS_EQUAL, kInf);
         },
         "constraint 'd'"},
        {"NaN objective", [](MilpModel& m) { m.AddObjectiveTerm(1, std::nan("")); }, "objective"},
        {"unknown objective variable",
         [](MilpModel& m) { m.AddObjectiveTerm(5, 1.0); },
         "objective term 1: unknown variable index 5"},
        {"NaN objective constant",
         [](MilpModel& m) { m.SetObjective({}, std::nan("")); },
         "objective: constant"},
    };
    for (const auto& c : cases)
    {
        MilpModel m = base();
        c.mutate(m);
        const std::string msg = InvalidArgumentMessage([&] { m.Validate(); });
        EXPECT_NE(msg.find(c.expected), std::string::npos)
            << c.what << ": got \"" << msg << "\", expected to contain \"" << c.expected << "\"";
        // Solving an invalid model is refused the same way.
        EXPECT_THROW(CbcMilpSolver().Solve(m, MilpSolveOptions{}), std::invalid_argument) << c.what;
    }
}

TEST(MilpModel, IsFeasibleReportsTheViolation)
{
    MilpModel m;
    const auto x = m.AddVariable("x", 0.0, 4.0, Kind::INTEGER);
    const auto y = m.AddVariable("y", -1.0, 1.0);
    const auto b = m.AddBinary("b");
    m.AddConstraint("cap", {{x, 1.0}, {y, 2.0}}, Sense::LESS_EQUAL, 5.0);
    m.AddConstraint("need", {{x, 1.0}, {b, 1.0}}, Sense::GREATER_EQUAL, 2.0);
    m.AddConstraint("fix", {{y, 1.0}, {b, -1.0}}, Sense::EQUAL, 0.0);
    m.SetObjective({{x, 2.0}, {y, -1.0}, {b, 10.0}}, 3.0);

    std::string why = "stale";
    EXPECT_TRUE(m.IsFeasible({2.0, 1.0, 1.0}, 1e-9, &why));
    EXPECT_EQ(why, "");
    EXPECT_DOUBLE_EQ(m.Evaluate({2.0, 1.0, 1.0}), 3.0 + 4.0 - 1.0 + 10.0);

    struct Case
    {
        std::vector<double> values;
        const char* expected;
    };

    const std::vector<Case> cases{
        {{5.0, 0.0, 0.0}, "variable 'x' = 5 above its upper bound 4"},
        {{2.0, -2.0, 0.0}, "variable 'y' = -2 below its lower bound -1"},
        {{2.5, 0.0, 0.0}, "variable 'x' = 2.5 is not integral"},
        {{2.0, 0.5, 0.5}, "variable 'b' = 0.5 is not integral"},
        {{4.0, 1.0, 1.0}, "constraint 'cap'"},
        {{1.0, 0.0, 0.0}, "constraint 'need'"},
        {{2.0, 0.0, 1.0}, "constraint 'fix'"},
        {{std::nan(""), 0.0, 0.0}, "variable 'x' is NaN"},
    };
    for (const auto& c : cases)
    {
        EXPECT_FALSE(m.IsFeasible(c.values, 1e-9, &why)) << c.expected;
        EXPECT_NE(why.find(c.expected), std::string::npos)
            << "got \"" << why << "\", expected to contain \"" << c.expected << "\"";
    }
    // Within tolerance is feasible; size mismatches are errors.
    EXPECT_TRUE(m.IsFeasible({2.0 + 1e-8, 1.0, 1.0 - 1e-8}, 1e-6));
    EXPECT_THROW(m.IsFeasible({1.0, 0.0}), std::invalid_argument);
    EXPECT_THROW(m.Evaluate({1.0}), std::invalid_argument);
}

TEST(MilpSolver, OptionsAreValidated)
{
    MilpModel m;
    const auto x = m.AddBinary("x");
    m.SetObjective({{x, 1.0}});
    CbcMilpSolver solver;
    auto bad = [&](void (*mutate)(MilpSolveOptions&), const char* field) {
        MilpSolveOptions opt;
        mutate(opt);
        const std::string msg = InvalidArgumentMessage([&] { solver.Solve(m, opt); });
        EXPECT_NE(msg.find(field), std::string::npos) << "got \"" << msg << "\"";
    };
    bad([](MilpSolveOptions& o) { o.timeLimitSeconds = -1; }, "timeLimitSeconds");
    bad([](MilpSolveOptions& o) { o.relativeGap = std::nan(""); }, "relativeGap");
    bad([](MilpSolveOptions& o) { o.threads = 0; }, "threads");
    bad([](MilpSolveOptions& o) { o.seed = 0; }, "seed");
    bad([](MilpSolveOptions& o) { o.warmStart = {0.0, 1.0}; }, "warmStart");
}

TEST(MilpModel, WritesLpThatCbcReadsBack)
{
    MilpModel m;
    const auto x = m.AddVariable("x", 0.0, 4.0, Kind::INTEGER);
    const auto y = m.AddVariable("flow rate", -kInf, kInf); // free; name needs fixing
    const auto b = m.AddBinary("b");
    const auto z = m.AddVariable("z", 1.0, kInf);
    m.AddConstraint("cap", {{x, 1.0}, {y, -2.5}}, Sense::LESS_EQUAL, 5.0);
    m.AddConstraint("need", {{x, 1.0}, {b, 1.0}, {z, 1.0}}, Sense::GREATER_EQUAL, 2.0);
    m.AddConstraint("fix", {{y, 1.0}, {b, -1.0}}, Sense::EQUAL, 0.0);
    m.SetObjective({{x, 2.0}, {y, -1.0}, {b, 10.0}, {z, 1.0}}, 3.0, false);

    std::ostringstream lp;
    m.WriteLp(lp);
    const std::string expected = "\\ 4 variables, 3 constraints\n"
                                 "Maximize\n"
                                 " obj: 2 x - 1 flow_rate + 10 b + 1 z + 3\n"
                                 "Subject To\n"
                                 " cap: 1 x - 2.5 flow_rate <= 5\n"
                                 " need: 1 x + 1 b + 1 z >= 2\n"
                                 " fix: 1 flow_rate - 1 b = 0\n"
                                 "Bounds\n"
                                 " 0 <= x <= 4\n"
                                 " flow_rate free\n"
                                 " z >= 1\n"
                                 "Generals\n"
                                 " x\n"
                                 "Binaries\n"
                                 " b\n"
                                 "End\n";
    EXPECT_EQ(lp.str(), expected);

    // CoinLpIO (CBC's own reader) accepts it and sees the same problem.
    const std::filesystem::path file = std::filesystem::temp_directory_path() /
                                       ("milp-test-" + std::to_string(::getpid()) + ".lp");
    std::ofstream(file) << lp.str();
    CoinLpIO reader;
    reader.readLp(file.c_str());
    std::filesystem::remove(file);
    ASSERT_EQ(reader.getNumCols(), 4);
    ASSERT_EQ(reader.getNumRows(), 3);
    const double* obj = reader.getObjCoefficients();
    // CoinLpIO stores a maximization negated.
    const double dir = reader.getObjCoefficients()[0] < 0 ? -1.0 : 1.0;
    EXPECT_DOUBLE_EQ(dir * obj[0], 2.0);
    EXPECT_DOUBLE_EQ(dir * obj[1], -1.0);
    EXPECT_DOUBLE_EQ(dir * obj[2], 10.0);
    EXPECT_DOUBLE_EQ(dir * obj[3], 1.0);
    EXPECT_DOUBLE_EQ(reader.getColLower()[0], 0.0);
    EXPECT_DOUBLE_EQ(reader.getColUpper()[0], 4.0);
    EXPECT_LE(reader.getColLower()[1], -1e30);
    EXPECT_GE(reader.getColUpper()[1], 1e30);
    EXPECT_DOUBLE_EQ(reader.getColUpper()[2], 1.0);
    EXPECT_DOUBLE_EQ(reader.getColLower()[3], 1.0);
    EXPECT_TRUE(reader.isInteger(0));
    EXPECT_FALSE(reader.isInteger(1));
    EXPECT_TRUE(reader.isInteger(2));
    EXPECT_FALSE(reader.isInteger(3));
    EXPECT_DOUBLE_EQ(reader.getRowUpper()[0], 5.0);
    EXPECT_DOUBLE_EQ(reader.getRowLower()[1], 2.0);
    EXPECT_DOUBLE_EQ(reader.getRowLower()[2], 0.0);
    EXPECT_DOUBLE_EQ(reader.getRowUpper()[2], 0.0);
    EXPECT_DOUBLE_EQ(std::fabs(reader.objectiveOffset()), 3.0);
    EXPECT_STREQ(reader.getColNames()[1], "flow_rate");
    EXPECT_STREQ(reader.getRowNames()[1], "need");
}

} // namespace
