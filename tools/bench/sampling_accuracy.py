#!/usr/bin/env python3
"""Sampled timing against whole runs (docs/sampling.md).

For each workload: `warpsim run` whole and with --sample, both with --json; prints a Markdown
table of the whole run's cycles, the sampled estimate, its error and spread, the CTAs timed,
the DRAM bytes written (whole run against the whole-kernel estimate), and both wall times (checkers off, as a timing study would run). Long runs (about six minutes
in all): a benchmark, not a test.

    tools/bench/sampling_accuracy.py [--warpsim build/release/sim/warpsim] [--tolerance 0.02]
                                     [--only TEXT]   (the workloads whose name contains TEXT)
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TRACE_ROW = "saxpy, 32 Mi floats (trace)"
SMS = lambda n, tpcs, gpcs: ["--set", f"topology.sms={n}", "--set", f"topology.tpcs={tpcs}", "--set", f"topology.gpcs={gpcs}"]


def run(warpsim, args):
    start = time.monotonic()
    out = subprocess.run([warpsim, "run", *args, "--json", "-", "--checks", "off"], capture_output=True, text=True)
    wall = time.monotonic() - start
    if out.returncode != 0:
        sys.exit(f"warpsim run {' '.join(args)} failed:\n{out.stderr}")
    return json.loads(out.stdout)["kernels"][0]["summary"], wall


def mib(n):
    return f"{n / 2**20:.1f} MiB"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--warpsim", default=os.path.join(ROOT, "build/release/sim/warpsim"))
    parser.add_argument("--tolerance", default="0.02")
    parser.add_argument("--only", default="", help="run only the workloads whose name contains this")
    options = parser.parse_args()
    bench = os.path.join(ROOT, "tools/bench/sampling")
    with tempfile.TemporaryDirectory() as tmp:
        # A trace: the untimed CTAs are only read, not emulated. The saxpy launch file's, recorded
        # (about 40 s and 40 MB) when that row is asked for.
        trace = os.path.join(tmp, "saxpy_32m.trace.gz")
        if options.only in TRACE_ROW:
            subprocess.run([options.warpsim, "trace", "--arch", "a100", os.path.join(bench, "saxpy_32m.launch.yaml"), "-o", trace],
                           check=True, capture_output=True)
        workloads = [
            ("saxpy, 32 Mi floats (launch file)", "a100", [], os.path.join(bench, "saxpy_32m.launch.yaml")),
            ("saxpy, 32 Mi floats (launch file)", "h100", [], os.path.join(bench, "saxpy_32m.launch.yaml")),
            ("transpose 8192 x 4096 (launch file)", "a100", [], os.path.join(bench, "transpose_8k.launch.yaml")),
            ("SGEMM 512^3 (launch file)", "a100, 8 SMs", SMS(8, 4, 1), os.path.join(bench, "sgemm_512.launch.yaml")),
            (TRACE_ROW, "a100", [], trace),
        ]
        print(f"warpsim run --sample --sample-tolerance {options.tolerance} against the whole run\n")
        print("| workload | GPU | CTAs | whole run (cycles) | sampled estimate | error | spread | CTAs timed | DRAM written: whole / estimate | wall: whole / sampled |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        for name, gpu, sets, path in workloads:
            if options.only not in name:
                continue
            arch = gpu.split(",")[0]
            whole, whole_wall = run(options.warpsim, ["--arch", arch, *sets, path])
            sampled, sampled_wall = run(options.warpsim, ["--arch", arch, *sets, path, "--sample", "--sample-tolerance", options.tolerance])
            ctas = whole["ctas"]
            info = sampled.get("sampling")
            if info is None:
                row = f"{sampled['cycles']} (ran whole: never steady) | | | {ctas} | |"
            else:
                error = 100.0 * (sampled["cycles"] - whole["cycles"]) / whole["cycles"]
                row = (f"{sampled['cycles']} | {error:+.2f}% | {100.0 * info['spread_cycles'] / sampled['cycles']:.2f}% | "
                       f"{info['ctas_timed']} ({100.0 * info['ctas_timed'] / ctas:.0f}%) | "
                       f"{mib(whole['dram_bytes_written'])} / {mib(info['whole_kernel']['dram_bytes_written_estimate'])} |")
            print(f"| {name} | {gpu} | {ctas} | {whole['cycles']} | {row} {whole_wall:.1f} / {sampled_wall:.1f} s |", flush=True)


if __name__ == "__main__":
    main()
