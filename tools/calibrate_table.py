#!/usr/bin/env python3
"""Prints docs/validation.md's microbenchmark table: `warpsim calibrate --json` on every shipped
GPU, one column each, cells "simulated / reference (error)". Run from the repository root after
building (cmake --build --preset release)."""
import json
import os
import subprocess
import sys
import tempfile

WARPSIM = os.environ.get("WARPSIM", "build/release/sim/warpsim")
GPUS = ["v100", "a100", "h100", "h200", "b200"]
ORDER = {"latency": 0, "latency ladder": 1, "shared": 2, "bandwidth": 3, "bandwidth ladder": 4, "compute": 5}


def run(gpu, tmp):
    out = os.path.join(tmp, gpu + ".json")
    subprocess.run([WARPSIM, "calibrate", "--arch", gpu, "--json", out], check=True, stdout=subprocess.DEVNULL)
    with open(out) as f:
        return json.load(f)["rows"]


def number(v):
    return f"{v:.0f}" if v >= 100 else f"{v:.1f}"


def cell(rows, name):
    for r in rows:
        if r["name"] != name:
            continue
        if r["simulated"] is None:
            return "n/m"
        text = number(r["simulated"])
        if r["reference"] is not None:
            error = (r["simulated"] - r["reference"]) / r["reference"] * 100
            text += f" / {number(r['reference'])} ({error:+.0f}%)"
        return text
    return ""


def main():
    with tempfile.TemporaryDirectory() as tmp:
        data = {gpu: run(gpu, tmp) for gpu in GPUS}
    keys = []
    for gpu in GPUS:
        for r in data[gpu]:
            if (r["group"], r["name"], r["unit"]) not in keys:
                keys.append((r["group"], r["name"], r["unit"]))
    keys.sort(key=lambda k: ORDER[k[0]])
    print("| group | benchmark | unit | " + " | ".join(GPUS) + " |")
    print("|---|---|---|" + "---|" * len(GPUS))
    for group, name, unit in keys:
        print(f"| {group} | {name} | {unit} | " + " | ".join(cell(data[g], name) for g in GPUS) + " |")


if __name__ == "__main__":
    sys.exit(main())
