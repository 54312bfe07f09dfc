package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Every SIGNALTTY_ variable the daemon reads is in signalttyd(8)'s
// ENVIRONMENT, except the hooks only test builds have.
func TestManPageNamesEveryEnvironmentVariable(t *testing.T) {
	man, err := os.ReadFile("../../packaging/man/signalttyd.8")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.ReplaceAll(string(man), `\-`, "-")
	testOnly := map[string]bool{"SIGNALTTY_PPROF": true, "SIGNALTTY_TEST_HOOKS": true}
	files, _ := filepath.Glob("*.go")
	name := regexp.MustCompile(`"(SIGNALTTY_[A-Z0-9_]+)"`)
	seen := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range name.FindAllStringSubmatch(string(src), -1) {
			seen++
			if !testOnly[m[1]] && !strings.Contains(text, m[1]) {
				t.Errorf("%s reads %s, which signalttyd.8 does not describe", f, m[1])
			}
		}
	}
	if seen < 20 {
		t.Fatalf("found only %d variable names in the daemon's sources", seen)
	}
}
