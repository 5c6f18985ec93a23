#!/usr/bin/env python3
"""Launch costs beyond the empty kernel's, from a measurement and warpsim's comparison of it.

CUDA-event times (the JSON's time_us_median) include the host's part of a launch; Nsight
Compute's gpu__time_duration.sum does not. For each single-launch entry this prints event minus
Nsight Compute time, and the MAPE of warpsim against each way of measuring (each minus the empty
kernel's own, whose Nsight Compute time comes from the .ncu.csv beside the JSON).
docs/validation.md ("Known gaps") quotes its output.

  build/release/sim/warpsim validate M.json --arch h200 --metrics-csv m.csv
  tools/validation/launch_overhead.py M.json m.csv
"""
import collections
import csv
import json
import statistics
import sys


def main(measurement, metrics_csv):
    kernels = json.load(open(measurement))["kernels"]
    event = {k["name"]: k["time_us_median"] * 1000 for k in kernels if "time_us_median" in k}
    ncu, sim, launches = collections.defaultdict(float), collections.defaultdict(float), collections.Counter()
    for row in csv.DictReader(open(metrics_csv)):
        if row["metric"] == "gpu__time_duration.sum":
            ncu[row["entry"]] += float(row["measured"])
            sim[row["entry"]] += float(row["simulated"])
            launches[row["entry"]] += 1
    empty_event = event["empty_kernel"]
    empty_ncu = None
    for row in csv.DictReader(open(measurement[: -len(".json")] + ".ncu.csv")):
        if row["Kernel Name"] == "empty_kernel" and row["Grid Size"] == "(1, 1, 1)" and row["Metric Name"] == "gpu__time_duration.sum":
            empty_ncu = float(row["Metric Value"].replace(",", ""))
    print(f"empty kernel: event {empty_event:.0f} ns, Nsight Compute {empty_ncu:.0f} ns")
    by_event, by_ncu = [], []
    rows = []
    for entry in ncu:
        if entry not in event or launches[entry] != 1 or entry == "empty_kernel":
            continue
        rows.append((event[entry] - ncu[entry], entry))
        if entry.startswith("empty_grid"):
            continue  # the launch family: what a dispatch model is fitted on
        by_event.append(abs(sim[entry] - (event[entry] - empty_event)) / (event[entry] - empty_event) * 100)
        by_ncu.append(abs(sim[entry] - (ncu[entry] - empty_ncu)) / (ncu[entry] - empty_ncu) * 100)
    for gap, entry in sorted(rows):
        print(f"{gap:8.0f} ns  {entry}")
    print(f"{len(by_event)} single-launch entries: MAPE {statistics.mean(by_event):.1f}% by events "
          f"(median {statistics.median(by_event):.1f}%), {statistics.mean(by_ncu):.1f}% by Nsight Compute "
          f"(median {statistics.median(by_ncu):.1f}%)")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
