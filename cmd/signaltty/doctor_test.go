package main

import (
	"strings"
	"testing"
	"time"

	srv "github.com/signaltty/signaltty/varlink/devsignalttyserver"
)

func TestDoctorReport(t *testing.T) {
	now := time.Date(2026, 3, 14, 15, 0, 0, 0, time.UTC)
	ts := func(d time.Duration) *string { s := now.Add(d).Format("2006-01-02T15:04:05.000Z07:00"); return &s }
	ms := func(v int64) *int64 { return &v }
	str := func(v string) *string { return &v }
	base := srv.Status{Version: "0.1.0", Pid: 42, Address: "unix:/run/user/1/signaltty/dev.signaltty", Uptime_ms: 65000,
		Persistence: srv.Persistence{Enabled: true, State_dir: "/s", Restored_from: "snapshot.json", Last_saved_at: ts(-3 * time.Second), Last_bytes: 10, Last_ms: 2}}
	for _, c := range []struct {
		name   string
		edit   func(*srv.Status)
		want   []string
		absent []string
	}{
		{"holding", func(s *srv.Status) {
			s.Logind = srv.Logind{State: "holding", Since: *ts(-time.Minute), Holding: true, Inhibit_delay_ms: ms(5000), Owner: str(":1.4"), Inhibits: 1}
		}, []string{"logind shutdown monitor: holding", "logind waits up to 5s", ":1.4", "no problems found", "last save 2026-03-14T14:59:57.000Z (3s ago)"}, []string{"!"}},
		{"off", func(s *srv.Status) { s.Logind = srv.Logind{State: "off"} },
			[]string{"logind shutdown monitor: off", "SIGNALTTY_LOGIND=0", "no problems found"}, []string{"!"}},
		{"backoff", func(s *srv.Status) {
			s.Logind = srv.Logind{State: "backoff", Next_retry_at: ts(4 * time.Second), Last_error: str("Inhibit: org.freedesktop.DBus.Error.AccessDenied: no"), Last_error_at: ts(-time.Second)}
		}, []string{"  ! no delay inhibitor", "next attempt at 2026-03-14T15:00:04.000Z", "last error (2026-03-14T14:59:59.000Z (1s ago)): Inhibit: org.freedesktop.DBus.Error.AccessDenied", "1 thing needs attention"}, nil},
		{"slow save", func(s *srv.Status) {
			s.Logind = srv.Logind{State: "holding", Holding: true, Inhibit_delay_ms: ms(5000), Last_save_at: ts(-time.Hour), Last_save_ms: ms(2900), Last_release_ms: ms(3100)}
		}, []string{"inhibitor released after 3100 ms", "! the shutdown save took more than half of logind's delay (3100 ms of 5000 ms)"}, nil},
		{"save errors", func(s *srv.Status) {
			s.Persistence.Last_error = str("read-only file system")
			s.Persistence.Restored_from = "corrupt: /s/snapshot.corrupt-x.json"
			s.Logind = srv.Logind{State: "stopping", Last_save_at: ts(0), Last_save_ms: ms(1), Last_save_error: str("read-only file system")}
		}, []string{"! the last save failed: read-only file system", "set aside as /s/snapshot.corrupt-x.json", "the host is shutting down", "! the shutdown save failed", "3 things need attention"}, nil},
		{"journal full", func(s *srv.Status) {
			s.Journal = srv.Journal{Enabled: true, Seq: 9, Published: 9, Reserved: 4096, Error: str("events cannot be journaled: no space left on device"),
				Lost:    []srv.JournalRange{{First: 7, Last: 9}},
				Outages: []srv.JournalOutage{{Broke_at: *ts(-time.Minute), First_seq: 7, Last_seq: 9, Error: "no space left on device"}}}
		}, []string{"! events cannot be journaled since 2026-03-14T14:59:00.000Z (1m0s ago) (from seq 7): no space left on device; they are still delivered live",
			"events 7..9 were delivered but not journaled (cursors below 9 get conflict.history_lost)", "replay possible after seq 9", "1 thing needs attention"},
			[]string{"found at start", "recovered at"}},
		{"journal recovered", func(s *srv.Status) {
			s.Journal = srv.Journal{Enabled: true, Seq: 12, Published: 12, Reserved: 4096, Lost: []srv.JournalRange{{First: 7, Last: 9}},
				Outages: []srv.JournalOutage{{Broke_at: *ts(-time.Minute), Recovered_at: ts(-time.Second), First_seq: 7, Last_seq: 9, Error: "no space left on device"}}}
		}, []string{"broke at 2026-03-14T14:59:00.000Z (1m0s ago) (seq 7), recovered at 2026-03-14T14:59:59.000Z (1s ago)", "events 7..9 were delivered", "no problems found"},
			[]string{"found at start", "!"}},
		{"unclean exits", func(s *srv.Status) {
			s.Logind = srv.Logind{State: "off"}
			s.Previous_daemons = &[]srv.PreviousDaemon{
				{Pid: 7, Started_at: ts(-time.Hour), Last_seen_at: ts(-time.Minute), State: "running", Leftovers_known: true,
					Leftovers: []srv.LeftoverProcess{{Pid: 70, Name: "sleep"}, {Pid: 71, Name: "node"}}},
				{Pid: 6, State: "stopping", Leftovers_known: true, Leftovers: []srv.LeftoverProcess{}},
				{Pid: 5, State: "running", Leftovers: []srv.LeftoverProcess{}},
			}
		}, []string{"previous daemons:",
			"! a previous daemon (pid 7, started 2026-03-14T14:00:00.000Z) exited uncleanly, at or after 2026-03-14T14:59:00.000Z (1m0s ago)",
			"! 2 processes of its panes still run: 70 sleep, 71 node; `signaltty doctor --stop-leftovers` stops them",
			"! a previous daemon (pid 6) exited uncleanly during its shutdown", "none of its panes' processes still runs",
			"cannot be told apart", "4 things need attention"}, nil},
		{"stopped leaving processes", func(s *srv.Status) {
			s.Logind = srv.Logind{State: "off"}
			s.Previous_daemons = &[]srv.PreviousDaemon{{Pid: 8, Last_seen_at: ts(-time.Hour), State: "stopped", Leftovers_known: true,
				Leftovers: []srv.LeftoverProcess{{Pid: 80, Name: "sleep"}}}}
		}, []string{"! a previous daemon (pid 8) stopped at 2026-03-14T14:00:00.000Z (1h0m0s ago) while processes of its panes still ran",
			"! 1 process of its panes still runs: 80 sleep", "2 things need attention"}, []string{"uncleanly"}},
		{"no session bus", func(s *srv.Status) {
			s.Logind = srv.Logind{State: "off"}
			s.Session_bus = &srv.SessionBus{State: "none", Since: *ts(-time.Minute), Reason: str("DBUS_SESSION_BUS_ADDRESS is unset and /run/user/1/bus is missing (Debian: dbus-user-session)")}
		}, []string{"session bus: none", "not on D-Bus: DBUS_SESSION_BUS_ADDRESS is unset and /run/user/1/bus is missing (Debian: dbus-user-session)", "no problems found"}, []string{"!"}},
		{"on the session bus", func(s *srv.Status) {
			s.Logind = srv.Logind{State: "off"}
			s.Session_bus = &srv.SessionBus{State: "on", Since: *ts(-time.Minute)}
		}, []string{"session bus: on", "owns dev.signaltty1 since 2026-03-14T14:59:00.000Z (1m0s ago)", "no problems found"}, []string{"!"}},
		{"session bus lost", func(s *srv.Status) {
			s.Logind = srv.Logind{State: "off"}
			s.Session_bus = &srv.SessionBus{State: "reconnecting", Since: *ts(-time.Second), Reason: str("the connection to the session bus ended")}
		}, []string{"session bus: reconnecting", "! not on the session bus since 2026-03-14T14:59:59.000Z (1s ago) (the connection to the session bus ended): reconnecting", "1 thing needs attention"}, nil},
		{"a daemon that does not report the session bus", func(s *srv.Status) { s.Logind = srv.Logind{State: "off"} },
			[]string{"no problems found"}, []string{"session bus"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := base
			c.edit(&s)
			var b strings.Builder
			writeDoctor(&b, s, now)
			out := b.String()
			for _, w := range c.want {
				if !strings.Contains(out, w) {
					t.Errorf("missing %q in:\n%s", w, out)
				}
			}
			for _, a := range c.absent {
				if strings.Contains(out, a) {
					t.Errorf("unexpected %q in:\n%s", a, out)
				}
			}
		})
	}
}
