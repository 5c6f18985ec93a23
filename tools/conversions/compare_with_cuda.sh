#!/usr/bin/env bash
# Compares warpsim's float encodings with the host code of CUDA's own conversion headers
# (compare_with_cuda.cu says what and over which inputs). Needs nvcc, not a GPU.
#   tools/conversions/compare_with_cuda.sh [--quick]
set -euo pipefail
cd "$(dirname "$0")/../.."
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
[[ -x $nvcc ]] || { echo "compare_with_cuda: nvcc is not installed" >&2; exit 2; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$nvcc" -O2 -std=c++20 -I sim tools/conversions/compare_with_cuda.cu sim/frontend/ptx/float_formats.cpp -o "$out/compare"
"$out/compare" "$@"
