#!/usr/bin/env bash
# Simulation speed against --host-threads (docs/performance.md#host-threads): the synthetic
# bench workload, and two traces recorded from launch files (a memory-bound saxpy of 16384 CTAs
# and the compute-bound SGEMM 256), each run with 1, 2, ... up to the given counts. Prints the
# best of REPEATS wall-clock times per count, and checks that every count printed the same summary.
#   tools/bench/host_threads.sh [COUNTS (default "1 2")] [REPEATS (default 3)]
set -euo pipefail
cd "$(dirname "$0")/../.."
counts=(${1:-1 2})
repeats=${2:-3}
warpsim=build/release/sim/warpsim
[ -x "$warpsim" ] || { echo "build first: cmake --preset release && cmake --build --preset release" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$warpsim" trace --arch a100 tools/bench/saxpy_4m.launch.yaml -o "$tmp/saxpy_4m.trace.gz" > /dev/null
"$warpsim" trace --arch a100 tools/bench/sgemm_256.launch.yaml -o "$tmp/sgemm_256.trace.gz" > /dev/null
echo "machine: $(nproc) hardware threads, $(lscpu | sed -n 's/^Model name: *//p')"
best() {  # best wall seconds of $repeats runs of "$@"; the summary goes to $tmp/out
  local best=""
  for _ in $(seq "$repeats"); do
    local start end
    start=$(date +%s.%N)
    "$@" > "$tmp/out"
    end=$(date +%s.%N)
    best=$(echo "$start $end ${best:-1e9}" | awk '{t = $2 - $1; print (t < $3 ? t : $3)}')
  done
  echo "$best"
}
for workload in synthetic saxpy_4m sgemm_256; do
  reference=""
  for n in "${counts[@]}"; do
    if [ "$workload" = synthetic ]; then
      t=$(best "$warpsim" bench --arch a100 --iterations 100 --host-threads "$n")
      summary=$(grep -o '[0-9]* warp instructions, [0-9]* simulated cycles' "$tmp/out")
    else
      t=$(best "$warpsim" run --arch a100 "$tmp/$workload.trace.gz" --host-threads "$n")
      summary=$(cat "$tmp/out")
    fi
    [ -z "$reference" ] && reference=$summary && base=$t
    [ "$summary" = "$reference" ] || { echo "$workload: $n threads printed a different summary" >&2; exit 1; }
    printf '%-10s %2s host threads  %6.2f s  x%.2f\n' "$workload" "$n" "$t" "$(echo "$base $t" | awk '{print $1 / $2}')"
  done
done
