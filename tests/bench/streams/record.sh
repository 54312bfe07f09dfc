#!/usr/bin/env bash
# Records the real agents' terminal output into tests/bench/streams/: each
# agent (installed by tests/harness/get-agents.sh) in a 120×40 pane of a real
# daemon, against the scripted model server, under `script` (util-linux).
# See README.md here for what is recorded and the files' format.
#
# Usage: tests/bench/streams/record.sh [AGENT...]   (default: claude codex pi opencode)
set -euo pipefail
cd "$(dirname "$0")/../../.."
out=$PWD/tests/bench/streams
SIGNALTTY_RECORD_STREAMS=$out SIGNALTTY_RECORD_AGENTS="${*:-claude codex pi opencode}" \
  SIGNALTTY_TEST_RACE=${SIGNALTTY_TEST_RACE:-0} \
  go test ./tests/ -run '^TestRecordAgentStreams$' -count=1 -v -timeout 30m
