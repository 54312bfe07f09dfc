// Package listdecode holds benchmarks only: what a Go client pays to decode
// the reply of Mux.ListPanes over 1,000 panes (testdata/listpanes-1000.json.gz,
// a reply message of a real signalttyd with the scale workload's 1,000 idle
// panes) into the types the varlink binding generates, with encoding/json
// as the varlink library does it (the message, then its parameters) and in
// one pass, and with encoding/json/v2 (GOEXPERIMENT=jsonv2). The goccy
// directory, a module of its own, measures github.com/goccy/go-json on the
// same reply.
//
//	go test -run '^$' -bench . -benchmem ./tests/bench/listdecode/
//	GOEXPERIMENT=jsonv2 go test -run '^$' -bench . -benchmem ./tests/bench/listdecode/
//	(cd tests/bench/listdecode/goccy && go test -run '^$' -bench . -benchmem)
//
// LISTDECODE_SIGNALTTYD=DIR go test -run TestWriteReply ./tests/bench/listdecode/
// writes the reply anew from the signalttyd in DIR.
package listdecode
