#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Run SimAI's own inputs (data/simai-reference: its Spectrum-X topology of
2 servers x 8 A100s, its SimAI.conf and AICB workload files) through the
module and compare the iteration time with SimAI's.

Each workload runs once with the default collectives (NCCL's rings over
every NIC, the protocol NCCL's tuning model picks, with its per-step
latency) and once on the same rings without protocol latency
(`nccl-ring-all-reduce`), which is what SimAI's ns-3 backend models. The
reference is SimAI's ns-3 backend at zero send latency where it finished,
else its analytical backend.

Usage: benchmarks/simai-agreement.py [--backend flow|packet] [--binary build/multi-tenant-fat-tree]
"""
import argparse
import csv
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "data", "simai-reference")


def scenario(workload, collective):
    job = {
        "id": 0,
        "workers": 16,
        "iterations": 1,
        "workload": {"format": "simai", "path": os.path.join(DATA, "workloads", workload + ".txt")},
        "hosts": list(range(16)),
    }
    if collective:
        job["collective"] = collective
    return {
        "name": "simai-" + workload,
        "seed": 1,
        "topology": {"kind": "hpcc", "path": os.path.join(DATA, "Spectrum-X_16g_8gps_100Gbps_A100")},
        "fabric": {"hpccConfig": os.path.join(DATA, "SimAI.conf")},
        "jobs": [job],
        "scheduler": "fair",
    }


def run(binary, path, backend):
    out = subprocess.run(
        [binary, "--scenario=" + path, "--backend=" + backend],
        capture_output=True, text=True, check=False)
    if out.returncode != 0:
        sys.exit("%s failed:\n%s%s" % (path, out.stdout, out.stderr))
    iteration = re.search(r"^\s+0\s+\S+\s+\d+\s+\d+\s+[\d.]+\s+([\d.]+)", out.stdout, re.M)
    parts = re.search(r"^\s+0\s+([\d.]+)\s+\(\s*[\d.]+\)\s+([\d.]+)\s+([\d.]+)", out.stdout, re.M)
    if not iteration or not parts:
        sys.exit("%s: no iteration time in:\n%s" % (path, out.stdout))
    return float(iteration.group(1)), float(parts.group(3))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", default="flow", choices=["flow", "packet"])
    parser.add_argument("--binary", default=os.path.join(ROOT, "build", "multi-tenant-fat-tree"))
    args = parser.parse_args()
    with open(os.path.join(DATA, "simai-iteration-times.csv")) as f:
        reference = list(csv.DictReader(f))
    print("%-24s %10s %10s %8s %10s %8s %9s %9s" % (
        "workload", "SimAI (us)", "NCCL (us)", "diff", "rings (us)", "diff", "TP NCCL", "TP rings"))
    with tempfile.TemporaryDirectory() as tmp:
        for row in reference:
            name = row["workload"]
            simai = float(row["ns3_lat0_us"] or row["analytical_us"])
            which = "ns-3" if row["ns3_lat0_us"] else "analytical"
            results = []
            for collective in ("", "nccl-ring-all-reduce"):
                path = os.path.join(tmp, "%s-%s.json" % (name, collective or "default"))
                with open(path, "w") as f:
                    json.dump(scenario(name, collective), f)
                results.append(run(args.binary, path, args.backend))
            (nccl, ncclTp), (rings, ringsTp) = results
            print("%-24s %10.0f %10.0f %+7.1f%% %10.0f %+7.1f%% %9.0f %9.0f  (SimAI %s)" % (
                name, simai, nccl, 100 * (nccl / simai - 1), rings, 100 * (rings / simai - 1),
                ncclTp, ringsTp, which), flush=True)


if __name__ == "__main__":
    main()
