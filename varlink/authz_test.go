package varlink

import (
	"regexp"
	"testing"

	"github.com/signaltty/signaltty/service"
)

// Every method of every interface has a row in the authorization table,
// so a new method is never served unchecked (docs/security.md, "Checks").
func TestEveryMethodHasAnAuthorizationRow(t *testing.T) {
	svc := service.New(service.Config{})
	method := regexp.MustCompile(`(?m)^method ([A-Za-z]+)\(`)
	for _, d := range []Dispatcher{NewServerIface(svc, func() {}), NewMux(svc), NewRun(svc), NewEvents(svc)} {
		ms := method.FindAllStringSubmatch(d.VarlinkGetDescription(), -1)
		if len(ms) == 0 {
			t.Fatalf("%s: no methods found", d.VarlinkGetName())
		}
		for _, m := range ms {
			if _, ok := checks[d.VarlinkGetName()+"."+m[1]]; !ok {
				t.Errorf("%s.%s has no row in checks", d.VarlinkGetName(), m[1])
			}
		}
	}
	for verb, ck := range checks {
		if ck.right == "" && verb != "dev.signaltty.Server.WhoAmI" && ck.find == nil {
			if _, filtered := map[string]bool{"dev.signaltty.Mux.ListWorkspaces": true, "dev.signaltty.Mux.ListPanes": true, "dev.signaltty.Mux.ListPaneFields": true,
				"dev.signaltty.Run.List": true, "dev.signaltty.Events.Subscribe": true}[verb]; !filtered {
				t.Errorf("%s is open to every principal", verb)
			}
		}
	}
}
