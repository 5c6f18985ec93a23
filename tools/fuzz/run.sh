#!/usr/bin/env bash
# Builds the libFuzzer targets (the `fuzz` preset: clang, ASan + UBSan), seeds each from the
# repository's own inputs, and fuzzes each for a while (docs/fuzzing.md).
#   tools/fuzz/run.sh [seconds per target (default 300)] [target ...]
# Findings land in build/fuzz/findings/<target>/ (crash-*, timeout-*, oom-*); reproduce one with
#   build/fuzz/tools/fuzz/<target> build/fuzz/findings/<target>/crash-...
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-300}
shift || true
targets=("${@:-fuzz_ptx fuzz_sass fuzz_trace fuzz_launch fuzz_config fuzz_sweep fuzz_ncu}")
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz
root=build/fuzz
repo=$(pwd)

seed() {  # seed <target> <file> [prefix byte]
  local dir=$root/corpus/$1 name
  name=$(basename "$2" .gz)
  mkdir -p "$dir"
  if [[ $2 == *.gz ]]; then { zcat "$2" || true; } | head -c 65536 > "$dir/$name"; else head -c 65536 "$2" > "$dir/$name"; fi
  if [[ -n ${3:-} ]]; then { printf "$3"; cat "$dir/$name"; } > "$dir/$name.tmp" && mv "$dir/$name.tmp" "$dir/$name"; fi
}
for f in traces/examples/*.trace* traces/tutorials/*.trace* traces/microbench/latency_* tools/fuzz/seeds/*.trace; do seed fuzz_trace "$f" '\x00'; done
for f in traces/accelsim/kernel-*.traceg; do seed fuzz_trace "$f" '\x01'; done
for f in configs/*.yaml; do seed fuzz_config "$f" '\x00'; done
mkdir -p $root/corpus/fuzz_config
printf '\x01memory.l2.size_kib=61440\nmemory.l1.hit_latency=30\n' > $root/corpus/fuzz_config/sets1
printf '\x01memory.hbm.refresh=all_bank\ntopology.sms=8\nmemory.l1.shared_carveouts_kib=[0, 8, 16]\n' > $root/corpus/fuzz_config/sets2
for f in traces/kernels/sass/{reduce_sum,softmax,cg_tiles,scan_lookback,mma_8bit}.sm_90a.sass tools/validation/sass/microbench.sm_80.sass; do seed fuzz_sass "$f"; done
for f in traces/kernels/ptx/*.sm_90*.ptx traces/kernels/ptx/*.sm_100*.ptx tools/validation/ptx/*.sm_90.ptx tools/fuzz/seeds/*.ptx; do seed fuzz_ptx "$f"; done
mkdir -p $root/corpus/fuzz_launch
for f in traces/kernels/*.launch.yaml; do
  # Absolute paths, so the fuzzed copy (written elsewhere) still finds its PTX and references;
  # four CTAs at most, so that each run takes milliseconds.
  sed -e "s|^ptx: |ptx: $repo/traces/kernels/|" -e "s|{sm}|90|" -e "s|file: ref/|file: $repo/traces/kernels/ref/|" \
    -e "s|grid: \[[0-9, ]*\]|grid: [4, 1, 1]|" \
    "$f" > "$root/corpus/fuzz_launch/$(basename "$f")"
done
for f in tools/fuzz/seeds/*.launch.yaml; do
  sed -e "s|^ptx: |ptx: $repo/tools/fuzz/seeds/|" "$f" > "$root/corpus/fuzz_launch/$(basename "$f")"
done
mkdir -p $root/corpus/fuzz_sweep
for f in traces/sweeps/*.yaml; do  # inputs made absolute, as for the launch files
  { printf '\x00'; sed -e "s|- \.\./\.\./|- $repo/|" -e "s|- \.\./|- $repo/traces/|" "$f"; } > "$root/corpus/fuzz_sweep/$(basename "$f")"
done
{ printf '\x01'; printf '{"index":0,"point_id":"048966a0be5277b6","input":"%s/traces/examples/fma_ilp.trace","arch":"a100","axes":{"l2":"half"},"set":["memory.l2.size_kib=20480"],"checks":"error","reconvergence":""}\n' "$repo"; } \
  > $root/corpus/fuzz_sweep/points.jsonl
for f in tools/fuzz/seeds/*.ncu.csv; do seed fuzz_ncu "$f"; done

# Dictionaries of the formats' own words, so mutations splice in real opcodes and keys.
mkdir -p $root/dict
words() { sort -u | grep -vE '^$' | sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/.*/"&"/'; }
cat traces/kernels/ptx/*.ptx | grep -oE '^\s*(@!?%p[0-9]+ )?[.a-z][a-z0-9_:.]+' | sed -E 's/^\s*(@!?%p[0-9]+ )?//' \
  | tr '.' '\n' | sed 's/^/./' | words > $root/dict/fuzz_ptx.dict
# Edge values for immediates: what integer and float arithmetic must survive without trapping.
printf '%s\n' -1 0 1 -2147483648 2147483647 4294967295 -9223372036854775808 9223372036854775807 \
  0f7F800000 0f7FC00000 0f80000000 0d7FF8000000000000 | words >> $root/dict/fuzz_ptx.dict
{ cat traces/examples/*.trace | grep -oE '^\.[a-z]+|[a-z]+=' ; zcat traces/examples/*.gz | grep -oE '^\.[a-z]+|[a-z]+=' | head -1000 || true; } \
  | words > $root/dict/fuzz_trace.dict
cat $root/dict/fuzz_ptx.dict >> $root/dict/fuzz_trace.dict  # trace lines name PTX mnemonics
cat configs/*.yaml | grep -oE '^\s*[a-z_0-9]+:' | tr -d ' ' | words > $root/dict/fuzz_config.dict
cat traces/kernels/*.launch.yaml | grep -oE '[a-z_]+:' | words > $root/dict/fuzz_launch.dict
# SASS: the listings' opcode parts, register and special-register names.
{ cat traces/kernels/sass/*.sass tools/validation/sass/*.sass | grep -oE '^ +/\*[0-9a-f]{4}\*/ +(@!?U?P[0-9T] +)?[A-Z][A-Z0-9_.]+' \
    | sed -E 's#.*\*/ +(@[^ ]+ +)?##' | tr '.' '\n' | sed 's/^/./'; printf 'SR_TID.X\nSR_CTAID.X\nSR_LANEID\nURZ\nRZ\nPT\nc[0x0]\ndesc[UR4]\n'; } \
  | words > $root/dict/fuzz_sass.dict
{ cat traces/sweeps/*.yaml | grep -oE '[a-z_.]+:'; printf 'x2\nx0.5\n"point_id":\n"axes":\n"set":\n'; } | words > $root/dict/fuzz_sweep.dict
cat $root/dict/fuzz_config.dict >> $root/dict/fuzz_sweep.dict  # sweeps name config keys
{ printf '"ID"\n"Kernel Name"\n"Grid Size"\n"Metric Name"\n"Metric Value"\n"Metric Unit"\nn/a\n==PROF==\n'; \
  grep -oE '[a-z0-9_]+__[a-z0-9_.]+' tools/validation/run_on_gpu.sh; } | words > $root/dict/fuzz_ncu.dict

for t in ${targets[@]}; do
  # libFuzzer refuses to start without its dictionary, and the filter below would hide that.
  [ -s "$root/dict/$t.dict" ] || { echo "run.sh: no dictionary for $t ($root/dict/$t.dict)" >&2; exit 1; }
  echo "== $t (${seconds}s)"
  mkdir -p "$root/findings/$t"
  "$root/tools/fuzz/$t" "$root/corpus/$t" -max_total_time="$seconds" -max_len=65536 -timeout=20 -rss_limit_mb=6000 \
    -artifact_prefix="$root/findings/$t/" -dict="$root/dict/$t.dict" -print_final_stats=1 2>&1 | grep -E "^#[0-9]+ +DONE|^stat::number_of_executed_units|ERROR|SUMMARY|fuzz: unexpected|Test unit written" || true
done
echo "findings:"; find $root/findings -type f | sed 's/^/  /'
