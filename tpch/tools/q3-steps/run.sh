#!/usr/bin/env bash
# Q3 step by step on 1 and 2 threads (docs/benchmarks/tpch.md). Usage: tpch/tools/q3-steps/run.sh [ROUNDS]
# after ./memwall tpch has built and generated SF 1. CLASSPATH_FILE may name another build's class path.
set -euo pipefail
exec "$(dirname "${BASH_SOURCE[0]}")/../java.sh" tpch/tools/q3-steps/Q3Steps.java \
  "${XDG_CACHE_HOME:-$HOME/.cache}/memwall/sf1" "${1:-40}"
