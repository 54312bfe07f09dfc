package main

import "testing"

func TestKeyBytesNamesKeysAsTmux(t *testing.T) {
	for name, want := range map[string]string{
		"Enter": "\r", "C-c": "\x03", "C-\\": "\x1c", "^C": "\x03", "C-Space": "\x00", "M-x": "\x1bx",
		"Up": "\x1b[A", "C-Up": "\x1b[1;5A", "S-F5": "\x1b[15;2~", "F1": "\x1bOP", "C-F1": "\x1b[1;5P",
		"BSpace": "\x7f", "a": "a", "S-a": "A", "M-C-a": "\x1b\x01", "日": "日", "C-?": "\x7f",
	} {
		got, err := keyBytes(name)
		if err != nil || got != want {
			t.Errorf("keyBytes(%q) = %q, %v; want %q", name, got, err, want)
		}
	}
	for _, bad := range []string{"Bogus", "X-a", "C-日", "", "C-Enter"} {
		if got, err := keyBytes(bad); err == nil {
			t.Errorf("keyBytes(%q) = %q, want an error", bad, got)
		}
	}
}
