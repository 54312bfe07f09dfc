package request

import (
	"testing"
	"time"

	"github.com/signaltty/signaltty/service/errcode"
)

func TestSaveIntervalBounds(t *testing.T) {
	for _, c := range []struct {
		d  time.Duration
		ok bool
	}{{0, true}, {time.Second, true}, {MaxInterval, true}, {999 * time.Millisecond, false}, {MaxInterval + 1, false}} {
		if got := CheckSaveInterval(c.d) == nil; got != c.ok {
			t.Errorf("CheckSaveInterval(%v) ok = %v, want %v", c.d, got, c.ok)
		}
		if got := CheckSaveOutputInterval(c.d) == nil; got != c.ok {
			t.Errorf("CheckSaveOutputInterval(%v) ok = %v, want %v", c.d, got, c.ok)
		}
	}
	if e := CheckSaveInterval(time.Millisecond); e.Code != errcode.InvalidParams("save_interval_ms") {
		t.Errorf("code %s", e.Code)
	}
}

func TestEmulatorReleaseBounds(t *testing.T) {
	for _, c := range []struct {
		d  time.Duration
		ok bool
	}{{0, true}, {10 * time.Millisecond, true}, {MaxInterval, true}, {9 * time.Millisecond, false}, {MaxInterval + 1, false}} {
		if got := CheckEmulatorReleaseAfter(c.d) == nil; got != c.ok {
			t.Errorf("CheckEmulatorReleaseAfter(%v) ok = %v, want %v", c.d, got, c.ok)
		}
	}
	if err := CheckEmulatorReleaseAfter(time.Millisecond); err == nil || err.Error() != "emulator release delay 1ms: 0 (off) or 10ms..24h" {
		t.Errorf("error %v", err)
	}
}
