#!/usr/bin/env bash
# Builds signaltty, starts a daemon on a private socket, runs bash in a pane,
# types a command into it, prints the pane's screen, and stops everything.
set -euo pipefail
cd "$(dirname "$0")/.."
CGO_ENABLED=0 go build -o bin/ ./cmd/signalttyd ./cmd/signaltty ./cmd/signaltty-mcp ./cmd/signaltty-attach
export PATH=$PWD/bin:$PATH

run=$(mktemp -d)
trap 'signaltty shutdown >/dev/null 2>&1 || true; rm -rf "$run"' EXIT
export XDG_RUNTIME_DIR=$run XDG_STATE_HOME=$run/state SIGNALTTY_LOGIND=0

# The first call starts signalttyd in the background (no systemd needed).
signaltty workspace create --name demo
pane=$(signaltty --json pane spawn --workspace demo --env PS1='$ ' -- bash --norc --noprofile |
  sed -n 's/.*"id":"\(pane_[0-9a-f]*\)".*/\1/p')
signaltty pane send --pane "$pane" --text 'ls -la /usr/bin | head\n'
# Wait until the command has printed its last line and the prompt is back.
for _ in $(seq 100); do
  screen=$(signaltty pane capture --pane "$pane")
  [ "$(printf '%s\n' "$screen" | tail -n 1)" = '$' ] && [ "$(printf '%s\n' "$screen" | wc -l)" -gt 5 ] && break
  sleep 0.1
done
echo "---- screen of $pane ----"
signaltty pane capture --pane "$pane"
echo "-------------------------"
signaltty pane kill --pane "$pane"
signaltty status
