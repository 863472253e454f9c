#!/usr/bin/env bash
# Substrait's default extensions loaded by Substrait (SimpleExtension.loadDefaults) and by engine-sql
# (DefaultExtensions), each in a fresh JVM, alternated for ROUNDS rounds (default 3), after ./memwall has
# built. Usage: tpch/tools/extension-loading/run.sh [ROUNDS [WARM]]
set -euo pipefail
tool="$(dirname "${BASH_SOURCE[0]}")"
for _ in $(seq 1 "${1:-3}"); do
  for loader in substrait memwall; do
    "$tool/../java.sh" tpch/tools/extension-loading/ExtensionLoading.java "$loader" "${2:-20}"
  done
done
