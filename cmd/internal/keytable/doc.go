// Package keytable is the list of every key of signaltty's attached
// views (docs/attach.md, "Keys"), in tables as tmux's list-keys has them:
// root (any time), prefix (after the prefix key), history (the history
// view, as tmux's copy mode), mouse (with --mouse) and navigator (its
// prompt). `signaltty attach --keys` prints it and the table in
// docs/attach.md is its Markdown, which a test compares.
package keytable
