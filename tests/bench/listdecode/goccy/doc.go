// Package goccy measures github.com/goccy/go-json decoding the reply of
// Mux.ListPanes over 1,000 panes (../testdata) into the types the varlink
// binding generates, beside encoding/json; a module of its own so that the
// product's go.mod does not take the decoder in. ../doc.go says more.
//
//	cd tests/bench/listdecode/goccy && go test -run '^$' -bench . -benchmem
package goccy
