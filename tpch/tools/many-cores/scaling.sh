#!/usr/bin/env bash
# Runs on the 16-core `device` machine, from the repository root, after pack.sh: unpacks .devrun/,
# generates TPC-H at SF (default 10) and times memwall against DuckDB in its own process at each
# THREADS:VERIFY pair (default "16:duckdb 2:duckdb 8:none 4:none"; 1 warm-up, 2 timed runs each), within
# BUDGET seconds (default 540: the next step is skipped where under 45 s are left). Results (console logs,
# the runner's Markdown and CSV reports, the machine's lscpu, the machine profile the first run calibrated)
# go into $OUT/results.tar, updated after every step, so what ran comes back even when the call is cut
# off. With AGG=1 it first runs PartitionedAggregationBenchmark (JMH) for 15M rows over 1M keys at 1, 2,
# 4, 8 and 16 threads. A pair T:jfr instead times only the queries in PROFILE_QUERIES (default
# 13,15,16,21) at T threads without DuckDB, under a Java Flight Recording (execution samples every
# 10 ms) saved as $res/T-threads.jfr; a pair T:wall does the same under async-profiler's wall clock,
# per thread ($res/T-threads-wall.collapsed.xz, read by serial.py; the profiler's library is
# .devrun/libasyncProfiler.so, which pack.sh copies there where ./memwall fetched it).
# Device call: command "tpch/tools/many-cores/scaling.sh", carry [".devrun"], timeout_s 600.
set -u
start=$(date +%s); budget=${BUDGET:-540}; sf=${SF:-10}
root=$(pwd); res=/tmp/res; mkdir -p $res /tmp/mw
save() { tar -cf "$OUT/results.tar" -C /tmp res 2>/dev/null; }
left() { echo $(( budget - ($(date +%s) - start) )); }
note() { echo "$* at $(( $(date +%s) - start )) s" | tee -a $res/progress.txt; save; }
{ nproc; lscpu; free -g; df -h /tmp; } > $res/machine.txt 2>&1
tar -C /tmp/mw -xJf "$root/.devrun/memwall.txz" || { echo "unpack failed" >&2; exit 1; }
java=/tmp/mw/jre/bin/java
cp=$(ls /tmp/mw/lib/*.jar | paste -sd:)
$java -version >> $res/machine.txt 2>&1
note unpacked
if [[ "${AGG:-0}" == 1 ]]; then
  timeout $(( $(left) - 60 )) $java @.devrun/jvm.args -cp "$cp" org.openjdk.jmh.Main PartitionedAggregationBenchmark \
    -p rows=15000000 -p groups=1000000 -p threads=1,2,4,8,16 -p partitioned=true -f 1 -wi 2 -w 1s -i 3 -r 1s \
    -rf json -rff $res/aggregation.json > $res/aggregation.txt 2>&1
  note "aggregation scaling (exit $?)"
fi
mw() { timeout "$1" $java @.devrun/jvm.args -cp "$cp" dev.memwall.cli.MemwallCli tpch --data /tmp/mwdata -q "${@:2}"; }
mw $(( $(left) - 5 )) --sf $sf --threads $(nproc) --queries 6 --warmup 0 --runs 1 --verify none --report $res/gen \
  > $res/generate.log 2>&1
note "generated SF $sf (exit $?)"
cp "$HOME"/.cache/memwall/machine-profile.properties $res/ 2>/dev/null # the quick calibration the operators plan with
for spec in ${THREADS:-16:duckdb 2:duckdb 8:none 4:none}; do
  t=${spec%%:*}; verify=${spec##*:}
  [[ $(left) -lt 45 ]] && { note "skipped $t threads"; continue; }
  if [[ $verify == jfr || $verify == wall ]]; then
    agent="-XX:StartFlightRecording=filename=$res/$t-threads.jfr,settings=profile"
    [[ $verify == wall ]] && agent="-agentpath:$root/.devrun/libasyncProfiler.so=start,event=wall,interval=1ms,threads,collapsed,file=$res/$t-threads-wall.collapsed"
    JAVA_TOOL_OPTIONS="$agent" mw $(( $(left) - 5 )) --sf $sf --threads $t --queries ${PROFILE_QUERIES:-13,15,16,21} \
      --verify none --warmup ${PROFILE_WARMUP:-2} --runs ${PROFILE_RUNS:-3} --report $res/$verify > $res/$verify-$t.log 2>&1
    status=$?
    [[ -f $res/$t-threads-wall.collapsed ]] && xz -T0 -6 $res/$t-threads-wall.collapsed # hundreds of MB: only 8 files of limited size come back
    note "$t threads under $verify (exit $status)"
    continue
  fi
  mw $(( $(left) - 5 )) --sf $sf --threads $t --compare duckdb --verify $verify --warmup 1 --runs 2 --report $res/reports \
    > $res/threads-$t.log 2>&1
  note "$t threads (exit $?)"
done
grep -h -A 25 '^query' $res/threads-*.log | grep -E '^(query|total)' || true
