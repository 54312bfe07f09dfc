package events

import (
	"strings"
	"time"
)

// Event is one published event (docs/events.md). Data never holds argv
// beyond argv0, the environment, input or output text.
type Event struct {
	Source   string
	Seq      int64
	Type     EventType
	Resource string
	Time     time.Time
	Data     EventData // one of the data types of this package
}

// Filter selects events: Types are dotted prefixes ("pane" matches
// "pane.exited"), Resources are ids; empty lists match all.
type Filter struct {
	Types     []string
	Resources []string
}

// Match reports whether f selects e.
func (f Filter) Match(e *Event) bool {
	ok := len(f.Types) == 0
	for _, t := range f.Types {
		if string(e.Type) == t || strings.HasPrefix(string(e.Type), t+".") {
			ok = true
			break
		}
	}
	if !ok {
		return false
	}
	if len(f.Resources) == 0 {
		return true
	}
	for _, r := range f.Resources {
		if e.Resource == r {
			return true
		}
	}
	return false
}
