package agents

// Hook is one hook event of a pane's agent, as ApplyHook takes it: the
// adapter's Decision for it, and what its payload names once checked.
type Hook struct {
	Kind     string   // the adapter's kind
	Decision Decision // Adapter.Classify of the event
	Session  string   // a checked session id ("" for none or an invalid one)
	Model    string   // a model name within bounds ("" for none)
	Live     bool     // the pane has a process (a late hook of a gone one sets identity only)
	Launch   string   // argv[0] of the pane's command ("" for none)
}

// ApplyHook applies a hook event (docs/agents.md, "Hook events"): the
// session and kind first, then, while the pane has a process, its
// lifecycle, attention and last message. notify reports that the event
// raises its Decision's notification, which the caller then adds
// (NoteList.Add) after publishing the Change.
func (a *State) ApplyHook(pane string, h Hook) (c Change, notify bool) {
	d := h.Decision
	if h.Session != "" {
		c = c.And(a.SetSession(pane, h.Kind, h.Session, nil, h.Launch))
	} else if a.Promotable() {
		a.Kind = h.Kind
		c = c.And(Change{Touched: true, Save: true})
	}
	if h.Model != "" && h.Model != a.Model {
		a.Model = h.Model
		c = c.And(Change{Touched: true})
	}
	if !h.Live {
		return c, false
	}
	lc := a.LifecycleName()
	if d.KeepFinished && (lc == LifecycleDone || lc == LifecycleFailed) {
		return c, false
	}
	if !(d.Tool && lc == LifecycleBlocked) {
		c = c.And(a.SetLifecycle(pane, d.Lifecycle))
	}
	if d.ClearAttention {
		c = c.And(a.ClearAttention(pane, "hook"))
	}
	if d.Answered || d.EndsTurn { // a question or permission never outlives its answer or its turn
		c = c.And(a.DropQuestion(pane, d.Attention))
	}
	if d.Attention != "" {
		c = c.And(a.RaiseAttention(pane, d.Attention))
	}
	if d.Message != "" {
		c = c.And(a.SetLastMessage(d.Message))
	}
	return c, d.NotifyTitle != ""
}
