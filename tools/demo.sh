#!/usr/bin/env bash
# Quick start, step 1: set up, build, and simulate the bundled default (a vector add on an A100).
# Extra arguments go to `warpsim run`, e.g.  tools/demo.sh --json out.json
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
cmake --preset release >/dev/null
cmake --build --preset release --target warpsim
exec build/release/sim/warpsim run --arch a100 traces/examples/vector_add.trace.gz "$@"
