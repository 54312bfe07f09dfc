package address

import (
	"reflect"
	"testing"
)

func TestSSHAddressesBecomeTheSSHCommandVarlinkctlRuns(t *testing.T) {
	for _, c := range []struct {
		addr string
		want []string
	}{
		{"ssh-unix:build:/run/user/1000/signaltty/dev.signaltty", []string{"-W", "/run/user/1000/signaltty/dev.signaltty", "build"}},
		{"ssh-unix:me@build.example:/s", []string{"-W", "/s", "me@build.example"}},
		{"ssh-exec:build:signaltty bridge", []string{"-e", "none", "-T", "build", "env", "SYSTEMD_VARLINK_LISTEN=-", "signaltty", "bridge"}},
		{"ssh-exec:build:/opt/bin/signaltty  --address unix:/x bridge", []string{"-e", "none", "-T", "build", "env", "SYSTEMD_VARLINK_LISTEN=-", "/opt/bin/signaltty", "--address", "unix:/x", "bridge"}},
	} {
		got, err := sshCommand(c.addr)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: got %q, %v; want %q", c.addr, got, err, c.want)
		}
	}
}

func TestMalformedSSHAddressesFail(t *testing.T) {
	for _, addr := range []string{"ssh-unix:build", "ssh-unix::/s", "ssh-unix:build:relative", "ssh-exec:build:", "ssh-exec:build:   ", "ssh-exec:-oProxyCommand=x:cmd"} {
		if args, err := sshCommand(addr); err == nil {
			t.Errorf("%s: want an error, got %q", addr, args)
		}
	}
}
