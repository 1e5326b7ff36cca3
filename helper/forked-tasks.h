/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef FORKED_TASKS_H
#define FORKED_TASKS_H

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * \brief Runs independent tasks side by side, each in a child process of its
 * own, at most a given number at once, and returns what each returned in
 * task order: how a comparison of policies uses every core.
 *
 * A process per task, not a thread, because ns-3's simulator is one per
 * process. A child starts from the parent's state at the fork (attribute
 * defaults, global values, parsed flags), runs its task, writes the string
 * the task returned to a file of its own and ends with _exit(), without the
 * parent's destructors. What a child prints goes where the parent's output
 * goes; the parent flushes its streams before each fork so that nothing is
 * printed twice.
 *
 * Children run in process groups of their own, so that a terminal's Ctrl-C
 * reaches the parent alone, which passes a SIGINT or SIGTERM on to every
 * running child, once, starts no more tasks and waits for the running ones
 * (a child's simulation then stops and records its run as interrupted).
 */
class ForkedTasks
{
  public:
    /// A task: what it returns reaches the parent; what it throws fails it.
    using Task = std::function<std::string()>;

    /// How a task ended.
    struct Result
    {
        /// Whether it ran and how it ended.
        enum Status
        {
            NOT_RUN, ///< not started: an earlier task stopped the rest, or a signal came
            DONE,    ///< returned \c text
            FAILED,  ///< threw, or its process died: \c text says how
        };

        Status status{NOT_RUN};
        std::string text; ///< what the task returned, or why it failed
    };

    /**
     * \param parallel tasks at most at once; 0: one per core of the machine
     */
    explicit ForkedTasks(uint32_t parallel);

    /**
     * Run \p tasks, in their order, at most the constructor's number at once.
     * \param started called in the parent as a task starts (its index)
     * \param keepGoing called in the parent as a task ends (its index and
     *        result); once it returns false, no further task starts
     * \return each task's result, in task order
     * \throw std::runtime_error if no child process can be made
     */
    std::vector<Result> Run(const std::vector<Task>& tasks,
                            const std::function<void(size_t)>& started = nullptr,
                            const std::function<bool(size_t, const Result&)>& keepGoing = nullptr);

  private:
    uint32_t m_parallel; ///< tasks at most at once
};

} // namespace ns3

#endif /* FORKED_TASKS_H */
