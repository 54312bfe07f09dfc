#!/usr/bin/env bash
# Benchmarks signaltty against tmux (and `systemd-run --user --wait` under a
# private user manager, tests/harness/user-systemd.sh) on this machine:
# output throughput, memory, run latency, scale, idle wake-ups, snapshot and
# the Go micro-benchmarks. The systems alternate within every round; the
# table gives medians and ratios. Takes about 4 minutes on 2 cores.
#
# Usage: tests/bench/compare.sh [flags]       (run as root: the private user
#        manager needs cgroups and mount namespaces; without it the
#        systemd-run column is left out)
#   --results FILE   also write the table there (e.g. tests/bench/RESULTS.md)
#   --quick          small inputs, one round: a smoke test of the suite
#   --only REGEXP    workload groups: throughput, latency, memory, scale, gobench
#   go run ./tests/bench/compare -h lists the rest.
set -euo pipefail
cd "$(dirname "$0")/../.."
if ! command -v tmux >/dev/null; then
  echo "compare.sh: installing tmux" >&2
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tmux >/dev/null
fi
exec go run ./tests/bench/compare "$@"
