# SPDX-License-Identifier: GPL-2.0-only
"""The results database's tables as the scripts' tests build them by hand: the columns
the scripts of utils/ read (doc/results-schema.md), in three parts, so that a test can
also make a database from an older build that lacks the later ones.

Shared by test-timeline.py and test-run-report.py, with what their checks of files and
memory need: a database in WAL mode, the files beside it, a script run under a limit of
memory, and many link samples.
"""

import os
import re
import resource
import sqlite3
import subprocess

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


# ----------------------------------------------------------------------------- memory

# Runs a script (argv[1], its arguments after it) and prints, as it exits, the most
# virtual memory the process had mapped (Linux's VmPeak, kB) on stderr.
PEAK_WRAPPER = """
import atexit, runpy, sys
def peak():
    for line in open("/proc/self/status"):
        if line.startswith("VmPeak:"):
            print("VmPeak", line.split()[1], file=sys.stderr)
atexit.register(peak)
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
"""


def run_measured(python, script, args, limit=None, timeout=600):
    """Run script with args under RLIMIT_AS = limit bytes (if given): the completed process
    (stderr without the VmPeak line) and its peak of virtual memory in bytes (None if it
    died before saying). One BLAS thread, so that the peak does not depend on the CPUs."""
    def set_limit():
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    result = subprocess.run([python, "-c", PEAK_WRAPPER, str(script), *map(str, args)],
                            capture_output=True, text=True, timeout=timeout, env=env,
                            preexec_fn=set_limit if limit else None)
    match = re.search(r"^VmPeak (\d+)\n", result.stderr, re.M)
    if match:
        result.stderr = result.stderr.replace(match.group(0), "")
    return result, int(match.group(1)) * 1024 if match else None


def add_link_samples(conn, run_id, links, samples, interval):
    """A run's links (100 Gb/s) and a sample of every directed link every interval, with
    bytes that vary: links * 2 * samples rows, all carrying traffic."""
    conn.executemany("INSERT INTO links VALUES (?, ?, ?, ?, 100000000000, 1000, 0, 0, 0, 0, 0,"
                     " 0)", ((run_id, link, link, link + 1000) for link in range(links)))
    conn.executemany("INSERT INTO link_samples VALUES (?, ?, ?, 0, ?, ?)",
                     ((run_id, link, direction, k * interval,
                       (link * 7919 + k * 104729) % 125_000 + 1)
                      for link in range(links) for direction in (0, 1)
                      for k in range(1, samples + 1)))


# ----------------------------------------------------------------------------- files

SIDE_FILES = ("-wal", "-shm", "-journal")


def side_files(db):
    """The files SQLite keeps beside a database that are there."""
    return [suffix for suffix in SIDE_FILES if os.path.exists(f"{db}{suffix}")]


def wal_mode(db):
    """Whether the file's header says WAL (read and write versions 2, bytes 18 and 19)."""
    with open(db, "rb") as f:
        return f.read(20)[18:20] == b"\x02\x02"


def to_wal(db):
    """Switch a database to WAL, as the examples write it; closing the connection
    removes its -wal and -shm files."""
    conn = sqlite3.connect(db)
    mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
    conn.close()
    assert mode == "wal" and wal_mode(db) and not side_files(db), (mode, side_files(db))
