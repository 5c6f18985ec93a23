#!/usr/bin/env bash
# Measures the validation suite on this machine's GPU: builds the harness with nvcc for the GPU's
# own architecture, runs every kernel (checked against its reference first, then timed with CUDA
# events: median and spread of --runs runs after warm-up), and writes one JSON file with the GPU's
# name, SM count, clocks (nvidia-smi, before and after), driver and CUDA versions. Then, when
# Nsight Compute's ncu is installed, it profiles each kernel once (the harness's --profile run)
# for the metrics warpsim reports and writes them beside the JSON as <name>.ncu.csv, which
# `warpsim validate` compares metric by metric. ncu runs with --clock-control none, so the
# GPU's clocks are left as they are (ncu would otherwise lock them to base), and under a time
# limit (WARPSIM_NCU_TIMEOUT seconds, default 300; WARPSIM_NCU=0 skips it).
# It only reads GPU settings; it never changes clocks or anything else.
#   tools/validation/run_on_gpu.sh [OUT.json [harness options]]   (default: measurements/<gpu>-<date>.json)
set -euo pipefail
cd "$(dirname "$0")"
command -v nvcc >/dev/null || export PATH=/usr/local/cuda/bin:$PATH
command -v nvcc >/dev/null || { echo "run_on_gpu: nvcc not found" >&2; exit 1; }
command -v nvidia-smi >/dev/null || { echo "run_on_gpu: nvidia-smi not found: is there an NVIDIA GPU?" >&2; exit 1; }
cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | sed -n 1p | tr -d ' .')
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | sed -n 1p | tr ' ' '_' | tr -cd 'A-Za-z0-9_-')
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

# Nsight Compute metrics: the ones warpsim computes by the same definition (docs/metrics.md),
# asked for only where this ncu knows them (an unknown name would stop the whole profile).
ncu=$(command -v ncu || true)
[ -z "$ncu" ] && [ -x /usr/local/cuda/bin/ncu ] && ncu=/usr/local/cuda/bin/ncu
if [ "${WARPSIM_NCU:-1}" != 0 ] && [ -n "$ncu" ]; then
  wanted="gpu__time_duration.sum sm__cycles_elapsed.avg smsp__inst_executed.sum sm__warps_active.avg.pct_of_peak_sustained_active
    launch__registers_per_thread launch__shared_mem_per_block launch__grid_size l1tex__t_sector_hit_rate.pct lts__t_sector_hit_rate.pct
    dram__bytes_read.sum dram__bytes_write.sum
    l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum
    l1tex__t_requests_pipe_lsu_mem_global_op_st.sum l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum
    l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum
    l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
    sm__sass_thread_inst_executed_op_ffma_pred_on.sum sm__sass_thread_inst_executed_op_fadd_pred_on.sum
    sm__sass_thread_inst_executed_op_fmul_pred_on.sum sm__sass_thread_inst_executed_op_dfma_pred_on.sum
    smsp__sass_branch_targets_threads_divergent.sum smsp__inst_executed_op_branch.sum
    sm__inst_executed_pipe_fma.sum sm__inst_executed_pipe_alu.sum sm__inst_executed_pipe_fp16.sum sm__inst_executed_pipe_fp64.sum
    sm__inst_executed_pipe_xu.sum sm__inst_executed_pipe_lsu.sum sm__inst_executed_pipe_tensor.sum
    smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio
    smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio
    smsp__average_warps_issue_stalled_wait_per_issue_active.ratio smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio
    smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio
    smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio
    smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio
    smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio"
  known=$("$ncu" --query-metrics --csv 2>/dev/null | cut -d, -f1 | tr -d '"' || true)
  metrics=""
  for m in $wanted; do
    grep -qx "${m%%.*}" <<<"$known" && metrics="$metrics${metrics:+,}$m"
  done
  if [ -z "$metrics" ]; then
    echo "run_on_gpu: ncu --query-metrics listed none of the metrics; no profile" >&2
  else
    echo "run_on_gpu: profiling each kernel once with $ncu" >&2
    timeout "${WARPSIM_NCU_TIMEOUT:-300}" "$ncu" --clock-control none --csv --print-units base --metrics "$metrics" \
      "$work/harness" --profile -o "$work/profile.json" "$@" > "$work/ncu.csv" 2> "$work/ncu.err" || ncu_status=$?
    if [ -s "$work/ncu.csv" ]; then
      cp "$work/ncu.csv" "${out%.json}.ncu.csv"
      echo "run_on_gpu: wrote ${out%.json}.ncu.csv${ncu_status:+ (ncu exited with $ncu_status: $(tail -c 300 "$work/ncu.err" | tr '\n' ' '))}" >&2
    else
      echo "run_on_gpu: ncu wrote nothing (exit ${ncu_status:-0}): $(tail -c 500 "$work/ncu.err" | tr '\n' ' ')" >&2
    fi
  fi
fi
exit ${status:-0}
