#!/usr/bin/env bash
# A Spark standalone cluster on this machine: one master and WORKERS workers (default 2), each its own JVM,
# from the Spark distribution the PyPI package pyspark bundles (installed once into a virtual environment),
# or from SPARK_HOME when set. Run through the launcher, which sets JAVA_HOME to a JDK 25:
#   ./memwall cluster start     starts it (waits until every worker has registered); prints the master URL
#   ./memwall cluster status    says what runs
#   ./memwall cluster stop      stops it
# Then: ./memwall tpch --engine spark --master spark://127.0.0.1:7077 (memwall's jars go to the executors).
# Settings (environment): WORKERS (2), WORKER_CORES (1), WORKER_MEMORY (6g), SPARK_MASTER_PORT (7077),
# MEMWALL_CLUSTER_DIR (logs, pids, work directories; default ~/.cache/memwall/spark-cluster).
set -euo pipefail

spark_version=4.2.0
cache="${XDG_CACHE_HOME:-$HOME/.cache}/memwall"
dir="${MEMWALL_CLUSTER_DIR:-$cache/spark-cluster}"
workers="${WORKERS:-2}"
port="${SPARK_MASTER_PORT:-7077}"
master="spark://127.0.0.1:$port"

spark_home() {
  if [[ -n "${SPARK_HOME:-}" ]]; then
    printf '%s' "$SPARK_HOME"
    return
  fi
  local venv="$cache/pyspark-$spark_version"
  if ! compgen -G "$venv/lib/python3*/site-packages/pyspark/bin/spark-class" >/dev/null; then
    echo "memwall cluster: installing Spark $spark_version (PyPI pyspark) into $venv ..." >&2
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q "pyspark==$spark_version" >&2
  fi
  local found
  found=$(compgen -G "$venv/lib/python3*/site-packages/pyspark" | head -n 1)
  printf '%s' "$found"
}

alive() { # pid file
  [[ -f "$1" ]] && kill -0 "$(cat "$1")" 2>/dev/null
}

start_daemon() { # name, log, pid file, class, args...
  local name=$1 log=$2 pidfile=$3
  shift 3
  nohup "$SPARK_HOME/bin/spark-class" "$@" >"$log" 2>&1 &
  echo $! >"$pidfile"
  echo "memwall cluster: $name started (pid $(cat "$pidfile"), log $log)" >&2
}

registered_workers() {
  grep -l "Successfully registered with master" "$dir"/logs/worker-*.log 2>/dev/null | wc -l
}

case "${1:-status}" in
  start)
    SPARK_HOME=$(spark_home)
    export SPARK_HOME
    mkdir -p "$dir/logs" "$dir/pids"
    export SPARK_LOCAL_IP=127.0.0.1
    if alive "$dir/pids/master"; then
      echo "memwall cluster: already running at $master" >&2
      exit 0
    fi
    start_daemon master "$dir/logs/master.log" "$dir/pids/master" org.apache.spark.deploy.master.Master \
      --host 127.0.0.1 --port "$port" --webui-port 0
    for ((i = 1; i <= workers; i++)); do
      mkdir -p "$dir/work-$i"
      start_daemon "worker $i" "$dir/logs/worker-$i.log" "$dir/pids/worker-$i" org.apache.spark.deploy.worker.Worker \
        --host 127.0.0.1 --cores "${WORKER_CORES:-1}" --memory "${WORKER_MEMORY:-6g}" --work-dir "$dir/work-$i" \
        --webui-port 0 "$master"
    done
    for ((t = 0; t < 120; t++)); do
      if [[ $(registered_workers) -ge $workers ]]; then
        echo "$master"
        exit 0
      fi
      sleep 1
    done
    echo "memwall cluster: $(registered_workers) of $workers workers registered after 120 s; logs in $dir/logs" >&2
    exit 1
    ;;
  stop)
    for pidfile in "$dir"/pids/*; do
      [[ -f "$pidfile" ]] || continue
      if alive "$pidfile"; then
        kill "$(cat "$pidfile")" 2>/dev/null || true
        echo "memwall cluster: stopped $(basename "$pidfile")" >&2
      fi
      rm -f "$pidfile"
    done
    rm -f "$dir"/logs/worker-*.log
    ;;
  status)
    running=0
    for pidfile in "$dir"/pids/*; do
      [[ -f "$pidfile" ]] || continue
      if alive "$pidfile"; then
        echo "$(basename "$pidfile"): running (pid $(cat "$pidfile"))"
        running=$((running + 1))
      fi
    done
    [[ $running -gt 0 ]] && echo "master: $master" || echo "not running"
    ;;
  *)
    echo "usage: ./memwall cluster start|status|stop" >&2
    exit 2
    ;;
esac
