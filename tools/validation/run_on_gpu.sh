#!/usr/bin/env bash
# Measures the validation suite on this machine's GPU: builds the harness with nvcc for the GPU's
# own architecture, runs every kernel (checked against its reference first, then timed with CUDA
# events: median and spread of --runs runs after warm-up), and writes one JSON file with the GPU's
# name, SM count, clocks (nvidia-smi, before and after), driver and CUDA versions.
# It only reads GPU settings; it never changes clocks or anything else.
#   tools/validation/run_on_gpu.sh [OUT.json [harness options]]   (default: measurements/<gpu>-<date>.json)
set -euo pipefail
cd "$(dirname "$0")"
command -v nvcc >/dev/null || export PATH=/usr/local/cuda/bin:$PATH
command -v nvcc >/dev/null || { echo "run_on_gpu: nvcc not found" >&2; exit 1; }
command -v nvidia-smi >/dev/null || { echo "run_on_gpu: nvidia-smi not found: is there an NVIDIA GPU?" >&2; exit 1; }
cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d ' .')
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr ' ' '_' | tr -cd 'A-Za-z0-9_-')
out=${1:-measurements/${gpu}-$(date -u +%Y%m%d-%H%M).json}
[ $# -gt 0 ] && shift  # the rest goes to the harness (--runs, --warmup, --only)
mkdir -p "$(dirname "$out")"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
query=name,driver_version,compute_cap,clocks.sm,clocks.max.sm,clocks.mem,clocks.max.mem,clocks.applications.graphics,power.draw,power.limit,temperature.gpu,persistence_mode,compute_mode
nvidia-smi --query-gpu=$query --format=csv > "$work/smi_before.csv"
arch=sm_$cc
# Architecture-specific features: Hopper's wgmma (wgmma_gemm), Blackwell's tcgen05 (tcgen05_gemm).
[ "$cc" = 90 ] && arch=sm_90a
[ "$cc" = 100 ] && arch=sm_100a
echo "run_on_gpu: building the harness for $arch" >&2
nvcc -O2 -std=c++17 -arch=$arch -diag-suppress 177 harness.cu -o "$work/harness"
"$work/harness" -o "$work/results.json" --nvidia-smi-before "$work/smi_before.csv" --nvidia-smi-after /dev/null "$@" || status=$?
nvidia-smi --query-gpu=$query --format=csv > "$work/smi_after.csv"
# The harness has finished; put the after-run nvidia-smi text into its JSON.
python3 - "$work/results.json" "$work/smi_after.csv" "$out" <<'PY' 2>/dev/null || { cp "$work/results.json" "$out"; cp "$work/smi_after.csv" "${out%.json}.smi_after.csv"; }
import json, sys
d = json.load(open(sys.argv[1]))
d["gpu"]["nvidia_smi_after"] = open(sys.argv[2]).read()
json.dump(d, open(sys.argv[3], "w"), indent=1)
PY
echo "run_on_gpu: wrote $out" >&2
exit ${status:-0}
