#!/usr/bin/env bash
# Regenerates traces/kernels/ptx/*.ptx and traces/tutorials/ptx/*.ptx from the CUDA sources next
# to them, for each target the simulator's configs cover, when nvcc is installed (CUDA 13 no
# longer targets sm_70: V100 PTX is compute_75, which the Volta config runs). The PTX is
# committed, so nothing else needs nvcc.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
command -v nvcc >/dev/null || { echo "nvcc not found; the committed PTX stays as it is" >&2; exit 0; }
for dir in kernels tutorials; do
  cd "$root/traces/$dir"
  # A source may name its own targets on a line "// ptx-targets: 90a" (architecture-specific
  # features such as wgmma exist only for that exact GPU).
  for cu in *.cu; do
    name=${cu%.cu}
    targets=$(sed -n 's#^// ptx-targets: ##p' "$cu")
    for arch in ${targets:-75 80 90 100}; do
      nvcc -arch=compute_$arch -lineinfo -diag-suppress 177 -ptx "$cu" -o "ptx/$name.sm_$arch.ptx"
    done
  done
done
echo "kernels_make_ptx: now tools/kernels_make_sass.sh (after tools/setup.sh --sass) for the SASS listings" >&2
