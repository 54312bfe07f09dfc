#!/usr/bin/env bash
# Measures two foundation figures on a private daemon:
#  1. the daemon's resident memory (VmRSS) with N idle `sleep` panes (default 100);
#  2. the time to push `seq 1 200000` through one 80x24 pane: from the start of
#     the run to its completion (leader reaped, output emulated), as the run's
#     own duration_ms, and wall time around `signaltty run` + `run wait`.
# Usage: tests/bench/foundation.sh [N]
set -euo pipefail
cd "$(dirname "$0")/../.."
N=${1:-100}
bin=$(mktemp -d); run=$(mktemp -d)
go build -o "$bin/" ./cmd/signalttyd ./cmd/signaltty
export XDG_RUNTIME_DIR=$run XDG_STATE_HOME=$run/state SIGNALTTY_LOGIND=0 SIGNALTTY_NO_AUTOSTART=1
"$bin/signalttyd" 2>"$run/daemon.log" & dpid=$!
trap 'kill $dpid 2>/dev/null; wait $dpid 2>/dev/null; rm -rf "$bin" "$run"' EXIT
st() { "$bin/signaltty" "$@"; }
for _ in $(seq 100); do st status >/dev/null 2>&1 && break; sleep 0.05; done
st workspace create --name bench >/dev/null
rss() { awk '/^VmRSS/ {print $2}' /proc/$dpid/status; }
base=$(rss)
for i in $(seq "$N"); do st pane spawn --workspace bench -- sleep 1000 >/dev/null; done
sleep 2 # let allocations settle before reading RSS (a measurement, not synchronisation)
full=$(rss)
echo "daemon VmRSS: ${base} KiB empty, ${full} KiB with $N idle panes ($(( (full - base) / N )) KiB per pane)"
st workspace remove --workspace bench --recursive
st workspace create --name seq >/dev/null
t0=$(date +%s%N)
st run --key seq --workspace seq --cols 80 --rows 24 -- seq 1 200000 >/dev/null
rec=$(st --json run wait --run r0 --output=false)
t1=$(date +%s%N)
echo "seq 1 200000 through one 80x24 pane: run duration_ms $(sed -n 's/.*"duration_ms":\([0-9]*\).*/\1/p' <<<"$rec"), wall $(( (t1 - t0) / 1000000 )) ms (run + run wait)"
pane=$(sed -n 's/.*"pane":"\([^"]*\)".*/\1/p' <<<"$rec")
echo "last row: $(st pane capture --pane "$pane" | tail -n 1)"
