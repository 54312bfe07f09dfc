package varlink

import (
	"bytes"
	"context"
	"os"
	"testing"
	"time"

	"github.com/signaltty/signaltty/service"
	mux "github.com/signaltty/signaltty/varlink/devsignalttymux"
)

// wholeReply is the ListPanes reply as the varlink library encodes it from
// the whole list (what the kept records must reproduce byte for byte).
func wholeReply(t testing.TB, svc *service.Service, ws string) []byte {
	t.Helper()
	ps, err := svc.ListPanes(ws, "")
	if err != nil {
		t.Fatal(err)
	}
	var out struct {
		Panes []mux.Pane `json:"panes"`
	}
	out.Panes = panesOut(ps)
	b, err := encodeReply(&out, false) // as the daemon sends a reply: no HTML escaping
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// wholeWorkspace is the GetWorkspace reply as the generated
// ReplyGetWorkspace encodes it.
func wholeWorkspace(t testing.TB, svc *service.Service, ref string) []byte {
	t.Helper()
	w, tabs, panes, err := svc.GetWorkspace(ref)
	if err != nil {
		t.Fatal(err)
	}
	var out struct {
		Workspace mux.Workspace `json:"workspace"`
		Tabs      []mux.Tab     `json:"tabs"`
		Panes     []mux.Pane    `json:"panes"`
	}
	out.Workspace = workspaceOut(w)
	out.Tabs = []mux.Tab{}
	for _, tb := range tabs {
		out.Tabs = append(out.Tabs, tabOut(tb))
	}
	out.Panes = panesOut(panes)
	b, err := encodeReply(&out, false) // as the daemon sends a reply: no HTML escaping
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func newRecordsService(t testing.TB) *service.Service {
	svc := service.New(service.Config{Version: "t", Address: "unix:/nonexistent", Environ: os.Environ()})
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		svc.Shutdown(ctx)
	})
	return svc
}

func TestListPanesAndGetWorkspaceFromKeptRecordsAreTheWholeEncoding(t *testing.T) {
	svc := newRecordsService(t)
	w, err := svc.CreateWorkspace("w", "")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for i := 0; i < 6; i++ {
		argv := []string{"cat"}
		if i == 1 { // sets a title and the alternate screen once it reads a line
			argv = []string{"sh", "-c", `read x; printf '\033]0;a <title> & more\007\033[?1049h'; exec cat`}
		}
		p, err := svc.SpawnPane(service.SpawnRequest{Workspace: w.ID, Argv: argv})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, p.ID)
	}
	pr := newPaneRecords()
	all := func(string) bool { return true }
	check := func(what string) {
		t.Helper()
		got, err := pr.listPanes(svc, "", "", all)
		if err != nil {
			t.Fatal(err)
		}
		if want := wholeReply(t, svc, ""); !bytes.Equal(got, want) {
			t.Fatalf("%s: kept records give\n%s\nthe whole encoding is\n%s", what, got, want)
		}
		got, err = pr.getWorkspace(svc, w.ID)
		if err != nil {
			t.Fatal(err)
		}
		if want := wholeWorkspace(t, svc, w.ID); !bytes.Equal(got, want) {
			t.Fatalf("%s: GetWorkspace from kept records gives\n%s\nthe whole encoding is\n%s", what, got, want)
		}
	}
	check("first listing")
	check("nothing changed")
	if _, err := svc.ResizePane(ids[0], 100, 30); err != nil {
		t.Fatal(err)
	}
	check("after a resize")
	// A title and the alternate screen, from the pane's output.
	if _, err := svc.SendInput(context.Background(), ids[1], []byte("\n")); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		p, _ := svc.GetPane(ids[1])
		if p.Title == "a <title> & more" && p.Screen != "primary" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("title and screen not seen: %+v", p)
		}
		time.Sleep(10 * time.Millisecond)
	}
	check("after a title and the alternate screen")
	if got, _ := pr.listPanes(svc, "", "", all); !bytes.Contains(got, []byte(`"a <title> & more"`)) {
		t.Fatalf("the title is not as it is in the listing: %s", got)
	}
	if err := svc.SignalPane(ids[2], "TERM"); err != nil {
		t.Fatal(err)
	}
	for {
		p, _ := svc.GetPane(ids[2])
		if p.State == service.StateExited {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("pane did not exit: %+v", p)
		}
		time.Sleep(10 * time.Millisecond)
	}
	check("after an exit")
	if err := svc.RemovePane(context.Background(), ids[3], true); err != nil {
		t.Fatal(err)
	}
	check("after a removal")
	got, err := pr.listPanes(svc, w.ID, "", func(id string) bool { return id != ids[4] })
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(got, []byte(ids[4])) || !bytes.Contains(got, []byte(ids[5])) {
		t.Fatalf("a pane the caller may not read is listed, or one it may is not: %s", got)
	}
}

// BenchmarkListPanesReply1000: the ListPanes reply message over 1000 live
// idle panes, from the kept records (what Mux.ListPanes does) and encoded
// whole (what it did before: every pane's record made and encoded anew).
func BenchmarkListPanesReply1000(b *testing.B) {
	svc := newRecordsService(b)
	var ws string
	for i := 0; i < 1000; i++ {
		if i%100 == 0 {
			w, err := svc.CreateWorkspace("", "")
			if err != nil {
				b.Fatal(err)
			}
			ws = w.ID
		}
		if _, err := svc.SpawnPane(service.SpawnRequest{Workspace: ws, Argv: []string{"sleep", "1000"}}); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("kept", func(b *testing.B) {
		pr := newPaneRecords()
		b.ReportAllocs()
		for b.Loop() {
			if _, err := pr.listPanes(svc, "", "", func(string) bool { return true }); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("whole", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			wholeReply(b, svc, "")
		}
	})
}
