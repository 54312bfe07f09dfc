package main

import (
	"net"
	"os"
	"syscall"
)

// socketFile is a socket path this daemon bound itself, with the identity
// (device and inode) of the file it created. At exit the path is removed
// only if it still is that file: a socket unit may have bound the same path
// since (systemctl --user start signaltty.socket replaces the file), and
// removing its socket would make a running service unreachable. A
// socket-activated daemon has no socketFile and never unlinks anything: the
// socket unit owns the path (RemoveOnStop=yes). See docs/systemd.md.
type socketFile struct {
	path     string
	dev, ino uint64
}

// ownSocket records the identity of the socket file ln was bound to and
// turns off the listener's own unlink-on-close, which removes the path
// whatever file it names by then.
func ownSocket(ln net.Listener, path string) *socketFile {
	if ul, ok := ln.(*net.UnixListener); ok {
		ul.SetUnlinkOnClose(false)
	}
	dev, ino, ok := fileID(path)
	if !ok {
		return nil
	}
	return &socketFile{path: path, dev: dev, ino: ino}
}

// remove unlinks the path when it is still the file this daemon created.
// It reports whether it did.
func (s *socketFile) remove() bool {
	if s == nil {
		return false
	}
	if dev, ino, ok := fileID(s.path); !ok || dev != s.dev || ino != s.ino {
		return false
	}
	return os.Remove(s.path) == nil
}

func fileID(path string) (dev, ino uint64, ok bool) {
	fi, err := os.Lstat(path)
	if err != nil {
		return 0, 0, false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || fi.Mode().Type() != os.ModeSocket {
		return 0, 0, false
	}
	return uint64(st.Dev), st.Ino, true
}

// keepActivatedSocket makes sure closing an activated listener never
// unlinks the socket unit's path.
func keepActivatedSocket(ln net.Listener) {
	if ul, ok := ln.(*net.UnixListener); ok {
		ul.SetUnlinkOnClose(false)
	}
}
