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
# WARPSIM_KEEP_WORK=DIR keeps the harness, its per-part logs and ncu's raw output there.
trap 'if [ -n "${WARPSIM_KEEP_WORK:-}" ]; then mkdir -p "$WARPSIM_KEEP_WORK"; cp -r "$work"/. "$WARPSIM_KEEP_WORK"; fi; rm -rf "$work"' EXIT
query=name,driver_version,compute_cap,clocks.sm,clocks.max.sm,clocks.mem,clocks.max.mem,clocks.applications.graphics,power.draw,power.limit,temperature.gpu,persistence_mode,compute_mode
nvidia-smi --query-gpu=$query --format=csv > "$work/smi_before.csv"
arch=sm_$cc
# Architecture-specific features: Hopper's wgmma (wgmma_gemm), Blackwell's tcgen05 (tcgen05_gemm).
[ "$cc" = 90 ] && arch=sm_90a
[ "$cc" = 100 ] && arch=sm_100a
echo "run_on_gpu: building the harness for $arch" >&2
nvcc -O2 -std=c++17 -arch=$arch -diag-suppress 177 harness.cu -o "$work/harness"
# One harness process runs the entries in order and rewrites its JSON after each. An entry that
# takes the process down (a sticky CUDA error, or the harness's watchdog: exit 1 or 4) is recorded
# as failed with the harness's last message, and a new process goes on after it, so one bad kernel
# costs one entry, not the run.
"$work/harness" --list > "$work/names" || { echo "run_on_gpu: the harness does not start" >&2; exit 1; }
after=""
part=0
while :; do
  part=$((part + 1))
  st=0
  "$work/harness" -o "$work/part$part.json" ${after:+--after "$after"} --nvidia-smi-before "$work/smi_before.csv" \
    --nvidia-smi-after /dev/null "$@" 2> >(tee "$work/part$part.err" >&2) || st=$?
  wait  # for tee
  case $st in 0) break ;; 3) status=3; break ;; 1|4) ;; *) status=$st; break ;; esac
  status=3
  failed=$(sed -n 's/^harness: running //p' "$work/part$part.err" | tail -n 1)
  [ -n "$failed" ] || { echo "run_on_gpu: the harness failed before any entry" >&2; break; }
  # Its message: what the harness printed after it began that entry.
  sed -n '/^harness: running /h; /^harness: running /!H; ${x;p}' "$work/part$part.err" | sed 1d | tr '\n' ' ' > "$work/failed.$failed"
  echo "run_on_gpu: $failed took the harness down (exit $st); going on after it" >&2
  [ "$failed" = "$(tail -n 1 "$work/names" | cut -f1)" ] && break
  after=$failed
done
nvidia-smi --query-gpu=$query --format=csv > "$work/smi_after.csv"
# Put the parts together in suite order, with each failed entry's message and the after-run
# nvidia-smi text.
python3 - "$work" "$part" "$out" <<'PY'
import json, os, sys
work, parts, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
listed = {}
for line in open(f"{work}/names"):
    name, family, launch_file = line.rstrip("\n").split("\t")
    listed[name] = (family, launch_file)
merged = None
for p in range(1, parts + 1):
    if os.path.exists(f"{work}/part{p}.json"):
        d = json.load(open(f"{work}/part{p}.json"))
        if merged is None:
            merged = d
        else:
            merged["kernels"] += d["kernels"]
    merged = merged or {"kernels": []}
    running = [l[len("harness: running "):] for l in open(f"{work}/part{p}.err").read().splitlines() if l.startswith("harness: running ")]
    if running and os.path.exists(f"{work}/failed.{running[-1]}") and all(k["name"] != running[-1] for k in merged["kernels"]):
        family, launch_file = listed[running[-1]]
        merged["kernels"].append({"name": running[-1], "family": family, "launch_file": launch_file,
                                  "check": "FAILED: " + open(f"{work}/failed.{running[-1]}").read().strip()})
merged.setdefault("gpu", {})["nvidia_smi_after"] = open(f"{work}/smi_after.csv").read()
json.dump(merged, open(out, "w"), indent=1)
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
    sm__inst_executed_pipe_uniform.sum sm__inst_executed_pipe_adu.sum sm__inst_executed_pipe_cbu.sum
    smsp__average_warps_issue_stalled_no_instruction_per_issue_active.ratio
    smsp__average_warps_issue_stalled_branch_resolving_per_issue_active.ratio
    smsp__average_warps_issue_stalled_dispatch_stall_per_issue_active.ratio
    smsp__average_warps_issue_stalled_drain_per_issue_active.ratio smsp__average_warps_issue_stalled_membar_per_issue_active.ratio
    smsp__average_warps_issue_stalled_sleeping_per_issue_active.ratio smsp__average_warps_issue_stalled_selected_per_issue_active.ratio
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
    # In chunks of entries, each its own ncu process under its own time limit, so that a chunk
    # that runs out of time (ncu prints its CSV only when the program ends) loses that chunk alone;
    # the whole profile stops starting new chunks after WARPSIM_NCU_TIMEOUT seconds.
    echo "run_on_gpu: profiling each kernel once with $ncu" >&2
    deadline=$((SECONDS + ${WARPSIM_NCU_TIMEOUT:-300}))
    chunk=${WARPSIM_NCU_CHUNK:-8}
    after=""
    n=0
    while [ $SECONDS -lt $deadline ]; do
      n=$((n + 1))
      ncu_status=0
      timeout $((deadline - SECONDS + 5)) "$ncu" --clock-control none --csv --print-units base --metrics "$metrics" \
        "$work/harness" --profile -o "$work/profile$n.json" ${after:+--after "$after"} --count "$chunk" "$@" \
        > "$work/ncu$n.csv" 2> "$work/ncu$n.err" || ncu_status=$?
      [ $ncu_status -eq 0 ] || echo "run_on_gpu: ncu chunk $n (after ${after:-the start}) exited with $ncu_status: $(tail -c 300 "$work/ncu$n.err" | tr '\n' ' ')" >&2
      # Go on after the last entry this chunk started (a crash loses that entry, not the rest).
      last=$(sed -n 's/^harness: running //p' "$work/ncu$n.err" | tail -n 1)
      [ -n "$last" ] && [ "$last" != "$(tail -n 1 "$work/names" | cut -f1)" ] || break
      after=$last
    done
    # One CSV: the first chunk's header, each chunk's rows with ncu's launch IDs made unique.
    python3 - "$work" "$n" "${out%.json}.ncu.csv" <<'PY'
import csv, io, sys
work, chunks, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
rows, header, next_id = [], None, 0
for c in range(1, chunks + 1):
    lines = [l for l in open(f"{work}/ncu{c}.csv", errors="replace").read().splitlines() if l.startswith('"')]
    if not lines:
        continue
    if header is None:
        header = lines[0]
    ids = {}
    for row in csv.reader(io.StringIO("\n".join(lines[1:]))):
        if row and row[0] != "ID" and row[0] != "":
            row[0] = str(ids.setdefault(row[0], next_id + len(ids)))
        rows.append(row)
    next_id += len(ids)
if header is not None:
    with open(out, "w", newline="") as f:
        f.write(header + "\n")
        csv.writer(f, quoting=csv.QUOTE_ALL, lineterminator="\n").writerows(rows)
    print(f"run_on_gpu: wrote {out} ({next_id} profiled launches)", file=sys.stderr)
else:
    print("run_on_gpu: ncu wrote no CSV rows", file=sys.stderr)
PY
  fi
fi
exit ${status:-0}
