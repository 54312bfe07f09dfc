#!/usr/bin/env bash
# tests/load/run.sh [full]
#
# Drives a real signalttyd (built from this checkout) with panes printing a
# line every 100 ms, clients issuing mixed verbs (GetStatus, ListPanes,
# CaptureRows, GetPane) and concurrent runs (Run.Start + Run.Wait), then
# prints p50/p99 per verb, the daemon's memory, descriptors and threads.
# It fails on any error except documented limit errors (Unavailable), and
# when the daemon's descriptors do not come back to their level before the
# load.
#
#   tests/load/run.sh        the CI version: 100 panes, 20 clients, 10 runs, 10 s
#   tests/load/run.sh full   1,000 panes, 100 clients, 50 runs, 60 s
# SIGNALTTY_LOAD_PROFILES=DIR keeps the daemon's heap profiles there (before the load,
# after it, after its panes were killed) and a CPU profile of the load's first 10 s.
# SIGNALTTY_LOAD_PANES, _CLIENTS, _RUNS and _SECONDS override either.
set -euo pipefail
cd "$(dirname "$(readlink -f "$0")")/../.."
command -v go >/dev/null 2>&1 || export PATH=$PATH:/usr/local/go/bin
if [ "${1:-}" = full ]; then
  : "${SIGNALTTY_LOAD_PANES:=1000}" "${SIGNALTTY_LOAD_CLIENTS:=100}" "${SIGNALTTY_LOAD_RUNS:=50}" "${SIGNALTTY_LOAD_SECONDS:=60}"
fi
export SIGNALTTY_LOAD=1 SIGNALTTY_LOAD_PANES SIGNALTTY_LOAD_CLIENTS SIGNALTTY_LOAD_RUNS SIGNALTTY_LOAD_SECONDS SIGNALTTY_LOAD_PROFILES
exec go test -count=1 -timeout 30m -v -run '^TestLoad$' ./tests/load/
