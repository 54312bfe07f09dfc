package main

import "github.com/spf13/cobra"

// versionFlag gives the root command --version: it prints "signaltty
// VERSION" (the build's version, see skill.go) and exits 0, without
// calling the daemon.
func versionFlag(root *cobra.Command) {
	root.Version = version
	root.SetVersionTemplate("signaltty {{.Version}}\n")
}
