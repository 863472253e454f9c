#!/usr/bin/env bash
# TPC-H queries timed by thread CPU time (docs/benchmarks/tpch.md). Usage: tpch/tools/query-cpu/run.sh QUERIES
# (e.g. 1,6), after ./memwall tpch has built and generated SF 1; on one thread, so the CPU time is the query's.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
java="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java"
cd "$root"
"$java" @cli/target/launcher/jvm.args -XX:CICompilerCount=3 -cp "$(cat cli/target/launcher/classpath)" \
  tpch/tools/query-cpu/QueryCpu.java "${XDG_CACHE_HOME:-$HOME/.cache}/memwall/sf1" 1 "$1"
