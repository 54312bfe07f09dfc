// Package persist owns what a snapshot holds and how it comes back
// (docs/persistence.md): when saves happen and their writing (Saver: the
// debounce, the save intervals, the shutdown freeze, status), which pane
// tails a save offers the store and how they are read, the kept export of panes that did not change, how a saved pane's
// state is written and read back, what of a pane's environment is saved
// and what a restart gives the new process (docs/agents.md, "Credentials
// after a restart"), and the settings file's names, values and origins
// (docs/persistence.md, "Settings"). The file format and its atomic writes
// belong to package snapshot; the live model and its lock to the service,
// which a Saver reaches through the functions of its Model: it captures
// under that lock, writes outside it and applies the result under it again.
package persist
