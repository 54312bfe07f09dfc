// Command failures prints, for the go test -json event files named on its
// command line, each failed test with the messages it logged (its
// "file.go:N: " lines; go test does not tell t.Log from t.Error), so the
// end of a long run names what failed without its whole output.
// tests/run prints it last on a failure.
//
// Output: "  PACKAGE TEST" and under it "      FILE.go:N: MESSAGE" lines,
// each cut at 240 bytes; of more than five, the first two and the last
// three. A failed test that logged no such line (a timeout, a panic)
// shows the last line of its output instead; a test whose subtest failed
// is left to the subtest's lines.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"regexp"
	"strings"
	"unicode/utf8"
)

// event is one line of go test -json (cmd/test2json).
type event struct {
	Action  string
	Package string
	Test    string
	Output  string
}

type key struct{ pkg, test string }

var logLine = regexp.MustCompile(`^\s+[\w.-]+\.go:\d+: `)

func main() {
	var order []key
	logged, last := map[key][]string{}, map[key]string{}
	failed := map[key]bool{}
	for _, name := range os.Args[1:] {
		f, err := os.Open(name)
		if err != nil {
			fmt.Fprintln(os.Stderr, "failures:", err)
			os.Exit(2)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			var e event
			if json.Unmarshal(sc.Bytes(), &e) != nil || e.Test == "" {
				continue
			}
			k := key{e.Package, e.Test}
			switch e.Action {
			case "output":
				line := strings.TrimRight(e.Output, "\n")
				if logLine.MatchString(line) {
					logged[k] = append(logged[k], strings.TrimSpace(line))
				}
				if s := strings.TrimSpace(line); s != "" && !strings.HasPrefix(s, "--- FAIL") && !strings.HasPrefix(s, "=== ") {
					last[k] = s
				}
			case "fail":
				if !failed[k] {
					failed[k] = true
					order = append(order, k)
				}
			}
		}
		f.Close()
	}
	for _, k := range order {
		if hasFailedChild(k, failed) {
			continue
		}
		lines := logged[k]
		if len(lines) == 0 {
			lines = []string{last[k]}
		}
		if len(lines) > 5 {
			lines = append(append(lines[:2:2], "…"), lines[len(lines)-3:]...)
		}
		fmt.Printf("  %s %s\n", path.Base(k.pkg), k.test)
		for _, l := range lines {
			if len(l) > 240 {
				n := 240
				for n > 0 && !utf8.RuneStart(l[n]) {
					n--
				}
				l = l[:n] + "…"
			}
			fmt.Printf("      %s\n", l)
		}
	}
}

// hasFailedChild reports whether a subtest of k failed too (then the
// subtest's line says why, and k's adds nothing).
func hasFailedChild(k key, failed map[key]bool) bool {
	for o := range failed {
		if o.pkg == k.pkg && strings.HasPrefix(o.test, k.test+"/") {
			return true
		}
	}
	return false
}
