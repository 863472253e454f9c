#!/usr/bin/env bash
# Q21 step by step on 1 and 2 threads (docs/benchmarks/tpch.md). Usage: tpch/tools/q21-steps/run.sh
# after ./memwall tpch has built and generated SF 1.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
java="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java"
cd "$root"
"$java" @cli/target/launcher/jvm.args -XX:CICompilerCount=3 \
  -cp "tpch/target/classes:$(cat cli/target/launcher/classpath)" tpch/tools/q21-steps/Q21Steps.java \
  "${XDG_CACHE_HOME:-$HOME/.cache}/memwall/sf1"
