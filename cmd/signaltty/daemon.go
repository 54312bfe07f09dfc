package main

import (
	"context"
	"encoding/json"
	"net"

	"github.com/signaltty/signaltty/cmd/internal/daemon"
	vl "github.com/varlink/go/varlink"
)

// The client side of signalttyd (dialing, autostart, calls, errors) is
// package daemon, which signaltty-mcp shares; these are its names here.

// callError is a failed call with the daemon's error fields.
type callError = daemon.Error

// client is one connection to the daemon.
type client struct {
	conn *vl.Connection
	d    *daemon.Client
}

// dial connects to the daemon at address, starting one when none answers
// (daemon.Dial).
func dial(ctx context.Context, address string) (*client, error) {
	d, err := daemon.Dial(ctx, address)
	if err != nil {
		return nil, err
	}
	return &client{conn: d.Conn, d: d}, nil
}

// call makes one call and returns the raw reply parameters.
func (c *client) call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	return c.d.Call(ctx, method, params)
}

// stream makes a call with "more" and hands each reply to fn until the last.
func (c *client) stream(ctx context.Context, method string, params any, fn func(json.RawMessage) error) error {
	return c.d.Stream(ctx, method, params, fn)
}

// dialStream opens the byte stream to the daemon at addr (daemon.DialStream).
func dialStream(ctx context.Context, addr string) (net.Conn, error) {
	return daemon.DialStream(ctx, addr)
}

// defaultAddress is the daemon address when --address is not given.
func defaultAddress() string { return daemon.DefaultAddress() }
