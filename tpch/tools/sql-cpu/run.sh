#!/usr/bin/env bash
# A query's hand-written plan against its plan from SQL (execution and planning apart), by thread CPU time
# on one thread. Usage: tpch/tools/sql-cpu/run.sh QUERIES (e.g. 6,12), after ./memwall tpch has built and
# generated SF 1.
set -euo pipefail
exec "$(dirname "${BASH_SOURCE[0]}")/../java.sh" tpch/tools/sql-cpu/SqlCpu.java \
  "${XDG_CACHE_HOME:-$HOME/.cache}/memwall/sf1" 1 "$1"
