/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * End-to-end test of the scheduling-time example (figure 2): its rows in
 * the SQLite results file, checked against what each planner's plan must
 * satisfy (no feasible plan below a proven optimum; the parts' optimum is
 * the whole's).
 */

#include "examples-test-util.h"

#include <filesystem>
#include <gtest/gtest.h>

using namespace ns3::test;
namespace fs = std::filesystem;

TEST_F(ExamplesTest, SchedulingTimeRowsAndAProvenOptimumBeatsHarmonics)
{
    const fs::path db = Path("figure2.db");
    const Outcome o = Example(
        "scheduling-time",
        {"--minRacks=2", "--maxRacks=4", "--timeLimit=30", "--seeds=2", "--db=" + db.string()});
    ASSERT_EQ(o.exitCode, 0) << o.Describe();
    EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM runs WHERE example='figure2'"), 1);
    EXPECT_EQ(CompleteRuns(db), 1);
    // 2 sizes x 2 seeds x 4 planners (central, central per independent part, Harmonics,
    // central on slots twice as long).
    EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM scheduling_bench"), 16);
    EXPECT_EQ(QueryInt(db, "SELECT count(DISTINCT seed) FROM scheduling_bench"), 2);
    // Harmonics' plan is one of Symphony's feasible plans: never better than a proven optimum.
    EXPECT_EQ(QueryInt(db,
                       "SELECT count(*) FROM scheduling_bench s JOIN scheduling_bench h ON "
                       "s.racks = h.racks AND s.seed = h.seed AND s.planner = 'symphony' AND "
                       "h.planner = 'harmonics' WHERE s.proven = 1 AND h.objective < "
                       "s.objective - 1e-6"),
              0);
    // Nor is the plan made on longer slots, which is a feasible plan of the same instance;
    // and on slots twice as long, durations of 2-6 slots round up: it loses something.
    EXPECT_EQ(QueryInt(db,
                       "SELECT count(*) FROM scheduling_bench s JOIN scheduling_bench c ON "
                       "s.racks = c.racks AND s.seed = c.seed AND s.planner = 'symphony' AND "
                       "c.planner = 'symphony-coarse' WHERE s.proven = 1 AND c.objective < "
                       "s.objective - 1e-6"),
              0);
    EXPECT_GT(QueryInt(db,
                       "SELECT count(*) FROM scheduling_bench s JOIN scheduling_bench c ON "
                       "s.racks = c.racks AND s.seed = c.seed AND s.planner = 'symphony' AND "
                       "c.planner = 'symphony-coarse' WHERE c.objective > s.objective + 1e-6"),
              0);
    // Solved part by part, the same MILP reaches the same optimum: the parts are independent.
    EXPECT_EQ(QueryInt(db,
                       "SELECT count(*) FROM scheduling_bench s JOIN scheduling_bench p ON "
                       "s.racks = p.racks AND s.seed = p.seed AND s.planner = 'symphony' AND "
                       "p.planner = 'symphony-split' WHERE s.proven = 1 AND p.proven = 1 AND "
                       "abs(p.objective - s.objective) > 1e-6 * s.objective"),
              0);
    // Two racks joined by one crossing job are one part; four racks are two.
    EXPECT_EQ(QueryInt(db,
                       "SELECT count(*) FROM scheduling_bench WHERE planner='symphony-split' AND "
                       "parts <> racks / 2"),
              0);
    EXPECT_GT(QueryInt(db,
                       "SELECT count(*) FROM scheduling_bench WHERE planner='symphony' AND "
                       "proven=1 AND hit_limit=0"),
              0);
}
