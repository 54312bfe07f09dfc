// Command compare measures signaltty against tmux (and systemd-run --user
// --wait under a private user manager) on the same machine, alternating the
// systems within every round, and prints a table of medians and ratios
// (optionally written to tests/bench/RESULTS.md). Run it through
// tests/bench/compare.sh, from the repository root.
package main
