#!/usr/bin/env bash
# Benchmarks signaltty against tmux -- the system's and Debian 13's 3.5a,
# unpacked by tests/harness/get-tmux.sh -- (and `systemd-run --user --wait`
# under a private user manager, tests/harness/user-systemd.sh) on this machine:
# output throughput (one pane, and 100 panes at once), memory (idle, idle
# printed and history panes; 1,000 panes printing a line every 100 ms for
# a minute: peak RSS, and RSS 10 s after), agent workloads (20 and 50 panes
# replaying the recorded agent streams of tests/bench/streams at their pace
# and 10×: server CPU and peak RSS), attached clients under that load
# (keystroke to echo through a real attach client; a client per pane: its
# output, CPU and lag behind the pane's screen), run latency, scale (1,000
# panes; 10,000 with --panes-10k), idle wake-ups, snapshot and the Go
# micro-benchmarks. The
# systems alternate within every round; the table gives medians, ratios and
# whether each goal is met. Takes about 8 minutes on a quiet 2-core machine
# (a loaded one took 10-18: the many-panes row's tmux samples vary most);
# --panes-10k adds about 2-3, the agent workloads about 14 (-agentfor
# or SIGNALTTY_BENCH_AGENT_FOR=20s shortens their 60 s windows), the
# attached clients about 4 more (three 60 s windows, -attachfor or the same
# variable, and three typing runs), the memory under load about 5 (-loadfor
# shortens its 60 s window).
#
# Usage: tests/bench/compare.sh [flags]       (run as root: the private user
#        manager needs cgroups and mount namespaces; without it the
#        systemd-run column is left out)
#   --results FILE   also write the table there (e.g. tests/bench/RESULTS.md)
#   --quick          small inputs, one round: a smoke test of the suite
#   --only REGEXP    workload groups: throughput, many, agents, agents-keys,
#                    agents-attached, latency, memory,
#                    memory-idle, memory-short10k, memory-full10k,
#                    memory-color10k, memory-bash, memory-load, scale,
#                    scale10k, gobench
#   --panes-10k      also the 10,000 idle panes section
#   --tmux2 FILE     the second tmux's command file ("" for none)
#   --agentprof DIR  also profile the daemon in one more 20-pane agent sample
#   go run ./tests/bench/compare -h lists the rest.
set -euo pipefail
cd "$(dirname "$0")/../.."
if ! command -v tmux >/dev/null; then
  echo "compare.sh: installing tmux" >&2
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tmux >/dev/null
fi
# The second tmux column: without it (no network, another architecture) the
# tables say why and show the system's tmux only.
bash tests/harness/get-tmux.sh >&2 || echo "compare.sh: no tmux 3.5a; its columns will be n/a" >&2
exec go run ./tests/bench/compare "$@"
