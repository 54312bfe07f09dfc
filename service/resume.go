package service

import (
	"slices"

	"github.com/signaltty/signaltty/service/agents"
)

// ResumePane starts the command that resumes a pane's agent session
// (Mux.ResumePane; docs/agents.md, "Resume"): the agent's resume argv, in
// the pane's cwd, with the agent's config_env as the pane's whole own
// environment (nothing else of the environment it was spawned with), as a
// fresh PTY child in the same pane slot through the one start path: same
// id, tab and title, the earlier rows kept above the new output. The
// agent's lifecycle starts again at unknown. Only for a pane without a
// process whose agent has a session and a resume command. Errors:
// not_found.pane, conflict.pane_live, conflict.resuming (another start of
// this pane is under way: of two concurrent resumes exactly one wins),
// conflict.not_resumable, invalid_params.cwd, unavailable.spawn (the
// program is missing or cannot run; the pane stays as it was),
// unavailable.shutdown.
func (s *Service) ResumePane(id string) (Pane, error) {
	snap, err := s.restartPane(id, "resuming", func(p *pane) (*restartCommand, *Error) {
		a := &p.agent
		if !a.resumable() {
			return nil, newError("conflict.not_resumable", map[string]any{"pane": id, "kind": a.kind},
				"pane %s has no agent session to resume", id)
		}
		env := map[string]string{}
		for k, v := range a.configEnv {
			env[k] = v
		}
		return &restartCommand{argv: slices.Clone(a.resumeArgv), env: env, committed: func(p *pane) {
			s.setLifecycle(p, agents.LifecycleUnknown)
		}}, nil
	})
	if err != nil {
		return Pane{}, err
	}
	s.log.Info("pane resumed", "pane", snap.ID, "kind", snap.Agent.Kind, "pid", snap.Pid)
	return snap, nil
}

// AutoResume resumes, in every workspace whose auto_resume is on, each
// pane restored with an official resume command (built by its adapter;
// never a self-reported one, never a plain pane's saved command). Called
// once at daemon start, after Restore. Failures are logged; the panes stay
// RESUMABLE.
func (s *Service) AutoResume() {
	s.mu.Lock()
	var ids []string
	for _, wid := range s.wsOrder {
		w := s.workspaces[wid]
		if !w.autoResume {
			continue
		}
		for _, tid := range w.tabs {
			for _, p := range s.tabPanes(s.tabs[tid]) {
				if p.state == stateRestored && p.resumable && p.officialResume() {
					ids = append(ids, p.id)
				}
			}
		}
	}
	s.mu.Unlock()
	for _, id := range ids {
		if _, err := s.ResumePane(id); err != nil {
			s.log.Warn("auto-resume failed; the pane stays resumable", "pane", id, "err", err)
		}
	}
}

// SetWorkspaceAutoResume turns a workspace's auto_resume on or off
// (Mux.SetWorkspace). Errors: not_found.workspace.
func (s *Service) SetWorkspaceAutoResume(ref string, on bool) (Workspace, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	w, err := s.lookupWorkspace(ref)
	if err != nil {
		return Workspace{}, err
	}
	if w.autoResume != on {
		w.autoResume = on
		s.emit(WorkspaceUpdated{Workspace: w.id, Name: w.name})
	}
	return w.snapshot(), nil
}
