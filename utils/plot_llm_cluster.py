# SPDX-License-Identifier: GPL-2.0-only
"""A multi-tenant LLM cluster under every policy (plot-figures.py's figure 6).

The runs are those of runs.example "figure6" (paper-figures: five LLM jobs on a
rail-optimized fabric, packet level) and, for the table's flow-level part,
"lingjun-llm-jobs" (examples/scenarios/llm/lingjun-llm-jobs.json). Per policy and
job: the training time (jobs: end - arrival) and where its iterations' time went
(iteration_times: the mean over ranks of compute, exposed communication by group,
waiting at a gate and idle time, the pipeline bubble), each over fair's.
"""

from plot_common import ISOLATED, Refusal, Skip, fmt_ratio, isolated_choice, mean, policy_key

EXAMPLE = "figure6"
FLOW_EXAMPLE = "lingjun-llm-jobs"
# iteration_times column -> label, in stacking order.
PARTS = [("compute_ns", "compute"), ("exposed_dp_ns", "exposed DP"),
         ("exposed_tp_ns", "exposed TP"), ("exposed_pp_ns", "exposed PP"),
         ("exposed_ep_ns", "exposed EP"), ("gate_wait_ns", "gate wait"),
         ("bubble_ns", "bubble")]


class LlmPolicy:
    """One policy's runs of one example: per job, its training time and mean parts."""

    def __init__(self, name):
        self.name = name
        # job id -> training time (isolated: the faster of the job's two runs alone, under
        # ECMP and on its best routes)
        self.train_ns = {}
        self.models = {}  # job id -> model
        self.parts = {}  # job id -> {column: mean ns per iteration}

    def mean_part(self, column):
        return mean([p[column] for p in self.parts.values()])


class LlmCluster:
    def __init__(self, example, policies):
        self.example = example
        self.policies = policies  # fair first
        self.fair = policies[0]

    def jobs(self):
        return sorted(self.fair.train_ns)

    def train_ratio(self, policy, job=None):
        if job is None:
            mine = mean(list(policy.train_ns.values()))
            fair = mean(list(self.fair.train_ns.values()))
        else:
            mine, fair = policy.train_ns.get(job), self.fair.train_ns.get(job)
        return None if mine is None or not fair else mine / fair


def load_example(db, example):
    runs = db.query("SELECT run_id, scheduler FROM runs WHERE example = ?", (example,))
    if not runs:
        raise Skip(f"no runs with example '{example}'")
    db.require("iteration_times", [c for c, _ in PARTS])
    policies = {}
    # Isolated: each job's faster run alone, the only one read of it.
    isolated = isolated_choice(db, example)
    for policy, run_id, job, model, arrival, end in db.query(
            "SELECT r.scheduler, j.run_id, j.job_id, j.model, j.arrival_ns, j.end_ns"
            " FROM jobs j JOIN runs r ON r.run_id = j.run_id WHERE r.example = ?"
            " ORDER BY j.run_id, j.job_id", (example,)):
        if end is None or arrival is None:
            raise Refusal(f"{db.path}: run {run_id} ({example}, {policy}) job {job} did not "
                          "finish")
        if policy == ISOLATED and (run_id, job) not in isolated:
            continue
        p = policies.setdefault(policy, LlmPolicy(policy))
        p.train_ns[job] = end - arrival
        p.models[job] = model
    columns = ", ".join(f"avg(t.{c})" for c, _ in PARTS)
    for row in db.query(
            f"SELECT r.scheduler, t.run_id, t.job_id, {columns} FROM iteration_times t"
            " JOIN runs r ON r.run_id = t.run_id WHERE r.example = ?"
            " GROUP BY r.scheduler, t.run_id, t.job_id", (example,)):
        policy, run_id, job, values = row[0], row[1], row[2], row[3:]
        if policy == ISOLATED and (run_id, job) not in isolated:
            continue
        if policy in policies:
            policies[policy].parts[job] = {c: v for (c, _), v in zip(PARTS, values)}
    if "fair" not in policies:
        raise Skip(f"no 'fair' runs with example '{example}' to normalize against")
    ordered = sorted(policies.values(), key=lambda p: policy_key(p.name))
    return LlmCluster(example, ordered)


def load_llm_cluster(db):
    data = load_example(db, EXAMPLE)
    try:
        data.flow = load_example(db, FLOW_EXAMPLE)
    except Skip:
        data.flow = None
    return data


