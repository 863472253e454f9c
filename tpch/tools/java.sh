#!/usr/bin/env bash
# Runs one of these tools' single-file Java programs from the repository root, on the class path and with
# the JVM options of the command line that ./memwall tpch builds. Usage: tpch/tools/java.sh FILE.java ARGS...
# CLASSPATH_FILE may name another build's class path; CLASSPATH_PREFIX is put before it.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
java="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java"
cd "$root"
exec "$java" @cli/target/launcher/jvm.args -XX:CICompilerCount=3 \
  -cp "${CLASSPATH_PREFIX:-}$(cat "${CLASSPATH_FILE:-cli/target/launcher/classpath}")" "$@"
