/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "forked-tasks.h"

#include "ns3/log.h"
#include "ns3/run-interruption.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <map>
#include <memory>
#include <stdexcept>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ForkedTasks");

namespace
{

/// The exit code of a child whose task threw (its message is in its file).
constexpr int kTaskThrew = 3;

using File = std::unique_ptr<FILE, int (*)(FILE*)>;

/// Everything written to \p file from its start.
std::string
ReadAll(FILE* file)
{
    std::string text;
    std::rewind(file);
    char buffer[4096];
    for (size_t n; (n = std::fread(buffer, 1, sizeof(buffer), file)) > 0;)
    {
        text.append(buffer, n);
    }
    return text;
}

/// Flush every stream a child could otherwise print a second time.
void
FlushAll()
{
    std::cout.flush();
    std::cerr.flush();
    std::clog.flush();
    std::fflush(nullptr);
}

/// In the child, its handlers set: run \p task, write its result to \p file and end the process.
[[noreturn]] void
RunChild(const ForkedTasks::Task& task, FILE* file)
{
    int code = 0;
    std::string text;
    try
    {
        text = task();
    }
    catch (const std::exception& e)
    {
        text = e.what();
        code = kTaskThrew;
    }
    catch (...)
    {
        text = "an exception that is not a std::exception";
        code = kTaskThrew;
    }
    if (std::fwrite(text.data(), 1, text.size(), file) != text.size() || std::fflush(file) != 0)
    {
        code = 1;
    }
    FlushAll();
    _exit(code);
}

/// The result of a child that ended with wait status \p status and wrote \p file.
ForkedTasks::Result
ResultOf(int status, FILE* file)
{
    ForkedTasks::Result r;
    r.status = ForkedTasks::Result::FAILED;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
    {
        r.status = ForkedTasks::Result::DONE;
        r.text = ReadAll(file);
    }
    else if (WIFEXITED(status) && WEXITSTATUS(status) == kTaskThrew)
    {
        r.text = ReadAll(file);
    }
    else if (WIFEXITED(status))
    {
        r.text = "its process exited with code " + std::to_string(WEXITSTATUS(status));
    }
    else if (WIFSIGNALED(status))
    {
        r.text = std::string("its process was killed by ") + strsignal(WTERMSIG(status));
    }
    else
    {
        r.text = "its process ended with wait status " + std::to_string(status);
    }
    return r;
}

} // namespace

ForkedTasks::ForkedTasks(uint32_t parallel)
    : m_parallel(parallel)
{
    if (m_parallel == 0)
    {
        m_parallel = std::max(1U, std::thread::hardware_concurrency());
    }
}

std::vector<ForkedTasks::Result>
ForkedTasks::Run(const std::vector<Task>& tasks,
                 const std::function<void(size_t)>& started,
                 const std::function<bool(size_t, const Result&)>& keepGoing)
{
    InstallInterruptHandlers(); // so that a signal reaches the children instead of ending us
    std::vector<Result> results(tasks.size());

    struct Child
    {
        size_t task;
        File file;
    };

    std::map<pid_t, Child> running;
    size_t next = 0;
    bool launching = true;
    bool forwarded = false;
    while (!running.empty() || (launching && next < tasks.size()))
    {
        while (launching && next < tasks.size() && running.size() < m_parallel &&
               InterruptSignal() == 0)
        {
            File file(std::tmpfile(), &std::fclose);
            if (!file)
            {
                throw std::runtime_error(std::string("cannot create a temporary file for a "
                                                     "task's result: ") +
                                         std::strerror(errno));
            }
            if (started)
            {
                started(next);
            }
            FlushAll();
            // Blocked across the fork: a signal that comes before the child
            // has handlers of its own waits for them instead of killing it.
            sigset_t stops;
            sigset_t before;
            sigemptyset(&stops);
            sigaddset(&stops, SIGINT);
            sigaddset(&stops, SIGTERM);
            sigprocmask(SIG_BLOCK, &stops, &before);
            const pid_t pid = fork();
            if (pid == 0)
            {
                setpgid(0, 0); // a terminal's Ctrl-C goes to the parent, which passes it on once
                RestartInterruptHandlersAfterFork();
                sigprocmask(SIG_SETMASK, &before, nullptr);
                RunChild(tasks[next], file.get());
            }
            sigprocmask(SIG_SETMASK, &before, nullptr);
            if (pid < 0)
            {
                throw std::runtime_error(std::string("cannot start a process: ") +
                                         std::strerror(errno));
            }
            NS_LOG_INFO("task " << next << " runs in process " << pid);
            running.emplace(pid, Child{next, std::move(file)});
            ++next;
        }
        if (InterruptSignal() != 0 && !forwarded)
        {
            forwarded = true;
            launching = false;
            for (const auto& [pid, child] : running)
            {
                kill(pid, InterruptSignal());
            }
        }
        bool reaped = false;
        for (auto it = running.begin(); it != running.end();)
        {
            int status = 0;
            const pid_t done = waitpid(it->first, &status, WNOHANG);
            if (done == 0 || (done < 0 && errno == EINTR))
            {
                ++it;
                continue;
            }
            Result r;
            if (done < 0)
            {
                r.status = Result::FAILED;
                r.text = std::string("cannot wait for its process: ") + std::strerror(errno);
            }
            else
            {
                r = ResultOf(status, it->second.file.get());
            }
            const size_t task = it->second.task;
            results[task] = r;
            it = running.erase(it);
            reaped = true;
            if (keepGoing && !keepGoing(task, results[task]))
            {
                launching = false;
            }
        }
        if (!reaped && !running.empty())
        {
            // Polled rather than blocked on, so that a signal is passed on at once.
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
    }
    return results;
}

} // namespace ns3
