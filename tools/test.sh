#!/usr/bin/env bash
# Quick start, step 2 (and what CI runs): set up, then build and run the whole test suite twice,
# optimised and under AddressSanitizer + UndefinedBehaviorSanitizer.
#   tools/test.sh            both builds
#   tools/test.sh release    the optimised build only (faster while developing)
# The sanitized build is compiled at -O1, as ASan's documentation advises: the tests run about
# four times faster than at -O0 (Tutorials.Divergence: 77 s at -O0, 20 s at -O1), and with line
# tables only (-g1): sanitizer reports keep their file:line, and a file compiles 20-35% faster
# than with full -g (sim/cli/sweep_run.cpp 44 s -> 29 s, tests/e2e/cli_test.cpp 42 s -> 34 s).
# Precompiling GoogleTest and nlohmann/json for the tests was tried and saved nothing: the time
# goes into instantiating templates, not parsing headers. Unity builds do save it
# (CMAKE_UNITY_BUILD in CMakePresets.json: CMake compiles each target's sources in batches of 8 as
# one file, so each batch instantiates those templates once): a clean optimised build's compile
# times, summed over its objects from build/release/.ninja_log, went from 1262 s to 466 s, and it
# now takes 253 s on two cores (the sanitized build 366 s). The price: names in anonymous
# namespaces must differ across a target's files (the tests' too), and an edit recompiles its
# whole batch; configure with -DCMAKE_UNITY_BUILD=OFF to compile one file at a time.
# Under ASan the long model runs (ValidationSuite.*, Calibrate.*, and the tutorials whose claims
# are about timing: Tutorials.WhatIf, .Scheduling, .MemoryVsCompute, .FlashAttention, .Precision;
# 20 s to minutes each there; the code they run is exercised under ASan by the shorter tests) are
# left to the optimised build: the debug-asan test preset in CMakePresets.json excludes them.
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