def draw_llm_cluster(data, path):
    import matplotlib.pyplot as plt

    policies = data.policies
    jobs = data.jobs()
    fig, (left, right) = plt.subplots(1, 2, figsize=(13, 4.8))
    width = 0.8 / len(policies)
    for i, policy in enumerate(policies):
        xs = [j + (i - (len(policies) - 1) / 2) * width for j in range(len(jobs))]
        ys = [data.train_ratio(policy, job) or 0 for job in jobs]
        left.bar(xs, ys, width, label=policy.name)
    left.axhline(1.0, color="black", linewidth=0.8)
    left.set_xticks(range(len(jobs)))
    left.set_xticklabels([f"{job}: {data.fair.models[job]}" for job in jobs], rotation=15,
                         fontsize=8)
    left.set_ylabel("training time / fair")
    left.set_title("(a) each job's training time")
    left.legend(fontsize=7, ncol=2)

    fair_total = sum(data.fair.mean_part(c) or 0 for c, _ in PARTS)
    bottoms = [0.0] * len(policies)
    for column, label in PARTS:
        heights = [(p.mean_part(column) or 0) / fair_total for p in policies]
        right.bar(range(len(policies)), heights, 0.6, bottom=bottoms, label=label)
        bottoms = [b + h for b, h in zip(bottoms, heights)]
    right.set_xticks(range(len(policies)))
    right.set_xticklabels([p.name for p in policies], rotation=20, fontsize=8)
    right.set_ylabel("iteration time / fair's (mean over jobs and ranks)")
    right.set_title("(b) where an iteration's time went")
    right.legend(fontsize=7)
    fig.suptitle("Figure 6: a multi-tenant LLM cluster (rail-optimized, 16 servers x 8 GPUs)")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def cluster_table(data, heading, per_job=True):
    jobs = data.jobs() if per_job else []
    lines = [heading, "",
             "| policy | mean training / fair | "
             + " | ".join(f"job {j} ({data.fair.models[j]})" for j in jobs) + " |",
             "|---|---|" + "---|" * len(jobs)]
    for p in data.policies:
        cells = [fmt_ratio(data.train_ratio(p, j)) for j in jobs]
        lines.append(f"| {p.name} | {fmt_ratio(data.train_ratio(p))} | " + " | ".join(cells)
                     + " |")
    lines += ["", "Where an iteration's time went, ms (mean over jobs and ranks; over fair's "
              "in parentheses):", "",
              "| policy | " + " | ".join(label for _, label in PARTS) + " |",
              "|---|" + "---|" * len(PARTS)]
    for p in data.policies:
        cells = []
        for column, _ in PARTS:
            value, fair = p.mean_part(column), data.fair.mean_part(column)
            if value is None:
                cells.append("n/a")
                continue
            ratio = f" ({value / fair:.2f})" if fair else ""
            cells.append(f"{value / 1e6:.2f}{ratio}")
        lines.append(f"| {p.name} | " + " | ".join(cells) + " |")
    return lines


def job_parts_table(data):
    """Per job and policy: its training time and each part of its iterations, over fair's."""
    lines = ["Per job, ms per iteration (mean over ranks; over fair's in parentheses):", "",
             "| job | policy | training / fair | "
             + " | ".join(label for _, label in PARTS[1:]) + " |",
             "|---|---|---|" + "---|" * (len(PARTS) - 1)]
    for job in data.jobs():
        fair = data.fair.parts.get(job, {})
        for p in data.policies:
            mine = p.parts.get(job)
            if mine is None:
                continue
            cells = []
            for column, _ in PARTS[1:]:
                ratio = f" ({mine[column] / fair[column]:.2f})" if fair.get(column) else ""
                cells.append(f"{mine[column] / 1e6:.2f}{ratio}")
            lines.append(f"| {job} ({data.fair.models[job]}) | {p.name} | "
                         f"{fmt_ratio(data.train_ratio(p, job))} | " + " | ".join(cells) + " |")
    return lines


def llm_cluster_table(data):
    lines = cluster_table(data, "Packet level, training time over fair's, by job:")
    lines += [""] + job_parts_table(data)
    if data.flow is not None:
        lines += [""] + cluster_table(
            data.flow, f"Flow level, the Lingjun cluster ({len(data.flow.jobs())} jobs), "
            "mean training time over fair's:", per_job=False)
    return lines
