/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// CSV job trace reader: columns in any order, both arrival notations,
// defaults for what a row leaves out, and "path:line: column: message" for
// each kind of bad input, on the line the test put it.

#include "temp-dir-test.h"

#include "ns3/job-trace-reader.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <stdexcept>
#include <string>

using namespace ns3;

namespace
{

namespace fs = std::filesystem;

class TraceFiles : public test::TempDirTest
{
  protected:
    std::vector<JobSpec> Read(const std::string& text,
                              const JobSpec& defaults = JobSpec{},
                              uint32_t firstId = 0) const
    {
        return ReadJobTrace(Write("trace.csv", text), defaults, firstId);
    }

    /// Expects reading \p text to fail with "path:line: column: ..." containing \p part.
    void ExpectError(const std::string& text,
                     uint32_t line,
                     const std::string& column,
                     const std::string& part) const
    {
        try
        {
            Read(text);
            ADD_FAILURE() << "expected an error for:\n" << text;
        }
        catch (const std::runtime_error& e)
        {
            const std::string msg = e.what();
            const std::string head =
                (m_dir / "trace.csv").string() + ":" + std::to_string(line) + ": " + column + ": ";
            EXPECT_EQ(msg.rfind(head, 0), 0u) << "message: " << msg << "\nexpected head: " << head;
            EXPECT_NE(msg.find(part), std::string::npos)
                << "message: " << msg << "\nmissing: " << part;
        }
    }
};

TEST_F(TraceFiles, ColumnsInAnyOrderWithDefaults)
{
    JobSpec defaults;
    defaults.model = "unused";
    defaults.collective = "all-gather";
    defaults.gpusPerHost = 2;
    defaults.weight = 7;
    defaults.hosts = {1, 2}; // never copied into trace jobs
    defaults.computeTimeNs = 123;
    const std::string text = "# a comment before the header\r\n"
                             "iterations, model ,workers,weight,arrival,compute_time,"
                             "gpus_per_host,placement,collective,buckets,channels,dtype,gpu,"
                             "compute_efficiency,batch_per_gpu,sequence_length,scale\r\n"
                             "\r\n"
                             "10,gpt2-124m,4,,0,,,,,,,,,,,,\r\n"
                             "# a comment between rows\n"
                             "20,pythia-1b,16,2.5,1.5,30ms,8,spread,all-to-all,4,2,fp16,h100,"
                             "0.45,4,2048,0.1\n"
                             "   \n"
                             "5,gpt2-355m,8,0,2500ms,0.02,,,,,,,,,,,\n";
    const std::vector<JobSpec> jobs = Read(text, defaults, 100);
    ASSERT_EQ(jobs.size(), 3u);

    EXPECT_EQ(jobs[0].id, 100u);
    EXPECT_EQ(jobs[0].iterations, 10u);
    EXPECT_EQ(jobs[0].model, "gpt2-124m");
    EXPECT_EQ(jobs[0].workers, 4u);
    EXPECT_DOUBLE_EQ(jobs[0].weight, 7); // empty cell: the default
    EXPECT_EQ(jobs[0].arrivalNs, 0);
    EXPECT_EQ(jobs[0].computeTimeNs, 123); // empty cell: the default
    EXPECT_EQ(jobs[0].gpusPerHost, 2u);
    EXPECT_EQ(jobs[0].collective, "all-gather");
    EXPECT_TRUE(jobs[0].hosts.empty());

    const JobSpec& b = jobs[1];
    EXPECT_EQ(b.id, 101u);
    EXPECT_EQ(b.iterations, 20u);
    EXPECT_EQ(b.model, "pythia-1b");
    EXPECT_EQ(b.workers, 16u);
    EXPECT_DOUBLE_EQ(b.weight, 2.5);
    EXPECT_EQ(b.arrivalNs, 1500000000);
    EXPECT_EQ(b.computeTimeNs, 30000000);
    EXPECT_EQ(b.gpusPerHost, 8u);
    EXPECT_EQ(b.placement, "spread");
    EXPECT_EQ(b.collective, "all-to-all");
    EXPECT_EQ(b.buckets, 4u);
    EXPECT_EQ(b.channels, 2u);
    EXPECT_EQ(b.dtype, "fp16");
    EXPECT_EQ(b.gpu, "h100");
    EXPECT_DOUBLE_EQ(b.computeEfficiency, 0.45);
    EXPECT_EQ(b.batchPerGpu, 4u);
    EXPECT_EQ(b.sequenceLength, 2048u);
    EXPECT_DOUBLE_EQ(b.scale, 0.1);

    EXPECT_EQ(jobs[2].id, 102u);
    EXPECT_EQ(jobs[2].arrivalNs, 2500000000);   // "2500ms"
    EXPECT_EQ(jobs[2].computeTimeNs, 20000000); // "0.02" seconds
    EXPECT_DOUBLE_EQ(jobs[2].weight, 0);
}

TEST_F(TraceFiles, EqualArrivalsAreSorted)
{
    const auto jobs = Read("arrival,model,workers,iterations\n1,a,2,1\n1.0,b,2,1\n1000ms,c,2,1\n");
    ASSERT_EQ(jobs.size(), 3u);
    EXPECT_EQ(jobs[2].arrivalNs, 1000000000);
    EXPECT_EQ(jobs[2].model, "c");
}

TEST_F(TraceFiles, UnsortedRows)
{
    ExpectError("arrival,model,workers,iterations\n"
                "0.5,a,2,1\n"
                "2,b,2,1\n"
                "\n"
                "1.5,c,2,1\n",
                5,
                "arrival",
                "rows must be sorted by arrival: \"1.5\" is earlier than \"2\" on line 3");
}

TEST_F(TraceFiles, HeaderProblems)
{
    ExpectError("arrival,model,iterations\n0,a,1\n", 1, "workers", "missing required column");
    ExpectError("# comment\narrival,model,workers,iterations,gpus\n0,a,2,1,1\n",
                2,
                "gpus",
                "unknown column (known: arrival, model, workers, iterations, gpus_per_host,");
    ExpectError("arrival,model,workers,iterations,model\n", 1, "model", "duplicate column");
    ExpectError("arrival,model,,workers,iterations\n", 1, "header", "empty column name");
    ExpectError("# only a comment\n\n", 2, "header", "no header row");
    ExpectError("arrival,model,workers,iterations\n\n", 1, "row", "no job rows");
}

TEST_F(TraceFiles, BadValues)
{
    const std::string header =
        "arrival,model,workers,iterations,weight,compute_efficiency,compute_time\n";
    ExpectError(header + "0,a,2,1,,,\n0,b,two,1,,,\n",
                3,
                "workers",
                "expected an integer >= 1, got \"two\"");
    ExpectError(header + "0,a,0,1,,,\n", 2, "workers", "must be at least 1, got \"0\"");
    ExpectError(header + "0,a,2,1.5,,,\n", 2, "iterations", "expected an integer");
    ExpectError(header + "0,a,2,99999999999,,,\n", 2, "iterations", "too large");
    ExpectError(header + "0,a,2,1,1x,,\n", 2, "weight", "expected a number, got \"1x\"");
    ExpectError(header + "0,a,2,1,-1,,\n", 2, "weight", "must not be negative");
    ExpectError(header + "0,a,2,1,,1.2,\n", 2, "compute_efficiency", "must be in (0, 1]");
    ExpectError("arrival,model,workers,iterations,mfu\n0,a,2,1,0.4\n",
                2,
                "mfu",
                "renamed compute_efficiency");
    ExpectError(header + "-1,a,2,1,,,\n", 2, "arrival", "must not be negative");
    ExpectError(header + "1 week,a,2,1,,,\n", 2, "arrival", "bad time");
    ExpectError(header + "0,a,2,1,,,5 fortnights\n", 2, "compute_time", "bad time");
    ExpectError(header + "0,,2,1,,,\n", 2, "model", "empty value in a required column");
    ExpectError(header + "0,a,2,1,,\n", 2, "row", "expected 7 fields as in the header, got 6");
    ExpectError("arrival,model,workers,iterations,placement\n0,a,2,1,explicit\n",
                2,
                "placement",
                "explicit placement needs host lists");
}

TEST_F(TraceFiles, UnreadableFile)
{
    const std::string path = (m_dir / "absent.csv").string();
    try
    {
        ReadJobTrace(path, JobSpec{});
        ADD_FAILURE() << "expected an error";
    }
    catch (const std::runtime_error& e)
    {
        EXPECT_EQ(std::string(e.what()), path + ": cannot open: No such file or directory");
    }
}

TEST(TraceText, SourceNameInMessages)
{
    EXPECT_EQ(ReadJobTraceText("arrival,model,workers,iterations\n3us,m,2,4\n", "x", JobSpec{})
                  .at(0)
                  .arrivalNs,
              3000);
    try
    {
        ReadJobTraceText("arrival,model,workers,iterations\n0,m,2\n", "inline", JobSpec{});
        ADD_FAILURE() << "expected an error";
    }
    catch (const std::runtime_error& e)
    {
        EXPECT_EQ(std::string(e.what()),
                  "inline:2: row: expected 4 fields as in the header, got 3");
    }
}

TEST_F(TraceFiles, FileCutInsideItsLastValueIsRejectedNamingTheLine)
{
    // "1" of "10": read alone it is a valid row, so the missing newline is the sign.
    ExpectError("arrival,model,workers,iterations\n0,gpt2-124m,4,10\n0,gpt2-124m,4,1",
                3,
                "iterations",
                "cut inside its last value");
    ExpectError("arrival,model,workers,iterations\n0,gpt2-124m,4,10\n0,gpt2-1", 3, "model", "cut");
    // The same rows ending with a newline are whole.
    EXPECT_EQ(Read("arrival,model,workers,iterations\n0,gpt2-124m,4,10\n0,gpt2-124m,4,1\n").size(),
              2u);
}

} // namespace
