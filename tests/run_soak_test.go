package tests

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/signaltty/signaltty/tests/harness"
	vl "github.com/varlink/go/varlink"
)

// TestRunRetrySoak drops the connection of 1000 starts at a random point
// (right after sending, or after a random delay of up to 3 ms, mostly
// before the reply), repeats each identical request on a new connection
// until it gets a start result, and checks from the commands' own marker
// lines that every command ran exactly once. SIGNALTTY_SOAK=1 runs it;
// SIGNALTTY_SOAK_N changes the number of iterations.
//
//	SIGNALTTY_SOAK=1 go test -count=1 -v -run TestRunRetrySoak ./tests/
func TestRunRetrySoak(t *testing.T) {
	if os.Getenv("SIGNALTTY_SOAK") != "1" {
		t.Skip("soak test: set SIGNALTTY_SOAK=1 to run 1000 dropped-and-retried starts")
	}
	n := 1000
	if s := os.Getenv("SIGNALTTY_SOAK_N"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil || v < 1 {
			t.Fatalf("SIGNALTTY_SOAK_N=%q", s)
		}
		n = v
	}
	d := harness.Start(t)
	ws := d.CreateWorkspace(t, "soak").ID
	markerFile := filepath.Join(harness.TempDir(t), "starts")
	seed := uint64(time.Now().UnixNano())
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	t.Logf("seed %d, %d iterations", seed, n)

	dial := func() *vl.Connection {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		c, err := vl.NewConnection(ctx, d.Address)
		if err != nil {
			t.Fatalf("dial: %v", err)
		}
		return c
	}
	var (
		dropNow, dropLater       int
		fresh, reused, joinedErr int
		maxRetries               int
	)
	start := time.Now()
	for i := 0; i < n; i++ {
		key := fmt.Sprintf("soak-%04d", i)
		params := harness.ShellSpec(key, ws, "echo "+key+" >> '"+markerFile+"'; exit 0").Params()
		c := dial()
		// The reply is never read.
		if _, err := c.Send(context.Background(), "dev.signaltty.Run.Start", params, 0); err != nil {
			t.Fatalf("%s: send: %v", key, err)
		}
		if rng.IntN(2) == 0 {
			dropNow++
		} else {
			dropLater++
			// The drop point is random, not a synchronisation.
			time.Sleep(time.Duration(rng.IntN(3000)) * time.Microsecond)
		}
		c.Close()
		for try := 0; ; try++ {
			c2 := dial()
			var out json.RawMessage
			ctx, cancel := context.WithTimeout(context.Background(), harness.CallTimeout)
			err := c2.Call(ctx, "dev.signaltty.Run.Start", params, &out)
			cancel()
			c2.Close()
			if err != nil {
				var ve *vl.Error
				if e, ok := err.(*vl.Error); ok {
					ve = e
				}
				if ve != nil && try < 10 {
					var p struct{ Code string }
					if raw, ok := ve.Parameters.(*json.RawMessage); ok && raw != nil {
						json.Unmarshal(*raw, &p)
					}
					if p.Code == "cancelled" { // it joined the dropped start, which was rolled back
						joinedErr++
						maxRetries = max(maxRetries, try+1)
						continue
					}
				}
				t.Fatalf("%s: retry %d: %v", key, try, err)
			}
			var r struct {
				Run    string `json:"run"`
				Reused bool   `json:"reused"`
			}
			json.Unmarshal(out, &r)
			if r.Reused {
				reused++
			} else {
				fresh++
			}
			break
		}
	}
	elapsed := time.Since(start)
	// Every command has exited once no pane is live.
	harness.Eventually(t, 60*time.Second, "all runs completed", func() (bool, string) {
		st := d.Status(t)
		return st.LivePanes == 0, fmt.Sprintf("%d live panes", st.LivePanes)
	})
	b, _ := os.ReadFile(markerFile)
	perKey := map[string]int{}
	for _, l := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		if l != "" {
			perKey[l]++
		}
	}
	hist := map[int]int{}
	for i := 0; i < n; i++ {
		key := fmt.Sprintf("soak-%04d", i)
		hist[perKey[key]]++
		if perKey[key] != 1 {
			t.Errorf("%s ran %d times, want exactly once", key, perKey[key])
		}
	}
	summary := fmt.Sprintf("soak: %d iterations in %v (seed %d): dropped right after sending %d, after a random delay %d; "+
		"repeats: started fresh (the dropped start was rolled back) %d, reused (it had committed) %d; "+
		"repeats that joined a rolled-back start and got cancelled %d (most retries for one key %d); "+
		"marker lines per key: %v (count → keys)", n, elapsed.Round(time.Millisecond), seed, dropNow, dropLater,
		fresh, reused, joinedErr, maxRetries, hist)
	t.Log(summary)
	fmt.Println(summary)
}
