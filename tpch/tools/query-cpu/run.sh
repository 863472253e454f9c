#!/usr/bin/env bash
# TPC-H queries timed by thread CPU time (docs/benchmarks/tpch.md). Usage: tpch/tools/query-cpu/run.sh QUERIES
# (e.g. 1,6), after ./memwall tpch has built and generated SF 1; on one thread, so the CPU time is the query's.
set -euo pipefail
exec "$(dirname "${BASH_SOURCE[0]}")/../java.sh" tpch/tools/query-cpu/QueryCpu.java \
  "${XDG_CACHE_HOME:-$HOME/.cache}/memwall/sf1" 1 "$1"
