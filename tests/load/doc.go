// Package load drives a real daemon with many printing panes, many clients
// and concurrent runs, and prints the latency of each verb
// (tests/load/run.sh). A call that fails on a documented limit is allowed
// under load; any other failure fails the test.
package load
