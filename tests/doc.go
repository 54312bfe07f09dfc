// Package tests holds signaltty's end-to-end tests: real signalttyd
// daemons, real PTYs and processes, driven through the real signaltty CLI,
// the real varlinkctl and a raw varlink client (see harness). Run them all
// with tests/run.
package tests
