// Package varlink serves signaltty's varlink interfaces: dev.signaltty.Server,
// dev.signaltty.Mux and dev.signaltty.Events. The IDL of each lives in its
// own directory next to the Go bindings generated from it
// (varlink-go-interface-generator, see generate.go there); the files of this
// package adapt each method to the service package, one file per interface.
//
// The connection layer (serve.go) runs its own accept loop: it checks the
// peer's uid, caps a request at MaxRequest bytes, and tells long-running
// handlers when their client hangs up, none of which the varlink library
// does by itself.
package varlink
