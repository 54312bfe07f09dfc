package main

import (
	"bufio"
	"encoding/json"
	"net"
	"strings"
	"sync"
	"time"
)

// refuseWindow is how long a socket-activated daemon that cannot start
// keeps answering connections before it exits: long enough for the clients
// whose connections activated it, short enough not to pose as a server.
const refuseWindow = 500 * time.Millisecond

// refuse answers every call waiting on an activated listener with the
// error that stops this daemon (code unavailable.<what>), until no new
// connection arrived for refuseWindow. Without it the clients that
// activated the service would wait until the socket unit gives up
// restarting it. Nothing is served: each connection gets one error reply
// per call and is closed at its end. See docs/systemd.md.
//
// Before answering a connection it tries the state directory again
// (retry): when the holder has gone in the meantime, it returns the lock
// and the listener with that connection still unread, and the daemon
// starts after all.
func refuse(ln net.Listener, code, message string, data map[string]any, retry func() *stateLock) (*stateLock, net.Listener) {
	ul, ok := ln.(*net.UnixListener)
	if !ok {
		return nil, nil
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		ul.SetDeadline(time.Now().Add(refuseWindow))
		c, err := ul.Accept()
		if err != nil {
			return nil, nil
		}
		if l := retry(); l != nil {
			ul.SetDeadline(time.Time{})
			return l, &pendingListener{Listener: ln, pending: []net.Conn{c}}
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			refuseConn(c, code, message, data)
		}()
	}
}

// pendingListener returns connections already accepted before new ones.
type pendingListener struct {
	net.Listener
	mu      sync.Mutex
	pending []net.Conn
}

func (p *pendingListener) Accept() (net.Conn, error) {
	p.mu.Lock()
	if len(p.pending) > 0 {
		c := p.pending[0]
		p.pending = p.pending[1:]
		p.mu.Unlock()
		return c, nil
	}
	p.mu.Unlock()
	return p.Listener.Accept()
}

func refuseConn(c net.Conn, code, message string, data map[string]any) {
	defer c.Close()
	c.SetDeadline(time.Now().Add(2 * time.Second))
	r := bufio.NewReader(c)
	for {
		msg, err := r.ReadBytes(0)
		if err != nil {
			return
		}
		var req struct {
			Method string `json:"method"`
			Oneway bool   `json:"oneway"`
		}
		if json.Unmarshal(msg[:len(msg)-1], &req) != nil {
			return
		}
		if req.Oneway {
			continue
		}
		iface := req.Method
		if i := strings.LastIndexByte(iface, '.'); i > 0 {
			iface = iface[:i]
		}
		reply, _ := json.Marshal(map[string]any{
			"error":      iface + ".Unavailable",
			"parameters": map[string]any{"code": code, "message": message, "data": data},
		})
		if _, err := c.Write(append(reply, 0)); err != nil {
			return
		}
	}
}
