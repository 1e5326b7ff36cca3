/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * ForkedTasks: tasks run side by side in processes of their own, at most so
 * many at once, their results in task order; a task that throws or whose
 * process dies fails alone; a failure can stop further tasks; a signal to
 * the parent reaches the running children once and starts no more.
 */
#include "ns3/forked-tasks.h"
#include "ns3/run-interruption.h"

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <gtest/gtest.h>
#include <set>
#include <string>
#include <thread>
#include <unistd.h>

using namespace ns3;

namespace
{

using Result = ForkedTasks::Result;

int g_state = 0; ///< what a child sees of its parent's memory

TEST(ForkedTasksTest, ResultsComeInTaskOrderFromProcessesOfTheirOwn)
{
    g_state = 7;
    std::vector<ForkedTasks::Task> tasks;
    for (int i = 0; i < 5; ++i)
    {
        // The first tasks take longest, so that they end last.
        tasks.emplace_back([i]() {
            std::this_thread::sleep_for(std::chrono::milliseconds(50 * (5 - i)));
            ++g_state; // the child's copy
            return std::to_string(i) + ":" + std::to_string(g_state) + ":" +
                   std::to_string(getpid());
        });
    }
    std::vector<size_t> started;
    std::vector<size_t> ended;
    const std::vector<Result> results = ForkedTasks(3).Run(
        tasks,
        [&](size_t i) { started.push_back(i); },
        [&](size_t i, const Result& r) {
            ended.push_back(i);
            EXPECT_EQ(r.status, Result::DONE);
            return true;
        });
    ASSERT_EQ(results.size(), tasks.size());
    std::set<std::string> pids;
    for (int i = 0; i < 5; ++i)
    {
        ASSERT_EQ(results[i].status, Result::DONE) << results[i].text;
        const std::string prefix = std::to_string(i) + ":8:";
        ASSERT_EQ(results[i].text.rfind(prefix, 0), 0u) << results[i].text;
        const std::string pid = results[i].text.substr(prefix.size());
        EXPECT_NE(pid, std::to_string(getpid()));
        pids.insert(pid);
    }
    EXPECT_EQ(pids.size(), 5u);
    EXPECT_EQ(g_state, 7) << "a child's writes reached the parent";
    EXPECT_EQ(started, (std::vector<size_t>{0, 1, 2, 3, 4}));
    // Task 2 (100 ms) ends before 0 (250 ms) and 1 (200 ms), which started with it.
    ASSERT_EQ(ended.size(), 5u);
    EXPECT_EQ(ended[0], 2u);
}

TEST(ForkedTasksTest, NoMoreThanTheLimitRunAtOnce)
{
    // Each task holds a lock file while it runs; it counts the others held then.
    char dir[] = "/tmp/forked-tasks-XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    const std::string base = dir;
    std::vector<ForkedTasks::Task> tasks;
    for (int i = 0; i < 6; ++i)
    {
        tasks.emplace_back([base, i]() {
            const std::string mine = base + "/" + std::to_string(i);
            FILE* f = std::fopen(mine.c_str(), "w");
            std::fclose(f);
            std::this_thread::sleep_for(std::chrono::milliseconds(60));
            int others = 0;
            for (int j = 0; j < 6; ++j)
            {
                const std::string other = base + "/" + std::to_string(j);
                others += j != i && access(other.c_str(), F_OK) == 0;
            }
            std::remove(mine.c_str());
            return std::to_string(others);
        });
    }
    const std::vector<Result> results = ForkedTasks(2).Run(tasks);
    int most = 0;
    for (const Result& r : results)
    {
        ASSERT_EQ(r.status, Result::DONE);
        most = std::max(most, std::stoi(r.text));
    }
    EXPECT_EQ(most, 1) << "two tasks at once: each sees the other, never two others";
    rmdir(dir);
}

TEST(ForkedTasksTest, ATaskThatThrowsOrDiesFailsAloneAndCanStopTheRest)
{
    std::vector<ForkedTasks::Task> tasks{
        []() -> std::string { throw std::runtime_error("no such link"); },
        []() -> std::string { std::abort(); },
        []() { return std::string("fine"); },
        []() -> std::string { _exit(9); },
    };
    std::vector<Result> results = ForkedTasks(2).Run(tasks);
    EXPECT_EQ(results[0].status, Result::FAILED);
    EXPECT_EQ(results[0].text, "no such link");
    EXPECT_EQ(results[1].status, Result::FAILED);
    EXPECT_NE(results[1].text.find("killed by"), std::string::npos) << results[1].text;
    EXPECT_EQ(results[2].status, Result::DONE);
    EXPECT_EQ(results[2].text, "fine");
    EXPECT_EQ(results[3].status, Result::FAILED);
    EXPECT_EQ(results[3].text, "its process exited with code 9");

    // One at a time, stopping at the first failure: the rest never start.
    results = ForkedTasks(1).Run(tasks, nullptr, [](size_t, const Result& r) {
        return r.status == Result::DONE;
    });
    EXPECT_EQ(results[0].status, Result::FAILED);
    for (size_t i = 1; i < tasks.size(); ++i)
    {
        EXPECT_EQ(results[i].status, Result::NOT_RUN) << i;
    }
}

TEST(ForkedTasksTest, ASignalToTheParentReachesTheRunningTasksAndStartsNoMore)
{
    // A task that runs until its process is asked to stop, then says by what.
    const ForkedTasks::Task untilStopped = []() {
        const auto limit = std::chrono::steady_clock::now() + std::chrono::seconds(60);
        while (InterruptSignal() == 0 && std::chrono::steady_clock::now() < limit)
        {
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
        return "stopped by " + SignalName(InterruptSignal());
    };
    const std::vector<ForkedTasks::Task> tasks{untilStopped, untilStopped, untilStopped};
    const std::vector<Result> results = ForkedTasks(2).Run(tasks, [](size_t i) {
        if (i == 1)
        {
            // As the second task starts, the parent is asked to stop.
            kill(getpid(), SIGTERM);
        }
    });
    EXPECT_EQ(InterruptSignal(), SIGTERM);
    ASSERT_EQ(results[0].status, Result::DONE) << results[0].text;
    EXPECT_EQ(results[0].text, "stopped by SIGTERM");
    ASSERT_EQ(results[1].status, Result::DONE) << results[1].text;
    EXPECT_EQ(results[1].text, "stopped by SIGTERM");
    EXPECT_EQ(results[2].status, Result::NOT_RUN);
}

} // namespace
