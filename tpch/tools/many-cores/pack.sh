#!/usr/bin/env bash
# Packs what the 16-core `device` machine needs to run memwall (it has no JDK) into .devrun/ at the
# repository root, which git ignores and a device call carries (carry: [".devrun"]): a jlink'ed JDK 25
# runtime, and the command line's class path without Spark and without the SQL front end (hand plans
# only), with duckdb_jdbc cut to its Linux x86-64 library, and the JMH benchmarks' own jar with JMH; jars
# are stored uncompressed so that one xz pass compresses everything (about 45 MB, within the 64 MiB a call
# sends), and async-profiler's library where ./memwall fetched one (for scaling.sh's wall-clock profiles).
# Usage: tpch/tools/many-cores/pack.sh   (after ./memwall has built; then scaling.sh runs on the device)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
jdk="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}"
cd "$root"
[[ -f cli/target/launcher/classpath ]] || { echo "run ./memwall once first (it builds the class path)" >&2; exit 1; }
grep -qx '/.devrun/' .git/info/exclude 2>/dev/null || echo '/.devrun/' >> .git/info/exclude
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p .devrun "$work/lib" "$work/repack"
"$jdk/bin/jlink" --add-modules java.base,java.compiler,java.desktop,java.logging,java.management,java.naming,java.rmi,\
java.scripting,java.security.jgss,java.sql,java.xml,jdk.incubator.vector,jdk.jfr,jdk.management,jdk.unsupported,jdk.zipfs \
  --strip-debug --no-header-files --no-man-pages --output "$work/jre" 2>/dev/null
# the command line's class path up to Spark's first jar, less Calcite, Substrait and what only they use
tr ':' '\n' < cli/target/launcher/classpath | awk '/spark-sql_/{stop=1} !stop' \
  | grep -v -E 'calcite|isthmus|/io/substrait/|avatica|jts-io|proj4j|httpc|uzaygezen|json-path|json-smart|accessors-smart|sketches-core|/memory-0\.9|aggdesigner|commons-dbcp|commons-pool|jakarta\.transaction|protobuf-java-util|async-profiler' \
  > "$work/classpath"
grep -E 'slf4j-api|arrow-compression|apiguardian' <(tr ':' '\n' < cli/target/launcher/classpath) >> "$work/classpath"
(cd cli/target/classes && zip -qr "$work/lib/cli.jar" .)
# the benchmarks without their fat jar's copies of everything above, and JMH itself
ls jmh-benchmarks/target/jmh-benchmarks-*.jar >> "$work/classpath"
for jar in org/openjdk/jmh/jmh-core net/sf/jopt-simple/jopt-simple org/apache/commons/commons-math3; do
  ls "$HOME"/.m2/repository/$jar/*/*.jar | grep -v -E 'sources|javadoc' | sort -V | tail -1 >> "$work/classpath"
done
while read -r jar; do cp "$jar" "$work/lib/"; done < "$work/classpath"
for jar in "$work"/lib/duckdb_jdbc-*.jar; do
  zip -q -d "$jar" 'libduckdb_java.so_windows_*' 'libduckdb_java.so_linux_arm64' 'libduckdb_java.so_macos_*' || true
done
for jar in "$work"/lib/*.jar; do
  rm -rf "$work/repack"/* && (cd "$work/repack" && unzip -q "$jar" && rm "$jar" && zip -q -0 -r -X "$jar" .)
done
tar -C "$work" -cf - jre lib | xz -9 -T0 > .devrun/memwall.txz
cp cli/target/launcher/jvm.args .devrun/
profiler=$(ls "$HOME"/.cache/memwall/libasyncProfiler-*-linux-x64.so 2>/dev/null | sort -V | tail -1 || true)
[[ -n "$profiler" ]] && cp "$profiler" .devrun/libasyncProfiler.so
echo "packed: $(du -h .devrun/memwall.txz | cut -f1) in .devrun/ (commit $(git rev-parse --short HEAD)$(git diff --quiet || echo ', with uncommitted changes'))"
