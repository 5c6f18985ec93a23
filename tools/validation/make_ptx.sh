#!/usr/bin/env bash
# Regenerates tools/validation/ptx/ from kernels/*.cu for the PTX targets warpsim's configs use
# (the same as tools/kernels_make_ptx.sh), then the launch files, references and harness table.
set -euo pipefail
cd "$(dirname "$0")"
command -v nvcc >/dev/null || { echo "nvcc not found; the committed PTX stays as it is" >&2; exit 0; }
mkdir -p ptx
for cu in kernels/*.cu; do
  name=$(basename "${cu%.cu}")
  for arch in 75 80 90 100; do
    nvcc -arch=compute_$arch -lineinfo -diag-suppress 177 -ptx "$cu" -o "ptx/$name.sm_$arch.ptx"
  done
done
python3 suite.py
echo "make_ptx: now tools/kernels_make_sass.sh (after tools/setup.sh --sass) for the SASS listings" >&2
