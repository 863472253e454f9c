#!/usr/bin/env bash
# Q21 step by step on 1 and 2 threads (docs/benchmarks/tpch.md). Usage: tpch/tools/q21-steps/run.sh
# after ./memwall tpch has built and generated SF 1.
set -euo pipefail
export CLASSPATH_PREFIX="tpch/target/classes:"
exec "$(dirname "${BASH_SOURCE[0]}")/../java.sh" tpch/tools/q21-steps/Q21Steps.java \
  "${XDG_CACHE_HOME:-$HOME/.cache}/memwall/sf1"
