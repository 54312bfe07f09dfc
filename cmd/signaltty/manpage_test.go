package main

import (
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// manText is signaltty(1) as plain words: roff font escapes and the
// escaped hyphens removed, so "\fB\-\-pane\fR" reads "--pane".
func manText(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../../packaging/man/signaltty.1")
	if err != nil {
		t.Fatal(err)
	}
	s := regexp.MustCompile(`\\f[BIRP]`).ReplaceAllString(string(b), "")
	return strings.ReplaceAll(s, `\-`, "-")
}

// Every command and each of its flags is in signaltty(1): the man page
// names each command path (e.g. "pane wait") on a line that starts its
// entry, and each flag (e.g. "--timeout-ms") in that entry or the page.
func TestManPageHasEveryCommandAndFlag(t *testing.T) {
	man := manText(t)
	a := &app{out: io.Discard, errw: io.Discard}
	var walk func(c *cobra.Command, path string)
	walk = func(c *cobra.Command, path string) {
		if c.Hidden || c.Name() == "help" || c.Name() == "completion" {
			return
		}
		if c.Runnable() && !strings.Contains(man, path) {
			t.Errorf("signaltty.1 lacks the command %q", path)
		}
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			if f.Hidden || f.Name == "help" {
				return
			}
			if !regexp.MustCompile(`--` + regexp.QuoteMeta(f.Name) + `\b`).MatchString(man) {
				t.Errorf("signaltty.1 lacks %s's flag --%s", path, f.Name)
			}
		})
		for _, sub := range c.Commands() {
			walk(sub, path+" "+sub.Name())
		}
	}
	for _, tc := range topCommands {
		walk(tc.build(a), tc.names[0])
	}
}

// The man pages hold text only: a control byte (a form feed where "\f" was
// meant, say) garbles what man shows.
func TestManPagesHaveNoControlBytes(t *testing.T) {
	pages, _ := filepath.Glob("../../packaging/man/*.[0-9]")
	if len(pages) < 2 {
		t.Fatalf("man pages: %v", pages)
	}
	for _, p := range pages {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for i, c := range b {
			if c < 0x20 && c != '\n' && c != '\t' {
				t.Errorf("%s has control byte %#x at offset %d (a font escape is backslash f)", filepath.Base(p), c, i)
			}
		}
	}
}
