# SPDX-License-Identifier: GPL-2.0-only
"""The results database's tables as the scripts' tests build them by hand: the columns
the scripts of utils/ read (doc/results-schema.md), in three parts, so that a test can
also make a database from an older build that lacks the later ones.

Shared by test-timeline.py and test-run-report.py.
"""

# Runs, jobs, their iterations and the fabric's links, flows and samples.
BASE = """
CREATE TABLE runs (
    run_id INTEGER PRIMARY KEY AUTOINCREMENT, example TEXT NOT NULL, scheduler TEXT NOT NULL,
    seed INTEGER NOT NULL, params_json TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('running', 'complete', 'failed', 'interrupted')),
    started_at TEXT NOT NULL, finished_at TEXT, sim_end_ns INTEGER, wall_s REAL,
    events INTEGER, packet_hops INTEGER, error TEXT, pid INTEGER, host TEXT);
CREATE TABLE jobs (
    run_id INTEGER NOT NULL, job_id INTEGER NOT NULL, model TEXT, workers INTEGER,
    gpus_per_host INTEGER, placement_json TEXT, arrival_ns INTEGER, start_ns INTEGER,
    end_ns INTEGER, iterations INTEGER, weight REAL, PRIMARY KEY (run_id, job_id));
CREATE TABLE iterations (
    run_id INTEGER NOT NULL, job_id INTEGER NOT NULL, iter INTEGER NOT NULL,
    compute_start_ns INTEGER, comm_ready_ns INTEGER, comm_start_ns INTEGER,
    comm_end_ns INTEGER, PRIMARY KEY (run_id, job_id, iter));
CREATE TABLE links (
    run_id INTEGER NOT NULL, link_id INTEGER NOT NULL, node_a INTEGER NOT NULL,
    node_b INTEGER NOT NULL, rate_bps INTEGER NOT NULL, delay_ns INTEGER NOT NULL,
    tx_bytes_ab INTEGER NOT NULL, tx_bytes_ba INTEGER NOT NULL, drops INTEGER NOT NULL,
    pfc_pauses_sent INTEGER NOT NULL, ecn_marked INTEGER NOT NULL,
    max_queue_bytes INTEGER NOT NULL);
CREATE TABLE link_samples (
    run_id INTEGER NOT NULL, link_id INTEGER NOT NULL, direction INTEGER NOT NULL,
    job_id INTEGER, t_ns INTEGER NOT NULL, tx_bytes INTEGER NOT NULL);
CREATE TABLE gates (
    run_id INTEGER NOT NULL, t_ns INTEGER NOT NULL, job_id INTEGER NOT NULL,
    open INTEGER NOT NULL);
CREATE TABLE flows (
    run_id INTEGER NOT NULL, flow_id INTEGER NOT NULL, job_id INTEGER,
    src_node INTEGER NOT NULL, dst_node INTEGER NOT NULL, bytes INTEGER NOT NULL,
    start_ns INTEGER NOT NULL, end_ns INTEGER);
"""

# What the schedulers and the time account write (schema versions 4 and 5).
SCHEDULING = """
CREATE TABLE iteration_times (
    run_id INTEGER NOT NULL, job_id INTEGER NOT NULL, iter INTEGER NOT NULL,
    end_ns INTEGER NOT NULL, compute_ns REAL NOT NULL, overlapped_ns REAL NOT NULL,
    exposed_dp_ns REAL NOT NULL, exposed_tp_ns REAL NOT NULL, exposed_pp_ns REAL NOT NULL,
    exposed_ep_ns REAL NOT NULL, exposed_other_ns REAL NOT NULL, gate_wait_ns REAL NOT NULL,
    bubble_ns REAL NOT NULL, PRIMARY KEY (run_id, job_id, iter));
CREATE TABLE collectives (
    run_id INTEGER NOT NULL, job_id INTEGER NOT NULL, iteration INTEGER NOT NULL,
    ready_ns INTEGER NOT NULL, start_ns INTEGER, finish_ns INTEGER, route INTEGER,
    planned_start_ns INTEGER, planned_finish_ns INTEGER, planned_route INTEGER,
    estimate_ns INTEGER, PRIMARY KEY (run_id, job_id, iteration));
CREATE TABLE scheduler_decisions (
    run_id INTEGER NOT NULL, t_ns INTEGER NOT NULL, scheduler TEXT NOT NULL,
    kind TEXT NOT NULL, job_id INTEGER, detail_json TEXT NOT NULL, wall_us REAL NOT NULL);
"""

# The op spans and the port monitors' samples (schema version 6).
MONITORS = """
CREATE TABLE op_spans (
    run_id INTEGER NOT NULL, job_id INTEGER NOT NULL, iteration INTEGER NOT NULL,
    op INTEGER NOT NULL, kind TEXT NOT NULL, name TEXT NOT NULL, grp TEXT NOT NULL,
    algorithm TEXT, bytes INTEGER NOT NULL, ranks TEXT NOT NULL, planned INTEGER NOT NULL,
    ready_ns INTEGER, start_ns INTEGER, end_ns INTEGER,
    PRIMARY KEY (run_id, job_id, iteration, op));
CREATE TABLE port_samples (
    run_id INTEGER NOT NULL, node_id INTEGER NOT NULL, port INTEGER NOT NULL,
    link_id INTEGER, t_ns INTEGER NOT NULL, class INTEGER NOT NULL,
    queue_bytes INTEGER NOT NULL, paused_ns INTEGER NOT NULL, ecn_marks INTEGER NOT NULL);
CREATE TABLE nic_samples (
    run_id INTEGER NOT NULL, node_id INTEGER NOT NULL, t_ns INTEGER NOT NULL,
    cnps_sent INTEGER NOT NULL, cnps_received INTEGER NOT NULL);
CREATE TABLE qp_samples (
    run_id INTEGER NOT NULL, node_id INTEGER NOT NULL, job_id INTEGER,
    dst_node INTEGER NOT NULL, src_port INTEGER NOT NULL, t_ns INTEGER NOT NULL,
    rate_bps INTEGER NOT NULL);
"""
