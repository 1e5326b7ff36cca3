#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Reproduce Table 1 of Narayanan et al., "Efficient Large-Scale Language
Model Training on GPU Clusters Using Megatron-LM" (SC'21, arXiv 2104.04473):
GPT models of 1.7B to 1T parameters trained with tensor, pipeline and data
parallelism on A100 80 GB servers of 8 GPUs with 8 HDR InfiniBand NICs
(200 Gb/s) each, achieving 137-163 TFLOP/s per GPU.

Each row is one job alone at the flow level, one iteration, on a
non-blocking rail-optimized fabric of its servers (the DGX SuperPOD's
layout), with the paper's model shape, parallelism, global batch, sequence
of 2048 tokens, vocabulary of 51,200, micro-batches of one sequence, full
activation recomputation, fp16, and attention without FlashAttention (which
came a year later: Megatron-LM then materialized the scores). Achieved TFLOP/s per GPU is the paper's
own count (its equation 3, which counts the recomputation):

    F = 96 B s l h^2 (1 + s / (6 h) + V / (16 l h))  per iteration,
    TFLOP/s per GPU = F / (iteration time x GPUs).

Usage: benchmarks/megatron-table1.py [--rows 1,2,3] [--binary build/multi-tenant-fat-tree]
Prints one line per row: the paper's TFLOP/s, ours, the difference and the
iteration time, and the wall time of the simulation.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

# Table 1: billions of parameters, heads, hidden, layers, TP, PP, GPUs,
# global batch, achieved TFLOP/s per GPU.
ROWS = [
    (1.7, 24, 2304, 24, 1, 1, 32, 512, 137),
    (3.6, 32, 3072, 30, 2, 1, 64, 512, 138),
    (7.5, 32, 4096, 36, 4, 1, 128, 512, 142),
    (18.4, 48, 6144, 40, 8, 1, 256, 1024, 135),
    (39.1, 64, 8192, 48, 8, 2, 512, 1536, 138),
    (76.1, 80, 10240, 60, 8, 4, 1024, 1792, 140),
    (145.6, 96, 12288, 80, 8, 8, 1536, 2304, 148),
    (310.1, 128, 16384, 96, 8, 16, 1920, 2160, 155),
    (529.6, 128, 20480, 105, 8, 35, 2520, 2520, 163),
    (1008.0, 160, 25600, 128, 8, 64, 3072, 3072, 163),
]
SEQ = 2048
VOCAB = 51200


def scenario(row):
    billions, heads, hidden, layers, tp, pp, gpus, batch, _ = row
    dp = gpus // (tp * pp)
    servers = gpus // 8
    group = min(servers, 32)
    return {
        "name": "megatron-table1-%gb" % billions,
        "description": "Narayanan et al. SC'21 Table 1, the %gB GPT row" % billions,
        "seed": 1,
        "backend": "flow",
        "topology": {
            "kind": "rail-optimized",
            "gpusPerHost": 1,
            "railOptimized": {
                "servers": servers,
                "gpusPerServer": 8,
                "serversPerGroup": group,
                "spines": group,
                "hostRate": "200Gbps",
                "railSpineRate": "200Gbps",
            },
        },
        "attributes": {"ns3::TrainingCluster::NvlinkGeneration": "a100"},
        "jobs": [
            {
                "id": 0,
                "model": {
                    "name": "gpt-%gb" % billions,
                    "layers": layers,
                    "hidden": hidden,
                    "heads": heads,
                    "ffnHidden": 4 * hidden,
                    "vocab": VOCAB,
                },
                "placement": "packed",
                "gpusPerHost": 1,
                "iterations": 1,
                "gpu": "a100-80gb",
                "dtype": "fp16",
                "recompute": "full",
                "flashAttention": False,
                "sequenceLength": SEQ,
                "parallelism": {
                    "tp": tp,
                    "pp": pp,
                    "dp": dp,
                    "microBatches": batch // dp,
                    "microBatchSize": 1,
                },
            }
        ],
        "scheduler": "fair",
    }


def paper_flops(row):
    _, _, h, l, _, _, _, b, _ = row
    return 96.0 * b * SEQ * l * h * h * (1 + SEQ / (6.0 * h) + VOCAB / (16.0 * l * h))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", default="1,2,3,4", help="1-based rows of Table 1")
    parser.add_argument("--binary", default="build/multi-tenant-fat-tree")
    args = parser.parse_args()
    print("row  params  GPUs  TPxPPxDP   paper TFLOP/s  here TFLOP/s   diff   iter (s)  wall (s)")
    with tempfile.TemporaryDirectory() as tmp:
        for index in [int(r) for r in args.rows.split(",")]:
            row = ROWS[index - 1]
            path = os.path.join(tmp, "row%d.json" % index)
            with open(path, "w") as f:
                json.dump(scenario(row), f)
            start = time.time()
            out = subprocess.run(
                [args.binary, "--scenario=" + path],
                capture_output=True,
                text=True,
                check=False,
            )
            wall = time.time() - start
            if out.returncode != 0:
                sys.exit("row %d failed:\n%s%s" % (index, out.stdout, out.stderr))
            m = re.search(r"^\s+0\s+\S+\s+\d+\s+\d+\s+[\d.]+\s+([\d.]+)", out.stdout, re.M)
            if not m:
                sys.exit("row %d: no iteration time in:\n%s" % (index, out.stdout))
            iteration = float(m.group(1)) * 1e-6
            tflops = paper_flops(row) / (iteration * row[6]) / 1e12
            billions, _, _, _, tp, pp, gpus, _, paper = row
            print(
                "%3d  %6.1fB %5d  %2dx%2dx%-4d %12d  %12.1f  %+5.1f%%  %8.3f  %8.1f"
                % (index, billions, gpus, tp, pp, gpus // (tp * pp), paper, tflops,
                   100.0 * (tflops / paper - 1), iteration, wall),
                flush=True,
            )


if __name__ == "__main__":
    main()
