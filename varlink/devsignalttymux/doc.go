// Package devsignalttymux holds the Go bindings of the dev.signaltty.Mux
// varlink interface, generated from its IDL file dev.signaltty.Mux.varlink
// in this directory by varlink-go-interface-generator (`go generate` in
// this directory, after changing the IDL): the interface's types and
// errors, a client call for each method, and VarlinkNew, which wraps a
// server's implementation of the methods for a varlink service. The
// generated code is never edited; the interface and its comments are
// changed in the IDL file, and the package comment the generator writes
// from the IDL's says what the interface is.
//
// The package only describes the interface: the adapters that serve it
// from package service are in package varlink.
package devsignalttymux
