package events

import "testing"

func TestFilter(t *testing.T) {
	e := &Event{Type: "pane.exited", Resource: "pane_1"}
	for _, c := range []struct {
		f    Filter
		want bool
	}{
		{Filter{}, true},
		{Filter{Types: []string{"pane"}}, true},
		{Filter{Types: []string{"pane.exited"}}, true},
		{Filter{Types: []string{"pane.ex"}}, false},
		{Filter{Types: []string{"tab", "pane"}, Resources: []string{"pane_1"}}, true},
		{Filter{Resources: []string{"pane_2"}}, false},
	} {
		if got := c.f.Match(e); got != c.want {
			t.Errorf("%+v.Match = %v, want %v", c.f, got, c.want)
		}
	}
}
