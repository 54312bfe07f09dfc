package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/signaltty/signaltty/pty"
	"github.com/signaltty/signaltty/term"
	vl "github.com/varlink/go/varlink"
)

type daemon struct {
	dir  string
	addr string
	cmd  *exec.Cmd
	conn *vl.Connection // the measured connection
	// parts of once: Run.Start, Run.Wait, and a bare Run.Get after them
	start, wait, get, raw []time.Duration
	rawc                  net.Conn // a connection spoken to without the client library
	rawr                  *bufio.Reader
	hk                    *vl.Connection // housekeeping (pane removal, untimed)
}

func start(bin string) (*daemon, error) {
	dir, err := os.MkdirTemp("", "callpath-")
	if err != nil {
		return nil, err
	}
	for _, d := range []string{"run", "state", "home"} {
		os.MkdirAll(filepath.Join(dir, d), 0o700)
	}
	d := &daemon{dir: dir, addr: "unix:" + filepath.Join(dir, "run", "sock")}
	d.cmd = exec.Command(filepath.Join(bin, "signalttyd"))
	d.cmd.Env = append(os.Environ(), "XDG_RUNTIME_DIR="+filepath.Join(dir, "run"), "XDG_STATE_HOME="+filepath.Join(dir, "state"),
		"HOME="+filepath.Join(dir, "home"), "SIGNALTTY_ADDRESS="+d.addr, "SIGNALTTY_LOGIND=0", "SIGNALTTY_NO_AUTOSTART=1")
	if os.Getenv("CALLPATH_PPROF") != "" {
		d.cmd.Env = append(d.cmd.Env, "SIGNALTTY_PPROF="+os.Getenv("CALLPATH_PPROF"))
	}
	logf, _ := os.Create(filepath.Join(dir, "daemon.log"))
	d.cmd.Stdout, d.cmd.Stderr = logf, logf
	d.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := d.cmd.Start(); err != nil {
		return nil, err
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		c, err := vl.NewConnection(context.Background(), d.addr)
		if err == nil {
			d.conn = c
			break
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%s did not answer: %v", bin, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	d.hk, err = vl.NewConnection(context.Background(), d.addr)
	if err != nil {
		return nil, err
	}
	if d.rawc, err = net.Dial("unix", strings.TrimPrefix(d.addr, "unix:")); err != nil {
		return nil, err
	}
	d.rawr = bufio.NewReader(d.rawc)
	return d, d.call(d.hk, "dev.signaltty.Mux.CreateWorkspace", map[string]any{"name": "lat"}, nil)
}

func (d *daemon) stop() {
	d.conn.Close()
	d.hk.Close()
	d.cmd.Process.Signal(syscall.SIGTERM)
	d.cmd.Wait()
	os.RemoveAll(d.dir)
}

func (d *daemon) call(c *vl.Connection, method string, params, out any) error {
	var raw json.RawMessage
	if err := c.Call(context.Background(), method, params, &raw); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	if out != nil {
		return json.Unmarshal(raw, out)
	}
	return nil
}

var seq int

// once is Run.Start then Run.Wait (streaming, as the compare bench does),
// timed; the pane is removed afterwards, untimed.
func (d *daemon) once() (time.Duration, error) {
	seq++
	t0 := time.Now()
	var st struct{ Run, Pane string }
	if err := d.call(d.conn, "dev.signaltty.Run.Start", map[string]any{"key": fmt.Sprint("k", seq), "workspace": "lat", "argv": []string{"true"}}, &st); err != nil {
		return 0, err
	}
	t1 := time.Now()
	recv, err := d.conn.Send(context.Background(), "dev.signaltty.Run.Wait", map[string]any{"run": st.Run, "output": true}, vl.More)
	if err != nil {
		return 0, err
	}
	for {
		var r struct{ Record struct{ Status *int } }
		flags, err := recv(context.Background(), &r)
		if err != nil {
			return 0, err
		}
		if flags&vl.Continues == 0 {
			if r.Record.Status == nil || *r.Record.Status != 0 {
				return 0, fmt.Errorf("run %s did not succeed", st.Run)
			}
			break
		}
	}
	el := time.Since(t0)
	t2 := time.Now()
	if err := d.call(d.conn, "dev.signaltty.Run.Get", map[string]any{"run": st.Run, "output": false}, nil); err != nil {
		return 0, err
	}
	t3 := time.Now()
	msg, _ := json.Marshal(map[string]any{"method": "dev.signaltty.Run.Get", "parameters": map[string]any{"run": st.Run, "output": false}})
	if _, err := d.rawc.Write(append(msg, 0)); err != nil {
		return 0, err
	}
	if _, err := d.rawr.ReadSlice(0); err != nil {
		return 0, err
	}
	d.raw = append(d.raw, time.Since(t3))
	d.start, d.wait, d.get = append(d.start, t1.Sub(t0)), append(d.wait, t0.Add(el).Sub(t1)), append(d.get, t3.Sub(t2))
	return el, d.call(d.hk, "dev.signaltty.Mux.RemovePane", map[string]any{"pane": st.Pane, "kill": true}, nil)
}

// floorStart are the floor's pty.Start durations (open, spawn until exec).
var floorStart []time.Duration

func floor() (time.Duration, error) {
	t0 := time.Now()
	replies := pty.NewReplies()
	out := term.NewTerminal(term.Config{Cols: 80, Rows: 24, Replies: replies}) // a pane's terminal
	p, err := pty.Start(pty.Config{Argv: []string{"true"}, Env: []string{"PATH=/usr/bin:/bin"}, Dir: "/", Cols: 80, Rows: 24, Replies: replies}, out)
	if err != nil {
		out.Close()
		return 0, err
	}
	floorStart = append(floorStart, time.Since(t0))
	<-p.Done()
	p.Close()
	return time.Since(t0), nil
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }

func main() {
	rounds := flag.Int("rounds", 10, "rounds; each runs every system n times, interleaved")
	n := flag.Int("n", 40, "samples per system per round")
	idle := flag.Int("idle", 0, "then time this many bare Run.Get calls (no client library) with no run in flight, 0.5 ms apart, per build")
	flag.Parse()
	var ds []*daemon
	for _, bin := range flag.Args() {
		d, err := start(bin)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		defer d.stop()
		ds = append(ds, d)
	}
	for i := 0; i < 20; i++ { // warm up
		floor()
		for _, d := range ds {
			if _, err := d.once(); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
		}
	}
	allRatio := make([][]float64, len(ds))
	for r := 0; r < *rounds; r++ {
		fl := []time.Duration{}
		ts := make([][]time.Duration, len(ds))
		for i := 0; i < *n; i++ {
			t, err := floor()
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
			fl = append(fl, t)
			for _, j := range rand.Perm(len(ds)) { // no build always follows the floor
				d := ds[j]
				t, err := d.once()
				if err != nil {
					fmt.Fprintln(os.Stderr, err)
					os.Exit(1)
				}
				ts[j] = append(ts[j], t)
			}
		}
		fm := median(fl)
		line := fmt.Sprintf("round %2d floor %6.3f ms", r, float64(fm)/1e6)
		for j := range ds {
			m := median(ts[j])
			ratio := float64(m) / float64(fm)
			allRatio[j] = append(allRatio[j], ratio)
			line += fmt.Sprintf("  | %s %6.3f ms %.2fx", flag.Arg(j), float64(m)/1e6, ratio)
		}
		fmt.Println(line)
	}
	for j, d := range ds {
		if *idle == 0 {
			break
		}
		msg := []byte(`{"method":"dev.signaltty.Run.Get","parameters":{"run":"r1","output":false}}` + "\x00")
		var ts []time.Duration
		for i := 0; i < *idle; i++ {
			time.Sleep(500 * time.Microsecond)
			t0 := time.Now()
			d.rawc.Write(msg)
			if _, err := d.rawr.ReadSlice(0); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
			ts = append(ts, time.Since(t0))
		}
		fmt.Printf("%s: bare Run.Get with nothing else running (no client library): median %.3f ms\n", flag.Arg(j), ms(median(ts)))
	}
	fmt.Printf("floor: pty.Start returned after %.3f ms (median)\n", ms(median(floorStart)))
	for j := range ds {
		s := slices.Clone(allRatio[j])
		slices.Sort(s)
		fmt.Printf("%s: median ratio to floor %.2fx (rounds %.2f..%.2f); medians: Start %.3f ms, Wait %.3f ms, bare Run.Get %.3f ms (without the client library %.3f ms)\n",
			flag.Arg(j), s[len(s)/2], s[0], s[len(s)-1], ms(median(ds[j].start)), ms(median(ds[j].wait)), ms(median(ds[j].get)), ms(median(ds[j].raw)))
	}
}
