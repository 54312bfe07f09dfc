package main

import (
	"strings"

	"github.com/spf13/cobra"
)

// topCommand is one top-level command: its names (the first word of Use,
// then its aliases) and what builds it.
type topCommand struct {
	names []string
	build func(*app) *cobra.Command
}

// topCommands are signaltty's top-level commands, in the order help lists
// them. A new command is added here.
var topCommands = []topCommand{
	{[]string{"status"}, statusCmd}, {[]string{"whoami"}, whoamiCmd}, {[]string{"doctor"}, doctorCmd},
	{[]string{"shutdown"}, shutdownCmd}, {[]string{"save"}, saveCmd}, {[]string{"snapshot"}, snapshotCmd},
	{[]string{"config"}, configCmd}, {[]string{"workspace", "ws"}, workspaceCmd}, {[]string{"tab"}, tabCmd},
	{[]string{"pane"}, paneCmd}, {[]string{"run"}, runCmd}, {[]string{"events"}, eventsCmd},
	{[]string{"attach"}, attachCmd}, {[]string{"mcp"}, mcpCmd}, {[]string{"skill"}, skillCmd},
	{[]string{"bridge"}, bridgeCmd}, {[]string{"resume"}, resumeCmd}, {[]string{"hook"}, hookCmd},
	{[]string{"report-session"}, reportSessionCmd}, {[]string{"agent"}, agentCmd},
	{[]string{"notify"}, notifyCmd}, {[]string{"notifications"}, notificationsCmd},
}

// commandsFor builds the top-level commands an invocation with args needs:
// only the one its first word names, else (no command, help, completion,
// an unknown command that gets suggestions, a flag it does not know before
// the command) all of them. Building every command and its flags is a
// tenth of a short call's time.
func commandsFor(a *app, args []string) []*cobra.Command {
	if word := commandWord(args); word != "" {
		for _, t := range topCommands {
			for _, n := range t.names {
				if n == word {
					return []*cobra.Command{t.build(a)}
				}
			}
		}
	}
	all := make([]*cobra.Command, 0, len(topCommands))
	for _, t := range topCommands {
		all = append(all, t.build(a))
	}
	return all
}

// commandWord is the first argument that is not one of the root's own
// flags (--address V, --address=V, --json[=B]), or "" when another flag or
// "--" comes first.
func commandWord(args []string) string {
	for i := 0; i < len(args); i++ {
		switch arg := args[i]; {
		case arg == "--address":
			i++
		case strings.HasPrefix(arg, "--address="), arg == "--json", strings.HasPrefix(arg, "--json="):
		case strings.HasPrefix(arg, "-"):
			return ""
		default:
			return arg
		}
	}
	return ""
}
