#!/usr/bin/env bash
# DuckDB from Python on the data set memwall generated, as the cross-check of `--compare duckdb`
# (docs/benchmarks/tpch.md): the 22 queries' SQL with the validation parameters, a database file loaded
# from the same Arrow files with DuckDbOracle's conversions, every query warmed 3 times, then 5 runs each.
# Usage: tpch/tools/duckdb-python/run.sh [THREADS] [SF]   (after ./memwall tpch has built and generated)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
threads="${1:-2}"; sf="${2:-1}"
work="${TMPDIR:-/tmp}/memwall-duckdb-python-sf$sf"
mkdir -p "$work"
python3 -c "import duckdb, pyarrow" 2>/dev/null || pip install -q duckdb==2.0.0 pyarrow
java="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java"
(cd "$work" && "$java" -cp "$root/tpch/target/classes:$(cat "$root/cli/target/launcher/classpath")" \
  "$root/tpch/tools/duckdb-python/DumpSql.java" "$sf")
cd "$work" && python3 "$root/tpch/tools/duckdb-python/bench.py" "${XDG_CACHE_HOME:-$HOME/.cache}/memwall/sf$sf" \
  "$work/tpch.duckdb" "$threads" 3 5
