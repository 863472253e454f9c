#!/usr/bin/env bash
# A query's hand-written plan against its plan from SQL (execution and planning apart), by thread CPU time
# on one thread, alternated in one process; MODE hand, sql or sqlexec times one way in a process of its own
# (see SqlCpu.java), THREADS above 1 for wall times. Usage: tpch/tools/sql-cpu/run.sh QUERIES [MODE [THREADS]]
# (e.g. 6,12 sqlexec 2), after ./memwall tpch has built and generated SF 1.
set -euo pipefail
exec "$(dirname "${BASH_SOURCE[0]}")/../java.sh" tpch/tools/sql-cpu/SqlCpu.java \
  "${XDG_CACHE_HOME:-$HOME/.cache}/memwall/sf1" "${3:-1}" "$1" "${2:-all}"
