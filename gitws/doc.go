// Package gitws reads and changes the git checkouts signaltty workspaces
// live in, by running the git program (never a reimplementation of git).
//
// What it answers is a workspace's git state (Inspect): the top of the
// working tree, the branch or detached commit, whether there are changes,
// and whether the directory is a linked worktree and of which main
// repository. What it changes is the set of worktrees of a repository
// (AddWorktree, UndoAdd, RemoveWorktree). The contract is docs/workspaces.md.
//
// Every call runs git as a child process with a deadline, in the C locale,
// without a terminal prompt, without optional locks (a status never takes
// the index lock an agent's own git may need) and without the caller's
// GIT_* variables. Callers must not hold locks of their own across these
// calls: they are process and disk work.
//
// A missing git program is not an error of Inspect: there is no git state.
// Errors of the changing calls are *Error values with a Kind the caller maps
// to its own error codes.
package gitws
