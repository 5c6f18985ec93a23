#!/usr/bin/env bash
# Quick start, step 2 (and what CI runs): set up, then build and run the whole test suite twice,
# optimised and under AddressSanitizer + UndefinedBehaviorSanitizer.
#   tools/test.sh            both builds
#   tools/test.sh release    the optimised build only (faster while developing)
# The sanitized build is compiled at -O1, as ASan's documentation advises: the tests run about
# four times faster than at -O0 (Tutorials.Divergence: 77 s at -O0, 20 s at -O1).
# Under ASan the long model runs (ValidationSuite.*, Calibrate.*, Tutorials.WhatIf: minutes each
# there; the code they run is exercised under ASan by the shorter tests) are left to the
# optimised build: the debug-asan test preset in CMakePresets.json excludes them.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh --tests
presets=("${@:-release debug-asan}")
for preset in ${presets[@]}; do
  echo "== $preset"
  cmake --preset "$preset" >/dev/null
  cmake --build --preset "$preset"
  ctest --preset "$preset"
done
