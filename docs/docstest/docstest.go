package docstest

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// Prose returns a text file with every run of white space, and the IDL's
// comment markers at the start of a line, turned into one space, so that a
// sentence reads the same however it is wrapped.
func Prose(tb testing.TB, path string) string {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	s := regexp.MustCompile(`\n[ \t]*#?[ \t]*`).ReplaceAllString(string(b), " ")
	return regexp.MustCompile(`[ \t]+`).ReplaceAllString(s, " ")
}

// Stated returns the numbers pattern captures in text, which it must match
// exactly once (else the test fails and Stated returns nil); in pattern '
// stands for a backquote. A number may have thousands separators (1,024).
// where names text in failures.
func Stated(tb testing.TB, where, text, pattern string) []int64 {
	tb.Helper()
	re := regexp.MustCompile(strings.ReplaceAll(pattern, "'", "`"))
	ms := re.FindAllStringSubmatch(text, -1)
	if len(ms) != 1 {
		tb.Errorf("%s: %q matches %d times, want once (reworded? then change the pattern, not the number)", where, pattern, len(ms))
		return nil
	}
	var out []int64
	for _, g := range ms[0][1:] {
		n, err := strconv.ParseInt(strings.ReplaceAll(g, ",", ""), 10, 64)
		if err != nil {
			tb.Fatalf("%s: %q: %v", where, pattern, err)
		}
		out = append(out, n)
	}
	return out
}
