// Command callpath measures the in-process Run.Start + Run.Wait latency of
// one or more signalttyd builds against the floor (pty.Start of `true`
// until reaped, in this process), alternating them round by round in one
// process so that a shared, noisy machine affects each alike. It prints,
// per build, the median of each round and its ratio to the floor's median
// of the same round.
//
//	go run ./tests/bench/callpath -rounds 10 -n 40 /tmp/base /tmp/new
//
// Each argument is a directory holding a signalttyd binary.
package main
