package service

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// gitRepo makes <tmp>/proj, a repository on main with one commit.
func gitRepo(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "proj")
	os.Mkdir(dir, 0o755)
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"commit", "-q", "--allow-empty", "-m", "first"}} {
		gitRun(t, dir, args...)
	}
	return dir
}

func gitRun(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.org",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.org", "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// gatedGit makes s run git through a wrapper that, for git worktree add,
// creates <dir>/started and waits until <dir>/go exists.
func gatedGit(t *testing.T, s *Service) (dir string) {
	t.Helper()
	real, err := exec.LookPath("git")
	if err != nil {
		t.Fatal("these tests need git")
	}
	dir = t.TempDir()
	script := filepath.Join(dir, "git")
	body := "#!/bin/sh\nif [ \"$1 $2\" = \"worktree add\" ]; then\n  : > " + dir + "/started\n" +
		"  while [ ! -e " + dir + "/go ]; do sleep 0.01; done\nfi\nexec " + real + " \"$@\"\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	s.git.git.Path = script
	return dir
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

func TestSlowGitWorktreeAddHoldsNoLock(t *testing.T) {
	s := newTestService(t)
	gate := gatedGit(t, s)
	repo := gitRepo(t)
	done := make(chan error, 1)
	go func() {
		_, _, err := s.CreateWorkspaceWith(context.Background(), NewWorkspace{Branch: "slow", Repo: repo})
		done <- err
	}()
	waitFor(t, "git worktree add to start", func() bool { return exists(filepath.Join(gate, "started")) })
	// While git runs, the daemon answers: nothing waits on s.mu.
	s.ListWorkspaces()
	if _, err := s.CreateWorkspace("other", repo); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(gate, "go"), nil, 0o644)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestConcurrentWorktreeCreatesForOneBranch(t *testing.T) {
	s := newTestService(t)
	repo := gitRepo(t)
	const n = 4
	var wg sync.WaitGroup
	codes := make([]string, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _, err := s.CreateWorkspaceWith(context.Background(), NewWorkspace{Branch: "same", Repo: repo})
			codes[i] = code(err)
		}()
	}
	wg.Wait()
	ok := 0
	for _, c := range codes {
		switch c {
		case "":
			ok++
		case "conflict.path_exists", "conflict.branch_checked_out":
		default:
			t.Errorf("unexpected outcome %q", c)
		}
	}
	if ok != 1 || len(s.ListWorkspaces()) != 1 {
		t.Fatalf("outcomes %v: want exactly one workspace", codes)
	}
	if n := strings.Count(gitRun(t, repo, "worktree", "list", "--porcelain"), "worktree "); n != 2 {
		t.Fatalf("%d worktrees registered, want 2", n)
	}
}

func TestShutdownDuringWorktreeAddUndoesIt(t *testing.T) {
	s := New(Config{Version: "test", Environ: os.Environ(), Logger: quiet})
	gate := gatedGit(t, s)
	repo := gitRepo(t)
	done := make(chan error, 1)
	go func() {
		_, _, err := s.CreateWorkspaceWith(context.Background(), NewWorkspace{Branch: "late", Repo: repo})
		done <- err
	}()
	waitFor(t, "git worktree add to start", func() bool { return exists(filepath.Join(gate, "started")) })
	stopped := make(chan struct{})
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		s.Shutdown(ctx)
		close(stopped)
	}()
	waitFor(t, "shutdown to begin", func() bool { s.mu.Lock(); defer s.mu.Unlock(); return s.stopping })
	select {
	case <-stopped:
		t.Fatal("Shutdown returned while a worktree was being added")
	default:
	}
	os.WriteFile(filepath.Join(gate, "go"), nil, 0o644)
	if c := code(<-done); c != "unavailable.shutdown" {
		t.Fatalf("create during shutdown: %q", c)
	}
	<-stopped
	if exists(filepath.Join(filepath.Dir(repo), "proj-worktrees")) {
		t.Error("the worktree's directories are left")
	}
	if b := gitRun(t, repo, "branch", "--list", "late"); b != "" {
		t.Errorf("branch left: %q", b)
	}
	if n := strings.Count(gitRun(t, repo, "worktree", "list", "--porcelain"), "worktree "); n != 1 {
		t.Errorf("%d worktrees registered, want 1", n)
	}
}
