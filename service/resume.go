package service

import (
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/signaltty/signaltty/service/agents"
	"github.com/signaltty/signaltty/service/errcode"
	"github.com/signaltty/signaltty/service/events"
)

// ResumePane is ResumePaneWith without changes to the environment.
func (s *Service) ResumePane(id string) (Pane, error) {
	p, _, err := s.ResumePaneWith(id, RestartEnv{})
	return p, err
}

// ResumePaneWith starts the command that resumes a pane's agent session
// (Mux.ResumePane; docs/agents.md, "Restore and resume"): the agent's resume argv, in
// the pane's cwd, with the pane's environment (the one it was started
// with while the daemon runs; after a restart the allowlisted saved part)
// plus the agent's config_env, changed by r, as a fresh PTY child in the
// same pane slot through the one start path: same id, tab and title, the
// earlier rows kept above the new output. A pane whose command is a shell
// stays a shell: the shell is started and the resume command typed into
// it. lost names the variables the pane was started with that the new
// process does not have. The agent's lifecycle starts again at unknown.
// Only for a pane without a process whose agent has a session and a
// resume command. Errors: not_found.pane, conflict.pane_live,
// conflict.resuming (another start of this pane is under way: of two
// concurrent resumes exactly one wins), conflict.not_resumable,
// invalid_params.cwd, invalid_params.env, invalid_params.env_unset,
// unavailable.spawn (the program is missing or cannot run; the pane stays
// as it was, its command included), unavailable.shutdown.
func (s *Service) ResumePaneWith(id string, r RestartEnv) (Pane, []string, error) {
	snap, lost, err := s.restartPane(id, errcode.ConflictResuming, r, func(p *pane) (*restartCommand, *Error) {
		a := &p.agent
		if !a.Resumable() {
			return nil, newError(errcode.ConflictNotResumable, map[string]any{"pane": id, "kind": a.Kind},
				"pane %s has no agent session to resume", id)
		}
		env := maps.Clone(p.env)
		if env == nil {
			env = map[string]string{}
		}
		for k, v := range a.ConfigEnv {
			env[k] = v
		}
		cmd := &restartCommand{argv: slices.Clone(a.ResumeArgv), env: env, committed: func(p *pane) {
			s.agentChangedLocked(p, p.agent.SetLifecycle(p.id, agents.LifecycleUnknown))
		}}
		if len(p.argv) > 0 && isShell(p.argv[0]) && !slices.Equal(p.argv, a.ResumeArgv) {
			cmd.argv, cmd.typed = slices.Clone(p.argv), shellLine(a.ResumeArgv)+"\r"
		}
		return cmd, nil
	})
	if err != nil {
		return Pane{}, nil, err
	}
	s.log.Info("pane resumed", "pane", snap.ID, "kind", snap.Agent.Kind, "pid", snap.Pid)
	return snap, lost, nil
}

// shells are the programs a pane may have been started with whose agent
// was started from them: their resume keeps them.
var shells = []string{"bash", "sh", "dash", "zsh", "fish", "ksh", "mksh", "tcsh", "csh", "ash", "nu", "elvish", "xonsh"}

// isShell reports whether argv0 names an interactive shell.
func isShell(argv0 string) bool {
	return slices.Contains(shells, strings.TrimPrefix(filepath.Base(argv0), "-"))
}

// shellLine is argv as one line a POSIX shell (and fish) runs as it is:
// each argument that is not plain is in single quotes.
func shellLine(argv []string) string {
	out := make([]string, len(argv))
	for i, a := range argv {
		plain := a != ""
		for _, r := range a {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,@+%", r)) {
				plain = false
				break
			}
		}
		if plain {
			out[i] = a
		} else {
			out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strings.Join(out, " ")
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
				if p.state == stateRestored && p.resumable && p.agent.OfficialResume(p.launch()) {
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
		s.emitLocked(events.WorkspaceUpdated{Workspace: w.id, Name: w.name})
	}
	return w.snapshot(), nil
}
