package pty

import (
	"os"
	"testing"
)

// BenchmarkLookPath: finding `true` as Start does, through this process's
// PATH (Env) and through /usr/bin:/bin (Short), to show what each further
// directory before the program's costs.
func BenchmarkLookPath(b *testing.B) {
	for _, c := range []struct{ name, path string }{{"Env", os.Getenv("PATH")}, {"Short", "/usr/bin:/bin"}} {
		b.Run(c.name, func(b *testing.B) {
			env := []string{"PATH=" + c.path}
			for b.Loop() {
				if _, err := lookPath("true", env); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
